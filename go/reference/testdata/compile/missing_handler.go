// A handler set that misses CallTool (and embeds nothing): NewServer does not compile.
package main

import (
	"context"

	mcp "mcpgen.dev/reference/gen/mcp20251125"
)

type partial struct{}

func (partial) ListTools(ctx context.Context, req *mcp.RequestContext, params *mcp.PaginatedRequestParams) (*mcp.ListToolsResult, error) {
	return &mcp.ListToolsResult{}, nil
}

func main() {
	_, _ = mcp.NewServer(partial{}, mcp.ServerOptions{})
}
