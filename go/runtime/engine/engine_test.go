package engine_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"mcpgen.dev/runtime/engine"
	"mcpgen.dev/runtime/jsonrpc"
	"mcpgen.dev/runtime/stdio"
	"mcpgen.dev/runtime/wire"
)

// handler answers "echo" with its params, "slow" after its context ends or 5 s, "fail" with
// -32001, and records notifications.
type handler struct {
	mu            sync.Mutex
	notifications []string
	slowCancelled chan struct{}
	served        atomic.Int32
}

func (h *handler) HandleRequest(ctx context.Context, req *engine.Request) (wire.Appender, error) {
	h.served.Add(1)
	switch req.Method {
	case "echo":
		return jsonrpc.Raw(req.Params), nil
	case "progress":
		for i := 1; i <= 3; i++ {
			if err := req.Progress(float64(i), 3, "step"); err != nil {
				return nil, err
			}
		}
		return jsonrpc.Raw(`{"done":true}`), nil
	case "slow":
		select {
		case <-ctx.Done():
			if h.slowCancelled != nil {
				close(h.slowCancelled)
			}
			return jsonrpc.Raw(`{"late":true}`), nil
		case <-time.After(5 * time.Second):
			return jsonrpc.Raw(`{}`), nil
		}
	case "fail":
		return nil, jsonrpc.NewError(-32001, "nope")
	case "panic":
		panic("boom")
	}
	return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "Method not found: "+req.Method)
}

func (h *handler) HandleNotification(ctx context.Context, n *engine.Notification) {
	h.mu.Lock()
	h.notifications = append(h.notifications, n.Method)
	h.mu.Unlock()
}

// pair connects a client Conn to a server Conn over two pipes; both close at the end of the test.
func pair(t *testing.T, h engine.Handler) (client, server *engine.Conn) {
	t.Helper()
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	ctx := context.Background()
	server = engine.NewConn(ctx, engine.ConnOptions{Handler: h, AnswerParseErrors: true})
	ss := stdio.NewStream(sr, sw, sw.Close, stdio.Options{})
	ch, _ := ss.Connect(ctx, server)
	server.SetChannel(ch)
	client = engine.NewConn(ctx, engine.ConnOptions{})
	cs := stdio.NewStream(cr, cw, cw.Close, stdio.Options{})
	ch, _ = cs.Connect(ctx, client)
	client.SetChannel(ch)
	t.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Close()
	})
	return client, server
}

func TestCallAndErrors(t *testing.T) {
	client, _ := pair(t, &handler{})
	ctx := context.Background()
	got, err := client.Call(ctx, "echo", jsonrpc.Raw(`{"a":[1,"x"]}`), engine.CallOptions{})
	if err != nil || string(got) != `{"a":[1,"x"]}` {
		t.Fatalf("echo: %s %v", got, err)
	}
	_, err = client.Call(ctx, "fail", nil, engine.CallOptions{})
	if e := jsonrpc.AsError(err); e == nil || e.Code != -32001 || e.Message != "nope" {
		t.Fatalf("fail: %v", err)
	}
	_, err = client.Call(ctx, "panic", nil, engine.CallOptions{})
	if e := jsonrpc.AsError(err); e == nil || e.Code != jsonrpc.CodeInternalError {
		t.Fatalf("panic: %v", err)
	}
}

