// Command client is a small MCP client over stdio (built with -tags handshake or -tags stateless), written with the bindings and the standard
// library only. Usage: client <server command...>. By the revision's lifecycle:
//   - handshake: initialize, notifications/initialized, tools/list, tools/call echo;
//   - stateless: server/discover, tools/list and tools/call echo, each request with its own _meta.
//
// Every message sent is built from the binding's structs, every reply decoded as a
// JSONRPCMessage, then its result through the method map (ClientRequests); prints one JSON
// summary line.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"

	mcp "mcpbinding"
)

type client struct {
	in     *json.Encoder
	out    *bufio.Scanner
	nextID int
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(1)
}

func object(v any) map[string]json.RawMessage {
	data, err := json.Marshal(v)
	if err != nil {
		fail("encode: %v", err)
	}
	var o map[string]json.RawMessage
	if err := json.Unmarshal(data, &o); err != nil {
		fail("encode: %v", err)
	}
	return o
}

func typeName(v any) string {
	s := fmt.Sprintf("%T", v)
	return s[strings.LastIndex(s, ".")+1:]
}

func (c *client) send(message any) {
	if err := c.in.Encode(message); err != nil {
		fail("send: %v", err)
	}
}

// request sends a request and returns its result, decoded as the method map says.
func (c *client) request(method string, params any) any {
	c.nextID++
	id := json.RawMessage(strconv.Itoa(c.nextID))
	info, ok := mcp.ClientRequests[method]
	if !ok {
		fail("no client request %s", method)
	}
	message := mcp.JSONRPCRequest{Id: id, Method: method}
	if params != nil {
		message.Params = object(params)
	}
	wire, err := json.Marshal(message)
	if err != nil {
		fail("encode %s: %v", method, err)
	}
	if _, err := info.DecodeRequest(wire); err != nil {
		fail("%s: the request is not valid for its own type: %v", method, err)
	}
	c.send(message)
	for c.out.Scan() {
		reply, err := mcp.DecodeJSONRPCMessage(c.out.Bytes())
		if err != nil {
			fail("%s: reply: %v", method, err)
		}
		switch r := reply.(type) {
		case *mcp.JSONRPCResultResponse:
			if string(r.Id) != string(id) {
				continue
			}
			raw, err := json.Marshal(r.Result)
			if err != nil {
				fail("%s: %v", method, err)
			}
			result, err := info.DecodeResult(raw)
			if err != nil {
				fail("%s: result: %v", method, err)
			}
			return result
		case *mcp.JSONRPCErrorResponse:
			fail("%s: error %d: %s", method, r.Error.Code, r.Error.Message)
		case *mcp.JSONRPCRequest, *mcp.JSONRPCNotification:
			continue
		}
	}
	fail("server closed the pipe before answering %s (%v)", method, c.out.Err())
	return nil
}

func main() {
	server := exec.Command(os.Args[1], os.Args[2:]...)
	server.Stderr = os.Stderr
	stdin, err := server.StdinPipe()
	if err != nil {
		fail("%v", err)
	}
	stdout, err := server.StdoutPipe()
	if err != nil {
		fail("%v", err)
	}
	if err := server.Start(); err != nil {
		fail("start: %v", err)
	}
	scanner := bufio.NewScanner(stdout)
	scanner.Buffer(make([]byte, 1<<20), 64<<20)
	c := &client{in: json.NewEncoder(stdin), out: scanner}
	info := &mcp.Implementation{Name: "go-bindings-client", Version: "1.0.0"}
	summary := map[string]any{}

	run(c, info, summary)

	stdin.Close()
	if err := server.Wait(); err != nil {
		fail("server: %v", err)
	}
	out, err := json.Marshal(summary)
	if err != nil {
		fail("%v", err)
	}
	fmt.Println(string(out))
}

func summarizeTools(summary map[string]any, tools *mcp.ListToolsResult) {
	names := []string{}
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	summary["tools"] = map[string]any{"type": typeName(tools), "names": names}
}

func summarizeCall(summary map[string]any, called *mcp.CallToolResult) {
	blockTypes := []string{}
	for _, b := range called.Content {
		blockTypes = append(blockTypes, typeName(b))
	}
	summary["call"] = map[string]any{"type": typeName(called), "content": called.Content, "blockTypes": blockTypes}
}
