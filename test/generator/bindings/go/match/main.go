// Command match proves the tagged unions exhaustively matchable: the visitors below implement
// one method per variant the schema has; a binding with one more variant makes a visitor miss
// a method, and this program does not compile. It then decodes one message of each variant
// and checks that both the visitor and a type switch see the right variant.
package main

import (
	"fmt"
	"os"

	mcp "mcpbinding"
)

type contentBlock struct{}

func (contentBlock) TextContent(*mcp.TextContent) string           { return "text" }
func (contentBlock) ImageContent(*mcp.ImageContent) string         { return "image" }
func (contentBlock) AudioContent(*mcp.AudioContent) string         { return "audio" }
func (contentBlock) ResourceLink(*mcp.ResourceLink) string         { return "resource_link" }
func (contentBlock) EmbeddedResource(*mcp.EmbeddedResource) string { return "resource" }

type samplingBlock struct{}

func (samplingBlock) TextContent(*mcp.TextContent) string             { return "text" }
func (samplingBlock) ImageContent(*mcp.ImageContent) string           { return "image" }
func (samplingBlock) AudioContent(*mcp.AudioContent) string           { return "audio" }
func (samplingBlock) ToolUseContent(*mcp.ToolUseContent) string       { return "tool_use" }
func (samplingBlock) ToolResultContent(*mcp.ToolResultContent) string { return "tool_result" }

type message struct{}

func (message) JSONRPCRequest(*mcp.JSONRPCRequest) string               { return "request" }
func (message) JSONRPCNotification(*mcp.JSONRPCNotification) string     { return "notification" }
func (message) JSONRPCResultResponse(*mcp.JSONRPCResultResponse) string { return "result" }
func (message) JSONRPCErrorResponse(*mcp.JSONRPCErrorResponse) string   { return "error" }

func typeSwitch(b mcp.ContentBlock) string {
	switch b.(type) {
	case *mcp.TextContent:
		return "text"
	case *mcp.ImageContent:
		return "image"
	case *mcp.AudioContent:
		return "audio"
	case *mcp.ResourceLink:
		return "resource_link"
	case *mcp.EmbeddedResource:
		return "resource"
	}
	return "unknown"
}

func check(label, got, want string) {
	if got != want {
		fmt.Fprintf(os.Stderr, "%s: got %s, want %s\n", label, got, want)
		os.Exit(1)
	}
}

func main() {
	blocks := map[string]string{
		"text":          `{"type":"text","text":"a"}`,
		"image":         `{"type":"image","data":"AA==","mimeType":"image/png"}`,
		"audio":         `{"type":"audio","data":"AA==","mimeType":"audio/wav"}`,
		"resource_link": `{"type":"resource_link","uri":"file:///a","name":"a"}`,
		"resource":      `{"type":"resource","resource":{"uri":"file:///a","text":"a"}}`,
	}
	for want, text := range blocks {
		b, err := mcp.DecodeContentBlock([]byte(text))
		if err != nil {
			panic(err)
		}
		check("ContentBlock visitor", mcp.MatchContentBlock[string](b, contentBlock{}), want)
		check("ContentBlock type switch", typeSwitch(b), want)
	}
	sampling := map[string]string{
		"tool_use":    `{"type":"tool_use","id":"1","name":"t","input":{}}`,
		"tool_result": `{"type":"tool_result","toolUseId":"1","content":[]}`,
		"text":        `{"type":"text","text":"a"}`,
	}
	for want, text := range sampling {
		b, err := mcp.DecodeSamplingMessageContentBlock([]byte(text))
		if err != nil {
			panic(err)
		}
		check("SamplingMessageContentBlock visitor", mcp.MatchSamplingMessageContentBlock[string](b, samplingBlock{}), want)
	}
	messages := map[string]string{
		"request":      `{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		"notification": `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		"result":       `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}`,
		"error":        `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}`,
	}
	for want, text := range messages {
		m, err := mcp.DecodeJSONRPCMessage([]byte(text))
		if err != nil {
			panic(err)
		}
		check("JSONRPCMessage visitor", mcp.MatchJSONRPCMessage[string](m, message{}), want)
	}
	fmt.Println("ContentBlock: 5 variants; SamplingMessageContentBlock: 5 variants; JSONRPCMessage: 4 variants")
}
