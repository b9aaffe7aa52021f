package session

import (
	"context"
	"strings"
	"sync"

	"mcpgen.dev/runtime/engine"
	"mcpgen.dev/runtime/jsonrpc"
	"mcpgen.dev/runtime/protocol"
	"mcpgen.dev/runtime/wire"
)

// ServerSession is a server's side of one client connection (the engine.Handler of its Conn).
// In the stateless era it keeps no client state: each request brings its own.
type ServerSession struct {
	server *Server
	conn   *engine.Conn

	mu                 sync.Mutex
	active             *protocol.Table
	initializeReceived bool
	initialized        bool
	clientInfo         []byte
	clientCaps         []byte
	logLevel           int
	resources          map[string]bool
	closed             bool
}

// Server is the server the session belongs to.
func (ss *ServerSession) Server() *Server { return ss.server }

// Table is the revision the session speaks (the one initialize chose, in the handshake era).
func (ss *ServerSession) Table() *protocol.Table {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.active
}

// Initialized reports whether the client sent notifications/initialized (handshake).
func (ss *ServerSession) Initialized() bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.initialized
}

// InitializeReceived reports whether the client's initialize was answered (handshake).
func (ss *ServerSession) InitializeReceived() bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.initializeReceived
}

// ClientInfo is the client's Implementation (handshake: from initialize).
func (ss *ServerSession) ClientInfo() []byte {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.clientInfo
}

// ClientCapabilities is what the client declared: at initialize (handshake), or in the
// request's _meta (stateless; pass the request).
func (ss *ServerSession) ClientCapabilities(req *engine.Request) []byte {
	if ss.server.Stateless() {
		if req == nil {
			return nil
		}
		return ReadMeta(req.Params).ClientCapabilities
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.clientCaps
}

// Close ends the session: it leaves its server's broadcasts and its connection closes.
func (ss *ServerSession) Close() {
	ss.mu.Lock()
	if ss.closed {
		ss.mu.Unlock()
		return
	}
	ss.closed = true
	ss.mu.Unlock()
	ss.server.forget(ss)
	if ss.conn != nil {
		ss.conn.Close(nil)
	}
}

// HandleRequest serves one request (engine.Handler).
func (ss *ServerSession) HandleRequest(ctx context.Context, req *engine.Request) (wire.Appender, error) {
	req.Session = ss
	if ss.server.Stateless() {
		return ss.stateless(ctx, req)
	}
	switch req.Method {
	case "initialize":
		return ss.initialize(req)
	case "ping":
		return nil, nil
	}
	ss.mu.Lock()
	received, active := ss.initializeReceived, ss.active
	ss.mu.Unlock()
	if !received {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Invalid Request: "+req.Method+" before initialize")
	}
	if req.Method == "logging/setLevel" && ss.server.cfg.Handlers[req.Method] == nil && active.ClientRequest(req.Method) != nil {
		return ss.setLevel(req, active)
	}
	return ss.dispatch(ctx, req, active)
}

// dispatch routes a request to its handler through the table.
func (ss *ServerSession) dispatch(ctx context.Context, req *engine.Request, t *protocol.Table) (wire.Appender, error) {
	spec := t.ClientRequest(req.Method)
	h := ss.server.cfg.Handlers[req.Method]
	if spec == nil || h == nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "Method not found: "+req.Method)
	}
	if len(spec.Capability) > 0 && !protocol.HasCapability(ss.server.Capabilities(), spec.Capability[:1]) {
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "Method not found: "+req.Method+" (the server does not declare capabilities."+spec.Capability[0]+")")
	}
	params := req.Params
	if params == nil {
		if spec.ParamsRequired {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params: "+req.Method+" needs params")
		}
	}
	return h(ctx, req, params)
}

// InvalidParams is the -32602 error of params that failed their type.
func InvalidParams(err error) *jsonrpc.Error {
	if e := jsonrpc.AsError(err); e != nil {
		return e
	}
	return jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params: "+wire.At(err, "params").Error())
}

func (ss *ServerSession) initialize(req *engine.Request) (wire.Appender, error) {
	t := ss.server.cfg.Table
	spec := t.ClientRequest("initialize")
	if spec == nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "Method not found: initialize")
	}
	if spec.DecodeParams != nil {
		if _, err := spec.DecodeParams(req.Params); err != nil {
			return nil, InvalidParams(err)
		}
	}
	requested := str(req.Params, "protocolVersion")
	chosen := t
	for _, f := range ss.server.cfg.Fallback {
		if f.ProtocolVersion == requested && f.Lifecycle == protocol.Handshake {
			chosen = f
		}
	}
	ss.mu.Lock()
	if ss.initializeReceived {
		ss.mu.Unlock()
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Invalid Request: the session is already initialized")
	}
	ss.initializeReceived = true
	ss.active = chosen
	ss.clientInfo = member(req.Params, "clientInfo")
	ss.clientCaps = member(req.Params, "capabilities")
	if !isObject(ss.clientCaps) {
		ss.clientCaps = []byte("{}")
	}
	ss.mu.Unlock()
	result := newObject().
		str("protocolVersion", chosen.ProtocolVersion).
		raw("capabilities", ss.server.Capabilities()).
		raw("serverInfo", ss.server.cfg.Info)
	if ss.server.cfg.Instructions != "" {
		result.str("instructions", ss.server.cfg.Instructions)
	}
	return result, nil
}

