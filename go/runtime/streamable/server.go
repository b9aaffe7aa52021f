// Package streamable is the Streamable HTTP transport, both sides and both eras.
//
// Handler serves one MCP endpoint as an http.Handler, in either era or both (dual-era):
//
//   - sessions (2025-11-25 basic/transports, Streamable HTTP): initialize opens a session whose
//     Mcp-Session-Id is 32 hex digits; later requests name it (400 without it, 404 for an
//     unknown, ended or expired one); DELETE ends it; GET opens its one standalone stream (409
//     for a second). A request's reply is JSON, or an SSE stream as soon as anything but its
//     response goes first (ReplyAuto); streams open with a priming event when the revision says
//     so and can be resumed by GET with Last-Event-ID for KeepEvents; a dropped connection does
//     not cancel the request. Sessions idle (no request in flight, no open stream) for
//     SessionIdle end; at MaxSessions a new initialize ends the least recently used idle one,
//     or gets 503 with Retry-After.
//   - stateless (2026-07-28 basic/transports/streamable-http): one server answers every POST;
//     the metadata headers are checked against the body (400 with -32020), an unknown version
//     is 400 with -32022, an unknown method 404 with -32601; closing a reply's stream cancels
//     its request; GET and DELETE are 405; an Mcp-Session-Id is ignored.
//
// Checks on the request head come before any of the body is read: 403 for a Host or an Origin
// not allowed (DNS rebinding; default: the loopback names), 405, 406 for an Accept without
// application/json and text/event-stream, 415 for a Content-Type other than application/json
// (a charset other than utf-8 included) or a Content-Encoding other than identity,
// 413 for a Content-Length over MaxBodyBytes; each is a JSON-RPC error response with code -32000
// and no id.
//
// ClientTransport is the client side of both eras (client.go).
package streamable

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"mcpgen.dev/runtime/engine"
	"mcpgen.dev/runtime/jsonrpc"
	"mcpgen.dev/runtime/protocol"
	"mcpgen.dev/runtime/session"
	"mcpgen.dev/runtime/wire"
)

// Reply modes of a request's answer.
const (
	// ReplyAuto answers with JSON when the response is the first message, else with SSE.
	ReplyAuto = "auto"
	// ReplyJSON always answers with JSON (notifications about the request are not sent).
	ReplyJSON = "json"
	// ReplySSE always answers with an SSE stream.
	ReplySSE = "sse"
)

// Options configures a Handler. Sessions, Stateless or both must be set.
type Options struct {
	// Sessions is the server of the handshake era: each HTTP session gets a session of it.
	Sessions *session.Server
	// Stateless is the server of the stateless era.
	Stateless *session.Server
	// AllowedHosts are the Host values accepted (with or without port); nil: the loopback names
	// (localhost, 127.0.0.1, [::1]).
	AllowedHosts []string
	// AllowedOrigins are the Origin values accepted; nil: http(s) origins of the loopback names.
	AllowedOrigins []string
	// MaxBodyBytes is the largest POST body (default 4 MiB).
	MaxBodyBytes int64
	// MaxSessions is the most sessions at once (default 10000).
	MaxSessions int
	// SessionIdle is how long an idle session lives (default 30 minutes).
	SessionIdle time.Duration
	// KeepEvents is how long a finished stream stays resumable (default 5 minutes).
	KeepEvents time.Duration
	// ReplyMode is ReplyAuto (default), ReplyJSON or ReplySSE.
	ReplyMode string
	// Logger (default slog.Default()).
	Logger *slog.Logger
}

// Handler serves one MCP endpoint (see the package doc).
type Handler struct {
	opts     Options
	log      *slog.Logger
	mu       sync.Mutex
	sessions map[string]*httpSession
	sweeper  sync.Once
	stop     chan struct{}
	stopOnce sync.Once
}

// NewHandler returns the handler of an endpoint.
func NewHandler(opts Options) *Handler {
	if opts.Sessions == nil && opts.Stateless == nil {
		panic("streamable: Options needs Sessions, Stateless or both")
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = 4 << 20
	}
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = 10000
	}
	if opts.SessionIdle <= 0 {
		opts.SessionIdle = 30 * time.Minute
	}
	if opts.KeepEvents <= 0 {
		opts.KeepEvents = 5 * time.Minute
	}
	if opts.ReplyMode == "" {
		opts.ReplyMode = ReplyAuto
	}
	h := &Handler{opts: opts, log: opts.Logger, sessions: map[string]*httpSession{}, stop: make(chan struct{})}
	if h.log == nil {
		h.log = slog.Default()
	}
	return h
}

