package cases

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	mcp "mcpgen.dev/reference/gen/mcp20251125"
	"mcpgen.dev/runtime/stdio"
)

// line is one frame a peer wrote, with its JSON members.
type line struct {
	text    string
	members map[string]json.RawMessage
}

func (l line) has(member string) bool { _, ok := l.members[member]; return ok }

func (l line) method() string {
	var m string
	_ = json.Unmarshal(l.members["method"], &m)
	return m
}

// progressToken is params.progressToken of a notifications/progress ("" otherwise).
func (l line) progressToken() string {
	if l.method() != "notifications/progress" {
		return ""
	}
	var p struct{ ProgressToken json.RawMessage }
	_ = json.Unmarshal(l.members["params"], &p)
	return string(p.ProgressToken)
}

// wire is the test's end of a pair of pipes to a peer (a server or a client under test): what
// the test writes is the peer's input, and each line the peer writes arrives on lines.
type wire struct {
	t     *testing.T
	w     io.WriteCloser
	lines chan line
}

func newWire(t *testing.T) (w *wire, peer *stdio.Stream) {
	pr, tw := io.Pipe()
	tr, pw := io.Pipe()
	w = &wire{t: t, w: tw, lines: make(chan line, 4096)}
	go func() {
		defer close(w.lines)
		sc := bufio.NewScanner(tr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			l := line{text: sc.Text()}
			if err := json.Unmarshal(sc.Bytes(), &l.members); err != nil {
				l.members = map[string]json.RawMessage{}
			}
			w.lines <- l
		}
	}()
	t.Cleanup(func() { _ = tw.Close(); _ = tr.Close() })
	return w, stdio.NewStream(pr, pw, pw.Close, stdio.Options{})
}

func (w *wire) send(msg string) {
	w.t.Helper()
	if _, err := io.WriteString(w.w, msg+"\n"); err != nil {
		w.t.Fatal(err)
	}
}

// next is the next line the peer writes (failing after 10 s).
func (w *wire) next() line {
	w.t.Helper()
	select {
	case l, ok := <-w.lines:
		if !ok {
			w.t.Fatal("the peer closed its output")
		}
		return l
	case <-time.After(10 * time.Second):
		w.t.Fatal("nothing from the peer in 10 s")
	}
	return line{}
}

// until collects lines until one with the id (its JSON text) arrives and returns them all.
func (w *wire) until(id string) []line {
	w.t.Helper()
	var got []line
	for {
		l := w.next()
		got = append(got, l)
		if string(l.members["id"]) == id {
			return got
		}
	}
}

// quiet collects what the peer writes during d.
func (w *wire) quiet(d time.Duration) []line {
	var got []line
	deadline := time.After(d)
	for {
		select {
		case l, ok := <-w.lines:
			if !ok {
				return got
			}
			got = append(got, l)
		case <-deadline:
			return got
		}
	}
}