func (ss *ServerSession) setLevel(req *engine.Request, t *protocol.Table) (wire.Appender, error) {
	if !protocol.HasCapability(ss.server.Capabilities(), []string{"logging"}) {
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "Method not found: logging/setLevel (the server does not declare capabilities.logging)")
	}
	level := str(req.Params, "level")
	i := t.LevelIndex(level)
	if i < 0 {
		return nil, badLevel(member(req.Params, "level"))
	}
	ss.mu.Lock()
	ss.logLevel = i
	ss.mu.Unlock()
	return nil, nil
}

// badLevel is the -32602 of a logging/setLevel whose level (raw: its JSON text, nil when absent)
// is missing, not a string or not a level: in the words and data.errors of the TypeScript
// runtime's params check (its schema validator's).
func badLevel(raw []byte) *jsonrpc.Error {
	path, keyword, words := "/level", "enum", "must be equal to one of the allowed values"
	if raw == nil {
		path, keyword, words = "", "required", "must have required property 'level'"
	} else if raw = wire.Trim(raw); raw[0] != '"' {
		keyword, words = "type", "must be string"
	}
	at := path
	if at == "" {
		at = "/"
	}
	return jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params for logging/setLevel: "+at+" "+words).
		WithData(map[string]any{"errors": []map[string]string{{"path": path, "keyword": keyword, "message": words}}})
}

// HandleNotification takes one notification (engine.Handler).
func (ss *ServerSession) HandleNotification(ctx context.Context, n *engine.Notification) {
	if n.Method == "notifications/initialized" && !ss.server.Stateless() {
		ss.mu.Lock()
		ss.initialized = ss.initializeReceived
		ss.mu.Unlock()
	}
	t := ss.Table()
	spec := t.ClientNotification(n.Method)
	h := ss.server.cfg.NotificationHandlers[n.Method]
	if spec == nil || h == nil {
		return
	}
	if spec.DecodeParams != nil {
		if _, err := spec.DecodeParams(n.Params); err != nil {
			ss.server.log.Debug("mcpgen: dropped a notification whose params fail their type", "method", n.Method, "error", err)
			return
		}
	}
	h(ctx, n)
}

// Request sends a server→client request (handshake era) related to rel (sent on its channel;
// nil: on the connection) and returns the result's JSON. The client must declare the method's
// capability (-32601 otherwise, without sending).
func (ss *ServerSession) Request(ctx context.Context, rel *engine.Request, method string, params wire.Appender) ([]byte, error) {
	t := ss.Table()
	spec := t.ServerRequest(method)
	if spec != nil && spec.Embedded {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, method+" travels only inside an InputRequiredResult in "+t.Revision)
	}
	if spec != nil && len(spec.Capability) > 0 && !protocol.HasCapability(ss.ClientCapabilities(rel), spec.Capability) {
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "the client does not declare capabilities."+strings.Join(spec.Capability, ".")+" ("+method+")")
	}
	if rel != nil && rel.Conn != nil {
		return rel.Call(ctx, method, params, engine.CallOptions{})
	}
	if ss.conn == nil {
		return nil, engine.ErrNoConnection
	}
	return ss.conn.Call(ctx, method, params, engine.CallOptions{})
}

// Notify sends a server→client notification on the connection (handshake era).
func (ss *ServerSession) Notify(method string, params wire.Appender) error {
	if ss.conn == nil {
		return engine.ErrNoConnection
	}
	return ss.conn.Notify(method, params)
}

func (ss *ServerSession) notifyChanged(method string, params []byte) {
	if ss.server.Stateless() || ss.conn == nil {
		return
	}
	ss.mu.Lock()
	ok := ss.initialized && !ss.closed && (method != resourceUpdated || ss.resources[str(params, "uri")])
	ss.mu.Unlock()
	if !ok {
		return
	}
	var p wire.Appender
	if params != nil {
		p = jsonrpc.Raw(params)
	}
	_ = ss.conn.Notify(method, p)
}

// Subscribe records a resources/subscribe (handshake era: the session then gets
// notifications/resources/updated for uri).
func (ss *ServerSession) Subscribe(uri string, on bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.resources == nil {
		ss.resources = map[string]bool{}
	}
	if on {
		ss.resources[uri] = true
	} else {
		delete(ss.resources, uri)
	}
}

// Log sends notifications/message at level when the client's threshold lets it through: the
// level logging/setLevel set (handshake; every level before one is set, and only when the
// server declares logging), or the request's _meta level (stateless; nothing without one).
// rel is the request it relates to (nil: none; stateless needs one). It reports whether the
// message was sent.
func (ss *ServerSession) Log(rel *engine.Request, level string, data []byte, logger string) (bool, error) {
	t := ss.Table()
	i := t.LevelIndex(level)
	if i < 0 {
		return false, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "unknown log level "+level+" (levels: "+strings.Join(t.LoggingLevels, ", ")+")")
	}
	params := newObject().str("level", level)
	if logger != "" {
		params.str("logger", logger)
	}
	if data == nil {
		data = []byte("null")
	}
	params.raw("data", data)
	if ss.server.Stateless() {
		if rel == nil {
			return false, nil
		}
		threshold := t.LevelIndex(ReadMeta(rel.Params).LogLevel)
		if threshold < 0 || i < threshold {
			return false, nil
		}
		return true, rel.Notify("notifications/message", params)
	}
	if !protocol.HasCapability(ss.server.Capabilities(), []string{"logging"}) {
		return false, nil
	}
	ss.mu.Lock()
	threshold := ss.logLevel
	ss.mu.Unlock()
	if threshold >= 0 && i < threshold {
		return false, nil
	}
	if rel != nil {
		return true, rel.Notify("notifications/message", params)
	}
	return true, ss.Notify("notifications/message", params)
}
