package jsonrpc

import (
	"encoding/json"
	"errors"
	"strconv"

	"mcpgen.dev/runtime/wire"
)

// The error codes of JSON-RPC 2.0 (§5.1).
const (
	CodeParseError     int64 = -32700
	CodeInvalidRequest int64 = -32600
	CodeMethodNotFound int64 = -32601
	CodeInvalidParams  int64 = -32602
	CodeInternalError  int64 = -32603
	// CodeConnectionClosed is implementation-defined (the server error range): the connection
	// closed before an answer; also "Payload Too Large" for a stdio line over the limit.
	CodeConnectionClosed int64 = -32000
	// CodeRequestTimeout is implementation-defined: no answer in time.
	CodeRequestTimeout int64 = -32001
)

var defaultMessages = map[int64]string{
	CodeParseError:     "Parse error",
	CodeInvalidRequest: "Invalid Request",
	CodeMethodNotFound: "Method not found",
	CodeInvalidParams:  "Invalid params",
	CodeInternalError:  "Internal error",
}

// Error is a JSON-RPC error object ({code, message, data?}): what a handler returns to answer
// a request with an error, and what a caller gets when the peer answered with one.
type Error struct {
	Code    int64
	Message string
	// Data is the error's data member (nil: absent).
	Data json.RawMessage
}

// NewError returns an error object; an empty message is the code's standard one.
func NewError(code int64, message string) *Error {
	if message == "" {
		message = defaultMessages[code]
	}
	return &Error{Code: code, Message: message}
}

// WithData returns a copy of e with data (any value encoding/json can write; a json.RawMessage
// is taken as is).
func (e *Error) WithData(data any) *Error {
	out := *e
	if raw, ok := data.(json.RawMessage); ok {
		out.Data = raw
		return &out
	}
	b, err := json.Marshal(data)
	if err == nil {
		out.Data = b
	}
	return &out
}

func (e *Error) Error() string {
	return e.Message + " (" + strconv.FormatInt(e.Code, 10) + ")"
}

// AppendJSON appends the error object.
func (e *Error) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"code":`...)
	b = strconv.AppendInt(b, e.Code, 10)
	b = append(b, `,"message":`...)
	b = wire.AppendString(b, e.Message)
	if e.Data != nil {
		b = append(b, `,"data":`...)
		var err error
		if b, err = wire.AppendRaw(b, e.Data); err != nil {
			return b, wire.At(err, "data")
		}
	}
	return append(b, '}'), nil
}

// ParseError reads a response's error object; a malformed one becomes -32603 with the object
// as its data.
func ParseError(data []byte) *Error {
	o, err := wire.Members(data)
	if err != nil {
		return &Error{Code: CodeInternalError, Message: "malformed error object", Data: append(json.RawMessage(nil), wire.Trim(data)...)}
	}
	e := &Error{}
	hasCode := false
	for o.Next() {
		switch string(o.Key()) {
		case "code":
			if n, err := wire.Int(o.Value()); err == nil {
				e.Code, hasCode = n, true
			}
		case "message":
			e.Message, _ = wire.String(o.Value())
		case "data":
			e.Data = append(json.RawMessage(nil), o.Value()...)
		}
	}
	if o.Err() != nil || !hasCode {
		return &Error{Code: CodeInternalError, Message: "malformed error object", Data: append(json.RawMessage(nil), wire.Trim(data)...)}
	}
	return e
}

// AsError returns err as an *Error when it is one (errors.As), else nil.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}

// ErrClosed is a local error: the connection closed before the answer came.
var ErrClosed = errors.New("jsonrpc: connection closed")

// IDInUse is the -32600 answering a request that reuses the id of a request still being served
// on its connection or session: "Invalid Request: request id 21 is already in use" (the id as
// JSON), the words of the TypeScript and Python runtimes.
func IDInUse(id ID) *Error {
	return NewError(CodeInvalidRequest, "Invalid Request: request id "+id.String()+" is already in use")
}