// Close ends every session and the stateless server's listen streams.
func (h *Handler) Close() {
	h.stopOnce.Do(func() { close(h.stop) })
	h.mu.Lock()
	sessions := make([]*httpSession, 0, len(h.sessions))
	for _, s := range h.sessions {
		sessions = append(sessions, s)
	}
	h.sessions = map[string]*httpSession{}
	h.mu.Unlock()
	for _, s := range sessions {
		s.end()
	}
	if h.opts.Stateless != nil {
		h.opts.Stateless.Close()
	}
}

// Sessions is the number of open sessions.
func (h *Handler) Sessions() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.sessions)
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.sweeper.Do(func() { go h.sweep() })
	if refusal := h.checkOrigin(r); refusal != "" {
		writeError(w, http.StatusForbidden, codeRefused, refusal, nil)
		return
	}
	switch r.Method {
	case http.MethodPost:
		h.post(w, r)
	case http.MethodGet:
		h.get(w, r)
	case http.MethodDelete:
		h.delete(w, r)
	default:
		allow := "POST"
		if h.opts.Sessions != nil {
			allow = "GET, POST, DELETE"
		}
		w.Header().Set("Allow", allow)
		writeError(w, http.StatusMethodNotAllowed, codeRefused, "Method Not Allowed: "+r.Method, nil)
	}
}

var loopback = []string{"localhost", "127.0.0.1", "[::1]", "::1"}

func hostName(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		if strings.Contains(h, ":") {
			return "[" + h + "]"
		}
		return h
	}
	return hostport
}

func (h *Handler) checkOrigin(r *http.Request) string {
	host := strings.ToLower(r.Host)
	if host != "" {
		name := hostName(host)
		allowed := false
		if h.opts.AllowedHosts == nil {
			allowed = contains(loopback, name)
		} else {
			for _, a := range h.opts.AllowedHosts {
				a = strings.ToLower(a)
				allowed = allowed || a == host || a == name
			}
		}
		if !allowed {
			return "Forbidden: Host " + strconv.Quote(r.Host) + " is not allowed"
		}
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		ok := false
		if h.opts.AllowedOrigins != nil {
			ok = contains(h.opts.AllowedOrigins, origin)
		} else if rest, found := strings.CutPrefix(origin, "http://"); found {
			ok = contains(loopback, hostName(strings.ToLower(rest)))
		} else if rest, found := strings.CutPrefix(origin, "https://"); found {
			ok = contains(loopback, hostName(strings.ToLower(rest)))
		}
		if !ok {
			return "Forbidden: Origin " + strconv.Quote(origin) + " is not allowed"
		}
	}
	return ""
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// accepts reports whether the request's Accept lists each of types itself with a non-zero q (a
// wildcard such as */* does not count: the 2025-11-25 transports page has the client list both).
func accepts(r *http.Request, types ...string) bool {
	for _, t := range types {
		if !acceptsType(r.Header.Values("Accept"), t) {
			return false
		}
	}
	return true
}

func acceptsType(values []string, mediaType string) bool {
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			mediaRange, params, _ := strings.Cut(part, ";")
			if !strings.EqualFold(strings.TrimSpace(mediaRange), mediaType) {
				continue
			}
			ok := true
			for _, p := range strings.Split(params, ";") {
				if k, q, found := strings.Cut(strings.TrimSpace(p), "="); found && strings.EqualFold(k, "q") {
					f, err := strconv.ParseFloat(strings.TrimSpace(q), 64)
					ok = err == nil && f > 0
				}
			}
			if ok {
				return true
			}
		}
	}
	return false
}

// methods is every method name the endpoint's tables know.
func (h *Handler) methods() jsonrpc.Methods {
	m := jsonrpc.Methods{}
	for _, s := range []*session.Server{h.opts.Sessions, h.opts.Stateless} {
		if s == nil {
			continue
		}
		for _, t := range append([]*protocol.Table{s.Table()}, s.Config().Fallback...) {
			for k, v := range t.Methods() {
				m[k] = v
			}
		}
	}
	return m
}

// codeRefused answers a refusal on the request line or headers (403, 405, 406, 413, 415), before
// any message was read: -32000 with no id, as the TypeScript and Python servers (and the official
// TypeScript SDK's 405) answer the same statuses.
const codeRefused int64 = -32000