func TestManyCallsInFlight(t *testing.T) {
	client, _ := pair(t, &handler{})
	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for i := 0; i < 200; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			want := `{"n":` + strings.Repeat("9", i%7+1) + `}`
			got, err := client.Call(context.Background(), "echo", jsonrpc.Raw(want), engine.CallOptions{})
			if err != nil || string(got) != want {
				errs <- errors.New(string(got))
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if sent, served := client.InFlight(); sent != 0 || served != 0 {
		t.Fatalf("in flight after: %d %d", sent, served)
	}
}

func TestCancellationBothWays(t *testing.T) {
	h := &handler{slowCancelled: make(chan struct{})}
	client, server := pair(t, h)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, err := client.Call(ctx, "slow", nil, engine.CallOptions{})
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call: %v", err)
	}
	select {
	case <-h.slowCancelled:
	case <-time.After(2 * time.Second):
		t.Fatal("the handler's context was not cancelled by notifications/cancelled")
	}
	deadline := time.Now().Add(2 * time.Second)
	for {
		if _, served := server.InFlight(); served == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the cancelled request is still being served")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestTimeout(t *testing.T) {
	client, _ := pair(t, &handler{})
	_, err := client.Call(context.Background(), "slow", nil, engine.CallOptions{Timeout: 50 * time.Millisecond})
	if !errors.Is(err, engine.ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("timeout: %v", err)
	}
}

func TestProgress(t *testing.T) {
	client, _ := pair(t, &handler{})
	var got []engine.Progress
	res, err := client.Call(context.Background(), "progress", nil, engine.CallOptions{OnProgress: func(p engine.Progress) { got = append(got, p) }})
	if err != nil || string(res) != `{"done":true}` {
		t.Fatal(string(res), err)
	}
	if len(got) != 3 || got[2].Progress != 3 || got[2].Total != 3 || got[0].Message != "step" {
		t.Fatalf("progress %+v", got)
	}
}

func TestCloseFailsPending(t *testing.T) {
	client, _ := pair(t, &handler{})
	done := make(chan error)
	go func() {
		_, err := client.Call(context.Background(), "slow", nil, engine.CallOptions{})
		done <- err
	}()
	time.Sleep(30 * time.Millisecond)
	client.Close(nil)
	if err := <-done; !errors.Is(err, jsonrpc.ErrClosed) {
		t.Fatalf("pending call after close: %v", err)
	}
	if _, err := client.Call(context.Background(), "echo", nil, engine.CallOptions{}); !errors.Is(err, jsonrpc.ErrClosed) {
		t.Fatalf("call after close: %v", err)
	}
}

// rawServer runs a server Conn on pipes and returns a function that writes lines to it and one
// that reads its output lines.
func rawServer(t *testing.T, h engine.Handler) (write func(string), read func() string) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx := context.Background()
	server := engine.NewConn(ctx, engine.ConnOptions{Handler: h, AnswerParseErrors: true})
	s := stdio.NewStream(inR, outW, outW.Close, stdio.Options{MaxLineBytes: 256})
	ch, _ := s.Connect(ctx, server)
	server.SetChannel(ch)
	t.Cleanup(func() { _ = inW.Close(); _ = s.Close() })
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	write = func(s string) {
		if _, err := io.WriteString(inW, s); err != nil {
			t.Fatal(err)
		}
	}
	read = func() string {
		select {
		case l := <-lines:
			return l
		case <-time.After(2 * time.Second):
			t.Fatal("no output line")
			return ""
		}
	}
	return write, read
}

