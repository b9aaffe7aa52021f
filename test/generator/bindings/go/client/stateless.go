//go:build stateless

package main

import (
	"encoding/json"

	mcp "mcpbinding"
)

// run speaks the stateless revision: server/discover, then tools/list and tools/call, each
// request carrying its own _meta (protocol version, client info, client capabilities).
func run(c *client, info *mcp.Implementation, summary map[string]any) {
	meta := func() *mcp.RequestMetaObject {
		return &mcp.RequestMetaObject{
			IoModelcontextprotocolProtocolVersion:    mcp.ProtocolVersion,
			IoModelcontextprotocolClientInfo:         info,
			IoModelcontextprotocolClientCapabilities: &mcp.ClientCapabilities{},
		}
	}
	discovered := c.request("server/discover", &mcp.RequestParams{Meta: meta()}).(*mcp.DiscoverResult)
	summary["discover"] = map[string]any{
		"type":       typeName(discovered),
		"versions":   discovered.SupportedVersions,
		"resultType": discovered.ResultType,
		"tools":      discovered.Capabilities.Tools != nil,
	}

	tools := c.request("tools/list", &mcp.PaginatedRequestParams{Meta: meta()}).(*mcp.ListToolsResult)
	summarizeTools(summary, tools)

	called := c.request("tools/call", &mcp.CallToolRequestParams{
		Meta:      meta(),
		Name:      "echo",
		Arguments: map[string]json.RawMessage{"text": json.RawMessage(`"hello from go"`)},
	}).(*mcp.CallToolResult)
	summarizeCall(summary, called)
}
