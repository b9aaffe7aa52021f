package session

import (
	"context"
	"strconv"

	"mcpgen.dev/runtime/engine"
	"mcpgen.dev/runtime/jsonrpc"
	"mcpgen.dev/runtime/protocol"
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
	hint, ok := ss.server.cfg.CacheHints[req.Method]
	if !ok {
		hint = CacheHint{TTLMs: 0, Scope: "private"}
	}
	if hinted, ok := result.(CacheHinted); ok {
		hinted.DefaultCacheHints(hint.TTLMs, hint.Scope)
		return result, nil
	}
	if spec := t.ClientRequest(req.Method); spec != nil && (spec.ResultType || spec.Cacheable) {
		// a result written as JSON (the features registry's, a handler's own): the members the
		// revision requires of it and the runtime fills, when it lacks them
		body := []byte("{}")
		if result != nil {
			if body, err = result.AppendJSON(nil); err != nil {
				return nil, err
			}
		}
		return jsonrpc.Raw(completeResult(body, spec, hint)), nil
	}
	return result, nil
}

// completeResult is a stateless result's JSON object with the members the runtime fills when
// absent: resultType "complete" (spec.ResultType) and the caching hints (spec.Cacheable).
func completeResult(body []byte, spec *protocol.Request, hint CacheHint) []byte {
	var head []byte
	sep := func(b []byte) []byte {
		if len(b) > 0 {
			return append(b, ',')
		}
		return b
	}
	if spec.ResultType && member(body, "resultType") == nil {
		head = append(head, `"resultType":"complete"`...)
	}
	if spec.Cacheable {
		if member(body, "ttlMs") == nil {
			head = strconv.AppendInt(append(sep(head), `"ttlMs":`...), hint.TTLMs, 10)
		}
		if member(body, "cacheScope") == nil {
			head = wire.AppendString(append(sep(head), `"cacheScope":`...), hint.Scope)
		}
	}
	t := wire.Trim(body)
	if len(head) == 0 || len(t) < 2 || t[0] != '{' {
		return body
	}
	out := make([]byte, 0, len(t)+len(head)+1)
	out = append(append(out, '{'), head...)
	if rest := wire.Trim(t[1:]); len(rest) > 0 && rest[0] != '}' {
		out = append(out, ',')
	}
	return append(out, t[1:]...)
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
