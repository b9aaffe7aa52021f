package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"mcpgen.dev/runtime/jsonrpc"
	"mcpgen.dev/runtime/wire"
)

// Progress is one notifications/progress a caller receives.
type Progress struct {
	Progress float64
	// Total is 0 when the peer sent none.
	Total   float64
	Message string
}

// CallOptions are the options of one outbound request.
type CallOptions struct {
	// Channel to send on (default: the connection's).
	Channel Channel
	// OnProgress, when set, asks for progress: params get _meta.progressToken (the request's
	// id) and each notifications/progress for it is passed here, on the read loop, until the
	// answer comes.
	OnProgress func(Progress)
	// Timeout overrides the connection's default when the context has no deadline (<0: none).
	Timeout time.Duration
	// OnID is told the request's id before it is sent.
	OnID func(jsonrpc.ID)
}

// ErrTimeout is wrapped by the error of a request that got no answer in time; it also wraps
// context.DeadlineExceeded.
var ErrTimeout = fmt.Errorf("engine: no answer in time: %w", context.DeadlineExceeded)

type call struct {
	ch         chan struct{}
	method     string
	onProgress func(Progress)
	result     []byte
	rpcErr     *jsonrpc.Error
	err        error
}

var callPool = sync.Pool{New: func() any { return &call{ch: make(chan struct{}, 1)} }}

// deliver hands the answer over (called once, under the connection's lock or after the call
// left the pending set).
func (p *call) deliver(result []byte, rpcErr *jsonrpc.Error, err error) {
	p.result, p.rpcErr, p.err = result, rpcErr, err
	p.ch <- struct{}{}
}

// Call sends a request and waits for its answer: the result's raw JSON (owned by the caller),
// or an error: *jsonrpc.Error (the peer's answer), jsonrpc.ErrClosed, ErrTimeout, or the
// context's error. When the context ends first the peer is sent notifications/cancelled
// (except for initialize, which must not be cancelled).
func (c *Conn) Call(ctx context.Context, method string, params wire.Appender, opts CallOptions) ([]byte, error) {
	id := jsonrpc.IntID(c.nextID.Add(1) - 1)
	if opts.OnID != nil {
		opts.OnID(id)
	}
	p := callPool.Get().(*call)
	p.method, p.onProgress = method, opts.OnProgress
	ch := opts.Channel
	c.mu.Lock()
	if ch == nil {
		ch = c.opts.Channel
	}
	switch {
	case c.closed:
		c.mu.Unlock()
		p.release()
		return nil, jsonrpc.ErrClosed
	case len(c.pending) >= c.opts.MaxInFlight:
		c.mu.Unlock()
		p.release()
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, fmt.Sprintf("too many requests in flight (at most %d)", c.opts.MaxInFlight))
	}
	c.pending[id] = p
	c.mu.Unlock()

	if opts.OnProgress != nil {
		params = withProgressToken{params: params, token: id}
	}
	buf := getBuffer()
	b, err := jsonrpc.AppendRequest(buf.b[:0], id, method, params)
	if err == nil {
		buf.b = b
		if ch == nil {
			err = fmt.Errorf("%w: no channel to send on", jsonrpc.ErrClosed)
		} else {
			err = ch.Send(b, false)
		}
	}
	putBuffer(buf)
	if err != nil {
		if c.forget(id, p) {
			p.release()
		}
		return nil, err
	}

	timeout := c.opts.Timeout
	if opts.Timeout != 0 {
		timeout = opts.Timeout
	}
	var timer <-chan time.Time
	if _, has := ctx.Deadline(); !has && timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		timer = t.C
	}
	select {
	case <-p.ch:
		return p.take()
	case <-ctx.Done():
		err = ctx.Err()
	case <-timer:
		err = fmt.Errorf("%s: %w after %s", method, ErrTimeout, timeout)
	}
	if !c.forget(id, p) {
		// the answer came meanwhile
		<-p.ch
		return p.take()
	}
	p.release()
	if method != "initialize" {
		c.cancelRemote(ch, id, err)
	}
	return nil, err
}

// forget removes a pending call; false when it was answered (or the connection closed) first.
func (c *Conn) forget(id jsonrpc.ID, p *call) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending[id] == p {
		delete(c.pending, id)
		return true
	}
	return false
}

func (p *call) take() ([]byte, error) {
	result, rpcErr, err := p.result, p.rpcErr, p.err
	p.release()
	if rpcErr != nil {
		return nil, rpcErr
	}
	return result, err
}

func (p *call) release() {
	p.result, p.rpcErr, p.err, p.onProgress = nil, nil, nil, nil
	callPool.Put(p)
}

// cancelRemote tells the peer a request is abandoned.
func (c *Conn) cancelRemote(ch Channel, id jsonrpc.ID, why error) {
	reason := "cancelled by the caller"
	if errors.Is(why, context.DeadlineExceeded) {
		reason = "timed out"
	}
	if ch == nil {
		return
	}
	b, err := jsonrpc.AppendNotification(nil, "notifications/cancelled", cancelledParams{id: id, reason: reason})
	if err == nil {
		_ = ch.Send(b, false)
	}
}

type cancelledParams struct {
	id     jsonrpc.ID
	reason string
}

func (p cancelledParams) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"requestId":`...)
	b = p.id.AppendJSON(b)
	b = append(b, `,"reason":`...)
	b = wire.AppendString(b, p.reason)
	return append(b, '}'), nil
}

// response hands a response to its waiting call (late and unknown ones are dropped).
func (c *Conn) response(id jsonrpc.ID, result []byte, rpcErr *jsonrpc.Error) {
	c.mu.Lock()
	p := c.pending[id]
	if p == nil {
		c.mu.Unlock()
		c.log.Debug("mcpgen: dropped a response to an unknown request", "id", id.String())
		return
	}
	delete(c.pending, id)
	if rpcErr == nil {
		result = bytes.Clone(result)
	}
	p.deliver(result, rpcErr, nil)
	c.mu.Unlock()
}

func (c *Conn) fail(id jsonrpc.ID, rpcErr *jsonrpc.Error) { c.response(id, nil, rpcErr) }

// FailCall fails a call waiting for its answer with a local error (a transport's: the request
// could not be delivered). Unknown ids are ignored.
func (c *Conn) FailCall(id jsonrpc.ID, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.pending[id]
	if p == nil {
		return
	}
	delete(c.pending, id)
	p.deliver(nil, nil, err)
}

// Notify sends a notification on the connection's channel.
func (c *Conn) Notify(method string, params wire.Appender) error {
	ch := c.Channel()
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed || ch == nil {
		return jsonrpc.ErrClosed
	}
	buf := getBuffer()
	defer putBuffer(buf)
	b, err := jsonrpc.AppendNotification(buf.b[:0], method, params)
	if err != nil {
		return err
	}
	buf.b = b
	return ch.Send(b, false)
}

// withProgressToken writes params with _meta.progressToken set.
type withProgressToken struct {
	params wire.Appender
	token  jsonrpc.ID
}

func (w withProgressToken) AppendJSON(b []byte) ([]byte, error) {
	var tok [24]byte
	return MergeMeta(b, w.params, [][2][]byte{{[]byte("progressToken"), w.token.AppendJSON(tok[:0])}})
}
