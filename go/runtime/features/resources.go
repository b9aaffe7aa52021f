package features

import (
	"context"
	"errors"

	"mcpgen.dev/runtime/engine"
	"mcpgen.dev/runtime/jsonrpc"
	"mcpgen.dev/runtime/session"
	"mcpgen.dev/runtime/wire"
)

// ReadFunc reads a resource: the ReadResourceResult (or, stateless, an InputRequiredResult).
type ReadFunc func(ctx context.Context, req *engine.Request, uri string) (wire.Appender, error)

// TemplateReadFunc reads a URI a resource template matched, with the template's variables.
type TemplateReadFunc func(ctx context.Context, req *engine.Request, uri string, variables map[string]string) (wire.Appender, error)

// CompleteFunc suggests values for an argument that starts with value; context holds the
// other arguments the client has filled in.
type CompleteFunc func(ctx context.Context, value string, context map[string]string) ([]string, error)

// Resource is a registered resource.
type Resource struct {
	URI string
	// Definition is the Resource object resources/list shows (JSON).
	Definition []byte
	Read       ReadFunc
}

// Template is a registered resource template.
type Template struct {
	URITemplate string
	// Definition is the ResourceTemplate object resources/templates/list shows (JSON).
	Definition []byte
	Read       TemplateReadFunc
	// Complete suggests values of the template's variables, by name.
	Complete map[string]CompleteFunc
	matcher  *URITemplate
}

// AddResource registers (or replaces) a resource: definition is its Resource JSON (uri, name …).
func (r *Registry) AddResource(definition []byte, read ReadFunc) error {
	uri, err := wire.String(engine.Member(definition, "uri"))
	if err != nil || uri == "" || read == nil {
		return errors.New("features: a resource needs a uri and a read function")
	}
	res := &Resource{URI: uri, Definition: definition, Read: read}
	r.mu.Lock()
	replaced := false
	for i, x := range r.resources {
		if x.URI == uri {
			r.resources[i], replaced = res, true
		}
	}
	if !replaced {
		r.resources = append(r.resources, res)
	}
	r.mu.Unlock()
	r.changed("notifications/resources/list_changed")
	return nil
}

// RemoveResource removes a resource (and sends the list change when it was there).
func (r *Registry) RemoveResource(uri string) bool {
	r.mu.Lock()
	found := false
	for i, x := range r.resources {
		if x.URI == uri {
			r.resources = append(r.resources[:i], r.resources[i+1:]...)
			found = true
			break
		}
	}
	r.mu.Unlock()
	if found {
		r.changed("notifications/resources/list_changed")
	}
	return found
}

// AddTemplate registers a resource template: definition is its ResourceTemplate JSON
// (uriTemplate, name …).
func (r *Registry) AddTemplate(definition []byte, read TemplateReadFunc, complete map[string]CompleteFunc) error {
	uriTemplate, err := wire.String(engine.Member(definition, "uriTemplate"))
	if err != nil || uriTemplate == "" || read == nil {
		return errors.New("features: a resource template needs a uriTemplate and a read function")
	}
	m, err := ParseURITemplate(uriTemplate)
	if err != nil {
		return errors.New("features: resource template " + uriTemplate + ": " + err.Error())
	}
	t := &Template{URITemplate: uriTemplate, Definition: definition, Read: read, Complete: complete, matcher: m}
	r.mu.Lock()
	r.templates = append(r.templates, t)
	r.mu.Unlock()
	r.changed("notifications/resources/list_changed")
	return nil
}

// ListResources answers resources/list.
func (r *Registry) ListResources(ctx context.Context, req *engine.Request, params []byte) (wire.Appender, error) {
	r.mu.RLock()
	items := make([][]byte, len(r.resources))
	for i, x := range r.resources {
		items[i] = x.Definition
	}
	r.mu.RUnlock()
	return r.page(params, "resources", items)
}

// ListTemplates answers resources/templates/list.
func (r *Registry) ListTemplates(ctx context.Context, req *engine.Request, params []byte) (wire.Appender, error) {
	r.mu.RLock()
	items := make([][]byte, len(r.templates))
	for i, x := range r.templates {
		items[i] = x.Definition
	}
	r.mu.RUnlock()
	return r.page(params, "resourceTemplates", items)
}

