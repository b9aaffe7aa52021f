// Command server is a Model Context Protocol server with one tool, greet, on the Go SDK that
// `mcpgen generate --rev 2025-11-25 --target go-sdk --out mcp` writes. It serves one client
// on stdin and stdout, or Streamable HTTP with --http PORT (0: any free port; it prints
// "listening on http://…/mcp").
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strconv"

	mcp "example.com/greeter/mcp/2025-11-25/go/mcp20251125"
	"mcpgen.dev/runtime/codegen"
)

func greeter() (*mcp.Server, error) {
	features := mcp.NewFeatures()
	greet := &mcp.Tool{
		Name:        "greet",
		Description: mcp.Ptr("Greets someone by name"),
		InputSchema: &mcp.ToolInputSchema{
			Properties: map[string]map[string]json.RawMessage{"name": {"type": json.RawMessage(`"string"`)}},
			Required:   []string{"name"},
		},
	}
	// arguments were checked against the input schema before the handler runs
	err := features.AddTool(greet, func(ctx context.Context, req *mcp.RequestContext, arguments json.RawMessage) (mcp.CallToolOutcome, error) {
		var in struct{ Name string }
		if err := json.Unmarshal(arguments, &in); err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{&mcp.TextContent{Text: "Hello, " + in.Name + "!"}}}, nil
	})
	if err != nil {
		return nil, err
	}
	return mcp.NewServer(features, mcp.ServerOptions{Info: &mcp.Implementation{Name: "greeter", Version: "1.0.0"}})
}

func main() {
	port := flag.Int("http", -1, "serve Streamable HTTP on `PORT` instead of stdio")
	flag.Parse()
	server, err := greeter()
	if err != nil {
		log.Fatal(err)
	}
	if *port < 0 {
		if err := server.ServeStdio(context.Background()); err != nil {
			log.Fatal(err)
		}
		return
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(*port)))
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", server.HTTPHandler(codegen.HTTPOptions{}))
	fmt.Fprintf(os.Stderr, "listening on http://%s/mcp\n", ln.Addr())
	log.Fatal(http.Serve(ln, mux))
}
