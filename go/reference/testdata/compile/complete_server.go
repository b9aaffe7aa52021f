// A handler set that implements every method of ServerHandlers, one by embedding: it compiles.
package main

import (
	"context"

	mcp "mcpgen.dev/reference/gen/mcp20251125"
)

type handlers struct {
	mcp.UnimplementedServerHandlers
}

func (handlers) CallTool(ctx context.Context, req *mcp.RequestContext, params *mcp.CallToolRequestParams) (mcp.CallToolOutcome, error) {
	return &mcp.CallToolResult{Content: []mcp.ContentBlock{&mcp.TextContent{Text: params.Name}}}, nil
}

func main() {
	if _, err := mcp.NewServer(handlers{}, mcp.ServerOptions{}); err != nil {
		panic(err)
	}
}
