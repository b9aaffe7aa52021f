package session

import (
	"context"
	"errors"
	"strings"
	"sync"

	"mcpgen.dev/runtime/engine"
	"mcpgen.dev/runtime/jsonrpc"
	"mcpgen.dev/runtime/protocol"
	"mcpgen.dev/runtime/wire"
)

// CallOptions are the options of one client call.
type CallOptions struct {
	// OnProgress asks for progress and receives it (on the read loop).
	OnProgress func(engine.Progress)
}

// Call sends a client request of the active revision and returns its complete result's JSON.
// Stateless revisions: _meta is added, input_required rounds are answered with the client's
// handlers, and an UnsupportedProtocolVersion naming a version the client speaks is retried.
// Errors: *jsonrpc.Error (the server's answer), *CapabilityError (the server did not declare
// what the method needs: nothing is sent), *InvalidResultError, *MaxInputRoundsError,
// jsonrpc.ErrClosed, engine.ErrSessionExpired (the call is not resent; later calls use a new
// session), the context's error.
func (c *Client) Call(ctx context.Context, method string, params wire.Appender, opts CallOptions) ([]byte, error) {
	t := c.Table()
	spec := t.ClientRequest(method)
	if server := c.Server(); spec != nil && len(spec.Capability) > 0 && server != nil && !protocol.HasCapability(server.Capabilities, spec.Capability[:1]) {
		return nil, &CapabilityError{Message: method + ": the server does not declare capabilities." + spec.Capability[0]}
	}
	copts := engine.CallOptions{OnProgress: opts.OnProgress}
	if t.Lifecycle == protocol.Stateless {
		return c.callStateless(ctx, method, params, copts)
	}
	result, err := c.conn.Call(ctx, method, params, copts)
	if errors.Is(err, engine.ErrSessionExpired) && !c.closed() {
		// field case 006: a new session for the calls after this one; this one fails (it is not
		// resent: it may not be idempotent)
		if _, herr := c.handshake(ctx); herr != nil {
			c.log.Warn("mcpgen: a new session after the old one expired failed", "error", herr)
		}
		return nil, err
	}
	return result, err
}

// Notify sends a client notification.
func (c *Client) Notify(method string, params wire.Appender) error {
	return c.conn.Notify(method, params)
}

// metaEntries are the _meta members every stateless request carries.
func (c *Client) metaEntries() [][2][]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.meta == nil {
		c.meta = [][2][]byte{
			{[]byte(MetaProtocolVersion), wire.AppendString(nil, c.active.ProtocolVersion)},
			{[]byte(MetaClientCapabilities), c.cfg.Capabilities},
			{[]byte(MetaClientInfo), c.cfg.Info},
		}
		if c.cfg.LogLevel != "" {
			c.meta = append(c.meta, [2][]byte{[]byte(MetaLogLevel), wire.AppendString(nil, c.cfg.LogLevel)})
		}
	}
	return c.meta
}

type withMeta struct {
	params  wire.Appender
	entries [][2][]byte
}

func (w withMeta) AppendJSON(b []byte) ([]byte, error) {
	return engine.MergeMeta(b, w.params, w.entries)
}

// sendStateless sends once; on -32022 naming the version sent among the supported ones it sends
// again once; naming another stateless table's version, it switches to it.
func (c *Client) sendStateless(ctx context.Context, method string, params wire.Appender, opts engine.CallOptions) ([]byte, error) {
	result, err := c.conn.Call(ctx, method, withMeta{params, c.metaEntries()}, opts)
	e := jsonrpc.AsError(err)
	t := c.Table()
	if e == nil || e.Code != errorCode(t, "UNSUPPORTED_PROTOCOL_VERSION") {
		return result, err
	}
	supported, lerr := wire.List(member(e.Data, "supported"), -1, wire.String)
	if lerr != nil {
		return nil, err
	}
	has := func(v string) bool {
		for _, s := range supported {
			if s == v {
				return true
			}
		}
		return false
	}
	if !has(t.ProtocolVersion) {
		var other *protocol.Table
		for _, s := range c.versions(protocol.Stateless) {
			if has(s.ProtocolVersion) {
				other = s
				break
			}
		}
		if other == nil {
			return nil, &UnsupportedVersionError{Offered: supported, Supported: versionsOf(c.versions(protocol.Stateless))}
		}
		c.setActive(other)
	}
	return c.conn.Call(ctx, method, withMeta{params, c.metaEntries()}, opts)
}

func versionsOf(ts []*protocol.Table) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.ProtocolVersion
	}
	return out
}