// serving runs a 2025-11-25 server on a wire and initializes it.
func serving(t *testing.T, srv *mcp.Server) *wire {
	t.Helper()
	w, stream := newWire(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() { _ = srv.Serve(ctx, stream) }()
	for _, m := range strings.Split(strings.TrimSuffix(initialize, "\n"), "\n") {
		w.send(m)
	}
	if l := w.next(); string(l.members["id"]) != "1" || !l.has("result") {
		t.Fatalf("initialize: %s", l.text)
	}
	return w
}

// 007 A: a cancelled request gets no response, its handler's context ends and its progress
// stops; cancels of unknown and finished requests are ignored without a word.
func TestCase007Cancellation(t *testing.T) {
	aborted := make(chan error, 1)
	srv := server(t, func(f *mcp.Features) {
		slow := &mcp.Tool{}
		must(t, slow.UnmarshalJSON([]byte(`{"name":"slow_echo","inputSchema":{"type":"object","properties":{"text":{"type":"string"},"delayMs":{"type":"integer"}},"required":["text","delayMs"]}}`)))
		must(t, f.AddTool(slow, func(ctx context.Context, req *mcp.RequestContext, args json.RawMessage) (mcp.CallToolOutcome, error) {
			var in struct {
				Text    string
				DelayMs int
			}
			_ = json.Unmarshal(args, &in)
			end := time.After(time.Duration(in.DelayMs) * time.Millisecond)
			tick := time.NewTicker(100 * time.Millisecond)
			defer tick.Stop()
			for i := 1; ; i++ {
				select {
				case <-ctx.Done():
					aborted <- ctx.Err()
					return nil, ctx.Err()
				case <-end:
					return &mcp.CallToolResult{Content: []mcp.ContentBlock{&mcp.TextContent{Text: in.Text}}}, nil
				case <-tick.C:
					_ = mcp.ClientOf(req).Progress(float64(i), 0, "")
				}
			}
		}))
	})
	w := serving(t, srv)
	w.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow_echo","arguments":{"text":"hi","delayMs":5000},"_meta":{"progressToken":"p7"}}}`)
	if l := w.next(); l.progressToken() != `"p7"` {
		t.Fatalf("want progress p7 first: %s", l.text)
	}
	w.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"user aborted"}}`)
	select {
	case err := <-aborted:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the handler's context ended with %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the cancel did not reach the handler")
	}
	var seen []line
	w.send(`{"jsonrpc":"2.0","id":8,"method":"ping"}`)
	seen = append(seen, w.until("8")...)
	w.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":12345}}`)
	w.send(`{"jsonrpc":"2.0","id":9,"method":"ping"}`)
	seen = append(seen, w.until("9")...)
	w.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}`)
	after := w.quiet(400 * time.Millisecond)
	// progress sent before the cancel reached the handler may still be on its way; none after
	for _, l := range after {
		t.Errorf("written after ping 9 (nothing is due): %s", l.text)
	}
	for i, l := range seen {
		if string(l.members["id"]) == "7" {
			t.Errorf("the cancelled request was answered: %s", l.text)
		}
		if l.progressToken() == `"p7"` && i > 0 && string(seen[i-1].members["id"]) == "8" {
			t.Errorf("progress p7 after the cancel was processed: %s", l.text)
		}
	}
	if len(seen) != 2 && !(len(seen) == 3 && seen[0].progressToken() == `"p7"`) {
		var texts []string
		for _, l := range seen {
			texts = append(texts, l.text)
		}
		t.Errorf("want the two ping responses (and at most one p7 progress in flight), got:\n%s", strings.Join(texts, "\n"))
	}
}

// 009 D: a tool reporting progress 1..10 run 200 times over stdio: every progress of a request
// is written before its response, none after.
func TestCase009ProgressAfterResponse(t *testing.T) {
	srv := server(t, func(f *mcp.Features) {
		tenfold := &mcp.Tool{}
		must(t, tenfold.UnmarshalJSON([]byte(`{"name":"tenfold","inputSchema":{"type":"object"}}`)))
		must(t, f.AddTool(tenfold, func(ctx context.Context, req *mcp.RequestContext, args json.RawMessage) (mcp.CallToolOutcome, error) {
			for i := 1; i <= 10; i++ {
				if err := mcp.ClientOf(req).Progress(float64(i), 10, ""); err != nil {
					return nil, err
				}
			}
			return &mcp.CallToolResult{Content: []mcp.ContentBlock{&mcp.TextContent{Text: "done"}}}, nil
		}))
	})
	w := serving(t, srv)
	const runs = 200
	for i := 0; i < runs; i++ {
		w.send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(100+i) + `,"method":"tools/call","params":{"name":"tenfold","arguments":{},"_meta":{"progressToken":"t` + strconv.Itoa(i) + `"}}}`)
	}
	progress := map[string]int{}
	answered := map[string]bool{}
	for len(answered) < runs {
		l := w.next()
		if tok := l.progressToken(); tok != "" {
			run := strings.Trim(tok, `"t`)
			if answered[run] {
				t.Fatalf("progress after the response of run %s: %s", run, l.text)
			}
			var p struct{ Progress float64 }
			_ = json.Unmarshal(l.members["params"], &p)
			if int(p.Progress) != progress[run]+1 {
				t.Fatalf("run %s: progress %v after %d", run, p.Progress, progress[run])
			}
			progress[run]++
			continue
		}
		id, err := strconv.Atoi(string(l.members["id"]))
		if err != nil || !l.has("result") {
			t.Fatalf("unexpected: %s", l.text)
		}
		run := strconv.Itoa(id - 100)
		if progress[run] != 10 {
			t.Fatalf("run %s answered after %d progress notifications", run, progress[run])
		}
		answered[run] = true
	}
	if extra := w.quiet(200 * time.Millisecond); len(extra) != 0 {
		t.Fatalf("written after the last response: %s", extra[0].text)
	}
}

