// Package session holds the sessions generated Clients and Servers are made of: the lifecycle
// of each side, picked from the revision table's Lifecycle (no revision is named here):
//
//   - handshake (2025-11-25 and older, basic/lifecycle): initialize negotiates the version (the
//     table's, or a fallback table's the client asks for), then notifications/initialized;
//     ping; logging/setLevel sets the threshold of Log;
//   - stateless (2026-07-28, basic/versioning): every request carries its protocol version and
//     client capabilities in _meta (-32602 when missing, -32022 with data.supported for another
//     version); server/discover; results get resultType "complete" and caching hints; an
//     InputRequiredResult is checked against the request's client capabilities (-32021);
//     subscriptions/listen streams get the list changes (Server.NotifyChanged); log messages
//     follow each request's _meta level.
//
// Requests are routed through a dispatch table (method → RequestHandler) that generated code
// builds from its typed handler interface: unknown methods and methods of a capability the
// server does not declare get -32601.
package session

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"mcpgen.dev/runtime/engine"
	"mcpgen.dev/runtime/jsonrpc"
	"mcpgen.dev/runtime/protocol"
	"mcpgen.dev/runtime/wire"
)

// RequestHandler answers one request whose params are raw JSON (nil when absent): generated
// dispatch decodes them (-32602 when they fail their type) and calls the typed handler.
type RequestHandler func(ctx context.Context, req *engine.Request, params []byte) (wire.Appender, error)

// NotificationHandler takes one notification's params (raw JSON, nil when absent). It runs on
// the connection's read loop: it must not wait for the connection.
type NotificationHandler func(ctx context.Context, n *engine.Notification)

// ServerConfig is what a server is made of.
type ServerConfig struct {
	// Table is the revision served.
	Table *protocol.Table
	// Fallback: older handshake revisions initialize also accepts (newest first).
	Fallback []*protocol.Table
	// Info is the server's Implementation (JSON).
	Info []byte
	// Capabilities is the ServerCapabilities object (JSON).
	Capabilities []byte
	// Instructions for the model ("" : none).
	Instructions string
	// Handlers answer the client's requests by method.
	Handlers map[string]RequestHandler
	// NotificationHandlers take the client's notifications by method.
	NotificationHandlers map[string]NotificationHandler
	// Sealer seals requestState (stateless; nil: a random secret of this process).
	Sealer *Sealer
	// CacheHints by method (stateless; default ttlMs 0, private).
	CacheHints map[string]CacheHint
	// Timeout of the server's own requests to the client (0: none).
	Timeout time.Duration
	// ToolHeaders returns the x-mcp-header annotations of a tool (nil: none); the stateless HTTP
	// server checks the Mcp-Param-* headers of tools/call against them.
	ToolHeaders func(tool string) []protocol.ParamHeader
	// Logger (default slog.Default()).
	Logger *slog.Logger
}

// Server serves one revision to any number of connections: one session per client connection
// in the handshake era; in the stateless era every request stands alone.
type Server struct {
	cfg      ServerConfig
	log      *slog.Logger
	hub      *Hub
	mu       sync.Mutex
	caps     []byte
	sessions map[*ServerSession]struct{}
	stateful *ServerSession
}

// NewServer returns a server.
func NewServer(cfg ServerConfig) (*Server, error) {
	if cfg.Table == nil {
		panic("session: ServerConfig.Table is nil")
	}
	if cfg.Sealer == nil && cfg.Table.Lifecycle == protocol.Stateless {
		s, err := NewSealer(nil)
		if err != nil {
			return nil, err
		}
		cfg.Sealer = s
	}
	if cfg.Info == nil {
		cfg.Info = []byte(`{"name":"mcpgen-server","version":"0.0.0"}`)
	}
	caps := cfg.Capabilities
	if caps == nil {
		caps = []byte("{}")
	}
	s := &Server{cfg: cfg, log: cfg.Logger, caps: caps, sessions: map[*ServerSession]struct{}{}}
	if s.log == nil {
		s.log = slog.Default()
	}
	if cfg.Table.Lifecycle == protocol.Stateless {
		s.hub = NewHub()
	}
	return s, nil
}

// Table is the revision the server serves.
func (s *Server) Table() *protocol.Table { return s.cfg.Table }

