package engine

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"mcpgen.dev/runtime/jsonrpc"
	"mcpgen.dev/runtime/wire"
)

// ConnOptions configures a Conn.
type ConnOptions struct {
	// Channel is the connection's own channel: where requests and notifications that relate to
	// no inbound request go, and the default for responses.
	Channel Channel
	// Handler serves inbound requests and notifications (nil: every request gets -32601).
	Handler Handler
	// Methods lets Decode share method strings instead of allocating them.
	Methods jsonrpc.Methods
	// Timeout is the default time an outbound request waits for its answer when its context has
	// no deadline (0: none).
	Timeout time.Duration
	// MaxInFlight bounds the requests sent and unanswered, and the requests being served, each
	// (default 4096). Beyond it a request fails at once with -32603.
	MaxInFlight int
	// AnswerParseErrors: a server answers a message it cannot parse with -32700 (no id); a
	// client only logs it.
	AnswerParseErrors bool
	// Inline names the requests served on the read loop, before the next message is read
	// (a server's initialize: what follows it sees the session it made); others are served
	// each in its own goroutine.
	Inline func(method string) bool
	// Logger gets what is dropped and why (default slog.Default()).
	Logger *slog.Logger
	// Revision returns the protocol version a handshake-era server serves, for the -32600
	// answering a JSON array (no batches since 2025-06-18), as the TypeScript engine words it:
	// "Invalid Request: protocol version <Revision()> has no JSON-RPC batches", "Invalid Request:
	// empty batch" for []. Nil: jsonrpc.BatchRefused (the stateless era's words).
	Revision func() string
}

// Conn is one side of a connection: it sends requests and notifications and serves what the
// peer sends. Transports feed it with Receive and call Close when the connection ends.
type Conn struct {
	opts    ConnOptions
	log     *slog.Logger
	nextID  atomic.Int64
	ctx     context.Context
	stop    context.CancelFunc
	mu      sync.Mutex
	pending map[jsonrpc.ID]*call
	inbound map[jsonrpc.ID]*Request
	closed  bool
	err     error
	done    chan struct{}
	// sending counts the answers sent asynchronously (refusals) and not yet written.
	sending int
	// lastSent is closed when the last answer sent asynchronously is written (nil: none yet):
	// each waits for the one before it, so refusals leave in the order their messages came.
	lastSent chan struct{}
	// idle is closed when the last request being served ends, and the last answer sent
	// asynchronously is written, while draining (nil otherwise).
	idle chan struct{}
}

// NewConn returns a connection; ctx bounds the requests it serves (they are cancelled with it).
func NewConn(ctx context.Context, opts ConnOptions) *Conn {
	if opts.MaxInFlight <= 0 {
		opts.MaxInFlight = 4096
	}
	c := &Conn{
		opts:    opts,
		log:     opts.Logger,
		pending: map[jsonrpc.ID]*call{},
		inbound: map[jsonrpc.ID]*Request{},
		done:    make(chan struct{}),
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	c.ctx, c.stop = context.WithCancel(ctx)
	return c
}

// SetChannel replaces the connection's own channel.
func (c *Conn) SetChannel(ch Channel) {
	c.mu.Lock()
	c.opts.Channel = ch
	c.mu.Unlock()
}

// SetHandler replaces the handler (before the first message).
func (c *Conn) SetHandler(h Handler) { c.opts.Handler = h }

// Channel is the connection's own channel.
func (c *Conn) Channel() Channel {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.opts.Channel
}

// Done is closed once the connection is closed.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err is why the connection closed (nil while open or after a clean close).
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// InFlight returns the number of requests sent and unanswered, and being served.
func (c *Conn) InFlight() (sent, served int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pending), len(c.inbound)
}

// Serving reports whether a request with this id is being served (a request reusing it is
// refused -32600, jsonrpc.IDInUse).
func (c *Conn) Serving(id jsonrpc.ID) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.inbound[id] != nil
}

