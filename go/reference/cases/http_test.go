package cases

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"mcpgen.dev/reference/fixtures"
	mcp "mcpgen.dev/reference/gen/mcp20251125"
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
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		a.body = string(b)
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
}
