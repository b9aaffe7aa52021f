// Command interop-client runs the Go client of the generated SDK against a reference server of
// any language (the conformance fixtures: echo, test_tool_with_progress, test://static-text,
// test_prompt_with_arguments) and checks its answers (mcpgen.dev/reference/interop).
//
//	interop-client [--rev REV] --url URL           # Streamable HTTP
//	interop-client [--rev REV] -- COMMAND ARGS...   # stdio: runs the server command
//
// --rev 2025-11-25 (the default) connects with initialize and a session; 2026-07-28 statelessly
// (server/discover), and fails if the server answers in another era. On success it prints
// "ok <rev> <transport> server=<name> protocolVersion=<version>" and exits 0; on a failed
// check it prints the failure on stderr and exits 1; 2 on a usage error.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"time"

	mcp "mcpgen.dev/reference/gen/mcp20251125"
	mcpstateless "mcpgen.dev/reference/gen/mcp20260728"
	"mcpgen.dev/reference/interop"
	"mcpgen.dev/runtime/codegen"
	"mcpgen.dev/runtime/stdio"
	"mcpgen.dev/runtime/streamable"
)

func main() {
	os.Exit(run())
}

func run() int {
	fs := flag.NewFlagSet("interop-client", flag.ContinueOnError)
	rev := fs.String("rev", "2025-11-25", "the revision to speak: 2025-11-25 or 2026-07-28")
	url := fs.String("url", "", "the server's Streamable HTTP endpoint")
	if err := fs.Parse(os.Args[1:]); err != nil {
		return 2
	}
	command := fs.Args()
	if (*url == "") == (len(command) == 0) {
		fmt.Fprintln(os.Stderr, "interop-client: give one of --url URL and -- COMMAND ARGS...")
		return 2
	}
	if *rev != "2025-11-25" && *rev != "2026-07-28" {
		fmt.Fprintf(os.Stderr, "interop-client: --rev %s: 2025-11-25 or 2026-07-28\n", *rev)
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	transport, kind := codegen.Transport(nil), "http"
	if *url != "" {
		transport = streamable.NewClientTransport(*url)
	} else {
		cmd := exec.Command(command[0], command[1:]...)
		cmd.Stderr = os.Stderr
		transport, kind = &stdio.CommandTransport{Cmd: cmd}, "stdio"
	}
	var desc *codegen.ServerDescription
	var err error
	if *rev == "2025-11-25" {
		desc, err = handshake(ctx, transport)
	} else {
		desc, err = stateless(ctx, transport)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "interop-client (%s over %s): %v\n", *rev, kind, err)
		return 1
	}
	var info struct{ Name string }
	_ = json.Unmarshal(desc.Info, &info)
	fmt.Printf("ok %s %s server=%s protocolVersion=%s\n", *rev, kind, info.Name, desc.ProtocolVersion)
	return 0
}

func handshake(ctx context.Context, t codegen.Transport) (*codegen.ServerDescription, error) {
	c, err := mcp.NewClient(mcp.ClientOptions{Info: &mcp.Implementation{Name: "mcpgen-go-interop", Version: "0.1.0"}, Timeout: 20 * time.Second})
	if err != nil {
		return nil, err
	}
	desc, err := c.Connect(ctx, t)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	defer c.Close()
	if desc.ProtocolVersion != "2025-11-25" || desc.Stateless {
		return nil, fmt.Errorf("connect: protocol version %s (stateless %v), want 2025-11-25", desc.ProtocolVersion, desc.Stateless)
	}
	return desc, interop.Handshake(ctx, c)
}

func stateless(ctx context.Context, t codegen.Transport) (*codegen.ServerDescription, error) {
	c, err := mcpstateless.NewClient(mcpstateless.ClientOptions{Info: &mcpstateless.Implementation{Name: "mcpgen-go-interop", Version: "0.1.0"}, Timeout: 20 * time.Second})
	if err != nil {
		return nil, err
	}
	desc, err := c.Connect(ctx, t)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	defer c.Close()
	if desc.ProtocolVersion != "2026-07-28" || !desc.Stateless {
		return nil, fmt.Errorf("connect: protocol version %s (stateless %v), want 2026-07-28", desc.ProtocolVersion, desc.Stateless)
	}
	return desc, interop.Stateless(ctx, c)
}
