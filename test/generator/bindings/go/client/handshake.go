//go:build handshake

package main

import (
	"encoding/json"

	mcp "mcpbinding"
)

// run speaks a handshake revision: initialize, notifications/initialized, tools/list, tools/call.
func run(c *client, info *mcp.Implementation, summary map[string]any) {
	init := c.request("initialize", &mcp.InitializeRequestParams{
		ProtocolVersion: mcp.ProtocolVersion,
		Capabilities:    &mcp.ClientCapabilities{},
		ClientInfo:      info,
	}).(*mcp.InitializeResult)
	summary["initialize"] = map[string]any{"type": typeName(init), "protocolVersion": init.ProtocolVersion, "server": init.ServerInfo.Name}
	c.send(mcp.JSONRPCNotification{Method: "notifications/initialized"})

	tools := c.request("tools/list", &mcp.PaginatedRequestParams{}).(*mcp.ListToolsResult)
	summarizeTools(summary, tools)

	called := c.request("tools/call", &mcp.CallToolRequestParams{
		Name:      "echo",
		Arguments: map[string]json.RawMessage{"text": json.RawMessage(`"hello from go"`)},
	}).(*mcp.CallToolResult)
	summarizeCall(summary, called)
}
