package interop_test

// go-sdk (github.com/modelcontextprotocol/go-sdk, pinned in go.mod) against the Go SDK, over OS
// pipes (stdio framing) and Streamable HTTP on a loopback socket, in both eras: go-sdk's client
// against the Go reference server (its fixtures), and the generated Go clients against a go-sdk
// server holding the same fixtures (interop.Handshake and interop.Stateless check them).

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"mcpgen.dev/reference/fixtures"
	mcp "mcpgen.dev/reference/gen/mcp20251125"
	mcpstateless "mcpgen.dev/reference/gen/mcp20260728"
	"mcpgen.dev/reference/interop"
	"mcpgen.dev/runtime/codegen"
	"mcpgen.dev/runtime/stdio"
	"mcpgen.dev/runtime/streamable"
)

var revisions = []string{"2025-11-25", "2026-07-28"}

// osPipes are two OS pipes: what the client writes the server reads, and back.
func osPipes(t *testing.T) (clientIn, clientOut, serverIn, serverOut *os.File) {
	t.Helper()
	sr, cw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cr, sw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	return cr, cw, sr, sw
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// exerciseGoSDKClient checks the reference fixtures through go-sdk's client session.
func exerciseGoSDKClient(ctx context.Context, t *testing.T, cs *sdk.ClientSession, progress *progressLog) {
	t.Helper()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	if !slices.Contains(names, interop.EchoTool) || !slices.Contains(names, interop.ProgressTool) {
		t.Fatalf("tools/list: %v", names)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: interop.EchoTool, Arguments: map[string]any{"text": interop.Echoed}})
	if err != nil {
		t.Fatalf("tools/call echo: %v", err)
	}
	if res.IsError || len(res.Content) != 1 || res.Content[0].(*sdk.TextContent).Text != interop.Echoed {
		t.Fatalf("tools/call echo: %+v", res)
	}
	bad, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: interop.EchoTool, Arguments: map[string]any{"text": 5}})
	if err != nil || !bad.IsError {
		t.Fatalf("tools/call echo with text 5: want isError, got %+v, %v", bad, err)
	}
	params := &sdk.CallToolParams{Name: interop.ProgressTool, Arguments: map[string]any{}}
	params.SetProgressToken("p-1")
	done, err := cs.CallTool(ctx, params)
	if err != nil {
		t.Fatalf("tools/call %s: %v", interop.ProgressTool, err)
	}
	if len(done.Content) != 1 || done.Content[0].(*sdk.TextContent).Text != interop.ProgressText {
		t.Fatalf("tools/call %s: %+v", interop.ProgressTool, done)
	}
	if got := progress.take(); !slices.Equal(got, interop.WantProgress) {
		t.Fatalf("progress %v, want %v", got, interop.WantProgress)
	}
	read, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: interop.StaticResource})
	if err != nil || len(read.Contents) != 1 || read.Contents[0].Text != interop.StaticText {
		t.Fatalf("resources/read: %+v, %v", read, err)
	}
	prompt, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: interop.ArgsPrompt, Arguments: map[string]string{"arg1": "a", "arg2": "b"}})
	if err != nil || len(prompt.Messages) == 0 || prompt.Messages[0].Content.(*sdk.TextContent).Text != interop.ArgsPromptText {
		t.Fatalf("prompts/get: %+v, %v", prompt, err)
	}
}

// progressLog collects the progress notifications go-sdk's client receives (token p-1).
type progressLog struct {
	mu   sync.Mutex
	seen []float64
}

func (p *progressLog) handler(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
	if req.Params.ProgressToken != "p-1" {
		return
	}
	p.mu.Lock()
	p.seen = append(p.seen, req.Params.Progress)
	p.mu.Unlock()
}

func (p *progressLog) take() []float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.seen
	p.seen = nil
	return out
}

func goSDKClient() (*sdk.Client, *progressLog) {
	progress := &progressLog{}
	return sdk.NewClient(&sdk.Implementation{Name: "go-sdk-client", Version: "1"}, &sdk.ClientOptions{ProgressNotificationHandler: progress.handler}), progress
}

// serveReference serves the Go reference server of rev on a stdio stream.
func serveReference(ctx context.Context, t *testing.T, rev string, in, out *os.File) {
	t.Helper()
	var srv interface {
		Serve(context.Context, codegen.Transport) error
	}
	var err error
	if fixtures.StatelessRevision(rev) {
		srv, err = fixtures.NewStateless(fixtures.Options{})
	} else {
		srv, err = fixtures.NewHandshake(fixtures.Options{})
	}
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, stdio.NewStream(in, out, out.Close, stdio.Options{})) }()
	t.Cleanup(func() {
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("the Go server did not end after its input did")
		}
	})
}

