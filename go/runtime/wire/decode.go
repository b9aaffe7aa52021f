package wire

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
)

// DecodeError is a value that does not match its schema type. Path names the failing place
// (`params.content[2].data`; empty for the value itself); Message says what is wrong
// (`required`, `expected string, got integer`, …).
type DecodeError struct {
	// segments of the path, innermost first: "key" or "[i]"
	segments []string
	Message  string
}

// Path is the dotted path of the failing value (`content[2].data`), empty for the value itself.
func (e *DecodeError) Path() string { return joinPath(e.segments) }

func (e *DecodeError) Error() string { return withPath(e.segments, e.Message) }

// EncodeError is a value that cannot be written as its schema type (a required member that is
// nil, a number that is not finite, a json.RawMessage that is not JSON). Path and Message as
// in DecodeError.
type EncodeError struct {
	segments []string
	Message  string
}

// Path is the dotted path of the failing value, empty for the value itself.
func (e *EncodeError) Path() string { return joinPath(e.segments) }

func (e *EncodeError) Error() string { return withPath(e.segments, e.Message) }

func joinPath(segments []string) string {
	var sb strings.Builder
	for i := len(segments) - 1; i >= 0; i-- {
		s := segments[i]
		if sb.Len() > 0 && s[0] != '[' {
			sb.WriteByte('.')
		}
		sb.WriteString(s)
	}
	return sb.String()
}

func withPath(segments []string, message string) string {
	p := joinPath(segments)
	if p == "" {
		return "(root): " + message
	}
	return p + ": " + message
}

// Errorf returns a *DecodeError for the value itself.
func Errorf(message string) error { return &DecodeError{Message: message} }

// At returns err with its path starting at the member key: a *DecodeError or *EncodeError
// gets the key prepended to its path; an error of another type becomes a *DecodeError whose
// message is its text. nil stays nil.
func At(err error, key string) error {
	if err == nil {
		return nil
	}
	var d *DecodeError
	if errors.As(err, &d) {
		d.segments = append(d.segments, key)
		return d
	}
	var e *EncodeError
	if errors.As(err, &e) {
		e.segments = append(e.segments, key)
		return e
	}
	return &DecodeError{segments: []string{key}, Message: err.Error()}
}

// AtIndex is At for the array element i.
func AtIndex(err error, i int) error {
	return At(err, "["+strconv.Itoa(i)+"]")
}

// Required is the error of a required member key that is absent.
func Required(key string) error {
	return &DecodeError{segments: []string{key}, Message: "required"}
}

// NotAllowed is the error of a member key a closed object does not declare.
func NotAllowed(key string) error {
	return &DecodeError{segments: []string{key}, Message: "not allowed"}
}