func (h *Handler) post(w http.ResponseWriter, r *http.Request) {
	if !accepts(r, "application/json", "text/event-stream") {
		writeError(w, http.StatusNotAcceptable, codeRefused, "Not Acceptable: Accept must list application/json and text/event-stream", nil)
		return
	}
	if !jsonType(r.Header.Get("Content-Type")) {
		writeError(w, http.StatusUnsupportedMediaType, codeRefused, "Unsupported Media Type: Content-Type must be application/json (charset utf-8, if named)", nil)
		return
	}
	if coding := r.Header.Get("Content-Encoding"); coding != "" && !strings.EqualFold(strings.TrimSpace(coding), "identity") {
		if len(coding) > 64 {
			coding = coding[:64]
		}
		w.Header().Set("Accept-Encoding", "identity")
		writeError(w, http.StatusUnsupportedMediaType, codeRefused, "Unsupported Media Type: Content-Encoding "+strconv.Quote(coding)+" is not read", nil)
		return
	}
	if r.ContentLength > h.opts.MaxBodyBytes {
		writeError(w, http.StatusRequestEntityTooLarge, codeRefused, "Payload Too Large: at most "+strconv.FormatInt(h.opts.MaxBodyBytes, 10)+" bytes", nil)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes))
	if err != nil {
		if _, tooLarge := err.(*http.MaxBytesError); tooLarge {
			writeError(w, http.StatusRequestEntityTooLarge, codeRefused, "Payload Too Large: at most "+strconv.FormatInt(h.opts.MaxBodyBytes, 10)+" bytes", nil)
			return
		}
		// a body cut off before its Content-Length (the client closed its side) or unreadable:
		// 400 -32600, as the TypeScript server answers a request its HTTP parser cannot complete
		msg := "Bad Request: the body could not be read (" + err.Error() + ")"
		if errors.Is(err, io.ErrUnexpectedEOF) {
			msg = "Bad Request: the body ended before its Content-Length (" + strconv.FormatInt(r.ContentLength, 10) + " bytes)"
		}
		w.Header().Set("Connection", "close")
		writeError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, msg, nil)
		return
	}
	m, err := h.methods().Decode(body)
	if err != nil {
		if s := h.session(r.Header.Get("Mcp-Session-Id")); s != nil && jsonrpc.AsError(err).Message == jsonrpc.BatchRefused && jsonrpc.BatchRevisions[s.ss.Table().ProtocolVersion] {
			h.sessionBatch(w, r, s, body)
			return
		}
		e := h.bodyError(jsonrpc.AsError(err), r.Header.Get("Mcp-Session-Id"))
		if m.Kind == jsonrpc.KindNotification {
			// a malformed notification is accepted and ignored (field case 004)
			w.WriteHeader(http.StatusAccepted)
			return
		}
		// the request's id when it could be read (JSON-RPC 2.0 section 5)
		writeJSON(w, http.StatusBadRequest, jsonrpc.AppendErrorResponse(nil, m.AnswerID(), e))
		return
	}
	sid := r.Header.Get("Mcp-Session-Id")
	hv := r.Header.Get("Mcp-Protocol-Version")
	isInit := m.Method == "initialize"
	modern := session.ReadMeta(m.Params).ProtocolVersion != "" || engine.Member(engine.Member(m.Params, "_meta"), session.MetaProtocolVersion) != nil
	if h.opts.Sessions != nil && ((sid != "" && (h.opts.Stateless == nil || !modern)) || (isInit && !modern)) {
		if isInit {
			if sid != "" {
				writeError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "Bad Request: initialize must not carry Mcp-Session-Id", nil)
				return
			}
			h.initialize(w, r, m)
			return
		}
		s := h.session(sid)
		if s == nil {
			writeError(w, http.StatusNotFound, codeRefused, "Session not found", nil)
			return
		}
		if hv != "" && !contains(s.ss.Server().Versions(), hv) {
			writeError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "Bad Request: unsupported MCP-Protocol-Version "+strconv.Quote(hv), nil)
			return
		}
		h.sessionMessage(w, r, s, m, false)
		return
	}
	// anything else is the modern side's (docs/guide/dual-era.md), so a request that fits neither
	// era gets the modern error (-32602 for a missing _meta protocol version)
	if h.opts.Stateless != nil {
		h.stateless(w, r, m)
		return
	}
	writeError(w, http.StatusBadRequest, codeRefused, "Bad Request: Mcp-Session-Id header is required", nil)
}

