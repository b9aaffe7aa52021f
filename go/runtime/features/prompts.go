package features

import (
	"context"
	"errors"
	"sort"
	"strings"

	"mcpgen.dev/runtime/engine"
	"mcpgen.dev/runtime/jsonrpc"
	"mcpgen.dev/runtime/wire"
)

// PromptFunc answers prompts/get with the prompt's arguments: the GetPromptResult (or,
// stateless, an InputRequiredResult).
type PromptFunc func(ctx context.Context, req *engine.Request, arguments map[string]string) (wire.Appender, error)

// Prompt is a registered prompt.
type Prompt struct {
	Name string
	// Definition is the Prompt object prompts/list shows (JSON).
	Definition []byte
	Get        PromptFunc
	// Complete suggests values of its arguments, by name.
	Complete map[string]CompleteFunc
	required []string
}

// AddPrompt registers (or replaces) a prompt: definition is its Prompt JSON (name, arguments …).
func (r *Registry) AddPrompt(definition []byte, get PromptFunc, complete map[string]CompleteFunc) error {
	name, err := wire.String(engine.Member(definition, "name"))
	if err != nil || name == "" || get == nil {
		return errors.New("features: a prompt needs a name and a get function")
	}
	p := &Prompt{Name: name, Definition: definition, Get: get, Complete: complete}
	if a, err := wire.Elements(engine.Member(definition, "arguments")); err == nil {
		for a.Next() {
			if string(wire.Trim(engine.Member(a.Value(), "required"))) == "true" {
				arg, _ := wire.String(engine.Member(a.Value(), "name"))
				p.required = append(p.required, arg)
			}
		}
	}
	r.mu.Lock()
	replaced := false
	for i, x := range r.prompts {
		if x.Name == name {
			r.prompts[i], replaced = p, true
		}
	}
	if !replaced {
		r.prompts = append(r.prompts, p)
	}
	r.mu.Unlock()
	r.changed("notifications/prompts/list_changed")
	return nil
}

// RemovePrompt removes a prompt (and sends the list change when it was there).
func (r *Registry) RemovePrompt(name string) bool {
	r.mu.Lock()
	found := false
	for i, x := range r.prompts {
		if x.Name == name {
			r.prompts = append(r.prompts[:i], r.prompts[i+1:]...)
			found = true
			break
		}
	}
	r.mu.Unlock()
	if found {
		r.changed("notifications/prompts/list_changed")
	}
	return found
}

func (r *Registry) prompt(name string) *Prompt {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, p := range r.prompts {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// ListPrompts answers prompts/list.
func (r *Registry) ListPrompts(ctx context.Context, req *engine.Request, params []byte) (wire.Appender, error) {
	r.mu.RLock()
	items := make([][]byte, len(r.prompts))
	for i, x := range r.prompts {
		items[i] = x.Definition
	}
	r.mu.RUnlock()
	return r.page(params, "prompts", items)
}

// GetPrompt answers prompts/get: -32602 for an unknown prompt or a missing required argument.
func (r *Registry) GetPrompt(ctx context.Context, req *engine.Request, params []byte) (wire.Appender, error) {
	name, err := wire.String(engine.Member(params, "name"))
	if err != nil {
		return nil, invalidParams("Invalid params: name must be a string")
	}
	p := r.prompt(name)
	if p == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Unknown prompt: " + name, Data: nameData(name)}
	}
	args := map[string]string{}
	if raw := engine.Member(params, "arguments"); raw != nil {
		if args, err = wire.Map(raw, wire.String); err != nil {
			return nil, invalidParams("Invalid params: " + wire.At(err, "arguments").Error())
		}
	}
	var missing []string
	for _, a := range p.required {
		if _, ok := args[a]; !ok {
			missing = append(missing, a)
		}
	}
	if len(missing) > 0 {
		plural := ""
		if len(missing) > 1 {
			plural = "s"
		}
		data := []byte(`{"missing":[`)
		for i, m := range missing {
			if i > 0 {
				data = append(data, ',')
			}
			data = wire.AppendString(data, m)
		}
		data = append(data, "]}"...)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Missing required argument" + plural + " of prompt " + name + ": " + strings.Join(missing, ", "), Data: data}
	}
	return p.Get(ctx, req, args)
}

// Complete answers completion/complete for a prompt argument (ref/prompt) or a template
// variable (ref/resource): at most 100 values, with the total and whether there are more.
func (r *Registry) Complete(ctx context.Context, req *engine.Request, params []byte) (wire.Appender, error) {
	ref := engine.Member(params, "ref")
	argument := engine.Member(params, "argument")
	argName, _ := wire.String(engine.Member(argument, "name"))
	value, _ := wire.String(engine.Member(argument, "value"))
	context := map[string]string{}
	if raw := engine.Member(engine.Member(params, "context"), "arguments"); raw != nil {
		context, _ = wire.Map(raw, wire.String)
	}
	kind, _ := wire.String(engine.Member(ref, "type"))
	var fn CompleteFunc
	switch kind {
	case "ref/prompt":
		name, _ := wire.String(engine.Member(ref, "name"))
		p := r.prompt(name)
		if p == nil {
			return nil, invalidParams("Unknown prompt: " + name)
		}
		fn = p.Complete[argName]
	case "ref/resource":
		uri, _ := wire.String(engine.Member(ref, "uri"))
		r.mu.RLock()
		var t *Template
		for _, x := range r.templates {
			if x.URITemplate == uri {
				t = x
			}
		}
		resource := false
		for _, x := range r.resources {
			resource = resource || x.URI == uri
		}
		r.mu.RUnlock()
		// a URI that is neither a template nor a resource: "Resource not found", as resources/read
		if t == nil && !resource {
			return nil, resourceNotFound(req, uri)
		}
		if t != nil {
			fn = t.Complete[argName]
		}
	default:
		return nil, invalidParams("Invalid params: ref.type must be ref/prompt or ref/resource")
	}
	var values []string
	if fn != nil {
		var err error
		if values, err = fn(ctx, value, context); err != nil {
			if e := jsonrpc.AsError(err); e != nil {
				return nil, e
			}
			return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "Internal error: completion failed")
		}
	}
	total := len(values)
	more := total > 100
	if more {
		values = values[:100]
	}
	b := []byte(`{"completion":{"values":`)
	if values == nil {
		values = []string{}
	}
	b = wire.AppendStrings(b, values)
	b = append(b, `,"total":`...)
	b = wire.AppendInt(b, int64(total))
	b = append(b, `,"hasMore":`...)
	b = wire.AppendBool(b, more)
	return jsonrpc.Raw(append(b, "}}"...)), nil
}

// Prefixed returns the values that start with prefix, sorted (a simple CompleteFunc body).
func Prefixed(prefix string, values ...string) []string {
	var out []string
	for _, v := range values {
		if strings.HasPrefix(v, prefix) {
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out
}
