package session

import (
	"encoding/json"

	"mcpgen.dev/runtime/engine"
	"mcpgen.dev/runtime/jsonrpc"
	"mcpgen.dev/runtime/wire"
)

// member is the raw value of an object's member (nil when absent).
func member(data []byte, key string) []byte { return engine.Member(data, key) }

// str is the string member key of data ("" when absent or not a string).
func str(data []byte, key string) string {
	v := member(data, key)
	if v == nil {
		return ""
	}
	s, _ := wire.String(v)
	return s
}

// isObject reports whether raw is a JSON object.
func isObject(raw []byte) bool {
	t := wire.Trim(raw)
	return len(t) > 0 && t[0] == '{' && wire.Valid(t)
}

// object builds a JSON object from members in order (values are raw JSON).
type object struct{ b []byte }

func newObject() *object { return &object{b: []byte{'{'}} }

func (o *object) raw(key string, value []byte) *object {
	if value == nil {
		return o
	}
	o.b = wire.Comma(o.b)
	o.b = wire.AppendString(o.b, key)
	o.b = append(o.b, ':')
	o.b = append(o.b, value...)
	return o
}

func (o *object) str(key, value string) *object {
	return o.raw(key, wire.AppendString(nil, value))
}

func (o *object) bytes() []byte { return append(o.b, '}') }

// AppendJSON makes an object an Appender.
func (o *object) AppendJSON(b []byte) ([]byte, error) { return append(b, o.bytes()...), nil }

// without returns the object data without the members keys, plus extra members (raw values).
func without(data []byte, keys []string, extra ...[2][]byte) []byte {
	out := newObject()
	if o, err := wire.Members(data); err == nil {
	next:
		for o.Next() {
			for _, k := range keys {
				if string(o.Key()) == k {
					continue next
				}
			}
			out.raw(string(o.Key()), o.Value())
		}
	}
	for _, e := range extra {
		out.raw(string(e[0]), e[1])
	}
	return out.bytes()
}

// strings encodes a list of strings.
func stringList(xs []string) []byte { return wire.AppendStrings(nil, xs) }

// rawJSON returns v's JSON (v an Appender, json.RawMessage or anything encoding/json writes).
func rawJSON(v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case wire.Appender:
		return x.AppendJSON(nil)
	case json.RawMessage:
		return x, nil
	case []byte:
		return x, nil
	}
	return json.Marshal(v)
}

// errorWithData is a JSON-RPC error with data given as raw JSON.
func errorWithData(code int64, message string, data []byte) *jsonrpc.Error {
	return &jsonrpc.Error{Code: code, Message: message, Data: data}
}
