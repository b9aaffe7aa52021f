package jsonrpc

import (
	"bytes"

	"mcpgen.dev/runtime/wire"
)

// Kind is a message's kind.
type Kind uint8

// The message kinds.
const (
	KindRequest Kind = iota + 1
	KindNotification
	// KindResult is a response carrying a result.
	KindResult
	// KindError is a response carrying an error.
	KindError
)

func (k Kind) String() string {
	switch k {
	case KindRequest:
		return "request"
	case KindNotification:
		return "notification"
	case KindResult:
		return "result"
	case KindError:
		return "error"
	}
	return "invalid"
}

// Message is one decoded JSON-RPC message. Params and Result are slices of the decoded data:
// copy them to keep them past the buffer's reuse.
type Message struct {
	Kind Kind
	// ID of a request or response; the zero ID for a notification and for an error response
	// whose request's id could not be read.
	ID     ID
	Method string
	// Params is the params member (nil when absent).
	Params []byte
	// Result is a result response's result member.
	Result []byte
	// Error is an error response's error object.
	Error *Error
}

// BatchRefused is the message of the -32600 Decode answers a JSON array with (a JSON-RPC 2.0 §6
// batch: no MCP revision since 2025-06-18 has them), as the TypeScript engine words it;
// engine.Conn words it for the revision it serves (ConnOptions.Revision).
const BatchRefused = "Invalid Request: batch arrays are not supported"

// BatchRevisions are the protocol versions whose revision has JSON-RPC batches (its schema
// defines JSONRPCBatchRequest; 2025-06-18 removed them): a server receives them there.
var BatchRevisions = map[string]bool{"2025-03-26": true}

// NotObject is the message of the -32600 Decode answers a JSON value that is neither an object
// nor an array with, as the TypeScript engine words it.
const NotObject = "Invalid Request: message is not a JSON object"

// parseError is the -32700 of a text that is not JSON: "Parse error: line is not JSON: <where
// the scanner stopped>", the words of the TypeScript stdio transport (the HTTP server answers a
// body with its own, ../streamable).
func parseError(err error) *Error {
	return NewError(CodeParseError, "Parse error: line is not JSON: "+err.Error())
}

// Methods maps method names to themselves: Decode takes a message's method string from it
// instead of allocating one.
type Methods map[string]string

// Decode parses one JSON-RPC message. Errors are *Error: -32700 when data is not JSON, -32600
// when it is not a JSON-RPC 2.0 message (the returned Message then has the Kind and, where it
// could be read, the ID the message had, so that a request is answered and a notification is
// not). A member `id` makes a message a request or a response whatever its value: an invalid
// id (null, a fraction, a bool, an object) makes an invalid request, never a notification.
func (names Methods) Decode(data []byte) (Message, error) {
	var m Message
	o, err := wire.Members(data)
	if err != nil {
		// not an object: say whether it is JSON at all (the error Members gives names what the
		// scanner reached, "expected object, got integer" for "12 monkeys", not what is wrong)
		if err := wire.Check(data); err != nil {
			return m, parseError(err)
		}
		if b := bytes.TrimLeft(data, " \t\r\n"); b[0] == '[' {
			return m, NewError(CodeInvalidRequest, BatchRefused)
		}
		return m, NewError(CodeInvalidRequest, NotObject)
	}
	var version, id, method, params, result, errObj []byte
	hasID, hasParams, hasResult, hasError := false, false, false, false
	for o.Next() {
		switch string(o.Key()) {
		case "jsonrpc":
			version = o.Value()
		case "id":
			id, hasID = o.Value(), true
		case "method":
			method = o.Value()
		case "params":
			params, hasParams = o.Value(), true
		case "result":
			result, hasResult = o.Value(), true
		case "error":
			errObj, hasError = o.Value(), true
		}
	}
	if err := o.Err(); err != nil {
		return m, parseError(err)
	}
	if method != nil {
		m.Kind = KindNotification
		if hasID {
			m.Kind = KindRequest
		}
	} else if hasResult && !hasError {
		m.Kind = KindResult
	} else if hasError {
		// (with result too: a malformed response, refused below; the engine drops it, as a response)
		m.Kind = KindError
	}
	if hasID {
		if v, err := ParseID(id); err == nil {
			m.ID = v
		}
	}
	if !wire.EqualString(version, "2.0") {
		return m, NewError(CodeInvalidRequest, `Invalid Request: jsonrpc must be "2.0"`)
	}
	switch m.Kind {
	case KindRequest, KindNotification:
		if len(method) == 0 || method[0] != '"' {
			return m, NewError(CodeInvalidRequest, "Invalid Request: method must be a string")
		}
		if k := firstByte(params); hasParams && k != '{' && k != '[' {
			return m, NewError(CodeInvalidRequest, "Invalid Request: params must be an object")
		}
		m.Method = names.method(method)
		m.Params = params
		if m.Kind == KindRequest && !m.ID.IsValid() {
			return m, NewError(CodeInvalidRequest, "Invalid Request: id must be a string or an integer")
		}
		if hasResult || hasError {
			// (a notification so formed is dropped, a request answered with its id: TypeScript's rule)
			return m, NewError(CodeInvalidRequest, "Invalid Request: a request must not carry result or error")
		}
	case KindResult:
		if !m.ID.IsValid() {
			return m, NewError(CodeInvalidRequest, "Invalid Request: a response needs a string or integer id")
		}
		m.Result = result
	case KindError:
		if hasResult {
			return m, NewError(CodeInvalidRequest, "Invalid Request: a response has either result or error")
		}
		m.Error = ParseError(errObj)
	default:
		return m, NewError(CodeInvalidRequest, "Invalid Request: message has no method, result or error")
	}
	return m, nil
}