// Close ends the connection: requests waiting for an answer fail with jsonrpc.ErrClosed (err,
// when given, is wrapped in it), requests being served are cancelled. Idempotent.
func (c *Conn) Close(err error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	c.err = err
	pending := c.pending
	c.pending = map[jsonrpc.ID]*call{}
	inbound := make([]*Request, 0, len(c.inbound))
	for _, r := range c.inbound {
		inbound = append(inbound, r)
	}
	c.mu.Unlock()
	failure := jsonrpc.ErrClosed
	if err != nil {
		failure = fmt.Errorf("%w: %v", jsonrpc.ErrClosed, err)
	}
	for _, p := range pending {
		p.deliver(nil, nil, failure)
	}
	for _, r := range inbound {
		r.Cancel()
	}
	c.stop()
	close(c.done)
}

// Drain ends the connection once what it serves is answered: requests sent and unanswered fail
// at once (no answer can come), the requests being served have up to grace to finish (their
// responses still go out, as do the refusals of invalid messages read before), then Close(err). For a peer whose input ended while its output is
// still open (a stdio server whose stdin closed). It returns when the connection is closed.
func (c *Conn) Drain(err error, grace time.Duration) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	pending := c.pending
	c.pending = map[jsonrpc.ID]*call{}
	var idle chan struct{}
	if (len(c.inbound) > 0 || c.sending > 0) && grace > 0 {
		idle = make(chan struct{})
		c.idle = idle
	}
	c.mu.Unlock()
	failure := jsonrpc.ErrClosed
	if err != nil {
		failure = fmt.Errorf("%w: %v", jsonrpc.ErrClosed, err)
	}
	for _, p := range pending {
		p.deliver(nil, nil, failure)
	}
	if idle != nil {
		t := time.NewTimer(grace)
		select {
		case <-idle:
		case <-t.C:
		case <-c.done:
		}
		t.Stop()
	}
	c.Close(err)
}

// Receive takes one message as the transport read it (data is not kept). ch is where the answer
// to a request goes (nil: the connection's channel); header the HTTP request's headers, if any.
// It never fails: a message that is not valid is answered (-32700, -32600) or dropped.
func (c *Conn) Receive(data []byte, ch Channel, header http.Header) {
	m, err := c.opts.Methods.Decode(data)
	if err != nil {
		if e := jsonrpc.AsError(err); e.Message == jsonrpc.BatchRefused && c.opts.Revision != nil {
			if jsonrpc.BatchRevisions[c.opts.Revision()] && c.batch(data, ch, header) {
				return
			}
			err = jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Invalid Request: protocol version "+c.opts.Revision()+" has no JSON-RPC batches")
			if t := bytes.TrimSpace(data); len(bytes.TrimSpace(t[1:len(t)-1])) == 0 {
				err = jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Invalid Request: empty batch")
			}
		}
		c.refuse(m, err, ch)
		return
	}
	c.ReceiveMessage(m, ch, header)
}

// batch serves a non-empty JSON-RPC 2.0 section 6 batch read from the connection: its responses
// leave on ch as one JSON array (see ServeBatch). False for an empty array (refused by the caller).
func (c *Conn) batch(data []byte, ch Channel, header http.Header) bool {
	if ch == nil {
		ch = c.Channel()
	}
	var entries [][]byte
	for items, _ := wire.Elements(data); items.Next(); {
		entries = append(entries, items.Value())
	}
	if len(entries) == 0 {
		return false
	}
	c.ServeBatch(entries, ch, header, func(responses [][]byte) {
		if len(responses) > 0 {
			_ = ch.Send(JoinArray(responses), true)
		}
	})
	return true
}

// ServeBatch serves the entries of a JSON-RPC 2.0 section 6 batch where the revision has them
// (2025-03-26, whose basic page says a server MUST support receiving them): each as if it came
// alone, an invalid one refused with -32600 (as Receive refuses it). done gets the responses
// once every request of the batch is answered (none for notifications and responses only);
// what the requests send on the way (notifications, requests to the client) leaves on ch.
// TypeScript's engine/batch.ts.
func (c *Conn) ServeBatch(entries [][]byte, ch Channel, header http.Header, done func(responses [][]byte)) {
	b := &batchReply{out: ch, pending: 1, done: done}
	for _, entry := range entries {
		m, err := c.opts.Methods.Decode(entry)
		switch {
		case m.Kind == jsonrpc.KindNotification || m.Kind == jsonrpc.KindResult || m.Kind == jsonrpc.KindError:
		case err != nil || m.Kind == jsonrpc.KindRequest:
			b.expect()
		}
		if err != nil {
			c.refuse(m, err, b)
		} else {
			c.ReceiveMessage(m, b, header)
		}
	}
	b.settle()
}

