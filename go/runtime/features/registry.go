// Package features is the registry of a server's tools, resources and resource templates,
// prompts and completions, working on the revisions' JSON (generated code gives it typed
// faces). Registering or removing after sessions started sends the list change
// (notifications/tools/list_changed …) through the server it is attached to: to the clients of
// the handshake era, to the listen streams that asked for it in the stateless era.
//
// Tools (2025-11-25 server/tools, Error Handling; field case 015): an unknown tool is -32602;
// arguments that fail the tool's inputSchema (JSON Schema 2020-12 unless $schema names another
// draft) are a result with isError naming each failing path, and the handler is not called; a
// handler's error other than *jsonrpc.Error is such a result too; structuredContent that fails
// the outputSchema is -32603. Resources: an unknown URI is -32602 with data.uri in the stateless
// revisions, -32002 (RESOURCE_NOT_FOUND) in the older ones. Lists are paged by PageSize
// (default: one page) with opaque cursors; a cursor this server did not issue is -32602.
package features

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"sync"

	"mcpgen.dev/runtime/engine"
	"mcpgen.dev/runtime/jsonrpc"
	"mcpgen.dev/runtime/protocol"
	"mcpgen.dev/runtime/session"
	"mcpgen.dev/runtime/wire"
)

// Registry holds what a server offers (see the package doc). Safe for concurrent use.
type Registry struct {
	mu        sync.RWMutex
	tools     []*Tool
	resources []*Resource
	templates []*Template
	prompts   []*Prompt
	servers   []*session.Server
	// PageSize is the number of items per page of the list methods (0: one page).
	PageSize int
	// NoLogging: do not declare the logging capability.
	NoLogging bool
}

// New returns an empty registry.
func New() *Registry { return &Registry{} }

// Attach sends the registry's list changes through server, and gives it the tools' x-mcp-header
// annotations (the stateless HTTP header checks).
func (r *Registry) Attach(server *session.Server) {
	r.mu.Lock()
	r.servers = append(r.servers, server)
	r.mu.Unlock()
	server.Config().ToolHeaders = r.ToolHeaders
}

func (r *Registry) changed(method string) {
	r.mu.RLock()
	servers := append([]*session.Server(nil), r.servers...)
	r.mu.RUnlock()
	for _, s := range servers {
		s.NotifyChanged(method, nil)
	}
}

// ResourceUpdated sends notifications/resources/updated for uri to those subscribed to it.
func (r *Registry) ResourceUpdated(uri string) {
	params := []byte(`{"uri":` + string(wire.AppendString(nil, uri)) + `}`)
	r.mu.RLock()
	servers := append([]*session.Server(nil), r.servers...)
	r.mu.RUnlock()
	for _, s := range servers {
		s.NotifyChanged("notifications/resources/updated", params)
	}
}

// Capabilities is the ServerCapabilities JSON of what is registered: tools, resources
// (subscribe, listChanged), prompts, completions when something completes, logging.
func (r *Registry) Capabilities() []byte {
	r.mu.RLock()
	defer r.mu.RUnlock()
	b := []byte{'{'}
	completes := false
	for _, t := range r.templates {
		completes = completes || len(t.Complete) > 0
	}
	for _, p := range r.prompts {
		completes = completes || len(p.Complete) > 0
	}
	if completes {
		b = append(wire.Comma(b), `"completions":{}`...)
	}
	if !r.NoLogging {
		b = append(wire.Comma(b), `"logging":{}`...)
	}
	if len(r.prompts) > 0 {
		b = append(wire.Comma(b), `"prompts":{"listChanged":true}`...)
	}
	if len(r.resources)+len(r.templates) > 0 {
		b = append(wire.Comma(b), `"resources":{"listChanged":true,"subscribe":true}`...)
	}
	if len(r.tools) > 0 {
		b = append(wire.Comma(b), `"tools":{"listChanged":true}`...)
	}
	return append(b, '}')
}

// maxCursorChars is the longest cursor a list reads (TypeScript's list-pages.ts): a peer's longer
// text is not decoded or echoed in the error.
const maxCursorChars = 256

// page answers a list method: the items after the params' cursor, at most PageSize of them,
// and the next cursor.
func (r *Registry) page(params []byte, key string, items [][]byte) (wire.Appender, error) {
	start := 0
	if raw := engine.Member(params, "cursor"); raw != nil {
		cursor, err := wire.String(raw)
		// longer than any cursor this server issues: refused unread, and not echoed back
		if n := len([]rune(cursor)); err == nil && n > maxCursorChars {
			return nil, invalidParams("Invalid cursor (" + strconv.Itoa(n) + " characters: not one this server issued)")
		}
		if err == nil {
			start, err = decodeCursor(cursor)
		}
		if err != nil || start > len(items) {
			raw = wire.Trim(raw)
			text := raw // a string quoted as TypeScript's JSON.stringify quotes it
			if raw[0] == '"' {
				text = wire.Requote(raw)
			}
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid cursor: " + string(text), Data: append(append([]byte(`{"cursor":`), raw...), '}')}
		}
	}
	size := r.PageSize
	if size <= 0 {
		size = len(items)
	}
	end := min(start+size, len(items))
	b := []byte{'{'}
	b = wire.AppendString(b, key)
	b = append(b, ":["...)
	for i, it := range items[start:end] {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, it...)
	}
	b = append(b, ']')
	if end < len(items) {
		b = append(b, `,"nextCursor":`...)
		b = wire.AppendString(b, encodeCursor(end))
	}
	return jsonrpc.Raw(append(b, '}')), nil
}

func encodeCursor(offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte(`{"o":` + strconv.Itoa(offset) + `}`))
}

func decodeCursor(cursor string) (int, error) {
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return 0, err
	}
	var c struct {
		O *int `json:"o"`
	}
	if err := json.Unmarshal(raw, &c); err != nil || c.O == nil || *c.O < 0 {
		return 0, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "bad cursor")
	}
	return *c.O, nil
}

// stateless reports whether the request's session speaks a stateless revision.
func stateless(req *engine.Request) bool {
	if ss, ok := req.Session.(*session.ServerSession); ok {
		return ss.Table().Lifecycle == protocol.Stateless
	}
	return false
}

// table is the revision of the request's session (nil when unknown).
func table(req *engine.Request) *protocol.Table {
	if ss, ok := req.Session.(*session.ServerSession); ok {
		return ss.Table()
	}
	return nil
}

// textResult is a tool result of one text block.
func textResult(text string, isError bool) jsonrpc.Raw {
	b := []byte(`{"content":[{"type":"text","text":`)
	b = wire.AppendString(b, text)
	b = append(b, "}]"...)
	if isError {
		b = append(b, `,"isError":true`...)
	}
	return jsonrpc.Raw(append(b, '}'))
}

// nameData is the data of an unknown tool's or prompt's -32602: {"name": name}.
func nameData(name string) []byte {
	return append(wire.AppendString([]byte(`{"name":`), name), '}')
}

func invalidParams(message string) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeInvalidParams, message)
}