// bodyError words the refusal of a body that is not one JSON-RPC message as the TypeScript
// server does: "Parse error: body is not JSON" (or the nesting, wire.TooDeep), "Invalid Request:
// body must be a JSON object", and for an array "Invalid Request: batches are not accepted; send
// one message per POST", naming the protocol version of the session sid names, if any.
func (h *Handler) bodyError(e *jsonrpc.Error, sid string) *jsonrpc.Error {
	switch {
	case e.Code == jsonrpc.CodeParseError:
		why := "body is not JSON"
		if strings.Contains(e.Message, wire.TooDeep) {
			why = wire.TooDeep
		}
		return jsonrpc.NewError(e.Code, "Parse error: "+why)
	case e.Message == jsonrpc.BatchRefused:
		in := ""
		if s := h.session(sid); s != nil {
			in = " in protocol version " + s.ss.Table().ProtocolVersion
		}
		return jsonrpc.NewError(e.Code, "Invalid Request: batches are not accepted"+in+"; send one message per POST")
	case e.Message == jsonrpc.NotObject:
		return jsonrpc.NewError(e.Code, "Invalid Request: body must be a JSON object")
	}
	return e
}

func (h *Handler) session(id string) *httpSession {
	h.mu.Lock()
	s := h.sessions[id]
	h.mu.Unlock()
	if s == nil || s.isEnded() {
		return nil
	}
	return s
}

func (h *Handler) initialize(w http.ResponseWriter, r *http.Request, m jsonrpc.Message) {
	h.mu.Lock()
	if len(h.sessions) >= h.opts.MaxSessions {
		var oldest *httpSession
		var oldestAt time.Time
		for _, s := range h.sessions {
			if at, idle := s.idleSince(); idle && (oldest == nil || at.Before(oldestAt)) {
				oldest, oldestAt = s, at
			}
		}
		if oldest == nil {
			h.mu.Unlock()
			w.Header().Set("Retry-After", "5")
			writeError(w, http.StatusServiceUnavailable, jsonrpc.CodeInvalidRequest, "Service Unavailable: too many sessions", nil)
			return
		}
		delete(h.sessions, oldest.id)
		defer oldest.end()
	}
	ss := h.opts.Sessions.NewSession()
	s := &httpSession{id: newSessionID(), ss: ss, replies: map[string]*reply{}, byRequest: map[jsonrpc.ID]*reply{}, lastUsed: time.Now()}
	s.standalone = &standalone{s: s}
	s.conn = engine.NewConn(context.Background(), engine.ConnOptions{Channel: s.standalone, Handler: ss, Methods: h.methods(), AnswerParseErrors: true, Inline: session.ServedInline, Logger: h.log, Timeout: ss.Server().Config().Timeout})
	ss.Attach(s.conn)
	h.sessions[s.id] = s
	h.mu.Unlock()
	h.sessionMessage(w, r, s, m, true)
	if !ss.InitializeReceived() {
		h.endSession(s)
	}
}

func (h *Handler) endSession(s *httpSession) {
	h.mu.Lock()
	if h.sessions[s.id] == s {
		delete(h.sessions, s.id)
	}
	h.mu.Unlock()
	s.end()
}

