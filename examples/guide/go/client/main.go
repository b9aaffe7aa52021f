// Command client calls the greeter's tool: over stdio, running the server command given after
// its flags (client ./server), or over Streamable HTTP (client --url http://127.0.0.1:PORT/mcp).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"time"

	mcp "example.com/greeter/mcp/2025-11-25/go/mcp20251125"
	"mcpgen.dev/runtime/codegen"
	"mcpgen.dev/runtime/stdio"
	"mcpgen.dev/runtime/streamable"
)

func main() {
	url := flag.String("url", "", "the server's Streamable HTTP endpoint")
	flag.Parse()
	if *url == "" && flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: client SERVER-COMMAND [ARGS...]  or  client --url http://HOST:PORT/mcp")
		os.Exit(2)
	}
	var transport codegen.Transport
	if *url != "" {
		transport = streamable.NewClientTransport(*url)
	} else {
		transport = &stdio.CommandTransport{Cmd: exec.Command(flag.Arg(0), flag.Args()[1:]...)}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	client, err := mcp.NewClient(mcp.ClientOptions{Info: &mcp.Implementation{Name: "greeter-client", Version: "1.0.0"}})
	if err != nil {
		log.Fatal(err)
	}
	server, err := client.Connect(ctx, transport)
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	var info mcp.Implementation
	if err := info.UnmarshalJSON(server.Info); err != nil {
		log.Fatal(err)
	}
	fmt.Println("connected to", info.Name)

	tools, err := client.ListTools(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	var names []string
	for _, t := range tools.Tools {
		names = append(names, t.Name)
	}
	fmt.Println("tools:", names)

	result, err := client.CallTool(ctx, &mcp.CallToolRequestParams{
		Name:      "greet",
		Arguments: map[string]json.RawMessage{"name": json.RawMessage(`"Ada"`)},
	})
	if err != nil {
		log.Fatal(err) // a JSON-RPC error (*jsonrpc.Error) or a transport failure
	}
	fmt.Println(result.Content[0].(*mcp.TextContent).Text)
}
