package sdk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

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

// A client that sends initialize, notifications/initialized and a call without waiting, then
// ends its input: the call sees the negotiated session (initialize is served on the read loop),
// and its progress and response are written before the connection closes (the input's end
// leaves what is being served time to finish).
func TestStdioPipelinedThenEndOfInput(t *testing.T) {
	srv, err := mcp.NewServer(echoFeatures(t), mcp.ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"late"},"_meta":{"progressToken":"p"}}}
`)
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- srv.Serve(context.Background(), stdio.NewStream(in, &out, nil, stdio.Options{EndGrace: 5 * time.Second}))
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not end after its input did")
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("want initialize's response, 2 progress, the call's response; got %d lines:\n%s", len(lines), out.String())
	}
	if !strings.HasPrefix(lines[0], `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"`) {
		t.Fatalf("initialize: %s", lines[0])
	}
	if lines[3] != `{"jsonrpc":"2.0","id":2,"result":{"content":[{"text":"late","type":"text"}]}}` {
		t.Fatalf("tools/call: %s", lines[3])
	}
	for _, l := range lines[1:3] {
		if !strings.Contains(l, `"method":"notifications/progress","params":{"progressToken":"p"`) {
			t.Fatalf("progress: %s", l)
		}
	}
}
