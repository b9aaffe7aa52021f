package wire

import (
	"encoding/json"
	"math"
	"sort"
	"strconv"
)

// Appender is a value that writes itself as JSON (every generated type is one).
type Appender interface {
	// AppendJSON appends the value's JSON to b; on error b may hold part of it.
	AppendJSON(b []byte) ([]byte, error)
}

// Comma appends ',' unless b ends an opening '{' or '[': the separator before an object member
// or array element.
func Comma(b []byte) []byte {
	if n := len(b); n > 0 && (b[n-1] == '{' || b[n-1] == '[') {
		return b
	}
	return append(b, ',')
}

// MissingRequired is the error of a required member key whose value is nil.
func MissingRequired(key string) error {
	return &EncodeError{segments: []string{key}, Message: "required"}
}

// AppendBool appends true or false.
func AppendBool(b []byte, v bool) []byte {
	if v {
		return append(b, "true"...)
	}
	return append(b, "false"...)
}

// AppendInt appends an integer.
func AppendInt(b []byte, v int64) []byte { return strconv.AppendInt(b, v, 10) }

// AppendFloat appends a number as JavaScript's JSON.stringify writes it (the shortest decimal
// that reads back as the same float64: 1, 0.5, 1e+21, 1e-7). NaN and infinities are errors.
func AppendFloat(b []byte, v float64) ([]byte, error) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return b, &EncodeError{Message: "number is not finite"}
	}
	if v == math.Trunc(v) && math.Abs(v) < 1e21 {
		return strconv.AppendFloat(b, v, 'f', -1, 64), nil
	}
	abs := math.Abs(v)
	if abs >= 1e-6 && abs < 1e21 {
		return strconv.AppendFloat(b, v, 'f', -1, 64), nil
	}
	start := len(b)
	b = strconv.AppendFloat(b, v, 'e', -1, 64)
	// strconv writes e-07 / e+07; JSON.stringify writes e-7 / e+7
	for i := start; i < len(b); i++ {
		if b[i] == 'e' && i+2 < len(b) && b[i+2] == '0' && i+3 < len(b) {
			b = append(b[:i+2], b[i+3:]...)
			break
		}
	}
	return b, nil
}

// AppendRaw appends a JSON value given as text, checking it (nil or empty is null).
func AppendRaw(b []byte, raw json.RawMessage) ([]byte, error) {
	if len(raw) == 0 {
		return append(b, "null"...), nil
	}
	raw = Trim(raw)
	if err := Check(raw); err != nil {
		return b, &EncodeError{Message: "not JSON: " + err.Error()}
	}
	return append(b, raw...), nil
}

// AppendRawMap appends an object of raw JSON values in key order (nil is {}).
func AppendRawMap(b []byte, m map[string]json.RawMessage) ([]byte, error) {
	return AppendMap(b, m, AppendRaw)
}

// AppendMap appends an object whose member values enc writes, in key order (nil is {}).
func AppendMap[T any](b []byte, m map[string]T, enc func([]byte, T) ([]byte, error)) ([]byte, error) {
	b = append(b, '{')
	var err error
	for i, k := range sortedKeys(m) {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, k)
		b = append(b, ':')
		if b, err = enc(b, m[k]); err != nil {
			return b, At(err, k)
		}
	}
	return append(b, '}'), nil
}

// AppendExtra appends the members of m whose keys are not in declared (sorted), in key order,
// each after a Comma: the undeclared members of an open object.
func AppendExtra[T any](b []byte, m map[string]T, declared []string, enc func([]byte, T) ([]byte, error)) ([]byte, error) {
	if len(m) == 0 {
		return b, nil
	}
	var err error
	for _, k := range sortedKeys(m) {
		if i := sort.SearchStrings(declared, k); i < len(declared) && declared[i] == k {
			continue
		}
		b = Comma(b)
		b = AppendString(b, k)
		b = append(b, ':')
		if b, err = enc(b, m[k]); err != nil {
			return b, At(err, k)
		}
	}
	return b, nil
}

func sortedKeys[T any](m map[string]T) []string {
	if len(m) == 1 {
		for k := range m {
			return []string{k}
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// AppendList appends an array whose elements write themselves (a nil element is an error).
func AppendList[T Appender](b []byte, xs []T) ([]byte, error) {
	b = append(b, '[')
	var err error
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		if any(x) == nil {
			return b, AtIndex(&EncodeError{Message: "required"}, i)
		}
		if b, err = x.AppendJSON(b); err != nil {
			return b, AtIndex(err, i)
		}
	}
	return append(b, ']'), nil
}

// AppendListFunc appends an array whose elements enc writes.
func AppendListFunc[T any](b []byte, xs []T, enc func([]byte, T) ([]byte, error)) ([]byte, error) {
	b = append(b, '[')
	var err error
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		if b, err = enc(b, x); err != nil {
			return b, AtIndex(err, i)
		}
	}
	return append(b, ']'), nil
}

// AppendStrings appends an array of strings.
func AppendStrings(b []byte, xs []string) []byte {
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, x)
	}
	return append(b, ']')
}

// AppendValue appends an Appender, a nil one being an error.
func AppendValue(b []byte, v Appender) ([]byte, error) {
	if v == nil {
		return b, &EncodeError{Message: "required"}
	}
	return v.AppendJSON(b)
}

// StringValue, IntValue, FloatValue and BoolValue adapt the primitive appenders to the
// func([]byte, T) ([]byte, error) form of AppendMap and AppendListFunc.
func StringValue(b []byte, v string) ([]byte, error) { return AppendString(b, v), nil }

// IntValue: see StringValue.
func IntValue(b []byte, v int64) ([]byte, error) { return AppendInt(b, v), nil }

// FloatValue: see StringValue.
func FloatValue(b []byte, v float64) ([]byte, error) { return AppendFloat(b, v) }

// BoolValue: see StringValue.
func BoolValue(b []byte, v bool) ([]byte, error) { return AppendBool(b, v), nil }

// Marshal returns the JSON of an Appender (what a generated MarshalJSON returns).
func Marshal(v Appender) ([]byte, error) {
	return v.AppendJSON(make([]byte, 0, 128))
}

// AppendEnum appends a string that must be one of values.
func AppendEnum(b []byte, v string, values []string) ([]byte, error) {
	for _, x := range values {
		if x == v {
			return AppendString(b, v), nil
		}
	}
	return b, &EncodeError{Message: "expected one of " + quoteAll(values) + ", got " + strconv.Quote(v)}
}

// AppendItem appends an Appender (a nil interface is an error): AppendListFunc and AppendMap's
// writer of elements that write themselves.
func AppendItem[T Appender](b []byte, v T) ([]byte, error) {
	if any(v) == nil {
		return b, &EncodeError{Message: "required"}
	}
	return v.AppendJSON(b)
}
