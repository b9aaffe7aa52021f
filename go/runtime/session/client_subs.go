package session

import (
	"bytes"
	"context"
	"errors"
	"sync"

	"mcpgen.dev/runtime/engine"
	"mcpgen.dev/runtime/jsonrpc"
	"mcpgen.dev/runtime/wire"
)

// SubscriptionEvent is one notification of a subscription.
type SubscriptionEvent struct {
	Method string
	// Params is the notification's params JSON (with the subscription id in _meta).
	Params []byte
}

// Subscription is an open subscriptions/listen stream (2026-07-28 basic/patterns/subscriptions).
type Subscription struct {
	// ID is the subscription's id: the JSON-RPC id of its listen request.
	ID jsonrpc.ID
	// Acknowledged is the filter the server honours (its acknowledgement's notifications).
	Acknowledged []byte
	// Events delivers the subscription's notifications in order; it is closed when the
	// subscription ends. At most 1024 wait: beyond, notifications are dropped (and logged).
	Events <-chan SubscriptionEvent

	client    *Client
	events    chan SubscriptionEvent
	ack       chan struct{}
	ended     chan struct{}
	cancel    context.CancelFunc
	mu        sync.Mutex
	acked     bool
	closed    bool
	completed bool
	err       error
}

// Listen opens a subscriptions/listen stream with filter (the SubscriptionFilter JSON) and
// waits for its acknowledgement.
func (c *Client) Listen(ctx context.Context, filter []byte) (*Subscription, error) {
	subCtx, cancel := context.WithCancel(context.Background())
	sub := &Subscription{client: c, events: make(chan SubscriptionEvent, 1024), ack: make(chan struct{}), ended: make(chan struct{}), cancel: cancel}
	sub.Events = sub.events
	params := jsonrpc.Raw(newObject().raw("notifications", filter).bytes())
	onID := func(id jsonrpc.ID) {
		sub.ID = id
		c.mu.Lock()
		c.subs[id] = sub
		c.mu.Unlock()
	}
	go func() {
		result, err := c.conn.Call(subCtx, "subscriptions/listen", withMeta{params, c.metaEntries()}, engine.CallOptions{Timeout: -1, OnID: onID})
		sub.end(result, err)
	}()
	select {
	case <-sub.ack:
		return sub, nil
	case <-sub.ended:
		if sub.err != nil {
			return nil, sub.err
		}
		return nil, errors.New("session: the subscription ended before its acknowledgement")
	case <-ctx.Done():
		sub.Close()
		return nil, ctx.Err()
	}
}

func (s *Subscription) deliver(method string, params []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	if method == "notifications/subscriptions/acknowledged" {
		if !s.acked {
			s.acked = true
			s.Acknowledged = bytes.Clone(member(params, "notifications"))
			close(s.ack)
		}
		return
	}
	if !s.acked {
		s.client.log.Warn("mcpgen: dropped a subscription notification before its acknowledgement", "method", method)
		return
	}
	select {
	case s.events <- SubscriptionEvent{Method: method, Params: bytes.Clone(params)}:
	default:
		s.client.log.Warn("mcpgen: dropped a subscription notification (1024 unread)", "method", method)
	}
}

func (s *Subscription) end(result []byte, err error) {
	s.client.mu.Lock()
	if s.client.subs[s.ID] == s {
		delete(s.client.subs, s.ID)
	}
	s.client.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.err = err
	s.completed = err == nil && wire.Valid(result)
	if !s.closed {
		s.closed = true
		close(s.events)
	}
	close(s.ended)
}

// Completed reports whether the server ended the subscription with its completion result (a
// graceful end, not a dropped connection).
func (s *Subscription) Completed() bool {
	<-s.ended
	return s.completed
}

// Done is closed once the subscription ended.
func (s *Subscription) Done() <-chan struct{} { return s.ended }

// Err is why the subscription ended (nil after a graceful end; the context's error after Close).
func (s *Subscription) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Close cancels the subscription (notifications/cancelled on stdio; the stream closes on HTTP)
// and waits for it to end.
func (s *Subscription) Close() {
	s.cancel()
	<-s.ended
}