// Config is the server's configuration.
func (s *Server) Config() *ServerConfig { return &s.cfg }

// Stateless reports whether the server's revision is of the stateless era.
func (s *Server) Stateless() bool { return s.cfg.Table.Lifecycle == protocol.Stateless }

// Capabilities is the ServerCapabilities JSON the server declares.
func (s *Server) Capabilities() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caps
}

// SetCapabilities replaces the declared capabilities (JSON object).
func (s *Server) SetCapabilities(caps []byte) {
	s.mu.Lock()
	s.caps = caps
	s.mu.Unlock()
}

// Sealer is the requestState sealer of a stateless server.
func (s *Server) Sealer() *Sealer { return s.cfg.Sealer }

// Hub is the subscriptions/listen hub of a stateless server (nil for a handshake one).
func (s *Server) Hub() *Hub { return s.hub }

// Versions is the protocol versions the server answers, newest first.
func (s *Server) Versions() []string {
	return protocol.VersionsNewestFirst(append([]*protocol.Table{s.cfg.Table}, s.cfg.Fallback...)...)
}

// NewSession returns the session of one client connection.
func (s *Server) NewSession() *ServerSession {
	ss := &ServerSession{server: s, active: s.cfg.Table, logLevel: -1}
	s.mu.Lock()
	s.sessions[ss] = struct{}{}
	s.mu.Unlock()
	return ss
}

// Stateful returns the one session that serves every stateless request that comes without a
// connection of its own (Streamable HTTP).
func (s *Server) Stateful() *ServerSession {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stateful == nil {
		s.stateful = &ServerSession{server: s, active: s.cfg.Table, logLevel: -1}
	}
	return s.stateful
}

// Serve serves one connection over t until it closes (or ctx ends); the session is made for it.
func (s *Server) Serve(ctx context.Context, t engine.Transport) error {
	ss := s.NewSession()
	opts := engine.ConnOptions{Handler: ss, Methods: s.methods(), AnswerParseErrors: true, Inline: ServedInline, Logger: s.log, Timeout: s.cfg.Timeout}
	if !s.Stateless() {
		opts.Revision = func() string { return ss.Table().ProtocolVersion }
	}
	conn := engine.NewConn(ctx, opts)
	ss.conn = conn
	ch, err := t.Connect(ctx, conn)
	if err != nil {
		ss.Close()
		return err
	}
	conn.SetChannel(ch)
	select {
	case <-conn.Done():
	case <-ctx.Done():
		_ = t.Close()
	}
	ss.Close()
	return conn.Err()
}

// Attach joins a session to a connection made elsewhere (an HTTP session's).
func (ss *ServerSession) Attach(conn *engine.Conn) { ss.conn = conn }

// Conn is the session's connection (nil for the stateless session of HTTP).
func (ss *ServerSession) Conn() *engine.Conn { return ss.conn }

// ServedInline reports the requests a server serves on its connection's read loop: initialize
// (quick, no application code), so that the messages after it see the session it negotiated
// whatever goroutine runs first.
func ServedInline(method string) bool { return method == "initialize" }

func (s *Server) methods() jsonrpc.Methods {
	m := jsonrpc.Methods{}
	for _, t := range append([]*protocol.Table{s.cfg.Table}, s.cfg.Fallback...) {
		for k, v := range t.Methods() {
			m[k] = v
		}
	}
	return m
}

// NotifyChanged sends a list change or resource update (params: raw JSON object or nil): to
// the listen streams that asked for it (stateless), or to every initialized session, those
// subscribed to the resource for notifications/resources/updated (handshake). Never fails.
func (s *Server) NotifyChanged(method string, params []byte) {
	if s.hub != nil {
		s.hub.Publish(method, params)
	}
	s.mu.Lock()
	sessions := make([]*ServerSession, 0, len(s.sessions))
	for ss := range s.sessions {
		sessions = append(sessions, ss)
	}
	s.mu.Unlock()
	for _, ss := range sessions {
		ss.notifyChanged(method, params)
	}
}

// Close ends the listen streams gracefully (each gets its completion result).
func (s *Server) Close() {
	if s.hub != nil {
		s.hub.Close()
	}
}

func (s *Server) forget(ss *ServerSession) {
	s.mu.Lock()
	delete(s.sessions, ss)
	s.mu.Unlock()
}
