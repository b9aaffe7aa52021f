package streamable

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"mcpgen.dev/runtime/codec"
	"mcpgen.dev/runtime/engine"
	"mcpgen.dev/runtime/jsonrpc"
	"mcpgen.dev/runtime/protocol"
	"mcpgen.dev/runtime/wire"
)

// HTTPError is a POST the server answered with an HTTP error and no JSON-RPC error to deliver.
type HTTPError struct {
	Status int
	Body   string
}

func (e *HTTPError) Error() string {
	body := e.Body
	if len(body) > 200 {
		body = body[:200]
	}
	return fmt.Sprintf("HTTP %d: %s", e.Status, body)
}

// ClientTransport is the client side of Streamable HTTP, for both eras. Its session tells it
// the era (SetProtocol): sessions (2025-11-25) send Mcp-Session-Id and MCP-Protocol-Version
// after initialize, open the standalone GET stream, resume an SSE reply whose connection dropped
// with GET and Last-Event-ID (after the server's retry time), and end the session with DELETE on
// Close; a 404 for the session fails the request with engine.ErrSessionExpired (the client then
// starts a new session, field case 006). Stateless (2026-07-28) POSTs carry the metadata
// headers (Mcp-Method, Mcp-Name, Mcp-Param-* from the tools' x-mcp-header; tools whose
// annotations break the rules are left out of tools/list results); cancelling a request closes
// its reply stream; a 4xx whose body is no modern JSON-RPC error is engine.ErrLegacyServer (a
// dual-era client falls back).
type ClientTransport struct {
	// URL of the MCP endpoint.
	URL string
	// Client makes the requests (default: one of the transport's own).
	Client *http.Client
	// Header is sent with every request (e.g. Authorization).
	Header http.Header
	// MaxRetries bounds the reconnections of an SSE stream (default 3).
	MaxRetries int
	// NoStandalone: do not open the GET stream of a session.
	NoStandalone bool
	// Logger (default slog.Default()).
	Logger *slog.Logger

	mu        sync.Mutex
	conn      *engine.Conn
	sessionID string
	version   string
	stateless bool
	tools     map[string][]protocol.ParamHeader
	listIDs   map[jsonrpc.ID]bool
	streams   map[jsonrpc.ID]context.CancelFunc
	ctx       context.Context
	stop      context.CancelFunc
	wg        sync.WaitGroup
	closed    bool
	log       *slog.Logger
}

// NewClientTransport returns the transport of the endpoint url.
func NewClientTransport(url string) *ClientTransport { return &ClientTransport{URL: url} }

var defaultClient = &http.Client{Transport: &http.Transport{
	Proxy:               http.ProxyFromEnvironment,
	MaxIdleConns:        256,
	MaxIdleConnsPerHost: 128,
	IdleConnTimeout:     90 * time.Second,
}}

// Connect starts the transport; it sends nothing until the session does.
func (t *ClientTransport) Connect(ctx context.Context, conn *engine.Conn) (engine.Channel, error) {
	t.conn = conn
	if t.Client == nil {
		t.Client = defaultClient
	}
	if t.MaxRetries <= 0 {
		t.MaxRetries = 3
	}
	t.log = t.Logger
	if t.log == nil {
		t.log = slog.Default()
	}
	t.tools = map[string][]protocol.ParamHeader{}
	t.listIDs = map[jsonrpc.ID]bool{}
	t.streams = map[jsonrpc.ID]context.CancelFunc{}
	t.ctx, t.stop = context.WithCancel(context.Background())
	return t, nil
}

// SetProtocol is told the session's protocol version and era (engine.ProtocolSetter).
func (t *ClientTransport) SetProtocol(version string, stateless bool) {
	t.mu.Lock()
	t.version, t.stateless = version, stateless
	t.mu.Unlock()
}

// SessionID is the session the server assigned ("" before initialize, and in the stateless era).
func (t *ClientTransport) SessionID() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.sessionID
}

