// Package jsonrpc is JSON-RPC 2.0 as MCP uses it: request ids, messages and how to tell their
// kinds apart, error objects and codes, and the encoders of the four message kinds. It knows
// nothing of MCP methods.
//
// Spec: JSON-RPC 2.0; MCP basic/index (2025-11-25 and 2026-07-28): ids are strings or
// integers, never null; notifications have no id; an error response carries no id when the
// request's id could not be read.
package jsonrpc

import (
	"strconv"

	"mcpgen.dev/runtime/wire"
)

type idKind uint8

const (
	idNone idKind = iota
	idInt
	idString
)

// ID is a request id: a string or an integer. The zero ID is "no id". IDs are comparable:
// 0 and "0" differ, 1.0 on the wire is the integer 1.
type ID struct {
	str  string
	num  int64
	kind idKind
}

// IntID is the integer id n.
func IntID(n int64) ID { return ID{num: n, kind: idInt} }

// StringID is the string id s.
func StringID(s string) ID { return ID{str: s, kind: idString} }

// IsValid reports whether the id is set (a string or an integer).
func (id ID) IsValid() bool { return id.kind != idNone }

// Int returns the id's integer and true when it is an integer id.
func (id ID) Int() (int64, bool) { return id.num, id.kind == idInt }

// Str returns the id's string and true when it is a string id.
func (id ID) Str() (string, bool) { return id.str, id.kind == idString }

// String is the id as JSON (`7`, `"abc"`), or `null` for no id.
func (id ID) String() string { return string(id.AppendJSON(nil)) }

// AppendJSON appends the id as JSON (null for no id).
func (id ID) AppendJSON(b []byte) []byte {
	switch id.kind {
	case idInt:
		return strconv.AppendInt(b, id.num, 10)
	case idString:
		return wire.AppendString(b, id.str)
	}
	return append(b, "null"...)
}

// MarshalJSON writes the id as JSON.
func (id ID) MarshalJSON() ([]byte, error) { return id.AppendJSON(nil), nil }

// UnmarshalJSON reads a string or integer id.
func (id *ID) UnmarshalJSON(data []byte) error {
	v, err := ParseID(data)
	if err != nil {
		return err
	}
	*id = v
	return nil
}

// ParseID reads an id: a JSON string, or an integer (1.0 counts as 1; 1.5, null, true and
// objects are not ids).
func ParseID(data []byte) (ID, error) {
	data = wire.Trim(data)
	if len(data) > 0 && data[0] == '"' {
		s, err := wire.Unquote(data)
		if err != nil {
			return ID{}, err
		}
		return StringID(s), nil
	}
	n, err := wire.Int(data)
	if err != nil {
		return ID{}, wire.Errorf("an id must be a string or an integer")
	}
	return IntID(n), nil
}
