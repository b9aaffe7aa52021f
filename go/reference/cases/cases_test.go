// Package cases holds the field cases of /work/shared/cases (a fault seen in the field, kept as
// a test): each TestCaseNNN… is the case of that number, run against the Go SDK over real pipes
// and loopback sockets: servers of the generated 2025-11-25 and 2026-07-28 packages (and the
// reference server's Streamable HTTP endpoint) fed scripted input, the generated clients
// against a scripted peer, or the runtime's codec.
package cases

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sort"
	"strings"
	"testing"
	"time"

	mcp "mcpgen.dev/reference/gen/mcp20251125"
	"mcpgen.dev/runtime/codec"
	"mcpgen.dev/runtime/stdio"
)

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"probe","version":"0.0.1"}}}` + "\n" +
	`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"

// server is a 2025-11-25 server declaring tools only: echo(text), case 015's book_flight and
// the tools extra adds.
func server(t *testing.T, extra ...func(*mcp.Features)) *mcp.Server {
	t.Helper()
	f := mcp.NewFeatures()
	for _, add := range extra {
		add(f)
	}
	echo := &mcp.Tool{}
	if err := echo.UnmarshalJSON([]byte(`{"name":"echo","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}`)); err != nil {
		t.Fatal(err)
	}
	must(t, f.AddTool(echo, func(ctx context.Context, req *mcp.RequestContext, args json.RawMessage) (mcp.CallToolOutcome, error) {
		var in struct{ Text string }
		_ = json.Unmarshal(args, &in)
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{&mcp.TextContent{Text: in.Text}}}, nil
	}))
	flight := &mcp.Tool{}
	if err := flight.UnmarshalJSON([]byte(`{"name":"book_flight","inputSchema":{"type":"object","properties":{"departureDate":{"type":"string","format":"date"},"passengers":{"type":"integer","minimum":1}},"required":["departureDate","passengers"],"additionalProperties":false}}`)); err != nil {
		t.Fatal(err)
	}
	must(t, f.AddTool(flight, func(ctx context.Context, req *mcp.RequestContext, args json.RawMessage) (mcp.CallToolOutcome, error) {
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{&mcp.TextContent{Text: "booked"}}}, nil
	}))
	s, err := mcp.NewServer(f, mcp.ServerOptions{Info: &mcp.Implementation{Name: "cases", Version: "1"}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// reply is one line the server wrote, as JSON members (and the line itself).
type reply struct {
	line    string
	members map[string]json.RawMessage
}

func (r reply) id() string { return string(r.members["id"]) }

func (r reply) code() int {
	var e struct{ Code int }
	_ = json.Unmarshal(r.members["error"], &e)
	return e.Code
}

// script feeds input to a server over stdio, waits for it to end once the input does, and
// returns what it wrote, ordered by the requests' ids (see inOrder).
func script(t *testing.T, input string) []reply {
	t.Helper()
	return inOrder(input, written(t, input))
}

// written feeds input to a server over stdio, waits for it to end once the input does, and
// returns what it wrote in the order written: every frame one line ending in exactly one LF,
// no raw CR, valid JSON.
func written(t *testing.T, input string) []reply {
	t.Helper()
	var out bytes.Buffer
	srv := server(t)
	done := make(chan error, 1)
	go func() {
		done <- srv.Serve(context.Background(), stdio.NewStream(strings.NewReader(input), &out, nil, stdio.Options{EndGrace: 5 * time.Second}))
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the server did not end after its input did")
	}
	raw := out.String()
	if raw != "" && !strings.HasSuffix(raw, "\n") {
		t.Fatalf("output does not end in LF: %q", raw)
	}
	if strings.Contains(raw, "\r") || strings.Contains(raw, "\n\n") {
		t.Fatalf("output holds a CR or an empty frame: %q", raw)
	}
	var replies []reply
	for _, line := range strings.Split(strings.TrimSuffix(raw, "\n"), "\n") {
		if line == "" {
			continue
		}
		r := reply{line: line}
		if err := json.Unmarshal([]byte(line), &r.members); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		replies = append(replies, r)
	}
	return replies
}

// inOrder orders replies as the requests of input were sent (requests are served concurrently,
// so responses may come in any order); replies without an id come last.
func inOrder(input string, replies []reply) []reply {
	pos := func(r reply) int {
		if r.id() == "" || r.id() == "null" {
			return len(input)
		}
		if i := strings.Index(input, `"id":`+r.id()+`,`); i >= 0 {
			return i
		}
		return len(input)
	}
	sort.SliceStable(replies, func(i, j int) bool { return pos(replies[i]) < pos(replies[j]) })
	return replies
}

func ids(replies []reply) []string {
	var out []string
	for _, r := range replies {
		out = append(out, r.id())
	}
	return out
}

// 001: stdio framing must not depend on how the pipe chunks the bytes.
func TestCase001StdioChunkFraming(t *testing.T) {
	m1 := `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"warming up"}}` + "\n"
	m2 := `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"demo-server","version":"1.0.0"}}}` + "\n"
	m3 := `{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}` + "\n"
	all := []byte(m1 + m2 + m3)
	if len(all) != 283 {
		t.Fatalf("%d bytes", len(all))
	}
	var trickle [][]byte
	for i := range all {
		trickle = append(trickle, all[i:i+1])
	}
	want := []string{strings.TrimSuffix(m1, "\n"), strings.TrimSuffix(m2, "\n"), strings.TrimSuffix(m3, "\n")}
	for name, parts := range map[string][][]byte{
		"A split":     {all[:50], all[50:117], all[117:]},
		"B coalesced": {all},
		"C trickle":   trickle,
	} {
		lines, errs := read(parts, 0)
		if len(errs) != 0 || strings.Join(lines, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: %q %v", name, lines, errs)
		}
	}
	lines, errs := read([][]byte{all[:127]}, 0)
	if len(lines) != 1 || lines[0] != want[0] || len(errs) != 1 || !errors.Is(errs[0], codec.ErrTruncated) {
		t.Errorf("D truncated: %q %v", lines, errs)
	}
	big := []byte(`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"` + strings.Repeat("a", 5<<20) + `"}]}}` + "\n")
	var k64 [][]byte
	for i := 0; i < len(big); i += 65536 {
		k64 = append(k64, big[i:min(i+65536, len(big))])
	}
	for name, parts := range map[string][][]byte{"E one": {big}, "E 64k": k64, "E two": {big[:4194305], big[4194305:]}} {
		lines, errs := read(parts, 0)
		if len(errs) != 0 || len(lines) != 1 || len(lines[0]) != len(big)-1 {
			t.Errorf("%s: %d lines, %v", name, len(lines), errs)
		}
	}
	// the other direction: the server reads its stdin one byte at a time
	var in []string
	for _, c := range initialize + `{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n" {
		in = append(in, string(c))
	}
	if got := ids(script(t, strings.Join(in, ""))); strings.Join(got, " ") != "1 2" {
		t.Errorf("server: ids %v", got)
	}
}

// chunkReader returns its parts one Read at a time.
type chunkReader struct{ parts [][]byte }

func (c *chunkReader) Read(p []byte) (int, error) {
	for len(c.parts) > 0 && len(c.parts[0]) == 0 {
		c.parts = c.parts[1:]
	}
	if len(c.parts) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.parts[0])
	c.parts[0] = c.parts[0][n:]
	return n, nil
}

func read(parts [][]byte, max int) (lines []string, errs []error) {
	lr := codec.NewLineReader(&chunkReader{parts: parts}, max)
	for {
		line, err := lr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		lines = append(lines, string(line))
	}
}

// 002: ids are echoed exactly (0, "0", numbers, strings); an invalid id is an invalid request,
// never a notification.
func TestCase002JSONRPCIDTypes(t *testing.T) {
	in := strings.Replace(initialize, `"id":1,`, `"id":0,`, 1) +
		`{"jsonrpc":"2.0","id":"0","method":"ping"}` + "\n" +
		`{"jsonrpc":"2.0","id":73,"method":"ping"}` + "\n" +
		`{"jsonrpc":"2.0","id":"probe-7f","method":"ping"}` + "\n" +
		`{"jsonrpc":"2.0","id":-1,"method":"ping"}` + "\n"
	got := script(t, in)
	if strings.Join(ids(got), " ") != `0 "0" 73 "probe-7f" -1` {
		t.Fatalf("A: ids %v", ids(got))
	}
	for _, r := range got {
		if _, ok := r.members["result"]; !ok {
			t.Fatalf("A: %s", r.line)
		}
	}
	for _, id := range []string{`null`, `1.5`, `true`, `{"n":1}`} {
		got := script(t, initialize+`{"jsonrpc":"2.0","id":`+id+`,"method":"tools/list","params":{}}`+"\n")
		if len(got) != 2 || got[1].code() != -32600 || (got[1].id() != "" && got[1].id() != "null") {
			var lines []string
			for _, r := range got {
				lines = append(lines, r.line)
			}
			t.Errorf("C: id %s: want initialize's result and -32600 without id, got:\n%s", id, strings.Join(lines, "\n"))
			continue
		}
		if _, ok := got[1].members["result"]; ok {
			t.Errorf("C: id %s: tools/list was served: %s", id, got[1].line)
		}
	}
}

// 004: notifications never get a response, unknown or malformed ones included; a message with an
// id is a request, answered.
func TestCase004NotificationNoResponse(t *testing.T) {
	got := script(t, initialize+
		`{"jsonrpc":"2.0","method":"notifications/x-example/unknown","params":{"a":1}}`+"\n"+
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"never-issued","progress":1}}`+"\n"+
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}`+"\n"+
		`{"jsonrpc":"2.0","method":"notifications/roots/list_changed","params":"not-an-object"}`+"\n"+
		`{"jsonrpc":"2.0","id":"n1","method":"notifications/initialized"}`+"\n"+
		`{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n")
	if strings.Join(ids(got), " ") != `1 "n1" 2` {
		t.Fatalf("ids %v", ids(got))
	}
	if got[1].code() != -32601 {
		t.Fatalf("n1: %s", got[1].line)
	}
}

// 005: multi-byte UTF-8 split across reads, U+2028, escaped newlines, an invalid byte, and a
// writer that escapes line breaks.
func TestCase005StdioUTF8Boundaries(t *testing.T) {
	line := []byte(`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"café — 中文 😀"}]}}` + "\n")
	for _, at := range []int{72, 75, 76, 79, 86, 87, 88} {
		lines, errs := read([][]byte{line[:at], line[at:]}, 0)
		if len(errs) != 0 || len(lines) != 1 || lines[0]+"\n" != string(line) {
			t.Errorf("split at %d: %q %v", at, lines, errs)
		}
	}
	got := script(t, initialize+
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a`+"\u2028"+`b"}}}`+"\n"+
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"line1\nline2"}}}`+"\n"+
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"text":"`+"\xff"+`"}}}`+"\n"+
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"text":"first\nsecond\r\nthird`+"\u2028"+`fourth"}}}`+"\n")
	if strings.Join(ids(got), " ") != "1 2 3 5 " {
		t.Fatalf("ids %v", ids(got))
	}
	text := func(r reply) string {
		var res struct{ Content []struct{ Text string } }
		_ = json.Unmarshal(r.members["result"], &res)
		if len(res.Content) == 0 {
			return "<none>"
		}
		return res.Content[0].Text
	}
	if text(got[1]) != "a\u2028b" || text(got[2]) != "line1\nline2" {
		t.Fatalf("texts %q %q", text(got[1]), text(got[2]))
	}
	if got[4].code() != -32700 {
		t.Fatalf("FF: %s", got[4].line)
	}
	if text(got[3]) != "first\nsecond\r\nthird\u2028fourth" || !strings.Contains(got[3].line, `first\nsecond\r\nthird`) {
		t.Fatalf("writer: %s", got[3].line)
	}
}

// 010: a request for an unknown method, or for a capability not declared, gets -32601; omitted
// params are no error.
func TestCase010UnknownMethod(t *testing.T) {
	got := script(t, initialize+
		`{"jsonrpc":"2.0","id":"q-501","method":"example/does-not-exist","params":{}}`+"\n"+
		`{"jsonrpc":"2.0","id":"q-502","method":"prompts/list","params":{}}`+"\n"+
		`{"jsonrpc":"2.0","id":"q-503","method":"tools/list"}`+"\n")
	if strings.Join(ids(got), " ") != `1 "q-501" "q-502" "q-503"` {
		t.Fatalf("ids %v", ids(got))
	}
	if got[1].code() != -32601 || got[2].code() != -32601 {
		t.Fatalf("%s\n%s", got[1].line, got[2].line)
	}
	if _, ok := got[3].members["result"]; !ok {
		t.Fatalf("q-503: %s", got[3].line)
	}
}

// 013: CRLF-terminated lines and blank lines are read; the writer never emits CR.
func TestCase013StdioCRLF(t *testing.T) {
	in := strings.ReplaceAll(initialize, "\n", "\r\n") + "   \t\r\n" + `{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\r\n"
	if got := ids(script(t, in)); strings.Join(got, " ") != "1 2" {
		t.Fatalf("ids %v", got)
	}
	msg := []byte(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\r\n\r\n" + `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"ok"}}` + "\r\n")
	cr := bytes.IndexByte(msg, '\r') + 1
	for name, parts := range map[string][][]byte{"whole": {msg}, "CR|LF": {msg[:cr], msg[cr:]}} {
		lines, errs := read(parts, 0)
		if len(errs) != 0 || len(lines) != 2 {
			t.Fatalf("%s: %q %v", name, lines, errs)
		}
		for _, l := range lines {
			var v map[string]any
			if err := json.Unmarshal([]byte(l), &v); err != nil {
				t.Fatalf("%s: %q: %v", name, l, err)
			}
		}
	}
}

// 015: argument validation failures are tool results with isError; an unknown tool and a
// request failing CallToolRequest's schema are -32602.
func TestCase015ToolInputValidationIsError(t *testing.T) {
	calls := []string{
		`{"name":"book_flight","arguments":{"passengers":2}}`,
		`{"name":"book_flight","arguments":{"departureDate":"2031-05-01","passengers":0}}`,
		`{"name":"book_flight","arguments":{"departureDate":12,"passengers":"two"}}`,
		`{"name":"book_fligth","arguments":{"departureDate":"2031-05-01","passengers":1}}`,
		`{"arguments":{"departureDate":"2031-05-01","passengers":1}}`,
		`{"name":"book_flight","arguments":"departureDate=2031-05-01"}`,
	}
	in := initialize
	for i, c := range calls {
		in += `{"jsonrpc":"2.0","id":` + string(rune('1'+i)) + `,"method":"tools/call","params":` + c + "}\n"
	}
	got := script(t, in)
	if len(got) != 7 {
		t.Fatalf("%d replies", len(got))
	}
	for i, want := range []string{"departureDate", "passengers", "departureDate"} {
		r := got[1+i]
		var res struct {
			IsError bool
			Content []struct{ Text string }
		}
		if err := json.Unmarshal(r.members["result"], &res); err != nil || !res.IsError || len(res.Content) == 0 || !strings.Contains(res.Content[0].Text, want) {
			t.Errorf("call %d: want a result with isError naming %s: %s", i+1, want, r.line)
		}
	}
	for i := 4; i <= 6; i++ {
		if got[i].code() != -32602 {
			t.Errorf("call %d: want -32602: %s", i, got[i].line)
		}
	}
	if !strings.Contains(got[4].line, "book_fligth") {
		t.Errorf("call 4: the message does not name the tool: %s", got[4].line)
	}
}