func (t *ClientTransport) header(m *jsonrpc.Message, r *http.Request) {
	h := r.Header
	for k, v := range t.Header {
		h[k] = v
	}
	h.Set("Accept", "application/json, text/event-stream")
	if m != nil {
		h.Set("Content-Type", "application/json")
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stateless {
		if m != nil {
			var tool []protocol.ParamHeader
			if m.Method == "tools/call" {
				if name, err := wire.String(engine.Member(m.Params, "name")); err == nil {
					tool = t.tools[name]
				}
			}
			RequestHeaders(*m, tool, h.Set)
		}
		return
	}
	if t.sessionID != "" {
		h.Set("Mcp-Session-Id", t.sessionID)
	}
	if t.version != "" && (m == nil || m.Method != "initialize") {
		h.Set("Mcp-Protocol-Version", t.version)
	}
}

// Send POSTs one message (engine.Channel); a request's answer reaches the connection later.
func (t *ClientTransport) Send(msg []byte, final bool) error {
	t.mu.Lock()
	closed, stateless := t.closed, t.stateless
	t.mu.Unlock()
	if closed {
		return jsonrpc.ErrClosed
	}
	m, err := jsonrpc.Decode(msg)
	if err != nil {
		return err
	}
	if stateless && m.Kind == jsonrpc.KindNotification && m.Method == "notifications/cancelled" {
		// closing the reply stream is the cancellation on HTTP (2026-07-28 Cancellation)
		if id, err := jsonrpc.ParseID(engine.Member(m.Params, "requestId")); err == nil {
			t.mu.Lock()
			cancel := t.streams[id]
			t.mu.Unlock()
			if cancel != nil {
				cancel()
			}
		}
		return nil
	}
	isRequest := m.Kind == jsonrpc.KindRequest
	ctx, cancel := context.WithCancel(t.ctx)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.URL, bytes.NewReader(bytes.Clone(msg)))
	if err != nil {
		cancel()
		return err
	}
	t.header(&m, req)
	if !isRequest {
		resp, err := t.Client.Do(req)
		if err != nil {
			cancel()
			return fmt.Errorf("POST %s: %w: %w", t.URL, jsonrpc.ErrClosed, err)
		}
		if err := t.answer(m, resp, cancel); err != nil {
			cancel()
			return err
		}
		return nil
	}
	// a request's POST runs on its own, so that cancelling the call can close it
	t.mu.Lock()
	if stateless && m.Method == "tools/list" {
		t.listIDs[m.ID] = true
	}
	t.streams[m.ID] = cancel
	t.mu.Unlock()
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		resp, err := t.Client.Do(req)
		if err == nil {
			err = t.answer(m, resp, cancel)
		} else {
			err = fmt.Errorf("POST %s: %w: %w", t.URL, jsonrpc.ErrClosed, err)
		}
		if err != nil {
			cancel()
			t.forget(m.ID)
			t.conn.FailCall(m.ID, err)
		}
	}()
	return nil
}

func (t *ClientTransport) forget(id jsonrpc.ID) {
	t.mu.Lock()
	delete(t.streams, id)
	delete(t.listIDs, id)
	t.mu.Unlock()
}

// answer handles the response to a POST.
func (t *ClientTransport) answer(m jsonrpc.Message, resp *http.Response, cancel context.CancelFunc) error {
	status := resp.StatusCode
	isRequest := m.Kind == jsonrpc.KindRequest
	if m.Method == "initialize" {
		if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
			t.mu.Lock()
			t.sessionID = sid
			t.mu.Unlock()
		}
	}
	t.mu.Lock()
	sessionID, stateless := t.sessionID, t.stateless
	t.mu.Unlock()
	if status == http.StatusAccepted || (status/100 == 2 && !isRequest) {
		drain(resp)
		cancel()
		return nil
	}
	if status == http.StatusNotFound && sessionID != "" && !stateless && m.Method != "initialize" {
		drain(resp)
		cancel()
		t.mu.Lock()
		if t.sessionID == sessionID {
			t.sessionID = ""
		}
		t.mu.Unlock()
		return fmt.Errorf("%s: %w (HTTP 404)", m.Method, engine.ErrSessionExpired)
	}
	if status/100 == 2 && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		var id jsonrpc.ID
		if isRequest {
			id = m.ID
		}
		defer cancel()
		t.readReply(resp, id)
		return nil
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	drain(resp)
	cancel()
	if isRequest {
		// after the answer is delivered: a tools/list result learns its tools' headers first
		defer t.forget(m.ID)
	}
	if wire.Valid(body) && engine.Member(body, "jsonrpc") != nil && (engine.Member(body, "result") != nil || engine.Member(body, "error") != nil) {
		if status >= 400 && isRequest && engine.Member(body, "id") == nil {
			e := jsonrpc.ParseError(engine.Member(body, "error"))
			if stateless && (status == 400 || status == 404 || status == 405) && !modernCode(e.Code) {
				return fmt.Errorf("HTTP %d: %s: %w", status, e.Message, engine.ErrLegacyServer)
			}
			body = jsonrpc.AppendErrorResponse(nil, m.ID, e)
		}
		t.deliver(body)
		return nil
	}
	if stateless && (status == 400 || status == 404 || status == 405) {
		return fmt.Errorf("HTTP %d without a JSON-RPC error: %w", status, engine.ErrLegacyServer)
	}
	return &HTTPError{Status: status, Body: string(body)}
}

