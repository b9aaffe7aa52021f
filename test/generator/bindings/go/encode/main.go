// Command encode shows that MarshalJSON refuses what the decoder would refuse (zero values whose
// required members are nil, a value outside its type) with an *EncodeError, and that valid
// values encode. Prints one line per case: "ok <json>" or "refused <path>: <message>".
package main

import (
	"encoding/json"
	"errors"
	"fmt"

	mcp "mcpbinding"
)

func show(v any) {
	out, err := json.Marshal(v)
	var ee *mcp.EncodeError
	switch {
	case err == nil:
		fmt.Printf("ok %s\n", out)
	case errors.As(err, &ee):
		fmt.Printf("refused %s: %s\n", ee.Path, ee.Message)
	default:
		fmt.Printf("error %v\n", err)
	}
}

func main() {
	// zero values: a required array and a required id left nil
	show(mcp.CallToolResult{})
	show(&mcp.JSONRPCRequest{Method: "ping"})
	// a value outside its type, one level down (the TextContent refuses it)
	priority := 2.0
	show(mcp.CallToolResult{Content: []mcp.ContentBlock{&mcp.TextContent{Text: "a", Annotations: &mcp.Annotations{Priority: &priority}}}})
	// a nil variant inside a required array
	show(mcp.CallToolResult{Content: []mcp.ContentBlock{nil}})
	// valid values
	show(&mcp.JSONRPCRequest{Id: mcp.RequestId(`7`), Method: "ping"})
	show(mcp.TextContent{Text: "a"})
}