// 020: the Go runtime has no task store; a server that does not declare tasks refuses every
// tasks/* request with -32601 (the capability is not declared, as in case 010), declares no
// tasks capability, and serves a tools/call that carries a task field as a normal request
// (never a CreateTaskResult).
func TestCase020TasksNotDeclaredAreRefused(t *testing.T) {
	got := script(t, initialize+
		`{"jsonrpc":"2.0","id":21,"method":"tasks/get","params":{"taskId":"no-such-task"}}`+"\n"+
		`{"jsonrpc":"2.0","id":22,"method":"tasks/cancel","params":{"taskId":"no-such-task"}}`+"\n"+
		`{"jsonrpc":"2.0","id":23,"method":"tasks/result","params":{"taskId":"no-such-task"}}`+"\n"+
		`{"jsonrpc":"2.0","id":24,"method":"tasks/list","params":{"cursor":"not-a-cursor"}}`+"\n"+
		`{"jsonrpc":"2.0","id":25,"method":"tools/call","params":{"name":"echo","arguments":{"text":"now"},"task":{"ttl":60000}}}`+"\n")
	if strings.Join(ids(got), " ") != "1 21 22 23 24 25" {
		t.Fatalf("ids %v", ids(got))
	}
	var init struct {
		Capabilities map[string]json.RawMessage
	}
	if err := json.Unmarshal(got[0].members["result"], &init); err != nil || init.Capabilities["tools"] == nil {
		t.Fatalf("initialize: %s", got[0].line)
	}
	if _, ok := init.Capabilities["tasks"]; ok {
		t.Fatalf("tasks declared: %s", got[0].line)
	}
	for _, r := range got[1:5] {
		if r.code() != -32601 {
			t.Errorf("want -32601: %s", r.line)
		}
	}
	var res struct {
		Task    json.RawMessage
		Content []struct{ Text string }
	}
	if err := json.Unmarshal(got[5].members["result"], &res); err != nil || res.Task != nil || len(res.Content) != 1 || res.Content[0].Text != "now" {
		t.Errorf("tools/call with a task field: want the tool's result: %s", got[5].line)
	}
}

