package sdk_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"testing"

	mcp "mcpgen.dev/reference/gen/mcp20251125"
	mcp2 "mcpgen.dev/reference/gen/mcp20260728"
	"mcpgen.dev/runtime/stdio"
	"mcpgen.dev/runtime/streamable"
)

func pipes() (client, server *stdio.Stream) {
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	return stdio.NewStream(cr, cw, cw.Close, stdio.Options{}), stdio.NewStream(sr, sw, sw.Close, stdio.Options{})
}

func echoFeatures(t *testing.T) *mcp.Features {
	f := mcp.NewFeatures()
	err := f.AddTool(&mcp.Tool{Name: "echo", InputSchema: &mcp.ToolInputSchema{Properties: map[string]map[string]json.RawMessage{"text": {"type": json.RawMessage(`"string"`)}}, Required: []string{"text"}}}, func(ctx context.Context, req *mcp.RequestContext, args json.RawMessage) (mcp.CallToolOutcome, error) {
		var in struct{ Text string }
		if err := json.Unmarshal(args, &in); err != nil {
			return nil, err
		}
		for i := 1; i <= 2; i++ {
			_ = mcp.ClientOf(req).Progress(float64(i), 2, "")
		}
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{&mcp.TextContent{Text: in.Text}}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestHandshakeOverPipes(t *testing.T) {
	ctx := context.Background()
	srv, err := mcp.NewServer(echoFeatures(t), mcp.ServerOptions{Info: &mcp.Implementation{Name: "test", Version: "1"}})
	if err != nil {
		t.Fatal(err)
	}
	cs, ss := pipes()
	go func() { _ = srv.Serve(ctx, ss) }()
	c, err := mcp.NewClient(mcp.ClientOptions{Info: &mcp.Implementation{Name: "c", Version: "1"}})
	if err != nil {
		t.Fatal(err)
	}
	desc, err := c.Connect(ctx, cs)
	if err != nil {
		t.Fatal(err)
	}
	if desc.ProtocolVersion != "2025-11-25" {
		t.Fatalf("version %s", desc.ProtocolVersion)
	}
	tools, err := c.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != "echo" {
		t.Fatalf("tools: %+v %v", tools, err)
	}
	var progress []float64
	res, err := c.CallTool(ctx, &mcp.CallToolRequestParams{Name: "echo", Arguments: map[string]json.RawMessage{"text": json.RawMessage(`"hi ☃"`)}}, mcp.WithProgress(func(p mcp.Progress) { progress = append(progress, p.Progress) }))
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; text != "hi ☃" {
		t.Fatalf("text %q", text)
	}
	if len(progress) != 2 {
		t.Fatalf("progress %v", progress)
	}
	bad, err := c.CallTool(ctx, &mcp.CallToolRequestParams{Name: "echo", Arguments: map[string]json.RawMessage{"text": json.RawMessage(`1`)}})
	if err != nil || bad.IsError == nil || !*bad.IsError {
		t.Fatalf("invalid arguments: %+v %v", bad, err)
	}
	_ = c.Close()
}

func TestStatelessOverHTTP(t *testing.T) {
	ctx := context.Background()
	f := mcp2.NewFeatures()
	if err := f.AddTool(&mcp2.Tool{Name: "echo", InputSchema: &mcp2.ToolInputSchema{}}, func(ctx context.Context, req *mcp2.RequestContext, args json.RawMessage) (mcp2.CallToolOutcome, error) {
		return &mcp2.CallToolResult{Content: []mcp2.ContentBlock{&mcp2.TextContent{Text: string(args)}}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	srv, err := mcp2.NewServer(f, mcp2.ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h := srv.HTTPHandler(streamable.Options{AllowedHosts: []string{"127.0.0.1"}})
	hs := httptest.NewServer(h)
	defer hs.Close()
	c, _ := mcp2.NewClient(mcp2.ClientOptions{})
	desc, err := c.Connect(ctx, streamable.NewClientTransport(hs.URL))
	if err != nil {
		t.Fatal(err)
	}
	if desc.ProtocolVersion != "2026-07-28" || !desc.Stateless {
		t.Fatalf("%+v", desc)
	}
	res, err := c.CallTool(ctx, &mcp2.CallToolRequestParams{Name: "echo", Arguments: map[string]json.RawMessage{"a": json.RawMessage(`1`)}})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Content[0].(*mcp2.TextContent).Text; text != `{"a":1}` {
		t.Fatalf("text %q", text)
	}
	_ = c.Close()
}