// modernCode: an error code only a server of the stateless era answers with.
func modernCode(code int64) bool {
	switch code {
	case -32020, -32021, -32022, jsonrpc.CodeMethodNotFound, jsonrpc.CodeInvalidParams:
		return true
	}
	return false
}

func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
}

// deliver hands one message to the connection (tools/list results learn x-mcp-header first).
func (t *ClientTransport) deliver(msg []byte) {
	t.mu.Lock()
	learn := len(t.listIDs) > 0
	t.mu.Unlock()
	if learn {
		if m, err := jsonrpc.Decode(msg); err == nil && m.Kind == jsonrpc.KindResult {
			t.mu.Lock()
			was := t.listIDs[m.ID]
			delete(t.listIDs, m.ID)
			t.mu.Unlock()
			if was {
				msg = t.learnTools(m, msg)
			}
		}
	}
	t.conn.Receive(msg, nil, nil)
}

// learnTools keeps each listed tool's x-mcp-header annotations and leaves out the tools whose
// annotations break the rules (2026-07-28 streamable-http, "Schema Extension").
func (t *ClientTransport) learnTools(m jsonrpc.Message, msg []byte) []byte {
	tools := engine.Member(m.Result, "tools")
	a, err := wire.Elements(tools)
	if err != nil {
		return msg
	}
	kept := []byte{'['}
	dropped := false
	for a.Next() {
		tool := a.Value()
		name, _ := wire.String(engine.Member(tool, "name"))
		headers, err := protocol.ParamHeaders(engine.Member(tool, "inputSchema"))
		if err != nil {
			t.log.Warn("mcpgen: tools/list: left out a tool whose x-mcp-header annotations are invalid", "tool", name, "reason", err)
			dropped = true
			continue
		}
		t.mu.Lock()
		t.tools[name] = headers
		t.mu.Unlock()
		kept = wire.Comma(kept)
		kept = append(kept, tool...)
	}
	if !dropped {
		return msg
	}
	kept = append(kept, ']')
	result := rebuild(m.Result, "tools", kept)
	out, err := jsonrpc.AppendResult(nil, m.ID, jsonrpc.Raw(result))
	if err != nil {
		return msg
	}
	return out
}

// rebuild returns the object data with member key's value replaced.
func rebuild(data []byte, key string, value []byte) []byte {
	out := []byte{'{'}
	o, _ := wire.Members(data)
	for o.Next() {
		out = wire.Comma(out)
		out = wire.AppendString(out, string(o.Key()))
		out = append(out, ':')
		if string(o.Key()) == key {
			out = append(out, value...)
		} else {
			out = append(out, o.Value()...)
		}
	}
	return append(out, '}')
}