// client connects a 2025-11-25 client to a scripted server (the test) and answers its
// initialize; it returns the client's wire and the initialize request's id.
func client(t *testing.T, opts mcp.ClientOptions) (*mcp.Client, *wire) {
	t.Helper()
	w, stream := newWire(t)
	c, err := mcp.NewClient(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	done := make(chan error, 1)
	go func() { _, err := c.Connect(context.Background(), stream); done <- err }()
	l := w.next()
	if l.method() != "initialize" {
		t.Fatalf("want initialize: %s", l.text)
	}
	w.send(`{"jsonrpc":"2.0","id":` + string(l.members["id"]) + `,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"logging":{}},"serverInfo":{"name":"scripted","version":"1"}}}`)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if l := w.next(); l.method() != "notifications/initialized" {
		t.Fatalf("want notifications/initialized: %s", l.text)
	}
	return c, w
}

// 002 B: the client matches responses by the id's exact type and value: "0" does not answer
// request 0 (nor "7" request 7); the real answer that follows does.
func TestCase002ClientMatchesIDs(t *testing.T) {
	w, stream := newWire(t)
	c, err := mcp.NewClient(mcp.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	type connected struct {
		info []byte
		err  error
	}
	done := make(chan connected, 1)
	go func() {
		d, err := c.Connect(context.Background(), stream)
		if err != nil {
			done <- connected{err: err}
			return
		}
		done <- connected{info: d.Info}
	}()
	l := w.next()
	id := string(l.members["id"])
	if _, err := strconv.Atoi(id); err != nil || l.method() != "initialize" {
		t.Fatalf("want initialize with a numeric id: %s", l.text)
	}
	w.send(`{"jsonrpc":"2.0","id":"` + id + `","result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"wrong","version":"1"}}}`)
	w.send(`{"jsonrpc":"2.0","id":` + id + `,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"right","version":"1"}}}`)
	got := <-done
	if got.err != nil || !strings.Contains(string(got.info), `"name":"right"`) {
		t.Fatalf("initialize resolved by %s (%v)", got.info, got.err)
	}
	if l := w.next(); l.method() != "notifications/initialized" {
		t.Fatalf("want notifications/initialized: %s", l.text)
	}
	// and a later request, a string-typed echo first
	pinged := make(chan error, 1)
	go func() { _, err := c.Ping(context.Background(), nil); pinged <- err }()
	l = w.next()
	id = string(l.members["id"])
	w.send(`{"jsonrpc":"2.0","id":"` + id + `","error":{"code":-32603,"message":"wrong id type"}}`)
	select {
	case err := <-pinged:
		t.Fatalf("ping resolved by a response with id %q: %v", `"`+id+`"`, err)
	case <-time.After(100 * time.Millisecond):
	}
	w.send(`{"jsonrpc":"2.0","id":` + id + `,"result":{}}`)
	if err := <-pinged; err != nil {
		t.Fatalf("ping: %v", err)
	}
}

// 007 B: a cancelled call fails at once and the client sends notifications/cancelled with its
// id; the late answer is dropped and the session stays up; an initialize that times out is not
// cancelled.
func TestCase007ClientCancellation(t *testing.T) {
	var mu sync.Mutex
	var logs []string
	c, w := client(t, mcp.ClientOptions{Notifications: mcp.ClientNotificationHandlers{LoggingMessage: func(ctx context.Context, p *mcp.LoggingMessageNotificationParams) {
		mu.Lock()
		logs = append(logs, string(p.Data))
		mu.Unlock()
	}}})
	ctx, cancel := context.WithCancel(context.Background())
	failed := make(chan error, 1)
	go func() {
		_, err := c.CallTool(ctx, &mcp.CallToolRequestParams{Name: "slow_echo", Arguments: map[string]json.RawMessage{"text": json.RawMessage(`"hi"`)}})
		failed <- err
	}()
	call := w.next()
	if call.method() != "tools/call" {
		t.Fatalf("want tools/call: %s", call.text)
	}
	cancel()
	select {
	case err := <-failed:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the call failed with %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the cancelled call did not fail")
	}
	l := w.next()
	var p struct{ RequestID json.RawMessage }
	_ = json.Unmarshal(l.members["params"], &p)
	if l.method() != "notifications/cancelled" || string(p.RequestID) != string(call.members["id"]) {
		t.Fatalf("want notifications/cancelled for %s: %s", call.members["id"], l.text)
	}
	w.send(`{"jsonrpc":"2.0","id":` + string(call.members["id"]) + `,"error":{"code":0,"message":"Request cancelled"}}`)
	w.send(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"still here"}}`)
	pinged := make(chan error, 1)
	go func() { _, err := c.Ping(context.Background(), nil); pinged <- err }()
	ping := w.next()
	w.send(`{"jsonrpc":"2.0","id":` + string(ping.members["id"]) + `,"result":{}}`)
	if err := <-pinged; err != nil {
		t.Fatalf("the session did not stay up: %v", err)
	}
	mu.Lock()
	if strings.Join(logs, ",") != `"still here"` {
		t.Errorf("notifications after the late answer: %q", logs)
	}
	mu.Unlock()

	// B2: initialize against a server that never answers, with a short deadline
	w2, stream := newWire(t)
	c2, err := mcp.NewClient(mcp.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	tctx, tcancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer tcancel()
	if _, err := c2.Connect(tctx, stream); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("initialize without an answer: %v", err)
	}
	if l := w2.next(); l.method() != "initialize" {
		t.Fatalf("want initialize: %s", l.text)
	}
	for _, l := range w2.quiet(300 * time.Millisecond) {
		if l.method() == "notifications/cancelled" {
			t.Fatalf("initialize was cancelled: %s", l.text)
		}
	}
}

// 009 A: progress that comes after the response, and progress for a token never issued, are
// dropped: the callback runs only for what came before the response, the call resolves once,
// and the connection stays up.
func TestCase009ClientDropsLateProgress(t *testing.T) {
	c, w := client(t, mcp.ClientOptions{})
	var mu sync.Mutex
	var seen []float64
	type outcome struct {
		text string
		err  error
	}
	called := make(chan outcome, 1)
	go func() {
		res, err := c.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "work"}, mcp.WithProgress(func(p mcp.Progress) {
			mu.Lock()
			seen = append(seen, p.Progress)
			mu.Unlock()
		}))
		if err != nil {
			called <- outcome{err: err}
			return
		}
		called <- outcome{text: res.Content[0].(*mcp.TextContent).Text}
	}()
	call := w.next()
	var params struct {
		Meta struct{ ProgressToken json.RawMessage } `json:"_meta"`
	}
	_ = json.Unmarshal(call.members["params"], &params)
	tok := string(params.Meta.ProgressToken)
	if tok == "" {
		t.Fatalf("no progress token: %s", call.text)
	}
	id := string(call.members["id"])
	w.send(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + tok + `,"progress":5,"total":10}}`)
	w.send(`{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"done"}]}}`)
	w.send(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + tok + `,"progress":10,"total":10}}`)
	w.send(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"never-issued","progress":1}}`)
	if o := <-called; o.err != nil || o.text != "done" {
		t.Fatalf("the call: %+v", o)
	}
	pinged := make(chan error, 1)
	go func() { _, err := c.Ping(context.Background(), nil); pinged <- err }()
	ping := w.next()
	w.send(`{"jsonrpc":"2.0","id":` + string(ping.members["id"]) + `,"result":{}}`)
	if err := <-pinged; err != nil {
		t.Fatalf("ping after the late progress: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 || seen[0] != 5 {
		t.Fatalf("progress callbacks: %v (want only 5)", seen)
	}
}

