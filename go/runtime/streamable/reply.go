package streamable

import (
	"bytes"
	"net/http"
	"strconv"
	"sync"
	"time"

	"mcpgen.dev/runtime/codec"
	"mcpgen.dev/runtime/jsonrpc"
)

// reply modes
const (
	undecided = iota
	asJSON
	asSSE
	asNothing
)

// maxKeptEvents bounds the events a stream keeps for resumption.
const maxKeptEvents = 1000

type event struct {
	seq  int
	data []byte
}

// outlet is one HTTP connection writing a stream's events.
type outlet struct {
	queue  [][]byte
	wake   chan struct{}
	closed bool
}

func newOutlet() *outlet { return &outlet{wake: make(chan struct{}, 1)} }

func (o *outlet) signal() {
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// reply is where the messages of one POSTed request go (an engine.Channel): one JSON body when
// its response comes first, else an SSE stream, which, when it has an id, keeps its events so
// that a client can resume it with Last-Event-ID.
type reply struct {
	mu       sync.Mutex
	id       jsonrpc.ID
	mode     int // the mode asked for: undecided (auto), asJSON, asSSE
	kind     int
	decided  chan struct{}
	json     []byte
	streamID string
	primes   bool
	events   []event
	seq      int
	ended    bool
	endedAt  time.Time
	out      *outlet
}

func newReply(id jsonrpc.ID, mode int, streamID string, primes bool) *reply {
	r := &reply{id: id, mode: mode, decided: make(chan struct{}), streamID: streamID, primes: primes}
	if mode == asSSE {
		r.startSSE()
	}
	return r
}

// startSSE decides SSE (locked by the caller or before sharing).
func (r *reply) startSSE() {
	r.kind = asSSE
	r.out = newOutlet()
	if r.primes && r.streamID != "" {
		r.push(nil)
	}
	close(r.decided)
}

func (r *reply) decide(kind int) {
	r.kind = kind
	close(r.decided)
}

// push appends one event (nil: the priming event, an id and empty data).
func (r *reply) push(msg []byte) {
	r.seq++
	id := ""
	if r.streamID != "" {
		id = r.streamID + "_" + strconv.Itoa(r.seq)
	}
	data := codec.AppendEvent(nil, id, "", msg)
	if r.streamID != "" {
		r.events = append(r.events, event{seq: r.seq, data: data})
		if len(r.events) > maxKeptEvents {
			r.events = r.events[1:]
		}
	}
	if r.out != nil {
		r.out.queue = append(r.out.queue, data)
		r.out.signal()
	}
}

// Send implements engine.Channel.
func (r *reply) Send(msg []byte, final bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended {
		return jsonrpc.ErrClosed
	}
	if r.kind == undecided {
		if final || r.mode == asJSON {
			if final {
				r.json = bytes.Clone(msg)
				r.decide(asJSON)
				r.end()
			}
			// JSON mode: only the response travels
			return nil
		}
		r.startSSE()
	}
	r.push(msg)
	if final {
		r.end()
	}
	return nil
}

// end ends the stream (locked by the caller).
func (r *reply) end() {
	if !r.ended {
		r.ended = true
		r.endedAt = time.Now()
	}
	if r.out != nil {
		r.out.closed = true
		r.out.signal()
	}
	if r.kind == undecided {
		r.decide(asNothing)
	}
}

// finish ends the stream from outside (the session ended).
func (r *reply) finish() {
	r.mu.Lock()
	r.end()
	r.mu.Unlock()
}

// CloseConnection ends the current connection of the stream without ending the stream: the
// client resumes it with Last-Event-ID after retryMs. False when no connection is open.
func (r *reply) CloseConnection(retryMs int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.out == nil || r.streamID == "" {
		return false
	}
	r.out.queue = append(r.out.queue, codec.AppendRetry(nil, retryMs))
	r.out.closed = true
	r.out.signal()
	r.out = nil
	return true
}

// attach opens a new connection of the stream, given the events after sequence number after.
func (r *reply) attach(after int) *outlet {
	r.mu.Lock()
	defer r.mu.Unlock()
	o := newOutlet()
	for _, e := range r.events {
		if e.seq > after {
			o.queue = append(o.queue, e.data)
		}
	}
	if r.out != nil {
		r.out.closed = true
		r.out.signal()
	}
	if r.ended {
		o.closed = true
	} else {
		r.out = o
	}
	o.signal()
	return o
}

// detach forgets a connection that went away.
func (r *reply) detach(o *outlet) {
	r.mu.Lock()
	if r.out == o {
		r.out = nil
	}
	r.mu.Unlock()
}

func (r *reply) endedBefore(t time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ended && r.endedAt.Before(t)
}

// pump writes an outlet's events to w until it is closed or the client goes away (false).
func pump(w http.ResponseWriter, flusher http.Flusher, mu *sync.Mutex, o *outlet, gone <-chan struct{}) bool {
	for {
		mu.Lock()
		q := o.queue
		o.queue = nil
		closed := o.closed
		mu.Unlock()
		for _, data := range q {
			if _, err := w.Write(data); err != nil {
				return false
			}
		}
		if len(q) > 0 && flusher != nil {
			flusher.Flush()
		}
		if closed {
			return true
		}
		select {
		case <-o.wake:
		case <-gone:
			return false
		}
	}
}