// JoinArray is the JSON array of the encoded messages.
func JoinArray(messages [][]byte) []byte {
	out := append([]byte{'['}, bytes.Join(messages, []byte{','})...)
	return append(out, ']')
}

// batchReply is the channel of one inbound batch: the responses (final sends) are kept until
// every request of it is answered, then handed to done; other messages leave at once.
type batchReply struct {
	out       Channel
	done      func([][]byte)
	mu        sync.Mutex
	pending   int
	responses [][]byte
}

func (b *batchReply) expect() {
	b.mu.Lock()
	b.pending++
	b.mu.Unlock()
}

func (b *batchReply) Send(msg []byte, final bool) error {
	if !final {
		return b.out.Send(msg, false)
	}
	b.mu.Lock()
	b.responses = append(b.responses, bytes.Clone(msg))
	b.mu.Unlock()
	b.settle()
	return nil
}

// settle: an answer is in, a request of the batch ended unanswered (cancelled), or every entry
// was dispatched.
func (b *batchReply) settle() {
	b.mu.Lock()
	b.pending--
	last := b.pending == 0
	b.mu.Unlock()
	if last {
		b.done(b.responses)
	}
}

// refuse answers a message that failed to decode: requests and unparseable input get the error
// (a client only logs unparseable input); notifications and responses are dropped.
func (c *Conn) refuse(m jsonrpc.Message, err error, ch Channel) {
	e := jsonrpc.AsError(err)
	switch m.Kind {
	case jsonrpc.KindNotification:
		c.log.Debug("mcpgen: dropped a malformed notification", "error", err)
		return
	case jsonrpc.KindResult, jsonrpc.KindError:
		if m.ID.IsValid() {
			c.fail(m.ID, jsonrpc.NewError(jsonrpc.CodeInternalError, "malformed response: "+e.Message))
		} else {
			c.log.Debug("mcpgen: dropped a response without id", "error", err)
		}
		return
	}
	if e.Code == jsonrpc.CodeParseError && !c.opts.AnswerParseErrors {
		c.log.Warn("mcpgen: dropped a message that is not JSON", "error", err)
		return
	}
	// the request's id when it could be read (JSON-RPC 2.0 section 5); none when it could not,
	// and never one that is not a string or an integer (field case 002)
	c.sendAsync(ch, jsonrpc.AppendErrorResponse(nil, m.AnswerID(), e))
}

// ReceiveMessage takes one decoded message (see Receive). Its Params and Result are copied
// where they are kept.
func (c *Conn) ReceiveMessage(m jsonrpc.Message, ch Channel, header http.Header) {
	if ch == nil {
		ch = c.Channel()
	}
	switch m.Kind {
	case jsonrpc.KindRequest:
		c.start(m, ch, header)
	case jsonrpc.KindNotification:
		c.notification(m, ch, header)
	case jsonrpc.KindResult:
		c.response(m.ID, m.Result, nil)
	case jsonrpc.KindError:
		if !m.ID.IsValid() {
			c.log.Warn("mcpgen: the peer sent an error without id", "error", m.Error)
			return
		}
		c.response(m.ID, nil, m.Error)
	}
}

