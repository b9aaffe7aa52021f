// Package engine is the peer under every session: it correlates responses with the requests a
// connection sent, serves the requests it receives (each in its own goroutine, with a
// context.Context that the peer's notifications/cancelled cancels), routes progress to the
// callers that asked for it, and bounds what a peer can make it hold.
//
// Messages leave through a Channel: the connection itself (stdio), or the reply stream of one
// HTTP request, so that what relates to a request (its progress, log messages, the server's own
// requests, its response) travels where the request came from.
//
// Spec: JSON-RPC 2.0; 2025-11-25 basic/utilities/cancellation and basic/utilities/progress;
// 2026-07-28 basic/patterns/cancellation and basic/patterns/progress.
package engine

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"

	"mcpgen.dev/runtime/jsonrpc"
	"mcpgen.dev/runtime/wire"
)

// Channel is where encoded messages go: a connection, or the reply stream of one HTTP request.
type Channel interface {
	// Send writes one encoded JSON-RPC message. final is true for the response to the request
	// the channel was opened for (an HTTP reply ends with it). Send must not keep msg after it
	// returns; it returns jsonrpc.ErrClosed (or an error wrapping it) once the channel is gone.
	Send(msg []byte, final bool) error
}

// Handler serves what a connection receives.
type Handler interface {
	// HandleRequest answers one request: a result (nil: {}) or an error (*jsonrpc.Error
	// travels as is; any other error becomes -32603).
	HandleRequest(ctx context.Context, req *Request) (wire.Appender, error)
	// HandleNotification takes one notification. It runs on the connection's read loop, in
	// order: it must not wait for the connection.
	HandleNotification(ctx context.Context, n *Notification)
}

// Notification is one inbound notification.
type Notification struct {
	Method string
	// Params is the raw params member (nil when absent), valid during the call only.
	Params  []byte
	Channel Channel
	Header  http.Header
	Conn    *Conn
}

// Request is one inbound request being served: what a handler knows of it and can do with it.
// Progress, Notify and Call send on the request's Channel.
type Request struct {
	ID     jsonrpc.ID
	Method string
	// Params is the request's params member (nil when absent), owned by the request.
	Params []byte
	// Channel is where the request's messages go.
	Channel Channel
	// Conn is the connection the request came on (nil on a stateless HTTP request).
	Conn *Conn
	// Header holds the HTTP request's headers when it came over HTTP.
	Header http.Header
	// Session is the serving session (set by the session layer).
	Session any
	// Values holds what the lifecycle and features keep per request (client capabilities,
	// log level …).
	Values map[string]any

	progress  jsonrpc.ID
	done      atomic.Bool
	cancelled atomic.Bool
	cancel    context.CancelFunc
}

// NewRequest returns a request to serve with Serve (transports without a Conn: a stateless
// HTTP request). Params must be owned by the request.
func NewRequest(id jsonrpc.ID, method string, params []byte, ch Channel) *Request {
	r := &Request{ID: id, Method: method, Params: params, Channel: ch}
	r.progress = progressToken(params)
	return r
}

// BindContext returns a context derived from parent that Cancel cancels (for requests made with
// NewRequest, which serve outside a Conn).
func (r *Request) BindContext(parent context.Context) context.Context {
	ctx, cancel := context.WithCancel(parent)
	r.cancel = cancel
	return ctx
}

// ProgressToken is the token the request asked for progress with, and whether it asked.
func (r *Request) ProgressToken() (jsonrpc.ID, bool) { return r.progress, r.progress.IsValid() }

// Done reports whether the request was answered or cancelled (its messages are dropped then).
func (r *Request) Done() bool { return r.done.Load() || r.cancelled.Load() }

// Cancelled reports whether the peer cancelled the request.
func (r *Request) Cancelled() bool { return r.cancelled.Load() }

// Cancel cancels the request being served: its context is cancelled and it gets no response
// (what notifications/cancelled and a closed HTTP reply stream do).
func (r *Request) Cancel() {
	if r.done.Load() || !r.cancelled.CompareAndSwap(false, true) {
		return
	}
	if r.cancel != nil {
		r.cancel()
	}
}

// Progress sends notifications/progress for the request (nothing when it asked for none or is
// done). progress and total in the request's own units; total <= 0 and message "" are left out.
func (r *Request) Progress(progress, total float64, message string) error {
	if !r.progress.IsValid() || r.Done() {
		return nil
	}
	return r.Notify("notifications/progress", progressParams{token: r.progress, progress: progress, total: total, message: message})
}

