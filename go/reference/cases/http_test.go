package cases

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"mcpgen.dev/reference/fixtures"
	mcp "mcpgen.dev/reference/gen/mcp20251125"
	mcp2 "mcpgen.dev/reference/gen/mcp20260728"
	"mcpgen.dev/runtime/codegen"
	"mcpgen.dev/runtime/engine"
	"mcpgen.dev/runtime/streamable"
)

// endpoint serves the reference server of rev (fixtures.HTTPHandler: sessions for 2025-11-25,
// the dual-era endpoint for 2026-07-28) on a loopback port the OS picks. restart replaces it
// by a new one (the sessions of the old one are lost, as when the process restarts).
func endpoint(t *testing.T, rev string) (url string, restart func()) {
	t.Helper()
	var current atomic.Pointer[http.Handler]
	var closers []func()
	start := func() {
		h, closer, err := fixtures.HTTPHandler(rev, fixtures.Options{}, codegen.HTTPOptions{AllowedHosts: []string{"127.0.0.1"}})
		if err != nil {
			t.Fatal(err)
		}
		closers = append(closers, closer)
		current.Store(&h)
	}
	start()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { (*current.Load()).ServeHTTP(w, r) }))
	t.Cleanup(func() {
		hs.Close()
		for _, c := range closers {
			c()
		}
	})
	return hs.URL, start
}

type answer struct {
	status int
	header http.Header
	body   string
}

// code is the JSON-RPC error code of a JSON body (0 if none).
func (a answer) code() int {
	var m struct{ Error struct{ Code int } }
	_ = json.Unmarshal([]byte(a.body), &m)
	return m.Error.Code
}

// send makes one HTTP request; headers are name, value pairs (a value "" leaves the header out).
func send(t *testing.T, method, url, body string, headers ...string) answer {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(headers); i += 2 {
		if headers[i+1] != "" {
			req.Header.Set(headers[i], headers[i+1])
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	a := answer{status: resp.StatusCode, header: resp.Header}
	if method == "GET" && resp.StatusCode == 200 {
		return a // a standalone stream: open until the session ends
	}
	b, _ := io.ReadAll(resp.Body)
	a.body = string(b)
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		// the response is the stream's last message
		a.body = ""
		for _, l := range strings.Split(string(b), "\n") {
			if data, ok := strings.CutPrefix(l, "data:"); ok && strings.TrimSpace(data) != "" {
				a.body = strings.TrimSpace(data)
			}
		}
	}
	return a
}

const (
	accept      = "application/json, text/event-stream"
	init2025    = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"probe","version":"0.0.1"}}}`
	initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// session2025 initializes a 2025-11-25 session over HTTP and returns its id.
func session2025(t *testing.T, url string, versionHeader string) string {
	t.Helper()
	a := send(t, "POST", url, init2025, "Accept", accept, "Content-Type", "application/json", "MCP-Protocol-Version", versionHeader)
	sid := a.header.Get("Mcp-Session-Id")
	if a.status != 200 || sid == "" {
		t.Fatalf("initialize: %d %q %s", a.status, sid, a.body)
	}
	if a := send(t, "POST", url, initialized, "Accept", accept, "Content-Type", "application/json", "MCP-Protocol-Version", "2025-11-25", "Mcp-Session-Id", sid); a.status != 202 {
		t.Fatalf("initialized: %d %s", a.status, a.body)
	}
	return sid
}

func toolsList(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"}`
}