// AnswerID is the id an error answering m carries (JSON-RPC 2.0 section 5): a request's id
// when it could be read, even from a request that is otherwise invalid (a method that is not a
// string, another jsonrpc version, params that are not an object); else no id (the zero ID),
// for input that is not JSON, not an object, or whose id is not a string or an integer.
func (m Message) AnswerID() ID {
	if m.Kind == KindRequest && m.ID.IsValid() {
		return m.ID
	}
	return ID{}
}

// Decode parses one JSON-RPC message (see Methods.Decode).
func Decode(data []byte) (Message, error) { return Methods(nil).Decode(data) }

func firstByte(b []byte) byte {
	b = wire.Trim(b)
	if len(b) == 0 {
		return 0
	}
	return b[0]
}

func (names Methods) method(raw []byte) string {
	raw = wire.Trim(raw)
	if len(raw) >= 2 && names != nil {
		if s, ok := names[string(raw[1:len(raw)-1])]; ok {
			return s
		}
	}
	s, err := wire.Unquote(raw)
	if err != nil {
		return ""
	}
	return s
}

// Raw is JSON text that writes itself as is (already checked JSON: what the runtime forwards).
type Raw []byte

// AppendJSON appends r (null when empty).
func (r Raw) AppendJSON(b []byte) ([]byte, error) {
	if len(r) == 0 {
		return append(b, "null"...), nil
	}
	return append(b, r...), nil
}

// AppendRequest appends a request message; params nil leaves the member out.
func AppendRequest(b []byte, id ID, method string, params wire.Appender) ([]byte, error) {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = id.AppendJSON(b)
	b = append(b, `,"method":`...)
	b = wire.AppendString(b, method)
	return appendTail(b, `,"params":`, params)
}

// AppendNotification appends a notification message; params nil leaves the member out.
func AppendNotification(b []byte, method string, params wire.Appender) ([]byte, error) {
	b = append(b, `{"jsonrpc":"2.0","method":`...)
	b = wire.AppendString(b, method)
	return appendTail(b, `,"params":`, params)
}

// AppendResult appends a result response; a nil result is {}.
func AppendResult(b []byte, id ID, result wire.Appender) ([]byte, error) {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = id.AppendJSON(b)
	if result == nil {
		return append(b, `,"result":{}}`...), nil
	}
	return appendTail(b, `,"result":`, result)
}

// AppendErrorResponse appends an error response; the zero id leaves the id member out (the
// request's id could not be read).
func AppendErrorResponse(b []byte, id ID, e *Error) []byte {
	b = append(b, `{"jsonrpc":"2.0",`...)
	if id.IsValid() {
		b = append(b, `"id":`...)
		b = id.AppendJSON(b)
		b = append(b, ',')
	}
	b = append(b, `"error":`...)
	start := len(b)
	out, err := e.AppendJSON(b)
	if err != nil {
		// data that is not JSON is left out
		plain := Error{Code: e.Code, Message: e.Message}
		out, _ = plain.AppendJSON(b[:start])
	}
	return append(out, '}')
}

func appendTail(b []byte, key string, v wire.Appender) ([]byte, error) {
	if v == nil {
		return append(b, '}'), nil
	}
	b = append(b, key...)
	var err error
	if b, err = v.AppendJSON(b); err != nil {
		return b, err
	}
	return append(b, '}'), nil
}
