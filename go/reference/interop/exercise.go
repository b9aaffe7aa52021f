// Package interop drives a Go client of the generated SDK against a server holding the
// conformance fixtures (the Go, TypeScript or Python reference server, or a go-sdk server set
// up with the same names), checking the answers: what the interop tests and the interop-client
// command share.
package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	mcp "mcpgen.dev/reference/gen/mcp20251125"
	mcpstateless "mcpgen.dev/reference/gen/mcp20260728"
)

// The fixtures every reference server holds, and the answers they give.
const (
	EchoTool       = "echo"
	ProgressTool   = "test_tool_with_progress"
	ProgressText   = "Progress completed"
	StaticResource = "test://static-text"
	StaticText     = "This is the content of the static text resource."
	ArgsPrompt     = "test_prompt_with_arguments"
	ArgsPromptText = "Prompt with arguments: arg1='a', arg2='b'"
	// Echoed has characters outside ASCII, a quote and a newline.
	Echoed = "héllo \"☃\"\n"
)

// WantProgress is the progress test_tool_with_progress reports.
var WantProgress = []float64{0, 50, 100}

func raw(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// Handshake checks a connected 2025-11-25 client against the fixtures: tools/list names echo
// and test_tool_with_progress; echo returns its text; an echo argument of the wrong type is a
// tool execution error (isError), not a JSON-RPC error; test_tool_with_progress reports 0, 50,
// 100 before its result; resources/read of test://static-text; prompts/get with arguments.
func Handshake(ctx context.Context, c *mcp.Client) error {
	tools, err := c.ListTools(ctx, nil)
	if err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	var names []string
	for _, t := range tools.Tools {
		names = append(names, t.Name)
	}
	if !slices.Contains(names, EchoTool) || !slices.Contains(names, ProgressTool) {
		return fmt.Errorf("tools/list: %v lacks %s or %s", names, EchoTool, ProgressTool)
	}
	res, err := c.CallTool(ctx, &mcp.CallToolRequestParams{Name: EchoTool, Arguments: map[string]json.RawMessage{"text": raw(Echoed)}})
	if err != nil {
		return fmt.Errorf("tools/call echo: %w", err)
	}
	if err := text(res.Content, res.IsError, Echoed); err != nil {
		return fmt.Errorf("tools/call echo: %w", err)
	}
	bad, err := c.CallTool(ctx, &mcp.CallToolRequestParams{Name: EchoTool, Arguments: map[string]json.RawMessage{"text": json.RawMessage(`5`)}})
	if err != nil {
		return fmt.Errorf("tools/call echo with text 5: want a result with isError, got %w", err)
	}
	if bad.IsError == nil || !*bad.IsError {
		return fmt.Errorf("tools/call echo with text 5: isError not set")
	}
	var progress []float64
	done, err := c.CallTool(ctx, &mcp.CallToolRequestParams{Name: ProgressTool, Arguments: map[string]json.RawMessage{}}, mcp.WithProgress(func(p mcp.Progress) { progress = append(progress, p.Progress) }))
	if err != nil {
		return fmt.Errorf("tools/call %s: %w", ProgressTool, err)
	}
	if err := text(done.Content, done.IsError, ProgressText); err != nil {
		return fmt.Errorf("tools/call %s: %w", ProgressTool, err)
	}
	if !slices.Equal(progress, WantProgress) {
		return fmt.Errorf("tools/call %s: progress %v, want %v", ProgressTool, progress, WantProgress)
	}
	read, err := c.ReadResource(ctx, &mcp.ReadResourceRequestParams{URI: StaticResource})
	if err != nil {
		return fmt.Errorf("resources/read: %w", err)
	}
	if len(read.Contents) != 1 {
		return fmt.Errorf("resources/read: %d contents", len(read.Contents))
	}
	if tc, ok := read.Contents[0].(*mcp.TextResourceContents); !ok || tc.Text != StaticText {
		return fmt.Errorf("resources/read: %#v", read.Contents[0])
	}
	prompt, err := c.GetPrompt(ctx, &mcp.GetPromptRequestParams{Name: ArgsPrompt, Arguments: map[string]string{"arg1": "a", "arg2": "b"}})
	if err != nil {
		return fmt.Errorf("prompts/get: %w", err)
	}
	if len(prompt.Messages) == 0 {
		return fmt.Errorf("prompts/get: no message")
	}
	if tc, ok := prompt.Messages[0].Content.(*mcp.TextContent); !ok || tc.Text != ArgsPromptText {
		return fmt.Errorf("prompts/get: %#v", prompt.Messages[0].Content)
	}
	return nil
}

// Stateless is Handshake for a 2026-07-28 client.
func Stateless(ctx context.Context, c *mcpstateless.Client) error {
	tools, err := c.ListTools(ctx, nil)
	if err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	var names []string
	for _, t := range tools.Tools {
		names = append(names, t.Name)
	}
	if !slices.Contains(names, EchoTool) || !slices.Contains(names, ProgressTool) {
		return fmt.Errorf("tools/list: %v lacks %s or %s", names, EchoTool, ProgressTool)
	}
	res, err := c.CallTool(ctx, &mcpstateless.CallToolRequestParams{Name: EchoTool, Arguments: map[string]json.RawMessage{"text": raw(Echoed)}})
	if err != nil {
		return fmt.Errorf("tools/call echo: %w", err)
	}
	if err := statelessText(res.Content, res.IsError, Echoed); err != nil {
		return fmt.Errorf("tools/call echo: %w", err)
	}
	bad, err := c.CallTool(ctx, &mcpstateless.CallToolRequestParams{Name: EchoTool, Arguments: map[string]json.RawMessage{"text": json.RawMessage(`5`)}})
	if err != nil {
		return fmt.Errorf("tools/call echo with text 5: want a result with isError, got %w", err)
	}
	if bad.IsError == nil || !*bad.IsError {
		return fmt.Errorf("tools/call echo with text 5: isError not set")
	}
	var progress []float64
	done, err := c.CallTool(ctx, &mcpstateless.CallToolRequestParams{Name: ProgressTool, Arguments: map[string]json.RawMessage{}}, mcpstateless.WithProgress(func(p mcpstateless.Progress) { progress = append(progress, p.Progress) }))
	if err != nil {
		return fmt.Errorf("tools/call %s: %w", ProgressTool, err)
	}
	if err := statelessText(done.Content, done.IsError, ProgressText); err != nil {
		return fmt.Errorf("tools/call %s: %w", ProgressTool, err)
	}
	if !slices.Equal(progress, WantProgress) {
		return fmt.Errorf("tools/call %s: progress %v, want %v", ProgressTool, progress, WantProgress)
	}
	read, err := c.ReadResource(ctx, &mcpstateless.ReadResourceRequestParams{URI: StaticResource})
	if err != nil {
		return fmt.Errorf("resources/read: %w", err)
	}
	if len(read.Contents) != 1 {
		return fmt.Errorf("resources/read: %d contents", len(read.Contents))
	}
	if tc, ok := read.Contents[0].(*mcpstateless.TextResourceContents); !ok || tc.Text != StaticText {
		return fmt.Errorf("resources/read: %#v", read.Contents[0])
	}
	prompt, err := c.GetPrompt(ctx, &mcpstateless.GetPromptRequestParams{Name: ArgsPrompt, Arguments: map[string]string{"arg1": "a", "arg2": "b"}})
	if err != nil {
		return fmt.Errorf("prompts/get: %w", err)
	}
	if len(prompt.Messages) == 0 {
		return fmt.Errorf("prompts/get: no message")
	}
	if tc, ok := prompt.Messages[0].Content.(*mcpstateless.TextContent); !ok || tc.Text != ArgsPromptText {
		return fmt.Errorf("prompts/get: %#v", prompt.Messages[0].Content)
	}
	return nil
}

func text(content []mcp.ContentBlock, isError *bool, want string) error {
	if isError != nil && *isError {
		return fmt.Errorf("isError set: %#v", content)
	}
	if len(content) != 1 {
		return fmt.Errorf("%d content blocks", len(content))
	}
	if tc, ok := content[0].(*mcp.TextContent); !ok || tc.Text != want {
		return fmt.Errorf("content %#v, want the text %q", content[0], want)
	}
	return nil
}

func statelessText(content []mcpstateless.ContentBlock, isError *bool, want string) error {
	if isError != nil && *isError {
		return fmt.Errorf("isError set: %#v", content)
	}
	if len(content) != 1 {
		return fmt.Errorf("%d content blocks", len(content))
	}
	if tc, ok := content[0].(*mcpstateless.TextContent); !ok || tc.Text != want {
		return fmt.Errorf("content %#v, want the text %q", content[0], want)
	}
	return nil
}