// callStateless runs the input rounds of a request (2026-07-28 basic/patterns/mrtr, Client
// Requirements): each retry is a new request with the same params, the inputResponses to the
// last result's inputRequests and its requestState exactly (none when it had none).
func (c *Client) callStateless(ctx context.Context, method string, params wire.Appender, opts engine.CallOptions) ([]byte, error) {
	var base []byte
	if params != nil {
		raw, err := params.AppendJSON(nil)
		if err != nil {
			return nil, err
		}
		base = without(raw, []string{"inputResponses", "requestState"})
	}
	var attempt wire.Appender
	if base != nil {
		attempt = jsonrpc.Raw(base)
	}
	for rounds := 0; ; {
		result, err := c.sendStateless(ctx, method, attempt, opts)
		if err != nil {
			return nil, err
		}
		kind := "complete"
		if rt := member(result, "resultType"); rt != nil {
			if kind, err = wire.String(rt); err != nil {
				return nil, &InvalidResultError{Message: method + ": resultType is not a string"}
			}
		}
		switch kind {
		case "complete":
			return result, nil
		case "input_required":
		default:
			return nil, &InvalidResultError{Message: method + ": unknown resultType " + kind}
		}
		rounds++
		if rounds > c.cfg.MaxInputRounds {
			return nil, &MaxInputRoundsError{Method: method, Rounds: c.cfg.MaxInputRounds}
		}
		var extra [][2][]byte
		if requests := member(result, "inputRequests"); requests != nil {
			responses, err := c.answerAll(ctx, requests)
			if err != nil {
				return nil, err
			}
			if responses != nil {
				extra = append(extra, [2][]byte{[]byte("inputResponses"), responses})
			}
		}
		if state := member(result, "requestState"); state != nil {
			extra = append(extra, [2][]byte{[]byte("requestState"), state})
		}
		src := base
		if src == nil {
			src = []byte("{}")
		}
		attempt = jsonrpc.Raw(without(src, nil, extra...))
	}
}

// answerAll answers the embedded requests of an InputRequiredResult, at once.
func (c *Client) answerAll(ctx context.Context, requests []byte) ([]byte, error) {
	o, err := wire.Members(requests)
	if err != nil {
		return nil, &InvalidResultError{Message: "inputRequests is not an object"}
	}
	type item struct {
		key          string
		request, out []byte
		err          error
	}
	var items []*item
	for o.Next() {
		items = append(items, &item{key: string(o.Key()), request: o.Value()})
	}
	if len(items) == 0 {
		return nil, nil
	}
	var wg sync.WaitGroup
	for _, it := range items {
		wg.Add(1)
		go func(it *item) {
			defer wg.Done()
			it.out, it.err = c.answerInput(ctx, it.key, it.request)
		}(it)
	}
	wg.Wait()
	out := newObject()
	for _, it := range items {
		if it.err != nil {
			return nil, it.err
		}
		out.raw(it.key, it.out)
	}
	return out.bytes(), nil
}

type noChannel struct{}

func (noChannel) Send([]byte, bool) error {
	return errors.New("session: an input request is answered by the retry, not on a channel")
}

// answerInput fulfils one embedded request with the client's handler.
func (c *Client) answerInput(ctx context.Context, key string, embedded []byte) ([]byte, error) {
	method := str(embedded, "method")
	t := c.Table()
	spec := t.ServerRequest(method)
	if spec == nil {
		return nil, &InvalidResultError{Message: "inputRequests[" + key + "]: " + method + " is not a request of " + t.Revision}
	}
	if len(spec.Capability) > 0 && !protocol.HasCapability(c.cfg.Capabilities, spec.Capability) {
		return nil, &CapabilityError{Message: "inputRequests[" + key + "]: " + method + " needs capabilities." + strings.Join(spec.Capability, ".") + ", which this client does not declare"}
	}
	h := c.cfg.Handlers[method]
	if h == nil {
		return nil, &CapabilityError{Message: "inputRequests[" + key + "]: this client has no handler for " + method}
	}
	params := member(embedded, "params")
	req := engine.NewRequest(jsonrpc.StringID(key), method, params, noChannel{})
	req.Session = c
	result, err := h(ctx, req, params)
	if err != nil {
		return nil, err
	}
	if result == nil {
		return []byte("{}"), nil
	}
	return result.AppendJSON(nil)
}

// HandleRequest serves a server→client request (engine.Handler).
func (c *Client) HandleRequest(ctx context.Context, req *engine.Request) (wire.Appender, error) {
	req.Session = c
	if req.Method == "ping" {
		return nil, nil
	}
	spec := c.Table().ServerRequest(req.Method)
	h := c.cfg.Handlers[req.Method]
	if spec == nil || h == nil || spec.Embedded {
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "Method not found: "+req.Method)
	}
	if len(spec.Capability) > 0 && !protocol.HasCapability(c.cfg.Capabilities, spec.Capability[:1]) {
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "Method not found: "+req.Method+" (the client does not declare capabilities."+spec.Capability[0]+")")
	}
	return h(ctx, req, req.Params)
}

// HandleNotification takes a server notification (engine.Handler): those of a subscription go
// to it, the others to their handler once their params pass their type.
func (c *Client) HandleNotification(ctx context.Context, n *engine.Notification) {
	if raw := member(member(n.Params, "_meta"), MetaSubscriptionID); raw != nil {
		if id, err := jsonrpc.ParseID(raw); err == nil {
			c.mu.Lock()
			sub := c.subs[id]
			c.mu.Unlock()
			if sub != nil {
				sub.deliver(n.Method, n.Params)
				return
			}
		}
	}
	spec := c.Table().ServerNotification(n.Method)
	h := c.cfg.NotificationHandlers[n.Method]
	if spec == nil || h == nil {
		return
	}
	if spec.DecodeParams != nil {
		if _, err := spec.DecodeParams(n.Params); err != nil {
			c.log.Debug("mcpgen: dropped a notification whose params fail their type", "method", n.Method, "error", err)
			return
		}
	}
	h(ctx, n)
}
