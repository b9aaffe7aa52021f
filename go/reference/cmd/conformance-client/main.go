// Command conformance-client is the Go conformance client: run by `conformance client
// --command "<cmd>"`, the server URL last on its command line, the scenario in
// MCP_CONFORMANCE_SCENARIO and its data in MCP_CONFORMANCE_CONTEXT. With --rev 2026-07-28
// (before the URL) it speaks that revision statelessly (falling back to a 2025-11-25 session
// when the server is of that era), else 2025-11-25 (offering the older versions too).
//
// Every scenario: connect over Streamable HTTP, list the tools (when the server declares them),
// call each with arguments its input schema asks for (numbers 1, 2, …; strings "test";
// booleans true; a `schema` object argument gets another tool's input schema), close.
// Elicitation is accepted with the requested schema's defaults; sampling answers a fixed text;
// roots/list lists one root. A scenario's toolCalls context names the calls to make instead.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"mcpgen.dev/reference/fixtures"
	mcp "mcpgen.dev/reference/gen/mcp20251125"
	mcpstateless "mcpgen.dev/reference/gen/mcp20260728"
	"mcpgen.dev/runtime/codegen"
	"mcpgen.dev/runtime/streamable"
)

const (
	clientName    = "mcpgen-conformance-client"
	clientVersion = "0.1.0"
)

// toolCall is one call a scenario's context names.
type toolCall struct {
	Name      string                     `json:"name"`
	Arguments map[string]json.RawMessage `json:"arguments"`
}

type scenarioContext struct {
	ToolCalls *[]toolCall `json:"toolCalls"`
}

func main() {
	args := os.Args[1:]
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: conformance-client [--rev 2026-07-28] <server URL>")
		os.Exit(2)
	}
	url := args[len(args)-1]
	revision := ""
	for i, a := range args[:len(args)-1] {
		if a == "--rev" && i+1 < len(args)-1 {
			revision = args[i+1]
		}
	}
	scenario := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	var sc scenarioContext
	if raw := os.Getenv("MCP_CONFORMANCE_CONTEXT"); raw != "" {
		if err := json.Unmarshal([]byte(raw), &sc); err != nil {
			fmt.Fprintf(os.Stderr, "conformance client (%s): MCP_CONFORMANCE_CONTEXT: %v\n", scenario, err)
			os.Exit(1)
		}
	}
	timeout := 20 * time.Second
	if strings.HasPrefix(scenario, "auth/") {
		timeout = 60 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*timeout)
	defer cancel()
	var err error
	if revision == "2026-07-28" || revision == "draft" {
		err = runStateless(ctx, url, timeout, sc)
	} else {
		err = runHandshake(ctx, url, timeout, sc)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "conformance client (%s): %v\n", scenario, err)
		os.Exit(1)
	}
}

// argumentsFor are arguments satisfying an input schema's properties: numbers 1, 2, …;
// strings "test"; booleans true.
func argumentsFor(properties map[string]map[string]json.RawMessage) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	n := 0
	for _, k := range sortedKeys(properties) {
		var t string
		_ = json.Unmarshal(properties[k]["type"], &t)
		switch t {
		case "number", "integer":
			n++
			out[k] = json.RawMessage(fmt.Sprint(n))
		case "boolean":
			out[k] = json.RawMessage("true")
		case "string":
			out[k] = json.RawMessage(`"test"`)
		}
	}
	return out
}