// sessionMessage hands one message to a session; a request's reply is written here.
func (h *Handler) sessionMessage(w http.ResponseWriter, r *http.Request, s *httpSession, m jsonrpc.Message, isNew bool) {
	s.touch(1)
	defer func() {
		s.touch(-1)
		s.prune(h.opts.KeepEvents)
	}()
	if m.Kind != jsonrpc.KindRequest {
		s.conn.ReceiveMessage(m, s.standalone, r.Header)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	// a reused in-flight id: 400 with that id and the engine's words, not run (as the TypeScript
	// and Python servers answer it); newReply claims the id, so that of two requests POSTed at
	// the same time with one id only one reaches the engine
	var rp *reply
	if !s.conn.Serving(m.ID) {
		rp = s.newReply(m.ID, h.mode(), s.ss.Table().PrimesStreams)
	}
	if rp == nil {
		writeJSON(w, http.StatusBadRequest, jsonrpc.AppendErrorResponse(nil, m.ID, jsonrpc.IDInUse(m.ID)))
		return
	}
	defer s.done(m.ID, rp)
	if isNew {
		w.Header().Set("Mcp-Session-Id", s.id)
	}
	s.conn.ReceiveMessage(m, rp, r.Header)
	// a dropped connection does not cancel the request: the client may resume the stream
	h.write(w, r, rp, nil)
}

// sessionBatch answers a batch POSTed in a session whose revision has them (2025-03-26) as the
// TypeScript server does: an empty one 400 "empty batch"; each invalid entry -32600 in the words
// a POSTed message gets (its id when readable; a malformed response none), each valid one served
// as if it came alone; 200 with the responses as one JSON array once every request is answered,
// 202 when there are none. What its requests send on the way goes to the standalone stream.
func (h *Handler) sessionBatch(w http.ResponseWriter, r *http.Request, s *httpSession, body []byte) {
	var answers, valid [][]byte
	entries := 0
	for items, _ := wire.Elements(body); items.Next(); entries++ {
		m, err := h.methods().Decode(items.Value())
		switch {
		case err == nil:
			valid = append(valid, items.Value())
		case m.Kind != jsonrpc.KindResult && m.Kind != jsonrpc.KindError:
			answers = append(answers, jsonrpc.AppendErrorResponse(nil, m.AnswerID(), h.bodyError(jsonrpc.AsError(err), "")))
		}
	}
	if entries == 0 {
		writeError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "Invalid Request: empty batch", nil)
		return
	}
	s.touch(1)
	defer func() {
		s.touch(-1)
		s.prune(h.opts.KeepEvents)
	}()
	if len(valid) > 0 {
		answered := make(chan [][]byte, 1)
		s.conn.ServeBatch(valid, s.standalone, r.Header, func(responses [][]byte) { answered <- responses })
		select {
		case responses := <-answered:
			answers = append(answers, responses...)
		case <-r.Context().Done():
			return
		}
	}
	if len(answers) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	writeJSON(w, http.StatusOK, engine.JoinArray(answers))
}

func (h *Handler) mode() int {
	switch h.opts.ReplyMode {
	case ReplyJSON:
		return asJSON
	case ReplySSE:
		return asSSE
	}
	return undecided
}

// write writes a reply: JSON, 202, or the SSE stream until it ends or the client goes away
// (cancel is then called, when given).
func (h *Handler) write(w http.ResponseWriter, r *http.Request, rp *reply, cancel func()) {
	gone := r.Context().Done()
	select {
	case <-rp.decided:
	case <-gone:
		if cancel != nil {
			cancel()
		}
		return
	}
	switch rp.kind {
	case asJSON:
		writeJSON(w, statusOf(rp.json), rp.json)
	case asNothing:
		w.WriteHeader(http.StatusAccepted)
	case asSSE:
		rp.mu.Lock()
		o := rp.out
		if o == nil {
			// the connection was closed before it was written to: the client resumes it
			o = newOutlet()
			o.closed = true
		}
		rp.mu.Unlock()
		startSSE(w)
		if !pump(w, flusherOf(w), &rp.mu, o, gone) {
			rp.detach(o)
			if cancel != nil {
				cancel()
			}
		}
	}
}

func flusherOf(w http.ResponseWriter) http.Flusher {
	f, _ := w.(http.Flusher)
	return f
}

func startSSE(w http.ResponseWriter) {
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-cache")
	hd.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if f := flusherOf(w); f != nil {
		f.Flush()
	}
}