// 006: an ended, unknown or lost session gets 404 (a missing one 400); session ids are visible
// ASCII; the client starts a new session after a 404 and fails the request in flight; the
// 2026-07-28 endpoint ignores session ids and refuses GET and DELETE with 405.
func TestCase006HTTPUnknownSession404(t *testing.T) {
	url, restart := endpoint(t, "2025-11-25")
	post := func(body, sid string) answer {
		return send(t, "POST", url, body, "Accept", accept, "Content-Type", "application/json", "MCP-Protocol-Version", "2025-11-25", "Mcp-Session-Id", sid)
	}
	s1 := session2025(t, url, "2025-11-25")
	for _, c := range s1 {
		if c < 0x21 || c > 0x7e {
			t.Fatalf("session id %q holds %q", s1, c)
		}
	}
	if a := send(t, "DELETE", url, "", "MCP-Protocol-Version", "2025-11-25", "Mcp-Session-Id", s1); a.status < 200 || a.status > 299 {
		t.Fatalf("3 DELETE: %d %s", a.status, a.body)
	}
	if a := post(toolsList("2"), s1); a.status != 404 {
		t.Errorf("4 ended session: %d %s", a.status, a.body)
	}
	if a := send(t, "GET", url, "", "Accept", "text/event-stream", "MCP-Protocol-Version", "2025-11-25", "Mcp-Session-Id", s1); a.status != 404 {
		t.Errorf("5 GET on the ended session: %d", a.status)
	}
	if a := post(toolsList("3"), "00000000-never-issued"); a.status != 404 {
		t.Errorf("6 never issued: %d %s", a.status, a.body)
	}
	if a := post(toolsList("4"), ""); a.status != 400 {
		t.Errorf("7 no session: %d %s", a.status, a.body)
	}
	s2 := session2025(t, url, "2025-11-25")
	if a := post(toolsList("5"), s2); a.status != 200 {
		t.Fatalf("S2 before the restart: %d %s", a.status, a.body)
	}
	restart()
	if a := post(toolsList("5"), s2); a.status != 404 {
		t.Errorf("8 after a restart: %d %s", a.status, a.body)
	}

	// the client: a 404 fails the call in flight with ErrSessionExpired, and the next call runs
	// on a new session
	ctx := context.Background()
	tr := streamable.NewClientTransport(url)
	c, err := mcp.NewClient(mcp.ClientOptions{Info: &mcp.Implementation{Name: "c", Version: "1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Connect(ctx, tr); err != nil {
		t.Fatal(err)
	}
	first := tr.SessionID()
	if _, err := c.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	restart()
	if _, err := c.ListTools(ctx, nil); !errors.Is(err, engine.ErrSessionExpired) {
		t.Fatalf("the call on the lost session: want ErrSessionExpired, got %v", err)
	}
	if second := tr.SessionID(); second == "" || second == first {
		t.Fatalf("no new session: %q then %q", first, second)
	}
	tools, err := c.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) == 0 {
		t.Fatalf("on the new session: %+v %v", tools, err)
	}

	// 2026-07-28: a session id is ignored and none is minted; GET and DELETE get 405
	url26, _ := endpoint(t, "2026-07-28")
	a := send(t, "POST", url26, `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		"Accept", accept, "Content-Type", "application/json", "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "server/discover", "Mcp-Session-Id", "whatever")
	if a.status != 200 || a.header.Get("Mcp-Session-Id") != "" || !strings.Contains(a.body, `"supportedVersions":["2026-07-28"`) {
		t.Errorf("2026 discover with a session id: %d %v %s", a.status, a.header, a.body)
	}
	if a := send(t, "GET", url26, "", "Accept", "text/event-stream"); a.status != 405 {
		t.Errorf("2026 GET: %d", a.status)
	}
	if a := send(t, "DELETE", url26, ""); a.status != 405 {
		t.Errorf("2026 DELETE: %d", a.status)
	}
}

func discover(p string) string {
	return `{"jsonrpc":"2.0","id":"d1","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"` + p + `","io.modelcontextprotocol/clientCapabilities":{}}}}`
}

// 011: MCP-Protocol-Version rules of both eras on the dual-era endpoint, and the header the
// clients send.
func TestCase011HTTPProtocolVersionHeader(t *testing.T) {
	url, _ := endpoint(t, "2026-07-28")
	sid := session2025(t, url, "") // e: initialize without the header is served
	post := func(body, version string) answer {
		return send(t, "POST", url, body, "Accept", accept, "Content-Type", "application/json", "Mcp-Session-Id", sid, "MCP-Protocol-Version", version)
	}
	if a := post(toolsList("2"), "2025-11-25"); a.status != 200 {
		t.Errorf("a: %d %s", a.status, a.body)
	}
	if a := post(toolsList("3"), ""); a.status != 200 {
		t.Errorf("b (no header, the session's version): %d %s", a.status, a.body)
	}
	for _, bad := range []string{"1999-01-01", "banana"} {
		if a := post(toolsList("4"), bad); a.status != 400 {
			t.Errorf("c/d %s: %d %s", bad, a.status, a.body)
		}
	}
	if a := send(t, "GET", url, "", "Accept", "text/event-stream", "Mcp-Session-Id", sid, "MCP-Protocol-Version", "banana"); a.status != 400 {
		t.Errorf("f: %d", a.status)
	}
	modern := func(body, version string) answer {
		return send(t, "POST", url, body, "Accept", accept, "Content-Type", "application/json", "Mcp-Method", "server/discover", "MCP-Protocol-Version", version)
	}
	id := func(a answer) string {
		var m struct{ ID json.RawMessage }
		_ = json.Unmarshal([]byte(a.body), &m)
		return string(m.ID)
	}
	if a := modern(discover("2026-07-28"), ""); a.status != 400 || a.code() != -32020 || id(a) != `"d1"` {
		t.Errorf("g: %d %s", a.status, a.body)
	}
	if a := modern(discover("2025-11-25"), "2026-07-28"); a.status != 400 || a.code() != -32020 {
		t.Errorf("h: %d %s", a.status, a.body)
	}
	a := modern(discover("1900-01-01"), "1900-01-01")
	var data struct {
		Error struct {
			Data struct {
				Supported []string
				Requested string
			}
		}
	}
	_ = json.Unmarshal([]byte(a.body), &data)
	if a.status != 400 || a.code() != -32022 || strings.Join(data.Error.Data.Supported, ",") != "2026-07-28" || data.Error.Data.Requested != "1900-01-01" {
		t.Errorf("i: %d %s", a.status, a.body)
	}
	// the version before the client capabilities: a request of a version not served, without them
	noCaps := `{"jsonrpc":"2.0","id":"d2","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01"}}}`
	if a := modern(noCaps, "2099-01-01"); a.status != 400 || a.code() != -32022 || !strings.Contains(a.body, `"requested":"2099-01-01"`) {
		t.Errorf("2099 without capabilities: %d %s", a.status, a.body)
	}
	if a := modern(discover("2026-07-28"), "2026-07-28"); a.status != 200 || !strings.Contains(a.body, `"resultType":"complete"`) {
		t.Errorf("j: %d %s", a.status, a.body)
	}

	// C: every request of a 2025-11-25 client after initialize carries the negotiated version
	var seen []string
	var mu sync.Mutex
	var inner http.Handler
	var recording atomic.Bool
	h, closer, err := fixtures.HTTPHandler("2025-11-25", fixtures.Options{}, codegen.HTTPOptions{AllowedHosts: []string{"127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer closer()
	inner = h
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if recording.Load() {
			mu.Lock()
			seen = append(seen, r.Method+" "+r.Header.Get("MCP-Protocol-Version"))
			mu.Unlock()
		}
		inner.ServeHTTP(w, r)
	}))
	defer hs.Close()
	ctx := context.Background()
	c, err := mcp.NewClient(mcp.ClientOptions{Info: &mcp.Implementation{Name: "c", Version: "1"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Connect(ctx, streamable.NewClientTransport(hs.URL)); err != nil {
		t.Fatal(err)
	}
	recording.Store(true)
	if _, err := c.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.SendRootsListChanged(nil); err != nil {
		t.Fatal(err)
	}
	_ = c.Close()
	recording.Store(false)
	mu.Lock()
	defer mu.Unlock()
	if len(seen) < 2 {
		t.Fatalf("requests after initialize: %v", seen)
	}
	for _, s := range seen {
		if !strings.HasSuffix(s, " 2025-11-25") {
			t.Errorf("C: a request without the negotiated version: %v", seen)
			break
		}
	}

	// C, 2026-07-28: every POST of the client carries the header, equal to its body's version
	h26, closer26, err := fixtures.HTTPHandler("2026-07-28", fixtures.Options{}, codegen.HTTPOptions{AllowedHosts: []string{"127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer closer26()
	var posts []string
	var pmu sync.Mutex
	hs26 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var m struct {
			Params struct {
				Meta struct {
					Version string `json:"io.modelcontextprotocol/protocolVersion"`
				} `json:"_meta"`
			}
		}
		_ = json.Unmarshal(b, &m)
		pmu.Lock()
		posts = append(posts, r.Method+" "+r.Header.Get("MCP-Protocol-Version")+" "+m.Params.Meta.Version)
		pmu.Unlock()
		r.Body = io.NopCloser(strings.NewReader(string(b)))
		h26.ServeHTTP(w, r)
	}))
	defer hs26.Close()
	c26, err := mcp2.NewClient(mcp2.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c26.Connect(ctx, streamable.NewClientTransport(hs26.URL)); err != nil {
		t.Fatal(err)
	}
	if _, err := c26.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	_ = c26.Close()
	pmu.Lock()
	defer pmu.Unlock()
	if len(posts) < 2 {
		t.Fatalf("2026 requests: %v", posts)
	}
	for _, p := range posts {
		if p != "POST 2026-07-28 2026-07-28" {
			t.Errorf("C 2026: %v", posts)
			break
		}
	}
}

// 002 C over HTTP: a request with an invalid id (null, fractional, boolean, object) in a
// session is answered 400 with -32600 and no id, and never served.
func TestCase002HTTPInvalidIDs(t *testing.T) {
	url, _ := endpoint(t, "2025-11-25")
	sid := session2025(t, url, "2025-11-25")
	for _, id := range []string{`null`, `1.5`, `true`, `{"n":1}`} {
		a := send(t, "POST", url, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/list","params":{}}`, "Accept", accept, "Content-Type", "application/json", "MCP-Protocol-Version", "2025-11-25", "Mcp-Session-Id", sid)
		var m map[string]json.RawMessage
		_ = json.Unmarshal([]byte(a.body), &m)
		if a.status != 400 || a.code() != -32600 || (m["id"] != nil && string(m["id"]) != "null") || m["result"] != nil {
			t.Errorf("id %s: want 400, -32600 without id: %d %s", id, a.status, a.body)
		}
	}
}

// 004 over HTTP: notification POSTs (known, unknown, malformed) get 202 with no body.
func TestCase004HTTPNotificationsGet202(t *testing.T) {
	url, _ := endpoint(t, "2025-11-25")
	sid := session2025(t, url, "2025-11-25")
	for _, body := range []string{
		`{"jsonrpc":"2.0","method":"notifications/x-example/unknown","params":{"a":1}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/roots/list_changed","params":"not-an-object"}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"never-issued","progress":1}}`,
	} {
		a := send(t, "POST", url, body, "Accept", accept, "Content-Type", "application/json", "MCP-Protocol-Version", "2025-11-25", "Mcp-Session-Id", sid)
		if a.status != 202 || a.body != "" {
			t.Errorf("%s: want 202 without a body: %d %q", body, a.status, a.body)
		}
	}
}

// 010 over HTTP: in a 2025-11-25 session an unknown method and an undeclared capability get
// -32601; the 2026-07-28 endpoint answers an unknown method 404 with -32601 and the id.
func TestCase010HTTPUnknownMethod(t *testing.T) {
	url, _ := endpoint(t, "2025-11-25")
	sid := session2025(t, url, "2025-11-25")
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":"q-501","method":"example/does-not-exist","params":{}}`,
		`{"jsonrpc":"2.0","id":"q-502","method":"tasks/list","params":{}}`,
	} {
		a := send(t, "POST", url, body, "Accept", accept, "Content-Type", "application/json", "MCP-Protocol-Version", "2025-11-25", "Mcp-Session-Id", sid)
		if a.code() != -32601 || !strings.Contains(a.body, `"id":"q-50`) {
			t.Errorf("%s: want -32601: %d %s", body, a.status, a.body)
		}
	}
	url26, _ := endpoint(t, "2026-07-28")
	a := send(t, "POST", url26, `{"jsonrpc":"2.0","id":7,"method":"example/does-not-exist","params":{`+draftMeta+`}}`,
		"Accept", accept, "Content-Type", "application/json", "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "example/does-not-exist")
	if a.status != 404 || a.code() != -32601 || !strings.HasPrefix(a.body, `{"jsonrpc":"2.0","id":7,`) {
		t.Errorf("2026: want 404 with -32601 and id 7: %d %s", a.status, a.body)
	}
}

// 015 over HTTP: arguments failing the tool's inputSchema are a result with isError naming the
// field; an unknown tool is -32602 naming it.
func TestCase015HTTPToolInputValidation(t *testing.T) {
	url, _ := endpoint(t, "2025-11-25")
	sid := session2025(t, url, "2025-11-25")
	post := func(body string) answer {
		return send(t, "POST", url, body, "Accept", accept, "Content-Type", "application/json", "MCP-Protocol-Version", "2025-11-25", "Mcp-Session-Id", sid)
	}
	a := post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_sampling","arguments":{"prompt":12}}}`)
	var m struct {
		Result struct {
			IsError bool
			Content []struct{ Text string }
		}
	}
	if err := json.Unmarshal([]byte(a.body), &m); err != nil || a.status != 200 || !m.Result.IsError || len(m.Result.Content) == 0 || !strings.Contains(m.Result.Content[0].Text, "prompt") {
		t.Errorf("invalid arguments: want a result with isError naming prompt: %d %s", a.status, a.body)
	}
	if a := post(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"book_fligth","arguments":{}}}`); a.code() != -32602 || !strings.Contains(a.body, "book_fligth") {
		t.Errorf("unknown tool: want -32602 naming it: %d %s", a.status, a.body)
	}
}

// 007 C (2026-07-28): over HTTP, closing the response stream of a request cancels its handler,
// and a stray notifications/cancelled POST is accepted with 202; over stdio a cancel without
// _meta is accepted and nothing more is written for the request.
func TestCase007StatelessCancellation(t *testing.T) {
	started := make(chan struct{}, 2)
	aborted := make(chan struct{}, 2)
	f := mcp2.NewFeatures()
	must(t, f.AddTool(newTool(t, "slow_echo"), func(ctx context.Context, req *mcp2.RequestContext, args json.RawMessage) (mcp2.CallToolOutcome, error) {
		started <- struct{}{}
		select {
		case <-ctx.Done():
			aborted <- struct{}{}
			return nil, ctx.Err()
		case <-time.After(30 * time.Second):
			return &mcp2.CallToolResult{Content: []mcp2.ContentBlock{&mcp2.TextContent{Text: "late"}}}, nil
		}
	}))
	srv, err := mcp2.NewServer(f, mcp2.ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h := srv.HTTPHandler(codegen.HTTPOptions{AllowedHosts: []string{"127.0.0.1"}})
	defer h.Close()
	hs := httptest.NewServer(h)
	defer hs.Close()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", hs.URL, strings.NewReader(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"slow_echo","arguments":{},`+strings.TrimSuffix(draftMeta, "}}")+`},"progressToken":1}}}`))
	for k, v := range map[string]string{"Accept": accept, "Content-Type": "application/json", "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "slow_echo"} {
		req.Header.Set(k, v)
	}
	posted := make(chan struct{})
	go func() {
		defer close(posted)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	waitFor(t, started, "the handler did not start")
	cancel()
	<-posted
	waitFor(t, aborted, "closing the response stream did not cancel the handler")
	a := send(t, "POST", hs.URL, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`,
		"Accept", accept, "Content-Type", "application/json", "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "notifications/cancelled")
	if a.status != 202 {
		t.Errorf("stray cancel: %d %s", a.status, a.body)
	}

	w, stream := newWire(t)
	sctx, scancel := context.WithCancel(context.Background())
	defer scancel()
	go func() { _ = srv.Serve(sctx, stream) }()
	w.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow_echo","arguments":{},` + draftMeta + `}}`)
	waitFor(t, started, "the stdio handler did not start")
	w.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`)
	waitFor(t, aborted, "the stdio cancel without _meta did not reach the handler")
	w.send(`{"jsonrpc":"2.0","id":8,"method":"ping","params":{` + draftMeta + `}}`)
	for _, l := range w.until("8") {
		if string(l.members["id"]) == "7" {
			t.Fatalf("the cancelled request was answered: %s", l.text)
		}
	}
	for _, l := range w.quiet(300 * time.Millisecond) {
		t.Errorf("written after the cancel: %s", l.text)
	}
}

func waitFor(t *testing.T, ch <-chan struct{}, why string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Fatal(why)
	}
}

// 009 B: over HTTP the response comes last on its POST stream and a late progress for its
// token arrives on the GET stream 5 ms later: the client calls back once (5/10), before the
// call resolves, drops the late progress quietly and keeps working.
func TestCase009HTTPClientDropsLateProgress(t *testing.T) {
	late := make(chan string, 1)
	getOpen := make(chan struct{}, 1)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == "GET" {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(200)
			w.(http.Flusher).Flush()
			getOpen <- struct{}{}
			select {
			case msg := <-late:
				_, _ = io.WriteString(w, "data: "+msg+"\n\n")
				w.(http.Flusher).Flush()
				<-r.Context().Done()
			case <-r.Context().Done():
			}
			return
		}
		if r.Method == "DELETE" {
			return
		}
		var m struct {
			ID     json.RawMessage
			Method string
			Params struct {
				Meta struct{ ProgressToken json.RawMessage } `json:"_meta"`
			}
		}
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &m)
		switch {
		case m.ID == nil:
			w.WriteHeader(202)
		case m.Method == "initialize":
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Mcp-Session-Id", "s1")
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"scripted","version":"1"}}}`)
		case m.Method == "tools/call":
			tok := string(m.Params.Meta.ProgressToken)
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, `data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":`+tok+`,"progress":5,"total":10}}`+"\n\n")
			_, _ = io.WriteString(w, `data: {"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"content":[{"type":"text","text":"done"}]}}`+"\n\n")
			w.(http.Flusher).Flush()
			go func() {
				time.Sleep(5 * time.Millisecond)
				late <- `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + tok + `,"progress":10,"total":10}}`
			}()
		default:
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{}}`)
		}
	}))
	defer hs.Close()
	ctx := context.Background()
	c, err := mcp.NewClient(mcp.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Connect(ctx, streamable.NewClientTransport(hs.URL)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-getOpen:
	case <-time.After(5 * time.Second):
		t.Fatal("the client opened no GET stream")
	}
	var mu sync.Mutex
	var seen []float64
	resolved := false
	res, err := c.CallTool(ctx, &mcp.CallToolRequestParams{Name: "work"}, mcp.WithProgress(func(p mcp.Progress) {
		mu.Lock()
		defer mu.Unlock()
		if resolved {
			t.Errorf("progress %v after the call resolved", p.Progress)
		}
		seen = append(seen, p.Progress)
	}))
	mu.Lock()
	resolved = true
	mu.Unlock()
	if err != nil || res.Content[0].(*mcp.TextContent).Text != "done" {
		t.Fatalf("the call: %+v %v", res, err)
	}
	time.Sleep(100 * time.Millisecond) // the late progress has come on the GET stream
	if _, err := c.Ping(ctx, nil); err != nil {
		t.Fatalf("ping after the late progress: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 || seen[0] != 5 {
		t.Fatalf("progress callbacks: %v (want only 5)", seen)
	}
}

// 005 over HTTP: multi-byte UTF-8, U+2028 and escaped line breaks survive a round trip
// through a tool; a body with an invalid UTF-8 byte is a parse error (-32700, 400).
func TestCase005HTTPUTF8(t *testing.T) {
	h := server(t).HTTPHandler(codegen.HTTPOptions{AllowedHosts: []string{"127.0.0.1"}})
	defer h.Close()
	hs := httptest.NewServer(h)
	defer hs.Close()
	sid := session2025(t, hs.URL, "2025-11-25")
	post := func(body string) answer {
		return send(t, "POST", hs.URL, body, "Accept", accept, "Content-Type", "application/json", "MCP-Protocol-Version", "2025-11-25", "Mcp-Session-Id", sid)
	}
	want := "café — 中文 😀 a\u2028b first\nsecond\r\nthird"
	arg, _ := json.Marshal(want)
	a := post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":` + string(arg) + `}}}`)
	var m struct {
		Result struct{ Content []struct{ Text string } }
	}
	if err := json.Unmarshal([]byte(a.body), &m); err != nil || len(m.Result.Content) != 1 || m.Result.Content[0].Text != want {
		t.Errorf("round trip: %d %s", a.status, a.body)
	}
	if a := post(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + "\xff" + `"}}}`); a.status != 400 || a.code() != -32700 {
		t.Errorf("invalid UTF-8: want 400 with -32700: %d %s", a.status, a.body)
	}
}

// 008 over HTTP: requests POSTed at the same time on one session with the same id (a
// test_sampling call, which stays in flight waiting for the client's sampling answer): one runs
// (its SSE stream carries the sampling request), every other is refused 400 -32600 with the id
// and the engine's words, as a reuse after it would be, and is not run.
func TestCase008HTTPConcurrentReusedID(t *testing.T) {
	url, _ := endpoint(t, "2025-11-25")
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{}},"clientInfo":{"name":"probe","version":"0.0.1"}}}`
	a := send(t, "POST", url, init, "Accept", accept, "Content-Type", "application/json")
	sid := a.header.Get("Mcp-Session-Id")
	if a.status != 200 || sid == "" {
		t.Fatalf("initialize: %d %s", a.status, a.body)
	}
	session := []string{"Accept", accept, "Content-Type", "application/json", "MCP-Protocol-Version", "2025-11-25", "Mcp-Session-Id", sid}
	if a := send(t, "POST", url, initialized, session...); a.status != 202 {
		t.Fatalf("initialized: %d %s", a.status, a.body)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // ends the calls left in flight
	const posts = 16
	for round := 0; round < 300; round++ {
		id := 100 + round
		body := `{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"tools/call","params":{"name":"test_sampling","arguments":{"prompt":"hi"}}}`
		inUse := `{"jsonrpc":"2.0","id":` + itoa(id) + `,"error":{"code":-32600,"message":"Invalid Request: request id ` + itoa(id) + ` is already in use"}}`
		var wg sync.WaitGroup
		start := make(chan struct{})
		got := make([]string, posts)
		for i := range posts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				req, _ := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body))
				for k := 0; k < len(session); k += 2 {
					req.Header.Set(session[k], session[k+1])
				}
				<-start
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					got[i] = err.Error()
					return
				}
				if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
					got[i] = "stream" // open until the end of the test
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				got[i] = itoa(resp.StatusCode) + " " + strings.TrimSpace(string(b))
			}()
		}
		close(start)
		wg.Wait()
		streams, refused := 0, 0
		for _, g := range got {
			switch g {
			case "stream":
				streams++
			case "400 " + inUse:
				refused++
			default:
				t.Errorf("id %d: want one stream and 400 %s for the others: %s", id, inUse, g)
			}
		}
		if streams != 1 || refused != posts-1 {
			t.Fatalf("id %d: %d ran, %d refused 400 (want 1 and %d): %q", id, streams, refused, posts-1, got)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
