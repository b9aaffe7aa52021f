package session

import (
	"context"
	"strconv"

	"mcpgen.dev/runtime/engine"
	"mcpgen.dev/runtime/jsonrpc"
	"mcpgen.dev/runtime/wire"
)

// InputRequired is implemented by the InputRequiredResult type of a stateless revision: a
// result that asks the client for input before the request can complete.
type InputRequired interface {
	wire.Appender
	IsInputRequired() bool
}

// stateless serves one request of a stateless revision.
func (ss *ServerSession) stateless(ctx context.Context, req *engine.Request) (wire.Appender, error) {
	t := ss.server.cfg.Table
	meta := ReadMeta(req.Params)
	if meta.ProtocolVersion == "" {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, `Invalid params: missing _meta["`+MetaProtocolVersion+`"]`)
	}
	if meta.ProtocolVersion != t.ProtocolVersion {
		return nil, UnsupportedVersion(t, ss.server.Versions(), meta.ProtocolVersion)
	}
	if meta.ClientCapabilities == nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, `Invalid params: missing _meta["`+MetaClientCapabilities+`"]`)
	}
	switch req.Method {
	case "server/discover":
		if ss.server.cfg.Handlers[req.Method] == nil {
			return ss.server.Discover(), nil
		}
	case "subscriptions/listen":
		if ss.server.cfg.Handlers[req.Method] == nil {
			return ss.server.hub.Listen(ctx, req, ss.server.Capabilities())
		}
	}
	result, err := ss.dispatch(ctx, req, t)
	if err != nil {
		return nil, err
	}
	if ir, ok := result.(InputRequired); ok && ir.IsInputRequired() {
		body, err := ir.AppendJSON(nil)
		if err != nil {
			return nil, err
		}
		if err := checkInputRequired(t, t.ClientRequest(req.Method), body, meta.ClientCapabilities); err != nil {
			return nil, err
		}
		return jsonrpc.Raw(body), nil
	}
	if hinted, ok := result.(CacheHinted); ok {
		hint, ok := ss.server.cfg.CacheHints[req.Method]
		if !ok {
			hint = CacheHint{TTLMs: 0, Scope: "private"}
		}
		hinted.DefaultCacheHints(hint.TTLMs, hint.Scope)
	}
	return result, nil
}

// Discover is the server's DiscoverResult (2026-07-28 server/discover), cacheable for a minute
// by anyone.
func (s *Server) Discover() wire.Appender {
	result := newObject().
		str("resultType", "complete").
		raw("supportedVersions", stringList(s.Versions())).
		raw("capabilities", s.Capabilities()).
		raw("ttlMs", []byte(strconv.Itoa(60000))).
		str("cacheScope", "public").
		raw("_meta", newObject().raw(MetaServerInfo, s.cfg.Info).bytes())
	if s.cfg.Instructions != "" {
		result.str("instructions", s.cfg.Instructions)
	}
	return result
}
