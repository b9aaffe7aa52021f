package protocol

import (
	"encoding/base64"
	"strings"
	"unicode/utf8"

	"mcpgen.dev/runtime/wire"
)

// ParamHeader is one x-mcp-header annotation of a tool's inputSchema (2026-07-28
// basic/transports/streamable-http, "Custom Headers from Tool Parameters"): the argument at
// Path travels also as the header Mcp-Param-{Name}.
type ParamHeader struct {
	Name string
	Path []string
	// Type is the property's JSON type: string, integer or boolean.
	Type string
}

// ParamHeaders reads the x-mcp-header annotations of an inputSchema. It fails when one breaks
// the rules: a name that is not a header token, not unique (case-insensitively), on a property
// that is not a string, integer or boolean, or reached other than through properties keys.
func ParamHeaders(inputSchema []byte) ([]ParamHeader, error) {
	var out []ParamHeader
	var walk func(schema []byte, path []string) error
	walk = func(schema []byte, path []string) error {
		props := wire.Trim(memberOf(schema, "properties"))
		o, err := wire.Members(props)
		if err != nil {
			return nil
		}
		for o.Next() {
			key, sub := string(o.Key()), o.Value()
			at := append(append([]string(nil), path...), key)
			if raw := memberOf(sub, "x-mcp-header"); raw != nil {
				name, err := wire.String(raw)
				if err != nil || !isToken(name) {
					return wire.Errorf("x-mcp-header of " + strings.Join(at, ".") + " is not a header token")
				}
				typ, _ := wire.String(memberOf(sub, "type"))
				if typ != "string" && typ != "integer" && typ != "boolean" {
					return wire.Errorf("x-mcp-header " + name + " is on a property of type " + string(wire.Trim(memberOf(sub, "type"))) + " (string, integer or boolean only)")
				}
				for _, h := range out {
					if strings.EqualFold(h.Name, name) {
						return wire.Errorf("x-mcp-header " + name + " is not unique")
					}
				}
				out = append(out, ParamHeader{Name: name, Path: at, Type: typ})
			}
			if err := walk(sub, at); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(inputSchema, nil); err != nil {
		return nil, err
	}
	if countAnnotations(inputSchema) != len(out) {
		return nil, wire.Errorf("x-mcp-header is only allowed on properties reached through properties keys")
	}
	return out, nil
}

func memberOf(data []byte, key string) []byte {
	o, err := wire.Members(data)
	if err != nil {
		return nil
	}
	var found []byte
	for o.Next() {
		if string(o.Key()) == key {
			found = o.Value()
		}
	}
	return found
}

// countAnnotations counts x-mcp-header members anywhere in a JSON value.
func countAnnotations(data []byte) int {
	n := 0
	if o, err := wire.Members(data); err == nil {
		for o.Next() {
			if string(o.Key()) == "x-mcp-header" {
				n++
			}
			n += countAnnotations(o.Value())
		}
		return n
	}
	if a, err := wire.Elements(data); err == nil {
		for a.Next() {
			n += countAnnotations(a.Value())
		}
	}
	return n
}

func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

const sentinelPrefix, sentinelSuffix = "=?base64?", "?="

// EncodeHeaderValue is a header value, in the Base64 sentinel form (=?base64?…?=) when the
// plain one is not safe: characters outside visible ASCII, spaces at either end, or a value
// that looks like the sentinel ("Value Encoding").
func EncodeHeaderValue(v string) string {
	safe := v != "" && v[0] != ' ' && v[0] != '\t' && v[len(v)-1] != ' ' && v[len(v)-1] != '\t'
	for i := 0; safe && i < len(v); i++ {
		if v[i] < 0x20 || v[i] > 0x7e {
			safe = false
		}
	}
	if safe && !(strings.HasPrefix(v, sentinelPrefix) && strings.HasSuffix(v, sentinelSuffix)) {
		return v
	}
	return sentinelPrefix + base64.StdEncoding.EncodeToString([]byte(v)) + sentinelSuffix
}

// DecodeHeaderValue decodes a header value (sentinel or plain); false when it is malformed.
func DecodeHeaderValue(v string) (string, bool) {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c != '\t' && (c < 0x20 || c > 0x7e) {
			return "", false
		}
	}
	if !strings.HasPrefix(v, sentinelPrefix) || !strings.HasSuffix(v, sentinelSuffix) || len(v) < len(sentinelPrefix)+len(sentinelSuffix) {
		return v, true
	}
	b, err := base64.StdEncoding.Strict().DecodeString(v[len(sentinelPrefix) : len(v)-len(sentinelSuffix)])
	if err != nil || !utf8.Valid(b) {
		return "", false
	}
	return string(b), true
}

// HeaderText is the header text of an argument value: strings as is, integers in decimal,
// booleans true/false; false for anything else (null, objects, fractions).
func HeaderText(raw []byte) (string, bool) {
	raw = wire.Trim(raw)
	if len(raw) == 0 {
		return "", false
	}
	switch raw[0] {
	case '"':
		s, err := wire.String(raw)
		return s, err == nil
	case 't', 'f':
		b, err := wire.Bool(raw)
		if err != nil {
			return "", false
		}
		if b {
			return "true", true
		}
		return "false", true
	case 'n', '{', '[':
		return "", false
	}
	n, err := wire.Int(raw)
	if err != nil {
		return "", false
	}
	return string(wire.AppendInt(nil, n)), true
}

// ValueAt is the raw value at path in the JSON object data (nil when absent).
func ValueAt(data []byte, path []string) []byte {
	for _, k := range path {
		data = memberOf(data, k)
		if data == nil {
			return nil
		}
	}
	return data
}
