package cases

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	mcp2 "mcpgen.dev/reference/gen/mcp20260728"
)

const draftMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// subscriptionID is _meta["io.modelcontextprotocol/subscriptionId"] of a message, as JSON text
// ("" when absent).
func subscriptionID(l line) string {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	src := l.members["params"]
	if l.has("result") {
		src = l.members["result"]
	}
	_ = json.Unmarshal(src, &p)
	return string(p.Meta["io.modelcontextprotocol/subscriptionId"])
}

func newTool(t *testing.T, name string) *mcp2.Tool {
	tool := &mcp2.Tool{}
	must(t, tool.UnmarshalJSON([]byte(`{"name":"`+name+`","inputSchema":{"type":"object"}}`)))
	return tool
}

// 017: on stdio, a subscription's acknowledgement is the first message carrying its id (also
// while tools are registered concurrently), only the kinds asked for are sent on it, with the
// id's exact JSON type; progress stays off it; after a cancel nothing more comes for it; a
// graceful close answers the open listen with its completion result.
func TestCase017SubscriptionsAckFirst(t *testing.T) {
	f := mcp2.NewFeatures()
	noop := func(ctx context.Context, req *mcp2.RequestContext, args json.RawMessage) (mcp2.CallToolOutcome, error) {
		return &mcp2.CallToolResult{Content: []mcp2.ContentBlock{&mcp2.TextContent{Text: "ok"}}}, nil
	}
	must(t, f.AddTool(newTool(t, "base"), noop))
	must(t, f.AddTool(newTool(t, "stepper"), func(ctx context.Context, req *mcp2.RequestContext, args json.RawMessage) (mcp2.CallToolOutcome, error) {
		for i := 1; i <= 3; i++ {
			_ = mcp2.ClientOf(req).Progress(float64(i), 3, "")
		}
		return &mcp2.CallToolResult{Content: []mcp2.ContentBlock{&mcp2.TextContent{Text: "stepped"}}}, nil
	}))
	must(t, f.AddTextResource(&mcp2.Resource{Name: "a", URI: "file:///data/a.txt"}, "a"))
	srv, err := mcp2.NewServer(f, mcp2.ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, stream := newWire(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = srv.Serve(ctx, stream) }()
	listen := func(id, filter string) {
		w.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"subscriptions/listen","params":{` + draftMeta + `,"notifications":` + filter + `}}`)
	}
	cancelled := func(id string) {
		w.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `}}`)
	}

	// the race: each listen while a tool is registered with 0-2 ms of jitter; the ack comes
	// before any list_changed of the subscription
	for i := range 100 {
		id := `"L` + strconv.Itoa(i) + `"`
		done := make(chan struct{})
		go func() {
			defer close(done)
			time.Sleep(time.Duration(rand.IntN(2000)) * time.Microsecond)
			must(t, f.AddTool(newTool(t, "race"+strconv.Itoa(i)), noop))
		}()
		listen(id, `{"toolsListChanged":true}`)
		for {
			l := w.next()
			if subscriptionID(l) != id {
				continue
			}
			if l.method() != "notifications/subscriptions/acknowledged" {
				t.Fatalf("iteration %d: first message of %s is not the ack: %s", i, id, l.text)
			}
			var p struct{ Notifications json.RawMessage }
			_ = json.Unmarshal(l.members["params"], &p)
			if string(p.Notifications) != `{"toolsListChanged":true}` {
				t.Fatalf("ack: %s", l.text)
			}
			break
		}
		<-done
		cancelled(id)
	}
	_ = w.quiet(200 * time.Millisecond) // list_changed of the race, for subscriptions then cancelled

	listen(`"L1"`, `{"toolsListChanged":true}`)
	if l := w.next(); l.method() != "notifications/subscriptions/acknowledged" || subscriptionID(l) != `"L1"` {
		t.Fatalf("L1 ack: %s", l.text)
	}
	listen(`2`, `{"resourceSubscriptions":["file:///data/a.txt"]}`)
	if l := w.next(); l.method() != "notifications/subscriptions/acknowledged" || subscriptionID(l) != `2` || !strings.Contains(l.text, `"resourceSubscriptions":["file:///data/a.txt"]`) {
		t.Fatalf("2 ack: %s", l.text)
	}
	must(t, f.AddTool(newTool(t, "added"), noop))
	must(t, f.AddTextResource(&mcp2.Resource{Name: "b", URI: "file:///data/b.txt"}, "b"))
	if !f.RemoveResource("file:///data/b.txt") {
		t.Fatal("remove b")
	}
	f.ResourceUpdated("file:///data/a.txt")
	w.send(`{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{` + strings.TrimSuffix(draftMeta, "}}") + `},"progressToken":"p1"},"name":"stepper","arguments":{}}}`)
	got := w.until(`"c1"`)
	got = append(got, w.quiet(200*time.Millisecond)...)
	var toolsChanged, updated, progress int
	for _, l := range got {
		sid := subscriptionID(l)
		switch l.method() {
		case "notifications/tools/list_changed":
			if sid != `"L1"` {
				t.Errorf("list_changed not for L1: %s", l.text)
			}
			toolsChanged++
		case "notifications/resources/updated":
			if sid != `2` {
				t.Errorf("resources/updated not for 2 (a number): %s", l.text)
			}
			updated++
		case "notifications/progress":
			if sid != "" {
				t.Errorf("progress on a subscription: %s", l.text)
			}
			progress++
		case "notifications/resources/list_changed":
			t.Errorf("not asked for: %s", l.text)
		default:
			if string(l.members["id"]) != `"c1"` {
				t.Errorf("unexpected: %s", l.text)
			}
		}
	}
	if toolsChanged != 1 || updated != 1 || progress != 3 {
		t.Fatalf("list_changed %d, resources/updated %d, progress %d (want 1, 1, 3)", toolsChanged, updated, progress)
	}

	cancelled(`"L1"`)
	time.Sleep(100 * time.Millisecond)
	must(t, f.AddTool(newTool(t, "after-cancel"), noop))
	for _, l := range w.quiet(200 * time.Millisecond) {
		t.Errorf("written after L1 was cancelled: %s", l.text)
	}

	srv.Close()
	l := w.next()
	if string(l.members["id"]) != "2" || string(l.members["result"]) != `{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":2}}` {
		t.Fatalf("graceful close: want the completion result of 2: %s", l.text)
	}
}
