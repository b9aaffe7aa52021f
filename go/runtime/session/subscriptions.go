package session

import (
	"context"
	"sync"

	"mcpgen.dev/runtime/engine"
	"mcpgen.dev/runtime/jsonrpc"
	"mcpgen.dev/runtime/protocol"
	"mcpgen.dev/runtime/wire"
)

// The filter keys of subscriptions/listen, the notification each opts into and the server
// capability it needs (2026-07-28 basic/patterns/subscriptions).
var listenFilters = []struct {
	key, method string
	capability  []string
}{
	{"toolsListChanged", "notifications/tools/list_changed", []string{"tools", "listChanged"}},
	{"promptsListChanged", "notifications/prompts/list_changed", []string{"prompts", "listChanged"}},
	{"resourcesListChanged", "notifications/resources/list_changed", []string{"resources", "listChanged"}},
}

const resourceUpdated = "notifications/resources/updated"

// Hub serves subscriptions/listen: the acknowledgement first, then only the notification kinds
// the client asked for and the server honours, each with the subscription's id in _meta.
type Hub struct {
	mu     sync.Mutex
	subs   map[*subscription]struct{}
	closed chan struct{}
	once   sync.Once
	// Max subscriptions open at once (default 10000).
	Max int
}

type subscription struct {
	req     *engine.Request
	methods map[string]bool
	uris    map[string]bool
	mu      sync.Mutex
}

// NewHub returns a hub.
func NewHub() *Hub {
	return &Hub{subs: map[*subscription]struct{}{}, closed: make(chan struct{}), Max: 10000}
}

// Listen serves one subscriptions/listen request until the client cancels it (ctx) or the hub
// closes; then it returns the completion result (graceful end).
func (h *Hub) Listen(ctx context.Context, req *engine.Request, capabilities []byte) (wire.Appender, error) {
	wanted := member(req.Params, "notifications")
	if !isObject(wanted) {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params: notifications must be an object")
	}
	sub := &subscription{req: req, methods: map[string]bool{}, uris: map[string]bool{}}
	honoured := newObject()
	for _, f := range listenFilters {
		if string(wire.Trim(member(wanted, f.key))) == "true" && protocol.HasCapability(capabilities, f.capability) {
			honoured.raw(f.key, []byte("true"))
			sub.methods[f.method] = true
		}
	}
	if rs := member(wanted, "resourceSubscriptions"); rs != nil && protocol.HasCapability(capabilities, []string{"resources", "subscribe"}) {
		uris, err := wire.List(rs, -1, wire.String)
		if err != nil {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params: notifications.resourceSubscriptions: "+err.Error())
		}
		for _, u := range uris {
			sub.uris[u] = true
		}
		honoured.raw("resourceSubscriptions", stringList(uris))
	}
	h.mu.Lock()
	if len(h.subs) >= h.Max {
		h.mu.Unlock()
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "too many subscriptions")
	}
	h.mu.Unlock()
	idMeta := newObject().raw(MetaSubscriptionID, req.ID.AppendJSON(nil)).bytes()
	ack := newObject().raw("_meta", idMeta).raw("notifications", honoured.bytes())
	// the acknowledgement is the first message of the subscription: it is sent before the
	// subscription can receive anything (field case 017)
	if err := req.Notify("notifications/subscriptions/acknowledged", ack); err != nil {
		return nil, err
	}
	h.mu.Lock()
	h.subs[sub] = struct{}{}
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.subs, sub)
		h.mu.Unlock()
	}()
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-h.closed:
	}
	return newObject().str("resultType", "complete").raw("_meta", idMeta), nil
}

// Publish sends a change notification to every subscription that opted into it; params (raw
// JSON object, nil: none) get the subscription's id in _meta.
func (h *Hub) Publish(method string, params []byte) {
	uri := ""
	if method == resourceUpdated {
		uri = str(params, "uri")
	}
	h.mu.Lock()
	subs := make([]*subscription, 0, len(h.subs))
	for s := range h.subs {
		if method == resourceUpdated && s.uris[uri] || s.methods[method] {
			subs = append(subs, s)
		}
	}
	h.mu.Unlock()
	for _, s := range subs {
		var tok [24]byte
		var src wire.Appender
		if params != nil {
			src = jsonrpc.Raw(params)
		}
		body, err := engine.MergeMeta(nil, src, [][2][]byte{{[]byte(MetaSubscriptionID), s.req.ID.AppendJSON(tok[:0])}})
		if err != nil {
			continue
		}
		s.mu.Lock()
		_ = s.req.Notify(method, jsonrpc.Raw(body))
		s.mu.Unlock()
	}
}

// Close ends every subscription gracefully: each listen request gets its completion result.
func (h *Hub) Close() { h.once.Do(func() { close(h.closed) }) }

// Len is the number of open subscriptions.
func (h *Hub) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}