func TestInvalidMessages(t *testing.T) {
	h := &handler{}
	write, read := rawServer(t, h)
	for _, c := range []struct{ in, out string }{
		{`{"jsonrpc":"2.0","id":null,"method":"echo","params":{}}`, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: id must be a string or an integer"}}`},
		{`{"jsonrpc":"2.0","id":1.5,"method":"echo","params":{}}`, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: id must be a string or an integer"}}`},
		{`{"jsonrpc":"2.0","id":true,"method":"echo"}`, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: id must be a string or an integer"}}`},
		{`{"jsonrpc":"2.0","id":{"n":1},"method":"echo"}`, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: id must be a string or an integer"}}`},
		{`{"jsonrpc":"2.0","id":0,"method":"echo","params":[1]}`, `{"jsonrpc":"2.0","id":0,"error":{"code":-32602,"message":"Invalid params: params must be an object"}}`},
		{`{"id":2,"method":"echo"}`, `{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"Invalid Request: jsonrpc must be \"2.0\""}}`},
		{`{"jsonrpc":"1.0","id":16,"method":"echo"}`, `{"jsonrpc":"2.0","id":16,"error":{"code":-32600,"message":"Invalid Request: jsonrpc must be \"2.0\""}}`},
		{`{"jsonrpc":"2.0","id":15}`, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: message has no method, result or error"}}`},
		{`{"jsonrpc":"2.0","id":"m","method":5}`, `{"jsonrpc":"2.0","id":"m","error":{"code":-32600,"message":"Invalid Request: method must be a string"}}`},
		{`this is not json`, `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: line is not JSON: invalid character 'h' in literal true at byte 1"}}`},
		{`12 monkeys`, `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: line is not JSON: unexpected data after the JSON value at byte 3"}}`},
		{"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"echo\",\"params\":{\"t\":\"\xff\"}}", `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: line is not JSON: invalid UTF-8 in a string at byte 55"}}`},
		{`[1,2]`, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: batch arrays are not supported"}}`},
		{`5`, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: message is not a JSON object"}}`},
		{`{"jsonrpc":"2.0","id":"0","method":"echo","params":{"x":` + strings.Repeat("1", 300) + `}}`, `{"jsonrpc":"2.0","id":"0","error":{"code":-32000,"message":"Payload Too Large","data":{"limit":256,"size":358}}}`},
	} {
		write(c.in + "\n")
		if got := read(); got != c.out {
			t.Errorf("%s\n got %s\nwant %s", c.in, got, c.out)
		}
	}
	if n := h.served.Load(); n != 0 {
		t.Fatalf("the handler served %d invalid requests", n)
	}
	// notifications never get a response, whatever they hold (field case 004)
	write(`{"jsonrpc":"2.0","method":"notifications/x-unknown","params":{"a":1}}` + "\n")
	write(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"never","progress":1}}` + "\n")
	write(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}` + "\n")
	write(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed","params":"not-an-object"}` + "\n")
	write(`{"jsonrpc":"2.0","id":"n1","method":"notifications/initialized"}` + "\n")
	if got := read(); got != `{"jsonrpc":"2.0","id":"n1","error":{"code":-32601,"message":"Method not found: notifications/initialized"}}` {
		t.Fatalf("request named like a notification: %s", got)
	}
}

// slowParseErrors is a channel that takes a while to send a -32700: refusals sent from the read
// loop must still leave in the order their messages came.
type slowParseErrors struct {
	mu   sync.Mutex
	sent []string
}

func (c *slowParseErrors) Send(msg []byte, final bool) error {
	if strings.Contains(string(msg), "-32700") {
		time.Sleep(100 * time.Millisecond)
	}
	c.mu.Lock()
	c.sent = append(c.sent, string(msg))
	c.mu.Unlock()
	return nil
}

// Errors without id can only be matched by their order: refusals (a line that is not JSON, an
// unreadable id, a readable one with another fault) leave in the order received, however long
// the channel takes for each.
func TestRefusalsLeaveInOrder(t *testing.T) {
	ch := &slowParseErrors{}
	conn := engine.NewConn(context.Background(), engine.ConnOptions{Handler: &handler{}, AnswerParseErrors: true})
	defer conn.Close(nil)
	in := []string{`not json`, `{"jsonrpc":"2.0","id":true,"method":"echo"}`, `{"jsonrpc":"2.0","id":3,"method":3}`, `[1]`, `{"jsonrpc":"1.0","id":"x","method":"echo"}`}
	want := []string{
		`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: line is not JSON: invalid character 'o' in literal null at byte 1"}}`,
		`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: id must be a string or an integer"}}`,
		`{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"Invalid Request: method must be a string"}}`,
		`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: batch arrays are not supported"}}`,
		`{"jsonrpc":"2.0","id":"x","error":{"code":-32600,"message":"Invalid Request: jsonrpc must be \"2.0\""}}`,
	}
	for _, line := range in {
		conn.Receive([]byte(line), ch, nil)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		ch.mu.Lock()
		got := append([]string(nil), ch.sent...)
		ch.mu.Unlock()
		if len(got) == len(want) {
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d answers of %d: %v", len(got), len(want), got)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A request reusing the id of a request still being served is refused -32600 with that id, in
// the words of the TypeScript and Python runtimes, and not run.
func TestReusedInFlightID(t *testing.T) {
	h := &handler{}
	write, read := rawServer(t, h)
	write(`{"jsonrpc":"2.0","id":21,"method":"slow"}` + "\n")
	for h.served.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	write(`{"jsonrpc":"2.0","id":21,"method":"echo","params":{}}` + "\n")
	if got, want := read(), `{"jsonrpc":"2.0","id":21,"error":{"code":-32600,"message":"Invalid Request: request id 21 is already in use"}}`; got != want {
		t.Fatalf("got %s\nwant %s", got, want)
	}
	write(`{"jsonrpc":"2.0","id":"a\u00e9","method":"slow"}` + "\n")
	for h.served.Load() < 2 {
		time.Sleep(time.Millisecond)
	}
	write(`{"jsonrpc":"2.0","id":"aé","method":"echo","params":{}}` + "\n")
	if got, want := read(), `{"jsonrpc":"2.0","id":"aé","error":{"code":-32600,"message":"Invalid Request: request id \"aé\" is already in use"}}`; got != want {
		t.Fatalf("got %s\nwant %s", got, want)
	}
	if n := h.served.Load(); n != 2 {
		t.Fatalf("served %d, want 2 (the reused ids not run)", n)
	}
}