// ReadResource answers resources/read: a registered resource, else the first template that
// matches, else "Resource not found".
func (r *Registry) ReadResource(ctx context.Context, req *engine.Request, params []byte) (wire.Appender, error) {
	uri, err := wire.String(engine.Member(params, "uri"))
	if err != nil {
		return nil, invalidParams("Invalid params: uri must be a string")
	}
	r.mu.RLock()
	var res *Resource
	for _, x := range r.resources {
		if x.URI == uri {
			res = x
		}
	}
	templates := append([]*Template(nil), r.templates...)
	r.mu.RUnlock()
	if res != nil {
		return res.Read(ctx, req, uri)
	}
	for _, t := range templates {
		if vars, ok := t.matcher.Match(uri); ok {
			return t.Read(ctx, req, uri, vars)
		}
	}
	return nil, resourceNotFound(req, uri)
}

// resourceNotFound is the "Resource not found" refusal of uri (server/resources, "Error
// Handling"): -32002 with data {uri}; -32602 in a stateless revision, whose table has no -32002.
func resourceNotFound(req *engine.Request, uri string) error {
	data := []byte(`{"uri":` + string(wire.AppendString(nil, uri)) + `}`)
	code := int64(jsonrpc.CodeInvalidParams)
	if !stateless(req) {
		code = -32002
		if t := table(req); t != nil {
			code = t.ErrorCode("RESOURCE_NOT_FOUND", -32002)
		}
	}
	return &jsonrpc.Error{Code: code, Message: "Resource not found", Data: data}
}

// Subscribe answers resources/subscribe (handshake era): the session gets
// notifications/resources/updated for the uri.
// A URI no resource or template serves is refused -32002 "Resource not found", as ReadResource
// refuses it (server/resources "Error Handling").
func (r *Registry) Subscribe(ctx context.Context, req *engine.Request, params []byte) (wire.Appender, error) {
	if uri, err := wire.String(engine.Member(params, "uri")); err == nil && !r.known(uri) {
		return nil, &jsonrpc.Error{Code: -32002, Message: "Resource not found", Data: []byte(`{"uri":` + string(wire.AppendString(nil, uri)) + `}`)}
	}
	return subscribe(req, params, true)
}

// known reports whether a registered resource or a template serves uri.
func (r *Registry) known(uri string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, x := range r.resources {
		if x.URI == uri {
			return true
		}
	}
	for _, t := range r.templates {
		if _, ok := t.matcher.Match(uri); ok {
			return true
		}
	}
	return false
}

// Unsubscribe answers resources/unsubscribe.
func (r *Registry) Unsubscribe(ctx context.Context, req *engine.Request, params []byte) (wire.Appender, error) {
	return subscribe(req, params, false)
}

func subscribe(req *engine.Request, params []byte, on bool) (wire.Appender, error) {
	uri, err := wire.String(engine.Member(params, "uri"))
	if err != nil {
		return nil, invalidParams("Invalid params: uri must be a string")
	}
	if ss, ok := req.Session.(*session.ServerSession); ok {
		ss.Subscribe(uri, on)
	}
	return nil, nil
}

// TextContents is a ReadResourceResult of one text content.
func TextContents(uri, mimeType, text string) jsonrpc.Raw {
	return contents(uri, mimeType, "text", text)
}

// BlobContents is a ReadResourceResult of one blob content (base64).
func BlobContents(uri, mimeType, blob string) jsonrpc.Raw {
	return contents(uri, mimeType, "blob", blob)
}

func contents(uri, mimeType, key, value string) jsonrpc.Raw {
	b := []byte(`{"contents":[{"uri":`)
	b = wire.AppendString(b, uri)
	if mimeType != "" {
		b = append(b, `,"mimeType":`...)
		b = wire.AppendString(b, mimeType)
	}
	b = append(b, ',')
	b = wire.AppendString(b, key)
	b = append(b, ':')
	b = wire.AppendString(b, value)
	return jsonrpc.Raw(append(b, "}]}"...))
}
