// Package stdio is the stdio transport: newline-delimited JSON over a byte stream pair. A
// client starts the server as a subprocess and talks over its stdin and stdout (Command); a
// server serves on its own stdin and stdout (Stdin), or on any reader and writer (Stream).
//
// Spec: 2025-11-25 basic/transports (stdio), 2026-07-28 basic/transports/stdio: one message per
// line, UTF-8, LF-terminated, nothing but messages on stdout. Framing is codec.LineReader's: per
// line, whatever the pipe's chunking. A line that is not JSON gets -32700 (no id) from a server
// and a log line from a client; a line over the limit gets -32000 "Payload Too Large" (with its
// id when the line shows one), or fails the request it answers.
package stdio

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"mcpgen.dev/runtime/codec"
	"mcpgen.dev/runtime/engine"
	"mcpgen.dev/runtime/jsonrpc"
	"mcpgen.dev/runtime/wire"
)

// Options configures a Stream.
type Options struct {
	// MaxLineBytes is the largest message (default codec.DefaultMaxLineBytes, 16 MiB).
	MaxLineBytes int
	// EndGrace is how long, once the input ends, the requests being served have to finish (their
	// responses are still written) before the connection closes (0: closed at once; Stdin
	// defaults it to 10 s). Requests sent and unanswered fail at once.
	EndGrace time.Duration
	// Logger (default slog.Default()).
	Logger *slog.Logger
}

// Stream is a connection over a reader and a writer: an engine.Transport and engine.Channel.
type Stream struct {
	r       io.Reader
	w       *bufio.Writer
	closer  func() error
	opts    Options
	log     *slog.Logger
	mu      sync.Mutex
	waiting atomic.Int32
	closed  atomic.Bool
	conn    *engine.Conn
	done    chan struct{}
}

// NewStream returns a transport that reads messages from r and writes them to w; closer (may
// be nil) is called by Close.
func NewStream(r io.Reader, w io.Writer, closer func() error, opts Options) *Stream {
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Stream{r: r, w: bufio.NewWriterSize(w, 32<<10), closer: closer, opts: opts, log: log, done: make(chan struct{})}
}

// Connect starts the read loop feeding conn; it returns the stream as the channel to send on.
func (s *Stream) Connect(ctx context.Context, conn *engine.Conn) (engine.Channel, error) {
	s.conn = conn
	go s.read()
	return s, nil
}

// Done is closed when the read loop has ended.
func (s *Stream) Done() <-chan struct{} { return s.done }

// Send writes one message as one line ending in a single LF (engine.Channel). Writers that
// queue behind each other share one flush.
func (s *Stream) Send(msg []byte, final bool) error {
	if s.closed.Load() {
		return jsonrpc.ErrClosed
	}
	s.waiting.Add(1)
	s.mu.Lock()
	_, err := s.w.Write(msg)
	if err == nil {
		err = s.w.WriteByte('\n')
	}
	if s.waiting.Add(-1) == 0 && err == nil {
		err = s.w.Flush()
	}
	s.mu.Unlock()
	if err != nil {
		return errors.Join(jsonrpc.ErrClosed, err)
	}
	return nil
}

// Close closes the stream (its closer) and the connection.
func (s *Stream) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	var err error
	if s.closer != nil {
		err = s.closer()
	}
	if s.conn != nil {
		s.conn.Close(nil)
	}
	return err
}

func (s *Stream) read() {
	defer close(s.done)
	lines := codec.NewLineReader(s.r, s.opts.MaxLineBytes)
	var closeErr error
	for {
		line, err := lines.Next()
		if err == nil {
			s.conn.Receive(line, s, nil)
			continue
		}
		var tooLong *codec.LineTooLongError
		if errors.As(err, &tooLong) {
			s.tooLong(tooLong)
			continue
		}
		if errors.Is(err, codec.ErrTruncated) {
			closeErr = errors.New("stdio: closed with an incomplete frame")
			continue
		}
		if !errors.Is(err, io.EOF) && !s.closed.Load() {
			closeErr = err
		}
		break
	}
	// the output stays open while what is being served finishes
	s.conn.Drain(closeErr, s.opts.EndGrace)
	s.closed.Store(true)
}

// tooLong answers a line over the limit: a request gets -32000 with its id, a response fails
// the request it answers, anything else gets -32000 without id.
func (s *Stream) tooLong(e *codec.LineTooLongError) {
	id, isRequest := peekID(e.Head, e.Tail)
	data := `{"limit":` + strconv.Itoa(e.Limit) + `,"size":` + strconv.Itoa(e.Size) + `}`
	rpcErr := &jsonrpc.Error{Code: jsonrpc.CodeConnectionClosed, Message: "Payload Too Large", Data: []byte(data)}
	if id.IsValid() && !isRequest {
		b := jsonrpc.AppendErrorResponse(nil, id, rpcErr)
		s.conn.Receive(b, s, nil)
		return
	}
	if !isRequest {
		id = jsonrpc.ID{}
	}
	s.log.Warn("mcpgen: stdio: a line over the limit", "size", e.Size, "limit", e.Limit)
	_ = s.Send(jsonrpc.AppendErrorResponse(nil, id, rpcErr), true)
}

// peekID reads the id of a message from the first and last bytes of its line: whether it is a
// request (it has a method) and its id, when the head's complete members or the tail show it.
func peekID(head, tail []byte) (jsonrpc.ID, bool) {
	var id jsonrpc.ID
	isRequest := false
	if o, err := wire.Members(head); err == nil {
		for o.Next() {
			switch string(o.Key()) {
			case "id":
				id, _ = jsonrpc.ParseID(o.Value())
			case "method":
				isRequest = true
			}
		}
	}
	if !id.IsValid() {
		id = tailID(tail)
	}
	return id, isRequest
}

// tailID finds `"id":<value>}` at the end of a line.
func tailID(tail []byte) jsonrpc.ID {
	t := wire.Trim(tail)
	if len(t) == 0 || t[len(t)-1] != '}' {
		return jsonrpc.ID{}
	}
	t = t[:len(t)-1]
	for i := len(t) - 1; i >= 0; i-- {
		if t[i] != ':' {
			continue
		}
		key := wire.Trim(t[:i])
		if len(key) >= 4 && string(key[len(key)-4:]) == `"id"` {
			if id, err := jsonrpc.ParseID(t[i+1:]); err == nil {
				return id
			}
		}
		break
	}
	return jsonrpc.ID{}
}