// Notify sends a notification related to the request on its channel (dropped once the request
// is done or cancelled).
func (r *Request) Notify(method string, params wire.Appender) error {
	if r.Done() {
		return nil
	}
	buf := getBuffer()
	defer putBuffer(buf)
	b, err := jsonrpc.AppendNotification(buf.b[:0], method, params)
	if err != nil {
		return err
	}
	buf.b = b
	return r.Channel.Send(b, false)
}

// ErrNoConnection is returned by Request.Call on a request that has no connection to send a
// request back on (a stateless HTTP request).
var ErrNoConnection = errors.New("engine: the request has no connection to send requests on")

// Call sends a request to the peer related to this one, on its channel, and returns the
// result's raw JSON (owned by the caller).
func (r *Request) Call(ctx context.Context, method string, params wire.Appender, opts CallOptions) ([]byte, error) {
	if r.Conn == nil {
		return nil, ErrNoConnection
	}
	if opts.Channel == nil {
		opts.Channel = r.Channel
	}
	return r.Conn.Call(ctx, method, params, opts)
}

type progressParams struct {
	token    jsonrpc.ID
	progress float64
	total    float64
	message  string
}

func (p progressParams) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"progressToken":`...)
	b = p.token.AppendJSON(b)
	b = append(b, `,"progress":`...)
	var err error
	if b, err = wire.AppendFloat(b, p.progress); err != nil {
		return b, wire.At(err, "progress")
	}
	if p.total > 0 {
		b = append(b, `,"total":`...)
		if b, err = wire.AppendFloat(b, p.total); err != nil {
			return b, wire.At(err, "total")
		}
	}
	if p.message != "" {
		b = append(b, `,"message":`...)
		b = wire.AppendString(b, p.message)
	}
	return append(b, '}'), nil
}

// progressToken reads params._meta.progressToken (a string or an integer).
func progressToken(params []byte) jsonrpc.ID {
	if len(params) == 0 {
		return jsonrpc.ID{}
	}
	meta := Member(params, "_meta")
	if meta == nil {
		return jsonrpc.ID{}
	}
	tok := Member(meta, "progressToken")
	if tok == nil {
		return jsonrpc.ID{}
	}
	id, err := jsonrpc.ParseID(tok)
	if err != nil {
		return jsonrpc.ID{}
	}
	return id
}

// Member returns the raw value of the member key of the JSON object data (nil when data is not
// an object or has no such member; the last one when it has several).
func Member(data []byte, key string) []byte {
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
	if o.Err() != nil {
		return nil
	}
	return found
}

// Serve answers req with h on req.Channel: the result, or the error response (*jsonrpc.Error
// as is, any other error -32603). Nothing is sent when the request was cancelled. It returns
// once the response is sent.
func Serve(ctx context.Context, h Handler, req *Request) {
	result, err := safeHandle(ctx, h, req)
	if req.cancelled.Load() {
		if b, ok := req.Channel.(*batchReply); ok {
			b.settle()
		}
		return
	}
	buf := getBuffer()
	defer putBuffer(buf)
	var b []byte
	if err == nil {
		b, err = jsonrpc.AppendResult(buf.b[:0], req.ID, result)
		if err != nil {
			err = jsonrpc.NewError(jsonrpc.CodeInternalError, "Internal error: invalid "+req.Method+" result: "+err.Error())
		}
	}
	if err != nil {
		b = jsonrpc.AppendErrorResponse(buf.b[:0], req.ID, toRPCError(err))
	}
	buf.b = b
	req.done.Store(true)
	_ = req.Channel.Send(b, true)
}

// safeHandle calls the handler, turning a panic into -32603.
func safeHandle(ctx context.Context, h Handler, req *Request) (result wire.Appender, err error) {
	defer func() {
		if p := recover(); p != nil {
			result, err = nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "Internal error")
			logPanic(req.Method, p)
		}
	}()
	return h.HandleRequest(ctx, req)
}

// toRPCError is the error object an error answers with: an *jsonrpc.Error as is, the context's
// errors -32603 naming them, anything else -32603 "Internal error" (the text is not sent).
func toRPCError(err error) *jsonrpc.Error {
	if e := jsonrpc.AsError(err); e != nil {
		return e
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return jsonrpc.NewError(jsonrpc.CodeInternalError, "Internal error: the request timed out")
	}
	logHandlerError(err)
	return jsonrpc.NewError(jsonrpc.CodeInternalError, "Internal error")
}
