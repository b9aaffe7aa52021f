package streamable

import (
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"

	"mcpgen.dev/runtime/codec"
	"mcpgen.dev/runtime/engine"
	"mcpgen.dev/runtime/jsonrpc"
	"mcpgen.dev/runtime/session"
)

// maxPending bounds the messages a session keeps for its standalone stream while none is open.
const maxPending = 100

// standalone is a session's channel for messages outside any request: its GET stream, when one
// is open (messages wait for it, up to maxPending).
type standalone struct {
	mu      sync.Mutex
	s       *httpSession
	out     *outlet
	pending [][]byte
}

// Send implements engine.Channel.
func (c *standalone) Send(msg []byte, final bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.s.isEnded() {
		return jsonrpc.ErrClosed
	}
	data := codec.AppendEvent(nil, "", "", msg)
	if c.out != nil {
		c.out.queue = append(c.out.queue, data)
		c.out.signal()
	} else if len(c.pending) < maxPending {
		c.pending = append(c.pending, data)
	}
	return nil
}

// open attaches the GET stream; false when one is open already.
func (c *standalone) open() (*outlet, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.out != nil {
		return nil, false
	}
	o := newOutlet()
	o.queue = append(o.queue, codec.AppendComment(nil, "stream open"))
	o.queue = append(o.queue, c.pending...)
	c.pending = nil
	o.signal()
	c.out = o
	return o, true
}

func (c *standalone) detach(o *outlet) {
	c.mu.Lock()
	if c.out == o {
		c.out = nil
	}
	c.mu.Unlock()
}

func (c *standalone) close() {
	c.mu.Lock()
	if c.out != nil {
		c.out.closed = true
		c.out.signal()
	}
	c.mu.Unlock()
}

func (c *standalone) isOpen() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out != nil
}

// httpSession is one session of the handshake era: its server session and connection, its
// reply streams (kept for resumption), its standalone stream.
type httpSession struct {
	id         string
	ss         *session.ServerSession
	conn       *engine.Conn
	standalone *standalone

	mu        sync.Mutex
	replies   map[string]*reply
	byRequest map[jsonrpc.ID]*reply
	busy      int
	lastUsed  time.Time
	ended     bool
	streams   int
}

func newSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func (s *httpSession) isEnded() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ended
}

func (s *httpSession) touch(busy int) {
	s.mu.Lock()
	s.busy += busy
	s.lastUsed = time.Now()
	s.mu.Unlock()
}

func (s *httpSession) idleSince() (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastUsed, s.busy == 0 && !s.standalone.isOpen()
}

// newReply makes the reply of a request and registers it for resumption.
// newReply makes the reply of request id and registers it, or returns nil when a reply for that
// id is already registered (a request with that id POSTed at the same time or still being
// answered): the check and the registration are one step under s.mu.
func (s *httpSession) newReply(id jsonrpc.ID, mode int, primes bool) *reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byRequest[id] != nil {
		return nil
	}
	s.streams++
	r := newReply(id, mode, itoa(s.streams), primes)
	s.replies[r.streamID] = r
	s.byRequest[id] = r
	return r
}

// done forgets the request of a reply (the stream stays for resumption until pruned).
func (s *httpSession) done(id jsonrpc.ID, r *reply) {
	s.mu.Lock()
	if s.byRequest[id] == r {
		delete(s.byRequest, id)
	}
	s.mu.Unlock()
}

// prune drops the streams that ended more than keep ago.
func (s *httpSession) prune(keep time.Duration) {
	cut := time.Now().Add(-keep)
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, r := range s.replies {
		if r.endedBefore(cut) {
			delete(s.replies, k)
		}
	}
}

func (s *httpSession) stream(id string) *reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.replies[id]
}

// end ends the session: its streams end, its requests in flight are cancelled.
func (s *httpSession) end() {
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return
	}
	s.ended = true
	replies := make([]*reply, 0, len(s.replies))
	for _, r := range s.replies {
		replies = append(replies, r)
	}
	s.mu.Unlock()
	for _, r := range replies {
		r.finish()
	}
	s.standalone.close()
	s.ss.Close()
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}