// 004 (client): the client answers no notification, unknown or malformed, and stays up.
func TestCase004ClientAnswersNoNotification(t *testing.T) {
	var mu sync.Mutex
	changed := 0
	c, w := client(t, mcp.ClientOptions{Notifications: mcp.ClientNotificationHandlers{ToolListChanged: func(ctx context.Context, p *mcp.NotificationParams) {
		mu.Lock()
		changed++
		mu.Unlock()
	}}})
	w.send(`{"jsonrpc":"2.0","method":"notifications/x-example/unknown"}`)
	w.send(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"bogus":true}}`)
	w.send(`{"jsonrpc":"2.0","method":"notifications/progress","params":"not-an-object"}`)
	if got := w.quiet(200 * time.Millisecond); len(got) != 0 {
		t.Fatalf("the client answered a notification: %s", got[0].text)
	}
	pinged := make(chan error, 1)
	go func() { _, err := c.Ping(context.Background(), nil); pinged <- err }()
	ping := w.next()
	w.send(`{"jsonrpc":"2.0","id":` + string(ping.members["id"]) + `,"result":{}}`)
	if err := <-pinged; err != nil {
		t.Fatalf("ping: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if changed != 1 {
		t.Fatalf("tools/list_changed delivered %d times", changed)
	}
}