func (c *Conn) start(m jsonrpc.Message, ch Channel, header http.Header) {
	if ch == nil {
		return
	}
	if k := firstNonSpace(m.Params); k == '[' {
		c.sendAsync(ch, jsonrpc.AppendErrorResponse(nil, m.ID, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params: params must be an object")))
		return
	}
	req := &Request{ID: m.ID, Method: m.Method, Channel: ch, Conn: c, Header: header}
	if m.Params != nil {
		req.Params = bytes.Clone(m.Params)
		req.progress = progressToken(req.Params)
	}
	ctx, cancel := context.WithCancel(c.ctx)
	req.cancel = cancel
	c.mu.Lock()
	switch {
	case c.closed:
		c.mu.Unlock()
		cancel()
		return
	case c.inbound[m.ID] != nil:
		c.mu.Unlock()
		cancel()
		c.sendAsync(ch, jsonrpc.AppendErrorResponse(nil, m.ID, jsonrpc.IDInUse(m.ID)))
		return
	case len(c.inbound) >= c.opts.MaxInFlight:
		c.mu.Unlock()
		cancel()
		c.sendAsync(ch, jsonrpc.AppendErrorResponse(nil, m.ID, jsonrpc.NewError(jsonrpc.CodeInternalError, fmt.Sprintf("too many requests in flight (at most %d)", c.opts.MaxInFlight))))
		return
	}
	c.inbound[m.ID] = req
	c.mu.Unlock()
	if c.opts.Inline != nil && c.opts.Inline(req.Method) {
		c.serve(ctx, req)
		return
	}
	go c.serve(ctx, req)
}

func (c *Conn) serve(ctx context.Context, req *Request) {
	defer func() {
		req.cancel()
		c.mu.Lock()
		if c.inbound[req.ID] == req {
			delete(c.inbound, req.ID)
		}
		if c.idle != nil && len(c.inbound) == 0 && c.sending == 0 {
			close(c.idle)
			c.idle = nil
		}
		c.mu.Unlock()
	}()
	h := c.opts.Handler
	if h == nil {
		h = noHandler{}
	}
	Serve(ctx, h, req)
}

func (c *Conn) notification(m jsonrpc.Message, ch Channel, header http.Header) {
	switch m.Method {
	case "notifications/cancelled":
		raw := Member(m.Params, "requestId")
		if raw == nil {
			return
		}
		id, err := jsonrpc.ParseID(raw)
		if err != nil {
			return
		}
		c.mu.Lock()
		req := c.inbound[id]
		c.mu.Unlock()
		// "The initialize request MUST NOT be cancelled by clients" (basic/utilities/cancellation)
		if req != nil && req.Method != "initialize" {
			req.Cancel()
		}
		return
	case "notifications/progress":
		if c.progress(m.Params) {
			return
		}
	}
	if h := c.opts.Handler; h != nil {
		h.HandleNotification(c.ctx, &Notification{Method: m.Method, Params: m.Params, Channel: ch, Header: header, Conn: c})
	}
}

// progress routes notifications/progress to the call that asked for it; false when none did
// (late progress for a finished call is dropped: field case 009).
func (c *Conn) progress(params []byte) bool {
	raw := Member(params, "progressToken")
	if raw == nil {
		return true
	}
	tok, err := jsonrpc.ParseID(raw)
	if err != nil {
		return true
	}
	c.mu.Lock()
	p := c.pending[tok]
	c.mu.Unlock()
	if p == nil || p.onProgress == nil {
		c.log.Debug("mcpgen: dropped progress for an unknown token", "token", tok.String())
		return true
	}
	var pr Progress
	var ok bool
	if pr.Progress, ok = number(Member(params, "progress")); !ok {
		return true
	}
	pr.Total, _ = number(Member(params, "total"))
	if msg := Member(params, "message"); msg != nil {
		pr.Message, _ = wire.String(msg)
	}
	p.onProgress(pr)
	return true
}

func number(raw []byte) (float64, bool) {
	if raw == nil {
		return 0, false
	}
	f, err := wire.Float(raw)
	return f, err == nil
}

func firstNonSpace(b []byte) byte {
	b = wire.Trim(b)
	if len(b) == 0 {
		return 0
	}
	return b[0]
}

// sendAsync sends a message from the read loop without waiting for the channel. The messages
// it sends are written in the order of the calls: an error without id (a line that is not JSON,
// an unreadable id) can only be told apart from the others by its place among them.
func (c *Conn) sendAsync(ch Channel, msg []byte) {
	if ch == nil {
		return
	}
	done := make(chan struct{})
	c.mu.Lock()
	c.sending++
	prev := c.lastSent
	c.lastSent = done
	c.mu.Unlock()
	go func() {
		if prev != nil {
			<-prev
		}
		_ = ch.Send(msg, true)
		close(done)
		c.mu.Lock()
		c.sending--
		if c.idle != nil && len(c.inbound) == 0 && c.sending == 0 {
			close(c.idle)
			c.idle = nil
		}
		c.mu.Unlock()
	}()
}

type noHandler struct{}

func (noHandler) HandleRequest(ctx context.Context, req *Request) (wire.Appender, error) {
	return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "Method not found: "+req.Method)
}

func (noHandler) HandleNotification(context.Context, *Notification) {}