// defaults is the content of an elicitation answer: each requested property's default.
func defaults(schema []byte) []byte {
	var s struct {
		Properties map[string]map[string]json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(schema, &s)
	content := map[string]json.RawMessage{}
	for k, p := range s.Properties {
		if d, ok := p["default"]; ok {
			content[k] = d
		}
	}
	b, _ := json.Marshal(map[string]any{"action": "accept", "content": content})
	return b
}

const sampled = `{"role":"assistant","content":{"type":"text","text":"This is a test response."},"model":"conformance-model"}`
const roots = `{"roots":[{"uri":"file:///conformance/root","name":"Conformance Root"}]}`

// plan is the calls to make: the context's, else every listed tool with arguments for it.
func plan(sc scenarioContext, tools []map[string]json.RawMessage) []toolCall {
	if sc.ToolCalls != nil {
		return *sc.ToolCalls
	}
	var calls []toolCall
	for _, t := range tools {
		var name string
		_ = json.Unmarshal(t["name"], &name)
		var schema struct {
			Properties map[string]map[string]json.RawMessage `json:"properties"`
		}
		_ = json.Unmarshal(t["inputSchema"], &schema)
		args := argumentsFor(schema.Properties)
		if p, ok := schema.Properties["schema"]; ok && string(p["type"]) == `"object"` {
			for _, other := range tools {
				if string(other["name"]) != string(t["name"]) {
					args["schema"] = other["inputSchema"]
					break
				}
			}
		}
		calls = append(calls, toolCall{Name: name, Arguments: args})
	}
	return calls
}

// wireTools is the tools as JSON objects (their inputSchema as sent).
func wireTools[T codegen.Appender](tools []T) ([]map[string]json.RawMessage, error) {
	out := make([]map[string]json.RawMessage, len(tools))
	for i, t := range tools {
		raw, err := codegen.Encode(t)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(raw, &out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

type handshakeHandlers struct {
	mcp.UnimplementedClientHandlers
}

func (handshakeHandlers) Elicit(ctx context.Context, req *mcp.RequestContext, params mcp.ElicitRequestParams) (mcp.ElicitOutcome, error) {
	var schema []byte
	if form, ok := params.(*mcp.ElicitRequestFormParams); ok && form.RequestedSchema != nil {
		schema, _ = codegen.Encode(form.RequestedSchema)
	}
	r := &mcp.ElicitResult{}
	return r, r.UnmarshalJSON(defaults(schema))
}

func (handshakeHandlers) CreateMessage(ctx context.Context, req *mcp.RequestContext, params *mcp.CreateMessageRequestParams) (mcp.CreateMessageOutcome, error) {
	r := &mcp.CreateMessageResult{}
	return r, r.UnmarshalJSON([]byte(sampled))
}

func (handshakeHandlers) ListRoots(ctx context.Context, req *mcp.RequestContext, params *mcp.RequestParams) (*mcp.ListRootsResult, error) {
	r := &mcp.ListRootsResult{}
	return r, r.UnmarshalJSON([]byte(roots))
}

func runHandshake(ctx context.Context, url string, timeout time.Duration, sc scenarioContext) error {
	c, err := mcp.NewClient(mcp.ClientOptions{
		Info:         &mcp.Implementation{Name: clientName, Version: clientVersion},
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ClientCapabilitiesElicitation{Form: map[string]json.RawMessage{}}, Sampling: &mcp.ClientCapabilitiesSampling{}},
		Handlers:     handshakeHandlers{},
		Fallback:     fixtures.OlderHandshakeTables(),
		Timeout:      timeout,
	})
	if err != nil {
		return err
	}
	server, err := c.Connect(ctx, streamable.NewClientTransport(url))
	if err != nil {
		return err
	}
	defer c.Close()
	var tools []map[string]json.RawMessage
	if strings.Contains(string(server.Capabilities), `"tools"`) {
		listed, err := c.ListTools(ctx, nil)
		if err != nil {
			return err
		}
		if tools, err = wireTools(listed.Tools); err != nil {
			return err
		}
	}
	for _, call := range plan(sc, tools) {
		if _, err := c.CallTool(ctx, &mcp.CallToolRequestParams{Name: call.Name, Arguments: call.Arguments}); err != nil {
			return fmt.Errorf("tools/call %s: %w", call.Name, err)
		}
	}
	return nil
}

type statelessHandlers struct{}

func (statelessHandlers) Elicit(ctx context.Context, req *mcpstateless.RequestContext, params mcpstateless.ElicitRequestParams) (*mcpstateless.ElicitResult, error) {
	var schema []byte
	if form, ok := params.(*mcpstateless.ElicitRequestFormParams); ok && form.RequestedSchema != nil {
		schema, _ = codegen.Encode(form.RequestedSchema)
	}
	r := &mcpstateless.ElicitResult{}
	return r, r.UnmarshalJSON(defaults(schema))
}

func (statelessHandlers) CreateMessage(ctx context.Context, req *mcpstateless.RequestContext, params *mcpstateless.CreateMessageRequestParams) (*mcpstateless.CreateMessageResult, error) {
	r := &mcpstateless.CreateMessageResult{}
	return r, r.UnmarshalJSON([]byte(sampled))
}

func (statelessHandlers) ListRoots(ctx context.Context, req *mcpstateless.RequestContext, params *mcpstateless.ListRootsRequestParams) (*mcpstateless.ListRootsResult, error) {
	r := &mcpstateless.ListRootsResult{}
	return r, r.UnmarshalJSON([]byte(roots))
}

func runStateless(ctx context.Context, url string, timeout time.Duration, sc scenarioContext) error {
	c, err := mcpstateless.NewClient(mcpstateless.ClientOptions{
		Info:         &mcpstateless.Implementation{Name: clientName, Version: clientVersion},
		Capabilities: &mcpstateless.ClientCapabilities{Elicitation: &mcpstateless.ClientCapabilitiesElicitation{Form: mcpstateless.JSONObject{}}, Sampling: &mcpstateless.ClientCapabilitiesSampling{}, Roots: map[string]json.RawMessage{}},
		Handlers:     statelessHandlers{},
		Fallback:     append([]*codegen.Table{mcp.Table}, fixtures.OlderHandshakeTables()...),
		Timeout:      timeout,
	})
	if err != nil {
		return err
	}
	server, err := c.Connect(ctx, streamable.NewClientTransport(url))
	if err != nil {
		return err
	}
	defer c.Close()
	var tools []map[string]json.RawMessage
	if strings.Contains(string(server.Capabilities), `"tools"`) {
		listed, err := c.ListTools(ctx, nil)
		if err != nil {
			return err
		}
		if tools, err = wireTools(listed.Tools); err != nil {
			return err
		}
	}
	for _, call := range plan(sc, tools) {
		if _, err := c.CallTool(ctx, &mcpstateless.CallToolRequestParams{Name: call.Name, Arguments: call.Arguments}); err != nil {
			return fmt.Errorf("tools/call %s: %w", call.Name, err)
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
