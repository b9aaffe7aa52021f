package streamable

import (
	"bytes"
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"strings"

	"mcpgen.dev/runtime/engine"
	"mcpgen.dev/runtime/jsonrpc"
	"mcpgen.dev/runtime/protocol"
	"mcpgen.dev/runtime/session"
	"mcpgen.dev/runtime/wire"
)

// nameField is the params member Mcp-Name mirrors, by method.
var nameField = map[string]string{"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}

func (h *Handler) stateless(w http.ResponseWriter, r *http.Request, m jsonrpc.Message) {
	server := h.opts.Stateless
	t := server.Table()
	switch m.Kind {
	case jsonrpc.KindNotification:
		w.WriteHeader(http.StatusAccepted)
		return
	case jsonrpc.KindResult, jsonrpc.KindError:
		writeError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "Invalid Request: clients send no responses", nil)
		return
	}
	id := m.ID
	fail := func(status int, e *jsonrpc.Error) {
		writeJSON(w, status, jsonrpc.AppendErrorResponse(nil, id, e))
	}
	if b := wire.Trim(m.Params); len(b) > 0 && b[0] == '[' {
		// by-position params: a valid JSON-RPC request that MCP cannot take, -32602 as the engine answers it
		fail(http.StatusBadRequest, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params: params must be an object"))
		return
	}
	meta := session.ReadMeta(m.Params)
	supported := t.ProtocolVersion
	hv := r.Header.Get("Mcp-Protocol-Version")
	if hv != "" && hv != supported && (meta.ProtocolVersion == "" || meta.ProtocolVersion == hv) {
		fail(http.StatusBadRequest, session.UnsupportedVersion(t, server.Versions(), hv))
		return
	}
	if meta.ProtocolVersion == "" {
		fail(http.StatusBadRequest, jsonrpc.NewError(jsonrpc.CodeInvalidParams, `Invalid params: missing _meta["`+session.MetaProtocolVersion+`"]`))
		return
	}
	var tool []protocol.ParamHeader
	if m.Method == "tools/call" && server.Config().ToolHeaders != nil {
		if name, err := wire.String(engine.Member(m.Params, "name")); err == nil {
			tool = server.Config().ToolHeaders(name)
		}
	}
	if mismatch := CheckRequestHeaders(m, r.Header, tool); mismatch != "" {
		fail(http.StatusBadRequest, jsonrpc.NewError(t.ErrorCode("HEADER_MISMATCH", -32020), "Header mismatch: "+mismatch))
		return
	}
	if meta.ProtocolVersion != supported {
		fail(http.StatusBadRequest, session.UnsupportedVersion(t, server.Versions(), meta.ProtocolVersion))
		return
	}
	if meta.ClientCapabilities == nil {
		fail(http.StatusBadRequest, jsonrpc.NewError(jsonrpc.CodeInvalidParams, `Invalid params: missing _meta["`+session.MetaClientCapabilities+`"]`))
		return
	}
	if t.ClientRequest(m.Method) == nil && server.Config().Handlers[m.Method] == nil {
		fail(http.StatusNotFound, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "Method not found: "+m.Method))
		return
	}
	mode := h.mode()
	if m.Method == "subscriptions/listen" {
		mode = asSSE
	}
	rp := newReply(id, mode, "", false)
	req := engine.NewRequest(id, m.Method, bytes.Clone(m.Params), rp)
	req.Header = r.Header
	ctx := req.BindContext(r.Context())
	go engine.Serve(ctx, server.Stateful(), req)
	// closing the reply stream is the cancellation (2026-07-28 Cancellation)
	h.write(w, r, rp, req.Cancel)
}

