// Package bench compares, for one tool call (tools/call of an echo tool, its text argument
// returned as text content), the Go SDK with go-sdk (github.com/modelcontextprotocol/go-sdk)
// and with a bare limit (the same JSON-RPC exchange with encoding/json and nothing else), over
// stdio framing on OS pipes and over HTTP (Streamable HTTP with a session, 2025-11-25; the bare
// limit a net/http POST echo). Client and server run in this process, so each figure counts
// both sides: ns/op (1e9 / calls per second of one caller), cpu-ns/op (user + system CPU time
// of the process per call, from getrusage), allocs/op and B/op (-benchmem). Run by `npm run
// bench:go` (bench/go.ts), which prints them side by side.
package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"syscall"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	mcp "mcpgen.dev/reference/gen/mcp20251125"
	"mcpgen.dev/runtime/codegen"
	"mcpgen.dev/runtime/stdio"
	"mcpgen.dev/runtime/streamable"
)

const text = "hello, benchmark"

func cpuNow() int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// measure runs call b.N times and reports the CPU time per call.
func measure(b *testing.B, call func() error) {
	b.Helper()
	for range 50 { // warm up: connections, pools, caches
		if err := call(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	start := cpuNow()
	for range b.N {
		if err := call(); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(cpuNow()-start)/float64(b.N), "cpu-ns/op")
}

func pipes(b *testing.B) (cr, cw, sr, sw *os.File) {
	sr, cw, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	cr, sw, err = os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cw.Close(); sw.Close() })
	return cr, cw, sr, sw
}

func ourServer(b *testing.B) *mcp.Server {
	f := mcp.NewFeatures()
	tool := &mcp.Tool{}
	if err := tool.UnmarshalJSON([]byte(`{"name":"echo","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}`)); err != nil {
		b.Fatal(err)
	}
	if err := f.AddTool(tool, func(ctx context.Context, req *mcp.RequestContext, args json.RawMessage) (mcp.CallToolOutcome, error) {
		var in struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(args, &in); err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{&mcp.TextContent{Text: in.Text}}}, nil
	}); err != nil {
		b.Fatal(err)
	}
	s, err := mcp.NewServer(f, mcp.ServerOptions{})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

func ourCall(b *testing.B, t codegen.Transport) func() error {
	c, err := mcp.NewClient(mcp.ClientOptions{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if _, err := c.Connect(ctx, t); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = c.Close() })
	params := &mcp.CallToolRequestParams{Name: "echo", Arguments: map[string]json.RawMessage{"text": json.RawMessage(`"` + text + `"`)}}
	return func() error {
		res, err := c.CallTool(ctx, params)
		if err == nil && res.Content[0].(*mcp.TextContent).Text != text {
			b.Fatalf("%+v", res)
		}
		return err
	}
}

type echoIn struct {
	Text string `json:"text"`
}

func goSDKServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "bench", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "echo"}, func(ctx context.Context, req *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: in.Text}}}, nil, nil
	})
	return s
}

func goSDKCall(b *testing.B, t sdk.Transport) func() error {
	c := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil)
	ctx := context.Background()
	cs, err := c.Connect(ctx, t, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cs.Close() })
	params := &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": text}}
	return func() error {
		res, err := cs.CallTool(ctx, params)
		if err == nil && res.Content[0].(*sdk.TextContent).Text != text {
			b.Fatalf("%+v", res)
		}
		return err
	}
}

// The bare limit: a JSON-RPC request and its response, encoded and decoded with encoding/json.
type bareRequest struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int64  `json:"id"`
	Method  string `json:"method"`
	Params  struct {
		Name      string `json:"name"`
		Arguments echoIn `json:"arguments"`
	} `json:"params"`
}

type bareContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type bareResponse struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int64  `json:"id"`
	Result  struct {
		Content []bareContent `json:"content"`
	} `json:"result"`
}

func bareAnswer(req *bareRequest) *bareResponse {
	resp := &bareResponse{JSONRPC: "2.0", ID: req.ID}
	resp.Result.Content = []bareContent{{Type: "text", Text: req.Params.Arguments.Text}}
	return resp
}

func bareRequestFor(id int64) *bareRequest {
	req := &bareRequest{JSONRPC: "2.0", ID: id, Method: "tools/call"}
	req.Params.Name = "echo"
	req.Params.Arguments.Text = text
	return req
}

func BenchmarkStdio(b *testing.B) {
	b.Run("mcpgen", func(b *testing.B) {
		cr, cw, sr, sw := pipes(b)
		srv := ourServer(b)
		go func() { _ = srv.Serve(context.Background(), stdio.NewStream(sr, sw, sw.Close, stdio.Options{})) }()
		measure(b, ourCall(b, stdio.NewStream(cr, cw, cw.Close, stdio.Options{})))
	})
	b.Run("go-sdk", func(b *testing.B) {
		cr, cw, sr, sw := pipes(b)
		go func() { _ = goSDKServer().Run(context.Background(), &sdk.IOTransport{Reader: sr, Writer: sw}) }()
		measure(b, goSDKCall(b, &sdk.IOTransport{Reader: cr, Writer: cw}))
	})
	b.Run("bare", func(b *testing.B) {
		cr, cw, sr, sw := pipes(b)
		go func() {
			in := bufio.NewReader(sr)
			out := json.NewEncoder(sw)
			for {
				line, err := in.ReadBytes('\n')
				if err != nil {
					return
				}
				var req bareRequest
				if json.Unmarshal(line, &req) != nil || out.Encode(bareAnswer(&req)) != nil {
					return
				}
			}
		}()
		in := bufio.NewReader(cr)
		out := json.NewEncoder(cw)
		var id int64
		measure(b, func() error {
			id++
			if err := out.Encode(bareRequestFor(id)); err != nil {
				return err
			}
			line, err := in.ReadBytes('\n')
			if err != nil {
				return err
			}
			var resp bareResponse
			if err := json.Unmarshal(line, &resp); err != nil {
				return err
			}
			if resp.ID != id || resp.Result.Content[0].Text != text {
				b.Fatalf("%s", line)
			}
			return nil
		})
	})
}

func BenchmarkHTTP(b *testing.B) {
	b.Run("mcpgen", func(b *testing.B) {
		h := ourServer(b).HTTPHandler(codegen.HTTPOptions{})
		hs := httptest.NewServer(h)
		b.Cleanup(func() { hs.Close(); h.Close() })
		measure(b, ourCall(b, streamable.NewClientTransport(hs.URL)))
	})
	b.Run("go-sdk", func(b *testing.B) {
		s := goSDKServer()
		hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, &sdk.StreamableHTTPOptions{JSONResponse: true}))
		b.Cleanup(hs.Close)
		measure(b, goSDKCall(b, &sdk.StreamableClientTransport{Endpoint: hs.URL, DisableStandaloneSSE: true}))
	})
	b.Run("bare", func(b *testing.B) {
		hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var req bareRequest
			if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(bareAnswer(&req))
		}))
		b.Cleanup(hs.Close)
		client := hs.Client()
		var id int64
		measure(b, func() error {
			id++
			body, _ := json.Marshal(bareRequestFor(id))
			resp, err := client.Post(hs.URL, "application/json", bytes.NewReader(body))
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			data, err := io.ReadAll(resp.Body)
			if err != nil {
				return err
			}
			var out bareResponse
			if err := json.Unmarshal(data, &out); err != nil {
				return err
			}
			if out.ID != id || out.Result.Content[0].Text != text {
				b.Fatalf("%s", data)
			}
			return nil
		})
	})
}
