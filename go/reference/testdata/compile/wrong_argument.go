// A call with params of another request, and a result member the type does not have: neither
// compiles.
package main

import (
	"context"

	mcp "mcpgen.dev/reference/gen/mcp20251125"
)

func main() {
	c, _ := mcp.NewClient(mcp.ClientOptions{})
	res, _ := c.CallTool(context.Background(), &mcp.GetPromptRequestParams{Name: "x"})
	_ = res.Contents
}
