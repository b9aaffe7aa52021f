package codegen

import (
	"encoding/json"

	"mcpgen.dev/runtime/wire"
)

// The JSON helpers of generated types (see package wire for each).

func Members(data []byte) (Object, error)                 { return wire.Members(data) }
func Elements(data []byte) (Array, error)                 { return wire.Elements(data) }
func Count(data []byte) (int, error)                      { return wire.Count(data) }
func Check(data []byte) error                             { return wire.Check(data) }
func KindOf(data []byte) string                           { return wire.KindOf(data) }
func String(data []byte) (string, error)                  { return wire.String(data) }
func Int(data []byte) (int64, error)                      { return wire.Int(data) }
func Float(data []byte) (float64, error)                  { return wire.Float(data) }
func Bool(data []byte) (bool, error)                      { return wire.Bool(data) }
func Any(data []byte) (json.RawMessage, error)            { return wire.Any(data) }
func Null(data []byte) error                              { return wire.Null(data) }
func Prims(data []byte, k Kinds) (json.RawMessage, error) { return wire.Prims(data, k) }
func Enum(data []byte, values []string) (string, error)   { return wire.Enum(data, values) }
func ConstString(data []byte, want string) error          { return wire.ConstString(data, want) }
func ConstBool(data []byte, want bool) error              { return wire.ConstBool(data, want) }
func ConstNumber(data []byte, want float64) error         { return wire.ConstNumber(data, want) }
func InRange(v float64, min, max *float64) error          { return wire.InRange(v, min, max) }
func Bound(v float64) *float64                            { return wire.Bound(v) }
func RawMap(data []byte) (map[string]json.RawMessage, error) {
	return wire.RawMap(data)
}
func Tag(data []byte, key string, values []string) (int, error) { return wire.Tag(data, key, values) }
func JSONRPCKind(data []byte, kinds []string) (string, error) {
	return wire.JSONRPCKind(data, kinds)
}
func NoVariant(name string, errs []error) error { return wire.NoVariant(name, errs) }
func At(err error, key string) error            { return wire.At(err, key) }
func AtIndex(err error, i int) error            { return wire.AtIndex(err, i) }
func Required(key string) error                 { return wire.Required(key) }
func NotAllowed(key string) error               { return wire.NotAllowed(key) }
func Errorf(message string) error               { return wire.Errorf(message) }
func MissingRequired(key string) error          { return wire.MissingRequired(key) }

// NilValue is the error of a nil pointer asked to write itself.
func NilValue() error { return &wire.EncodeError{Message: "required"} }

func List[T any](data []byte, maxItems int, dec func([]byte) (T, error)) ([]T, error) {
	return wire.List(data, maxItems, dec)
}
func Map[T any](data []byte, dec func([]byte) (T, error)) (map[string]T, error) {
	return wire.Map(data, dec)
}

func Comma(b []byte) []byte                      { return wire.Comma(b) }
func AppendString(b []byte, s string) []byte     { return wire.AppendString(b, s) }
func AppendInt(b []byte, v int64) []byte         { return wire.AppendInt(b, v) }
func AppendBool(b []byte, v bool) []byte         { return wire.AppendBool(b, v) }
func AppendStrings(b []byte, xs []string) []byte { return wire.AppendStrings(b, xs) }
func AppendFloat(b []byte, v float64) ([]byte, error) {
	return wire.AppendFloat(b, v)
}
func AppendRaw(b []byte, raw json.RawMessage) ([]byte, error) { return wire.AppendRaw(b, raw) }
func AppendRawMap(b []byte, m map[string]json.RawMessage) ([]byte, error) {
	return wire.AppendRawMap(b, m)
}
func AppendValue(b []byte, v Appender) ([]byte, error) { return wire.AppendValue(b, v) }
func AppendMap[T any](b []byte, m map[string]T, enc func([]byte, T) ([]byte, error)) ([]byte, error) {
	return wire.AppendMap(b, m, enc)
}
func AppendExtra[T any](b []byte, m map[string]T, declared []string, enc func([]byte, T) ([]byte, error)) ([]byte, error) {
	return wire.AppendExtra(b, m, declared, enc)
}
func AppendList[T Appender](b []byte, xs []T) ([]byte, error) { return wire.AppendList(b, xs) }
func AppendListFunc[T any](b []byte, xs []T, enc func([]byte, T) ([]byte, error)) ([]byte, error) {
	return wire.AppendListFunc(b, xs, enc)
}
func StringValue(b []byte, v string) ([]byte, error) { return wire.StringValue(b, v) }
func IntValue(b []byte, v int64) ([]byte, error)     { return wire.IntValue(b, v) }
func FloatValue(b []byte, v float64) ([]byte, error) { return wire.FloatValue(b, v) }
func BoolValue(b []byte, v bool) ([]byte, error)     { return wire.BoolValue(b, v) }
func Marshal(v Appender) ([]byte, error)             { return wire.Marshal(v) }

func IntIn(data []byte, hasMin bool, min float64, hasMax bool, max float64) (int64, error) {
	return wire.IntIn(data, hasMin, min, hasMax, max)
}
func FloatIn(data []byte, hasMin bool, min float64, hasMax bool, max float64) (float64, error) {
	return wire.FloatIn(data, hasMin, min, hasMax, max)
}
func StringConst(data []byte, want string) (string, error) { return wire.StringConst(data, want) }
func BoolConst(data []byte, want bool) (bool, error)       { return wire.BoolConst(data, want) }
func IntConst(data []byte, want int64) (int64, error)      { return wire.IntConst(data, want) }
func FloatConst(data []byte, want float64) (float64, error) {
	return wire.FloatConst(data, want)
}
func NullValue(data []byte) (json.RawMessage, error) { return wire.NullValue(data) }
func AppendEnum(b []byte, v string, values []string) ([]byte, error) {
	return wire.AppendEnum(b, v, values)
}
func AppendItem[T Appender](b []byte, v T) ([]byte, error) { return wire.AppendItem(b, v) }