// readReply reads an SSE reply; a connection lost before the response is resumed with
// Last-Event-ID (sessions), or fails the request (stateless).
func (t *ClientTransport) readReply(resp *http.Response, id jsonrpc.ID) {
	defer t.forget(id)
	sse := codec.NewSSEReader(resp.Body, 0)
	retry := 1000
	answered := false
	for attempts := 0; ; {
		for {
			ev, err := sse.Next()
			if err != nil {
				break
			}
			if ev.Retry >= 0 {
				retry = ev.Retry
			}
			if ev.Data == "" {
				continue
			}
			data := []byte(ev.Data)
			if id.IsValid() {
				if m, err := jsonrpc.Decode(data); err == nil && (m.Kind == jsonrpc.KindResult || m.Kind == jsonrpc.KindError) && m.ID == id {
					answered = true
				}
			}
			t.deliver(data)
		}
		_ = resp.Body.Close()
		t.mu.Lock()
		stateless, closed := t.stateless, t.closed
		t.mu.Unlock()
		if answered || !id.IsValid() || closed || t.ctx.Err() != nil {
			return
		}
		if stateless || sse.LastEventID() == "" {
			t.fail(id, "the reply stream ended before the response")
			return
		}
		attempts++
		if attempts > t.MaxRetries {
			t.fail(id, fmt.Sprintf("the reply stream ended and %d reconnections failed", t.MaxRetries))
			return
		}
		select {
		case <-time.After(time.Duration(retry) * time.Millisecond):
		case <-t.ctx.Done():
			return
		}
		next, err := t.get(sse.LastEventID())
		if err != nil {
			continue
		}
		if next.StatusCode != http.StatusOK {
			drain(next)
			t.fail(id, fmt.Sprintf("resuming the reply stream failed (HTTP %d)", next.StatusCode))
			return
		}
		resp = next
		prev := sse.LastEventID()
		sse = codec.NewSSEReader(resp.Body, 0)
		sse.SetLastEventID(prev)
	}
}

func (t *ClientTransport) get(lastEventID string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(t.ctx, http.MethodGet, t.URL, nil)
	if err != nil {
		return nil, err
	}
	t.header(nil, req)
	req.Header.Set("Accept", "text/event-stream")
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	return t.Client.Do(req)
}

// fail answers a request whose stream ended without its response with -32000.
func (t *ClientTransport) fail(id jsonrpc.ID, why string) {
	t.conn.Receive(jsonrpc.AppendErrorResponse(nil, id, jsonrpc.NewError(jsonrpc.CodeConnectionClosed, "Connection closed: "+why)), nil, nil)
}

// OpenStandalone opens the session's GET stream (engine.StandaloneOpener) and returns once the
// server answered it (or after 5 s): nil when it is open or the server has none (405).
func (t *ClientTransport) OpenStandalone(ctx context.Context) error {
	t.mu.Lock()
	skip := t.NoStandalone || t.stateless || t.sessionID == ""
	t.mu.Unlock()
	if skip {
		return nil
	}
	opened := make(chan error, 1)
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		t.standalone(opened)
	}()
	select {
	case err := <-opened:
		return err
	case <-time.After(5 * time.Second):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (t *ClientTransport) standalone(opened chan<- error) {
	last := ""
	retry := 1000
	for attempts := 0; attempts <= t.MaxRetries && t.ctx.Err() == nil; attempts++ {
		resp, err := t.get(last)
		if err != nil {
			select {
			case opened <- err:
			default:
			}
		} else {
			if resp.StatusCode != http.StatusOK {
				drain(resp)
				select {
				case opened <- nil:
				default:
				}
				return // 405: the server has no standalone stream
			}
			select {
			case opened <- nil:
			default:
			}
			sse := codec.NewSSEReader(resp.Body, 0)
			sse.SetLastEventID(last)
			for {
				ev, err := sse.Next()
				if err != nil {
					break
				}
				if ev.Retry >= 0 {
					retry = ev.Retry
				}
				if ev.Data != "" {
					t.deliver([]byte(ev.Data))
				}
				attempts = 0
			}
			last = sse.LastEventID()
			_ = resp.Body.Close()
		}
		select {
		case <-time.After(time.Duration(retry) * time.Millisecond):
		case <-t.ctx.Done():
			return
		}
	}
}

// Close ends the transport: the streams close, and a session is ended with DELETE.
func (t *ClientTransport) Close() error {
	t.mu.Lock()
	if t.closed || t.ctx == nil {
		t.closed = true
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	sid, stateless := t.sessionID, t.stateless
	t.mu.Unlock()
	t.stop()
	t.wg.Wait()
	if sid != "" && !stateless {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if req, err := http.NewRequestWithContext(ctx, http.MethodDelete, t.URL, nil); err == nil {
			for k, v := range t.Header {
				req.Header[k] = v
			}
			req.Header.Set("Mcp-Session-Id", sid)
			if t.version != "" {
				req.Header.Set("Mcp-Protocol-Version", t.version)
			}
			if resp, err := t.Client.Do(req); err == nil {
				drain(resp)
			}
		}
	}
	if t.conn != nil {
		t.conn.Close(nil)
	}
	return nil
}