func TestGoSDKClientAgainstOurServerOverStdio(t *testing.T) {
	for _, rev := range revisions {
		t.Run(rev, func(t *testing.T) {
			ctx := testContext(t)
			cr, cw, sr, sw := osPipes(t)
			serveReference(ctx, t, rev, sr, sw)
			c, progress := goSDKClient()
			cs, err := c.Connect(ctx, &sdk.IOTransport{Reader: cr, Writer: cw}, &sdk.ClientSessionOptions{ProtocolVersion: rev})
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			if v := cs.InitializeResult().ProtocolVersion; v != rev {
				t.Fatalf("protocol version %s, want %s", v, rev)
			}
			if name := cs.InitializeResult().ServerInfo.Name; name != fixtures.ServerName {
				t.Fatalf("server %s", name)
			}
			exerciseGoSDKClient(ctx, t, cs, progress)
			if err := cs.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestGoSDKClientAgainstOurDualEraEndpoint(t *testing.T) {
	handler, closeHandler, err := fixtures.HTTPHandler("2026-07-28", fixtures.Options{}, codegen.HTTPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(handler)
	defer hs.Close()
	defer closeHandler()
	for _, rev := range revisions {
		t.Run(rev, func(t *testing.T) {
			ctx := testContext(t)
			c, progress := goSDKClient()
			cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: hs.URL, MaxRetries: -1}, &sdk.ClientSessionOptions{ProtocolVersion: rev})
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			if v := cs.InitializeResult().ProtocolVersion; v != rev {
				t.Fatalf("protocol version %s, want %s", v, rev)
			}
			if rev == "2025-11-25" && cs.ID() == "" {
				t.Fatal("no session id for a 2025-11-25 session")
			}
			exerciseGoSDKClient(ctx, t, cs, progress)
			if err := cs.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// goSDKServer is a go-sdk server holding the reference fixtures the interop checks use.
func goSDKServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "go-sdk-peer", Version: "1"}, nil)
	type echoArgs struct {
		Text string `json:"text"`
	}
	sdk.AddTool(s, &sdk.Tool{Name: interop.EchoTool, Description: "Echoes the text argument"}, func(ctx context.Context, req *sdk.CallToolRequest, in echoArgs) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: in.Text}}}, nil, nil
	})
	s.AddTool(&sdk.Tool{Name: interop.ProgressTool, InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		if token := req.Params.GetProgressToken(); token != nil {
			for _, p := range interop.WantProgress {
				if err := req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token, Progress: p, Total: 100}); err != nil {
					return nil, err
				}
			}
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: interop.ProgressText}}}, nil
	})
	s.AddResource(&sdk.Resource{URI: interop.StaticResource, Name: "static-text", MIMEType: "text/plain"}, func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: interop.StaticResource, MIMEType: "text/plain", Text: interop.StaticText}}}, nil
	})
	s.AddPrompt(&sdk.Prompt{Name: interop.ArgsPrompt, Arguments: []*sdk.PromptArgument{{Name: "arg1", Required: true}, {Name: "arg2", Required: true}}}, func(ctx context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		text := fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", req.Params.Arguments["arg1"], req.Params.Arguments["arg2"])
		return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: text}}}}, nil
	})
	return s
}

// ourClient connects the generated client of rev and runs the fixture checks.
func ourClient(ctx context.Context, t *testing.T, rev string, transport codegen.Transport) {
	t.Helper()
	var desc *codegen.ServerDescription
	var err error
	if rev == "2025-11-25" {
		c, _ := mcp.NewClient(mcp.ClientOptions{Info: &mcp.Implementation{Name: "mcpgen-go", Version: "1"}})
		if desc, err = c.Connect(ctx, transport); err != nil {
			t.Fatalf("connect: %v", err)
		}
		defer c.Close()
		err = interop.Handshake(ctx, c)
	} else {
		c, _ := mcpstateless.NewClient(mcpstateless.ClientOptions{Info: &mcpstateless.Implementation{Name: "mcpgen-go", Version: "1"}})
		if desc, err = c.Connect(ctx, transport); err != nil {
			t.Fatalf("connect: %v", err)
		}
		defer c.Close()
		if !desc.Stateless {
			t.Fatal("a 2026-07-28 client and go-sdk: not stateless")
		}
		err = interop.Stateless(ctx, c)
	}
	if err != nil {
		t.Fatal(err)
	}
	if desc.ProtocolVersion != rev {
		t.Fatalf("protocol version %s, want %s", desc.ProtocolVersion, rev)
	}
	var info struct{ Name string }
	if json.Unmarshal(desc.Info, &info); info.Name != "go-sdk-peer" {
		t.Fatalf("server %s", desc.Info)
	}
}

func TestOurClientAgainstGoSDKServerOverStdio(t *testing.T) {
	for _, rev := range revisions {
		t.Run(rev, func(t *testing.T) {
			ctx := testContext(t)
			cr, cw, sr, sw := osPipes(t)
			serverCtx, stop := context.WithCancel(ctx)
			done := make(chan error, 1)
			go func() { done <- goSDKServer().Run(serverCtx, &sdk.IOTransport{Reader: sr, Writer: sw}) }()
			ourClient(ctx, t, rev, stdio.NewStream(cr, cw, cw.Close, stdio.Options{}))
			stop()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("the go-sdk server did not end")
			}
		})
	}
}

// go-sdk serves 2026-07-28 over HTTP only from a stateless handler (StreamableHTTPOptions.Stateless);
// 2025-11-25 from a handler with sessions.
func TestOurClientAgainstGoSDKServerOverHTTP(t *testing.T) {
	s := goSDKServer()
	for _, rev := range revisions {
		t.Run(rev, func(t *testing.T) {
			opts := &sdk.StreamableHTTPOptions{Stateless: rev == "2026-07-28"}
			hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, opts))
			defer hs.Close()
			ourClient(testContext(t), t, rev, streamable.NewClientTransport(hs.URL))
		})
	}
}
