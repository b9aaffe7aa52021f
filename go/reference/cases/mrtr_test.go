package cases

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	mcp2 "mcpgen.dev/reference/gen/mcp20260728"
	"mcpgen.dev/runtime/session"
)

// elicitor answers every elicitation with action, approving.
type elicitor struct {
	mcp2.UnimplementedClientHandlers
	action string
	mu     sync.Mutex
	asked  []string
}

func (e *elicitor) Elicit(ctx context.Context, req *mcp2.RequestContext, params mcp2.ElicitRequestParams) (*mcp2.ElicitResult, error) {
	b, err := params.AppendJSON(nil)
	if err != nil {
		return nil, err
	}
	var p struct{ Message string }
	_ = json.Unmarshal(b, &p)
	e.mu.Lock()
	e.asked = append(e.asked, p.Message)
	e.mu.Unlock()
	r := &mcp2.ElicitResult{Action: e.action}
	if e.action == "accept" {
		r.Content = map[string]mcp2.ElicitResultContentValue{"approved": &mcp2.ElicitResultContentValueVariant2{Value: json.RawMessage(`true`)}}
	}
	return r, nil
}

// statelessClient connects a 2026-07-28 client to a scripted server (the test) over stdio and
// answers its server/discover.
func statelessClient(t *testing.T, opts mcp2.ClientOptions) (*mcp2.Client, *wire) {
	t.Helper()
	w, stream := newWire(t)
	c, err := mcp2.NewClient(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	done := make(chan error, 1)
	go func() { _, err := c.Connect(context.Background(), stream); done <- err }()
	l := w.next()
	if l.method() != "server/discover" {
		t.Fatalf("want server/discover: %s", l.text)
	}
	w.send(`{"jsonrpc":"2.0","id":` + string(l.members["id"]) + `,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"serverInfo":{"name":"scripted","version":"1"}}}`)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	return c, w
}

type callParams struct {
	Name           string
	Arguments      json.RawMessage
	InputResponses json.RawMessage
	RequestState   *json.RawMessage
}

func paramsOf(t *testing.T, l line) callParams {
	t.Helper()
	var p callParams
	if err := json.Unmarshal(l.members["params"], &p); err != nil || l.method() != "tools/call" {
		t.Fatalf("want tools/call: %s", l.text)
	}
	return p
}

const r1 = `{"resultType":"input_required","_meta":{},"inputRequests":{"approve_deploy":{"method":"elicitation/create","params":{"mode":"form","message":"Deploy to staging?","requestedSchema":{"type":"object","properties":{"approved":{"type":"boolean"}},"required":["approved"]}}}},"requestState":"b3BhcXVlLTE="}`

// 016: input_required rounds retry with a new id, the same name and arguments, the handler's
// inputResponses and the exact requestState (none when absent); a result without resultType is
// complete; an unknown resultType is an invalid result; the round limit ends a call that never
// completes; an input request for an undeclared capability fails the call without calling a
// handler.
func TestCase016MRTRResultType(t *testing.T) {
	el := &elicitor{action: "accept"}
	c, w := statelessClient(t, mcp2.ClientOptions{
		Capabilities: &mcp2.ClientCapabilities{Elicitation: &mcp2.ClientCapabilitiesElicitation{}},
		Handlers:     el, MaxInputRounds: 3,
	})
	type outcome struct {
		res *mcp2.CallToolResult
		err error
	}
	call := func(name, args string) chan outcome {
		out := make(chan outcome, 1)
		go func() {
			var a map[string]json.RawMessage
			_ = json.Unmarshal([]byte(args), &a)
			res, err := c.CallTool(context.Background(), &mcp2.CallToolRequestParams{Name: name, Arguments: a})
			out <- outcome{res, err}
		}()
		return out
	}
	answer := func(l line, result string) {
		w.send(`{"jsonrpc":"2.0","id":` + string(l.members["id"]) + `,"result":` + result + `}`)
	}

	done := call("deploy", `{"env":"staging"}`)
	c1 := w.next()
	p1 := paramsOf(t, c1)
	if p1.Name != "deploy" || string(p1.Arguments) != `{"env":"staging"}` || p1.RequestState != nil || p1.InputResponses != nil {
		t.Fatalf("c1: %s", c1.text)
	}
	answer(c1, r1)
	c2 := w.next()
	p2 := paramsOf(t, c2)
	if string(c2.members["id"]) == string(c1.members["id"]) {
		t.Fatalf("the retry reuses the id: %s", c2.text)
	}
	if p2.Name != "deploy" || string(p2.Arguments) != `{"env":"staging"}` || p2.RequestState == nil || string(*p2.RequestState) != `"b3BhcXVlLTE="` ||
		string(p2.InputResponses) != `{"approve_deploy":{"action":"accept","content":{"approved":true}}}` {
		t.Fatalf("retry 1: %s", c2.text)
	}
	answer(c2, `{"resultType":"input_required","requestState":"c3RhdGUtMg=="}`)
	c3 := w.next()
	p3 := paramsOf(t, c3)
	if string(c3.members["id"]) == string(c2.members["id"]) || p3.RequestState == nil || string(*p3.RequestState) != `"c3RhdGUtMg=="` || p3.InputResponses != nil {
		t.Fatalf("retry 2 (state only: no inputResponses): %s", c3.text)
	}
	answer(c3, `{"content":[{"type":"text","text":"deployed"}]}`)
	o := <-done
	if o.err != nil || o.res.Content[0].(*mcp2.TextContent).Text != "deployed" {
		t.Fatalf("R3 (no resultType is complete): %+v %v", o.res, o.err)
	}
	if strings.Join(el.asked, "|") != "Deploy to staging?" {
		t.Fatalf("elicitations: %q", el.asked)
	}

	// S4 and S5
	done = call("deploy", `{}`)
	l := w.next()
	answer(l, `{"resultType":"input_required","inputRequests":{"approve_deploy":{"method":"elicitation/create","params":{"mode":"form","message":"again?","requestedSchema":{"type":"object","properties":{}}}}}}`)
	l = w.next()
	if p := paramsOf(t, l); p.RequestState != nil || !strings.Contains(l.text, `"inputResponses"`) {
		t.Fatalf("S4: the retry carries a requestState or no inputResponses: %s", l.text)
	}
	answer(l, `{"resultType":"totally_new","content":[]}`)
	var invalid *session.InvalidResultError
	if o := <-done; !errors.As(o.err, &invalid) {
		t.Fatalf("S5: want an InvalidResultError, got %+v %v", o.res, o.err)
	}

	// S6: input_required forever ends after MaxInputRounds retries
	done = call("loop", `{}`)
	calls := 0
	for {
		l := w.next()
		paramsOf(t, l)
		calls++
		answer(l, `{"resultType":"input_required","requestState":"s"}`)
		if calls == 4 {
			break
		}
	}
	var rounds *session.MaxInputRoundsError
	if o := <-done; !errors.As(o.err, &rounds) {
		t.Fatalf("S6: want a MaxInputRoundsError after 4 requests, got %+v %v", o.res, o.err)
	}
	if extra := w.quiet(100 * time.Millisecond); len(extra) != 0 {
		t.Fatalf("S6: sent after the round limit: %s", extra[0].text)
	}

	// S7: sampling is not declared: no handler runs, the call fails naming it
	done = call("sample", `{}`)
	l = w.next()
	answer(l, `{"resultType":"input_required","inputRequests":{"q":{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":5}}}}`)
	o = <-done
	var capErr *session.CapabilityError
	if !errors.As(o.err, &capErr) || !strings.Contains(o.err.Error(), "sampling") {
		t.Fatalf("S7: want a CapabilityError naming sampling, got %+v %v", o.res, o.err)
	}
	if len(el.asked) != 2 {
		t.Fatalf("handlers called: %q", el.asked)
	}
}

// 016: resultType "complete" names the request's result type: a tools/call result that is not a
// CallToolResult is refused, naming the member, though it would pass as an InputRequiredResult
// (whose members besides resultType are all optional); a valid one is returned.
func TestCase016CompleteResultIsTheRequestsResult(t *testing.T) {
	c, w := statelessClient(t, mcp2.ClientOptions{})
	call := func(result string) (*mcp2.CallToolResult, error) {
		type outcome struct {
			res *mcp2.CallToolResult
			err error
		}
		out := make(chan outcome, 1)
		go func() {
			res, err := c.CallTool(context.Background(), &mcp2.CallToolRequestParams{Name: "t"})
			out <- outcome{res, err}
		}()
		l := w.next()
		paramsOf(t, l)
		w.send(`{"jsonrpc":"2.0","id":` + string(l.members["id"]) + `,"result":` + result + `}`)
		o := <-out
		return o.res, o.err
	}
	if res, err := call(`{"resultType":"complete","content":[{"type":"txt"}]}`); err == nil || !strings.Contains(err.Error(), "content[0].type") {
		t.Fatalf("a content block of no known type: want an error naming content[0].type, got %+v %v", res, err)
	}
	if res, err := call(`{"resultType":"complete"}`); err == nil || !strings.Contains(err.Error(), "content") {
		t.Fatalf("no content: want an error naming content, got %+v %v", res, err)
	}
	res, err := call(`{"resultType":"complete","content":[{"type":"text","text":"ok"}]}`)
	if err != nil || res.Content[0].(*mcp2.TextContent).Text != "ok" {
		t.Fatalf("a valid result: %+v %v", res, err)
	}
}