// KindOf names the JSON type of a value: object, array, string, boolean, null, integer (a
// number with no fractional part: 1 and 1.0) or number; "nothing" when data is empty.
func KindOf(data []byte) string {
	data = Trim(data)
	if len(data) == 0 {
		return "nothing"
	}
	switch data[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	if _, integer, err := skipNumber(data, 0); err == nil && !integer {
		if f, err := strconv.ParseFloat(string(data), 64); err == nil && f == math.Trunc(f) && !math.IsInf(f, 0) {
			return "integer"
		}
		return "number"
	}
	return "integer"
}

func expected(what string, data []byte) error {
	return &DecodeError{Message: "expected " + what + ", got " + KindOf(data)}
}

// String decodes a JSON string.
func String(data []byte) (string, error) {
	data = Trim(data)
	if len(data) == 0 || data[0] != '"' {
		return "", expected("string", data)
	}
	return Unquote(data)
}

// Int decodes a JSON integer (1.0 and 1e2 count: JSON Schema's "integer") into an int64.
func Int(data []byte) (int64, error) {
	data = Trim(data)
	if len(data) == 0 || (data[0] != '-' && (data[0] < '0' || data[0] > '9')) {
		return 0, expected("integer", data)
	}
	end, integer, err := skipNumber(data, 0)
	if err != nil || end != len(data) {
		return 0, expected("integer", data)
	}
	if integer {
		if n, ok := parseInt(data); ok {
			return n, nil
		}
		return 0, &DecodeError{Message: "integer out of range"}
	}
	f, err := strconv.ParseFloat(string(data), 64)
	if err != nil || f != math.Trunc(f) {
		return 0, expected("integer", data)
	}
	if f < math.MinInt64 || f >= math.MaxInt64 {
		return 0, &DecodeError{Message: "integer out of range"}
	}
	return int64(f), nil
}

// parseInt parses a JSON integer literal (checked by skipNumber) without allocating.
func parseInt(data []byte) (int64, bool) {
	neg := data[0] == '-'
	if neg {
		data = data[1:]
	}
	var n uint64
	for _, c := range data {
		d := uint64(c - '0')
		if n > (math.MaxUint64-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	if neg {
		if n > 1<<63 {
			return 0, false
		}
		return -int64(n), true
	}
	if n > math.MaxInt64 {
		return 0, false
	}
	return int64(n), true
}

// Float decodes a JSON number.
func Float(data []byte) (float64, error) {
	data = Trim(data)
	if len(data) == 0 || (data[0] != '-' && (data[0] < '0' || data[0] > '9')) {
		return 0, expected("number", data)
	}
	end, integer, err := skipNumber(data, 0)
	if err != nil || end != len(data) {
		return 0, expected("number", data)
	}
	if integer && len(data) < 16 {
		if n, ok := parseInt(data); ok {
			return float64(n), nil
		}
	}
	f, err := strconv.ParseFloat(string(data), 64)
	if err != nil {
		return 0, &DecodeError{Message: "number out of range"}
	}
	return f, nil
}

// Bool decodes a JSON boolean.
func Bool(data []byte) (bool, error) {
	data = Trim(data)
	switch string(data) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, expected("boolean", data)
}

// Any checks that data is one JSON value and returns a copy of it (whitespace around removed).
func Any(data []byte) (json.RawMessage, error) {
	data = Trim(data)
	if err := Check(data); err != nil {
		return nil, &DecodeError{Message: "not JSON: " + err.Error()}
	}
	return append(json.RawMessage(nil), data...), nil
}

// Kinds is a set of JSON types for Prims.
type Kinds uint8

// The JSON types of Kinds.
const (
	KindString Kinds = 1 << iota
	KindInteger
	KindNumber
	KindBoolean
	KindNull
)

func (k Kinds) names() string {
	var out []string
	for _, n := range []struct {
		k    Kinds
		name string
	}{{KindString, "string"}, {KindInteger, "integer"}, {KindNumber, "number"}, {KindBoolean, "boolean"}, {KindNull, "null"}} {
		if k&n.k != 0 {
			out = append(out, n.name)
		}
	}
	return strings.Join(out, " or ")
}

// Prims decodes a value of one of the primitive JSON types kinds (a number counts as an
// integer when it has no fractional part) and returns a copy of it.
func Prims(data []byte, kinds Kinds) (json.RawMessage, error) {
	var k Kinds
	switch KindOf(data) {
	case "string":
		k = KindString
	case "integer":
		k = KindInteger | KindNumber
	case "number":
		k = KindNumber
	case "boolean":
		k = KindBoolean
	case "null":
		k = KindNull
	}
	if k&kinds == 0 {
		return nil, expected(kinds.names(), data)
	}
	return Any(data)
}

// Null decodes the JSON null.
func Null(data []byte) error {
	if string(Trim(data)) != "null" {
		return expected("null", data)
	}
	return nil
}

// Enum decodes a JSON string that must be one of values.
func Enum(data []byte, values []string) (string, error) {
	s, err := String(data)
	if err == nil {
		for _, v := range values {
			if v == s {
				return v, nil
			}
		}
	}
	return "", &DecodeError{Message: "expected one of " + quoteAll(values) + ", got " + clip(data)}
}

// ConstString checks that data is the JSON string want.
func ConstString(data []byte, want string) error {
	if !EqualString(data, want) {
		return &DecodeError{Message: "expected " + strconv.Quote(want) + ", got " + clip(data)}
	}
	return nil
}

// ConstBool checks that data is the JSON boolean want.
func ConstBool(data []byte, want bool) error {
	if v, err := Bool(data); err != nil || v != want {
		return &DecodeError{Message: "expected " + strconv.FormatBool(want) + ", got " + clip(data)}
	}
	return nil
}

// ConstNumber checks that data is the JSON number want.
func ConstNumber(data []byte, want float64) error {
	if v, err := Float(data); err != nil || v != want {
		return &DecodeError{Message: "expected " + strconv.FormatFloat(want, 'g', -1, 64) + ", got " + clip(data)}
	}
	return nil
}

// InRange checks min <= v <= max (a nil bound is no bound).
func InRange(v float64, min, max *float64) error {
	if min != nil && v < *min {
		return &DecodeError{Message: "must be >= " + strconv.FormatFloat(*min, 'g', -1, 64)}
	}
	if max != nil && v > *max {
		return &DecodeError{Message: "must be <= " + strconv.FormatFloat(*max, 'g', -1, 64)}
	}
	return nil
}

// Bound returns a pointer to v (a bound for InRange).
func Bound(v float64) *float64 { return &v }

func quoteAll(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = strconv.Quote(v)
	}
	return strings.Join(q, ", ")
}

// clip is a value for an error message: at most 64 bytes of it.
func clip(data []byte) string {
	data = Trim(data)
	if len(data) > 64 {
		return string(data[:61]) + "..."
	}
	return string(data)
}

// List decodes a JSON array whose elements dec decodes; at most maxItems of them when
// maxItems >= 0. The slice is made once, at its final length.
func List[T any](data []byte, maxItems int, dec func([]byte) (T, error)) ([]T, error) {
	n, err := Count(data)
	if err != nil {
		return nil, err
	}
	if maxItems >= 0 && n > maxItems {
		return nil, &DecodeError{Message: "at most " + strconv.Itoa(maxItems) + " items"}
	}
	out := make([]T, n)
	a, _ := Elements(data)
	for i := 0; a.Next(); i++ {
		v, err := dec(a.Value())
		if err != nil {
			return nil, AtIndex(err, i)
		}
		out[i] = v
	}
	return out, nil
}

// Map decodes a JSON object whose member values dec decodes.
func Map[T any](data []byte, dec func([]byte) (T, error)) (map[string]T, error) {
	o, err := Members(data)
	if err != nil {
		return nil, err
	}
	out := map[string]T{}
	for o.Next() {
		k := string(o.Key())
		v, err := dec(o.Value())
		if err != nil {
			return nil, At(err, k)
		}
		out[k] = v
	}
	return out, o.Err()
}

// RawMap decodes a JSON object into its members' values (copied).
func RawMap(data []byte) (map[string]json.RawMessage, error) {
	o, err := Members(data)
	if err != nil {
		return nil, err
	}
	out := map[string]json.RawMessage{}
	for o.Next() {
		out[string(o.Key())] = append(json.RawMessage(nil), o.Value()...)
	}
	if err := o.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// Tag returns the index in values of the string member key of the object data: how a
// discriminated union finds its variant.
func Tag(data []byte, key string, values []string) (int, error) {
	o, err := Members(data)
	if err != nil {
		return -1, err
	}
	var found []byte
	for o.Next() {
		if string(o.Key()) == key {
			found = o.Value()
		}
	}
	if err := o.Err(); err != nil {
		return -1, err
	}
	if found == nil {
		return -1, Required(key)
	}
	for i, v := range values {
		if EqualString(found, v) {
			return i, nil
		}
	}
	return -1, At(&DecodeError{Message: "expected one of " + quoteAll(values) + ", got " + clip(found)}, key)
}

// JSONRPCKind tells a JSON-RPC message's kind from its members: request (method and id),
// notification (method), result, error; an error when it is none of kinds.
func JSONRPCKind(data []byte, kinds []string) (string, error) {
	o, err := Members(data)
	if err != nil {
		return "", err
	}
	var method, id, result, errMember bool
	for o.Next() {
		switch string(o.Key()) {
		case "method":
			method = true
		case "id":
			id = true
		case "result":
			result = true
		case "error":
			errMember = true
		}
	}
	if err := o.Err(); err != nil {
		return "", err
	}
	kind := ""
	switch {
	case method && id:
		kind = "request"
	case method:
		kind = "notification"
	case result:
		kind = "result"
	case errMember:
		kind = "error"
	default:
		return "", &DecodeError{Message: "not a JSON-RPC message (no method, result or error)"}
	}
	for _, k := range kinds {
		if k == kind {
			return kind, nil
		}
	}
	return "", &DecodeError{Message: "a JSON-RPC " + kind + " is not one of: " + strings.Join(kinds, ", ")}
}

// NoVariant is the error of a value that matches no variant of the union name.
func NoVariant(name string, errs []error) error {
	parts := make([]string, len(errs))
	for i, e := range errs {
		parts[i] = e.Error()
	}
	return &DecodeError{Message: "matches no variant of " + name + " (" + strings.Join(parts, "; ") + ")"}
}

// IntIn decodes an integer within bounds (a bound applies when its has flag is set).
func IntIn(data []byte, hasMin bool, min float64, hasMax bool, max float64) (int64, error) {
	n, err := Int(data)
	if err != nil {
		return 0, err
	}
	return n, within(float64(n), hasMin, min, hasMax, max)
}

// FloatIn decodes a number within bounds.
func FloatIn(data []byte, hasMin bool, min float64, hasMax bool, max float64) (float64, error) {
	f, err := Float(data)
	if err != nil {
		return 0, err
	}
	return f, within(f, hasMin, min, hasMax, max)
}

func within(v float64, hasMin bool, min float64, hasMax bool, max float64) error {
	if hasMin && v < min {
		return &DecodeError{Message: "must be >= " + strconv.FormatFloat(min, 'g', -1, 64)}
	}
	if hasMax && v > max {
		return &DecodeError{Message: "must be <= " + strconv.FormatFloat(max, 'g', -1, 64)}
	}
	return nil
}

// StringConst decodes the JSON string want.
func StringConst(data []byte, want string) (string, error) { return want, ConstString(data, want) }

// BoolConst decodes the JSON boolean want.
func BoolConst(data []byte, want bool) (bool, error) { return want, ConstBool(data, want) }

// IntConst decodes the JSON integer want.
func IntConst(data []byte, want int64) (int64, error) { return want, ConstNumber(data, float64(want)) }

// FloatConst decodes the JSON number want.
func FloatConst(data []byte, want float64) (float64, error) { return want, ConstNumber(data, want) }

// NullValue decodes the JSON null (as its text).
func NullValue(data []byte) (json.RawMessage, error) {
	if err := Null(data); err != nil {
		return nil, err
	}
	return json.RawMessage("null"), nil
}
