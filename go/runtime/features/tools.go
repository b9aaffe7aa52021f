package features

import (
	"context"
	"errors"
	"strings"

	"mcpgen.dev/runtime/engine"
	"mcpgen.dev/runtime/jsonrpc"
	"mcpgen.dev/runtime/protocol"
	"mcpgen.dev/runtime/session"
	"mcpgen.dev/runtime/wire"
)

// ToolFunc answers a tools/call with the call's arguments (a JSON object, {} when the call had
// none): its result (a CallToolResult or, in the stateless revisions, an InputRequiredResult),
// or an error: a *jsonrpc.Error is a protocol error; any other error becomes a result with
// isError that names it (the model sees it).
type ToolFunc func(ctx context.Context, req *engine.Request, arguments []byte) (wire.Appender, error)

// Tool is a registered tool.
type Tool struct {
	Name string
	// Definition is the Tool object tools/list shows (JSON).
	Definition []byte
	Handler    ToolFunc
	// Headers are the x-mcp-header annotations of its inputSchema.
	Headers []protocol.ParamHeader
	input   *Schema
	output  *Schema
}

// AddTool registers (or replaces) a tool: definition is its Tool JSON (name, inputSchema …).
// Its schemas are compiled now: an invalid one, or x-mcp-header annotations that break the
// rules, is an error.
func (r *Registry) AddTool(definition []byte, fn ToolFunc) error {
	name, err := wire.String(engine.Member(definition, "name"))
	if err != nil || name == "" {
		return errors.New("features: a tool needs a name")
	}
	t := &Tool{Name: name, Definition: definition, Handler: fn}
	schema := engine.Member(definition, "inputSchema")
	if schema == nil {
		schema = []byte(`{"type":"object"}`)
	}
	if t.input, err = CompileSchema(schema, "tool "+name+": inputSchema"); err != nil {
		return err
	}
	if t.Headers, err = protocol.ParamHeaders(schema); err != nil {
		return errors.New("tool " + name + ": inputSchema: " + err.Error())
	}
	if out := engine.Member(definition, "outputSchema"); out != nil {
		if t.output, err = CompileSchema(out, "tool "+name+": outputSchema"); err != nil {
			return err
		}
	}
	r.mu.Lock()
	replaced := false
	for i, x := range r.tools {
		if x.Name == name {
			r.tools[i], replaced = t, true
		}
	}
	if !replaced {
		r.tools = append(r.tools, t)
	}
	r.mu.Unlock()
	r.changed("notifications/tools/list_changed")
	return nil
}

// RemoveTool removes a tool (and sends the list change when it was there).
func (r *Registry) RemoveTool(name string) bool {
	r.mu.Lock()
	found := false
	for i, t := range r.tools {
		if t.Name == name {
			r.tools = append(r.tools[:i], r.tools[i+1:]...)
			found = true
			break
		}
	}
	r.mu.Unlock()
	if found {
		r.changed("notifications/tools/list_changed")
	}
	return found
}

func (r *Registry) tool(name string) *Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, t := range r.tools {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// ToolHeaders is the x-mcp-header annotations of a tool (none for an unknown tool).
func (r *Registry) ToolHeaders(name string) []protocol.ParamHeader {
	if t := r.tool(name); t != nil {
		return t.Headers
	}
	return nil
}

// ListTools answers tools/list.
func (r *Registry) ListTools(ctx context.Context, req *engine.Request, params []byte) (wire.Appender, error) {
	r.mu.RLock()
	items := make([][]byte, len(r.tools))
	for i, t := range r.tools {
		items[i] = t.Definition
	}
	r.mu.RUnlock()
	return r.page(params, "tools", items)
}

// CallTool answers tools/call (see the package doc).
func (r *Registry) CallTool(ctx context.Context, req *engine.Request, params []byte) (wire.Appender, error) {
	name, err := wire.String(engine.Member(params, "name"))
	if err != nil {
		return nil, invalidParams("Invalid params: name must be a string")
	}
	t := r.tool(name)
	if t == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Unknown tool: " + name, Data: nameData(name)}
	}
	args := engine.Member(params, "arguments")
	if args == nil {
		args = []byte("{}")
	} else if o, err := wire.Members(args); err != nil {
		return nil, invalidParams("Invalid params: arguments must be an object")
	} else {
		for o.Next() {
		}
	}
	if problems := t.input.Check(args, 5); len(problems) > 0 {
		return textResult("Invalid arguments for tool "+name+": "+strings.Join(problems, "; "), true), nil
	}
	result, err := t.Handler(ctx, req, args)
	if err != nil {
		if e := jsonrpc.AsError(err); e != nil {
			return nil, e
		}
		if ctx.Err() != nil {
			return nil, err
		}
		return textResult("Tool "+name+" failed: "+err.Error(), true), nil
	}
	if t.output == nil || result == nil {
		return result, nil
	}
	if ir, ok := result.(session.InputRequired); ok && ir.IsInputRequired() {
		return result, nil
	}
	body, err := result.AppendJSON(nil)
	if err != nil {
		return nil, err
	}
	if string(wire.Trim(engine.Member(body, "isError"))) == "true" {
		return jsonrpc.Raw(body), nil
	}
	structured := engine.Member(body, "structuredContent")
	if structured == nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "Internal error: tool "+name+" has an outputSchema and returned no structuredContent")
	}
	if problems := t.output.Check(structured, 5); len(problems) > 0 {
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "Internal error: tool "+name+" returned structuredContent that fails its outputSchema: "+strings.Join(problems, "; "))
	}
	return jsonrpc.Raw(body), nil
}