// statusOf is the HTTP status of a JSON reply: 400 for the stateless era's header, capability
// and version errors, 200 otherwise.
func statusOf(msg []byte) int {
	code := engine.Member(engine.Member(msg, "error"), "code")
	switch string(bytes.TrimSpace(code)) {
	case "-32020", "-32021", "-32022":
		return http.StatusBadRequest
	}
	return http.StatusOK
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	hd := w.Header()
	hd.Set("Content-Type", "application/json")
	hd.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// writeError writes a JSON-RPC error response without id (or with id, when valid).
// jsonType reports whether a POST's Content-Type is JSON as MCP sends it: application/json with
// no charset or charset=utf-8 (RFC 8259 section 8.1: JSON between systems is UTF-8; a body in
// another charset would be misread). A Content-Encoding other than identity is refused beside it
// (415 with Accept-Encoding: identity, RFC 9110 section 15.5.16).
func jsonType(value string) bool {
	media, params, _ := strings.Cut(value, ";")
	if !strings.EqualFold(strings.TrimSpace(media), "application/json") {
		return false
	}
	for params != "" {
		var param string
		param, params, _ = strings.Cut(params, ";")
		name, charset, ok := strings.Cut(param, "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(name), "charset") {
			continue
		}
		charset = strings.TrimSpace(charset)
		if len(charset) >= 2 && charset[0] == '"' && charset[len(charset)-1] == '"' {
			charset = charset[1 : len(charset)-1]
		}
		if !strings.EqualFold(charset, "utf-8") && !strings.EqualFold(charset, "utf8") {
			return false
		}
	}
	return true
}

func writeError(w http.ResponseWriter, status int, code int64, message string, id *jsonrpc.ID) {
	var rid jsonrpc.ID
	if id != nil {
		rid = *id
	}
	writeJSON(w, status, jsonrpc.AppendErrorResponse(nil, rid, jsonrpc.NewError(code, message)))
}

func (h *Handler) get(w http.ResponseWriter, r *http.Request) {
	sid := r.Header.Get("Mcp-Session-Id")
	if h.opts.Sessions == nil || (sid == "" && h.opts.Stateless != nil) {
		w.Header().Set("Allow", "POST")
		writeError(w, http.StatusMethodNotAllowed, codeRefused, "Method Not Allowed: this endpoint has no GET stream", nil)
		return
	}
	if !accepts(r, "text/event-stream") {
		writeError(w, http.StatusNotAcceptable, codeRefused, "Not Acceptable: Accept must list text/event-stream", nil)
		return
	}
	if sid == "" {
		writeError(w, http.StatusBadRequest, codeRefused, "Bad Request: Mcp-Session-Id header is required", nil)
		return
	}
	s := h.session(sid)
	if s == nil {
		writeError(w, http.StatusNotFound, codeRefused, "Session not found", nil)
		return
	}
	if hv := r.Header.Get("Mcp-Protocol-Version"); hv != "" && !contains(s.ss.Server().Versions(), hv) {
		writeError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "Bad Request: unsupported MCP-Protocol-Version "+strconv.Quote(hv), nil)
		return
	}
	s.touch(1)
	defer s.touch(-1)
	if last := r.Header.Get("Last-Event-ID"); last != "" {
		streamID, seqText, _ := strings.Cut(last, "_")
		seq, err := strconv.Atoi(seqText)
		rp := s.stream(streamID)
		if rp == nil || err != nil {
			writeError(w, http.StatusNotFound, jsonrpc.CodeInvalidRequest, "Not Found: unknown Last-Event-ID", nil)
			return
		}
		o := rp.attach(seq)
		startSSE(w)
		if !pump(w, flusherOf(w), &rp.mu, o, r.Context().Done()) {
			rp.detach(o)
		}
		return
	}
	o, ok := s.standalone.open()
	if !ok {
		writeError(w, http.StatusConflict, jsonrpc.CodeInvalidRequest, "Conflict: the session's standalone stream is already open", nil)
		return
	}
	defer s.standalone.detach(o)
	startSSE(w)
	pump(w, flusherOf(w), &s.standalone.mu, o, r.Context().Done())
}

func (h *Handler) delete(w http.ResponseWriter, r *http.Request) {
	sid := r.Header.Get("Mcp-Session-Id")
	if h.opts.Sessions == nil || (sid == "" && h.opts.Stateless != nil) {
		w.Header().Set("Allow", "POST")
		writeError(w, http.StatusMethodNotAllowed, codeRefused, "Method Not Allowed: this endpoint has no sessions", nil)
		return
	}
	if sid == "" {
		writeError(w, http.StatusBadRequest, codeRefused, "Bad Request: Mcp-Session-Id header is required", nil)
		return
	}
	h.mu.Lock()
	s := h.sessions[sid]
	h.mu.Unlock()
	if s == nil {
		writeError(w, http.StatusNotFound, codeRefused, "Session not found", nil)
		return
	}
	h.endSession(s)
	w.WriteHeader(http.StatusOK)
}

// sweep ends idle sessions (no request in flight, no open stream) after SessionIdle.
func (h *Handler) sweep() {
	every := h.opts.SessionIdle / 4
	if every > time.Minute {
		every = time.Minute
	}
	if every < 50*time.Millisecond {
		every = 50 * time.Millisecond
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-h.stop:
			return
		case <-t.C:
		}
		cut := time.Now().Add(-h.opts.SessionIdle)
		h.mu.Lock()
		var idle []*httpSession
		for _, s := range h.sessions {
			if at, ok := s.idleSince(); ok && at.Before(cut) {
				idle = append(idle, s)
			}
		}
		h.mu.Unlock()
		for _, s := range idle {
			h.endSession(s)
		}
	}
}
