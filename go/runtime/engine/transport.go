package engine

import (
	"context"
	"errors"
)

// Transport joins a Conn to a peer: stdio, Streamable HTTP, a pipe.
type Transport interface {
	// Connect starts delivering the peer's messages to conn (conn.Receive) and returns the
	// channel to send on. When the connection ends the transport calls conn.Close.
	Connect(ctx context.Context, conn *Conn) (Channel, error)
	// Close ends the connection.
	Close() error
}

// ProtocolSetter is implemented by transports that carry the protocol version and the era
// (Streamable HTTP): the client session tells them what it speaks.
type ProtocolSetter interface {
	SetProtocol(version string, stateless bool)
}

// StandaloneOpener is implemented by transports that can open a stream for the server's
// messages outside any request (the GET stream of Streamable HTTP sessions).
type StandaloneOpener interface {
	OpenStandalone(ctx context.Context) error
}

// ErrSessionExpired is returned (wrapped) by a transport whose server answered that the session
// ended or expired (HTTP 404 for the session): the client starts a new session for later calls
// (2025-11-25 basic/transports, Session Management; field case 006).
var ErrSessionExpired = errors.New("the session ended or expired")

// ErrLegacyServer is returned (wrapped) by a transport when a modern request was answered the
// way only a server of the handshake era answers (an HTTP 4xx without a JSON-RPC error body):
// a dual-era client falls back to initialize.
var ErrLegacyServer = errors.New("the server speaks an earlier protocol version")