// CheckRequestHeaders checks the metadata headers of a stateless request against its body
// (Server Validation): "" when they agree, else what is wrong (the server answers 400 with
// -32020 HeaderMismatch). tool holds the called tool's x-mcp-header annotations. Whether the
// version is supported is the caller's.
func CheckRequestHeaders(m jsonrpc.Message, header http.Header, tool []protocol.ParamHeader) string {
	version := session.ReadMeta(m.Params).ProtocolVersion
	hv := header.Get("Mcp-Protocol-Version")
	if len(header.Values("Mcp-Protocol-Version")) == 0 {
		return "MCP-Protocol-Version header is missing"
	}
	if hv != version {
		return "MCP-Protocol-Version header value '" + hv + "' does not match body value " + quoted(version)
	}
	raw := header.Values("Mcp-Method")
	method, ok := "", len(raw) == 1
	if ok {
		method, ok = protocol.DecodeHeaderValue(raw[0])
	}
	if !ok {
		return "Mcp-Method header is missing or malformed"
	}
	if method != m.Method {
		return "Mcp-Method header value '" + method + "' does not match body value '" + m.Method + "'"
	}
	if field := nameField[m.Method]; field != "" {
		raw := header.Values("Mcp-Name")
		name, ok := "", len(raw) == 1
		if ok {
			name, ok = protocol.DecodeHeaderValue(raw[0])
		}
		if !ok {
			return "Mcp-Name header is missing or malformed"
		}
		value := engine.Member(m.Params, field)
		if body, err := wire.String(value); err != nil || name != body {
			return "Mcp-Name header value '" + name + "' does not match body value " + describeValue(value)
		}
	}
	if m.Method != "tools/call" {
		return ""
	}
	args := engine.Member(m.Params, "arguments")
	for _, p := range tool {
		values := header.Values("Mcp-Param-" + p.Name)
		value := wire.Trim(protocol.ValueAt(args, p.Path))
		absent := len(value) == 0 || string(value) == "null"
		if len(values) == 0 {
			if absent {
				continue
			}
			return "Mcp-Param-" + p.Name + " header is missing"
		}
		got, ok := protocol.DecodeHeaderValue(values[0])
		if !ok || len(values) > 1 {
			return "Mcp-Param-" + p.Name + " header contains invalid characters"
		}
		if absent {
			return "Mcp-Param-" + p.Name + " header is present but the argument is not"
		}
		body, hasBody := protocol.HeaderText(value)
		same := hasBody && got == body
		if b, err := strconv.ParseFloat(string(value), 64); p.Type == "integer" && err == nil {
			a, err := strconv.ParseFloat(strings.TrimSpace(got), 64)
			same = err == nil && a == b && math.Abs(a) <= 1<<53-1
		}
		if !same {
			return "Mcp-Param-" + p.Name + " header value '" + got + "' does not match body value " + describeValue(value)
		}
	}
	return ""
}

// RequestHeaders are the metadata headers of one outbound stateless request (tool: the called
// tool's x-mcp-header annotations).
func RequestHeaders(m jsonrpc.Message, tool []protocol.ParamHeader, set func(key, value string)) {
	if v := session.ReadMeta(m.Params).ProtocolVersion; v != "" {
		set("Mcp-Protocol-Version", v)
	}
	if m.Method == "" {
		return
	}
	set("Mcp-Method", protocol.EncodeHeaderValue(m.Method))
	if field := nameField[m.Method]; field != "" {
		if name, err := wire.String(engine.Member(m.Params, field)); err == nil {
			set("Mcp-Name", protocol.EncodeHeaderValue(name))
		}
	}
	if m.Method == "tools/call" {
		args := engine.Member(m.Params, "arguments")
		for _, p := range tool {
			if text, ok := protocol.HeaderText(protocol.ValueAt(args, p.Path)); ok {
				set("Mcp-Param-"+p.Name, protocol.EncodeHeaderValue(text))
			}
		}
	}
}

// describeMax is the longest text of a value describeValue gives, in characters (an ellipsis
// marks a cut).
const describeMax = 80

// describeValue is a value of the body as an error message quotes it, in TypeScript's words
// (runtime/jsonrpc/own.ts describeValue): a string in single quotes, a number, boolean or null as
// JSON writes it, an object or array as compact JSON, undefined when absent.
func describeValue(raw []byte) string {
	raw = wire.Trim(raw)
	if len(raw) == 0 {
		return "undefined"
	}
	if s, err := wire.String(raw); err == nil {
		return quoted(s)
	}
	if f, err := strconv.ParseFloat(string(raw), 64); err == nil && f == math.Trunc(f) && math.Abs(f) < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	var out bytes.Buffer
	if json.Compact(&out, raw) != nil {
		return capped(string(raw))
	}
	return capped(out.String())
}

// quoted is a string of the body as describeValue words it.
func quoted(s string) string { return "'" + capped(s) + "'" }

func capped(text string) string {
	if r := []rune(text); len(r) > describeMax {
		return string(r[:describeMax]) + "…"
	}
	return text
}
