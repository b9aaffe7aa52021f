package session

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"mcpgen.dev/runtime/engine"
	"mcpgen.dev/runtime/jsonrpc"
	"mcpgen.dev/runtime/protocol"
	"mcpgen.dev/runtime/wire"
)

// DefaultMaxInputRounds is how many input_required rounds a client answers for one call
// before it gives up (field case 016).
const DefaultMaxInputRounds = 10

// ClientConfig is what a client is made of.
type ClientConfig struct {
	// Table is the revision the client prefers.
	Table *protocol.Table
	// Fallback: other revisions it speaks: a handshake table lets a stateless client fall back
	// to initialize with a server of that era; older handshake tables are offered at initialize.
	Fallback []*protocol.Table
	// Info is the client's Implementation (JSON).
	Info []byte
	// Capabilities is the ClientCapabilities object (JSON).
	Capabilities []byte
	// Handlers answer the server's requests (sampling, elicitation, roots) by method; in the
	// stateless era they answer the requests embedded in input_required results.
	Handlers map[string]RequestHandler
	// NotificationHandlers take the server's notifications by method.
	NotificationHandlers map[string]NotificationHandler
	// Timeout of each request when its context has no deadline (0: none).
	Timeout time.Duration
	// ProbeTimeout bounds the server/discover probe of a dual-era client before it falls back
	// to initialize (default 10 s).
	ProbeTimeout time.Duration
	// MaxInputRounds (default DefaultMaxInputRounds).
	MaxInputRounds int
	// LogLevel is sent as the _meta log level of stateless requests ("": none, no log messages).
	LogLevel string
	// Logger (default slog.Default()).
	Logger *slog.Logger
}

// ServerDescription is what the client learned of the server.
type ServerDescription struct {
	ProtocolVersion string
	// Capabilities is the ServerCapabilities JSON.
	Capabilities []byte
	// Info is the server's Implementation JSON (nil when it sent none).
	Info         []byte
	Instructions string
	// Stateless: the server speaks the stateless era.
	Stateless bool
	// Result is the InitializeResult or DiscoverResult JSON.
	Result []byte
}

// CapabilityError is a call the other side has not declared the capability for (no request is
// sent), or an input request the client cannot answer.
type CapabilityError struct{ Message string }

func (e *CapabilityError) Error() string { return e.Message }

// UnsupportedVersionError is a server that speaks no protocol version this client does.
type UnsupportedVersionError struct{ Offered, Supported []string }

func (e *UnsupportedVersionError) Error() string {
	return "the server speaks " + strings.Join(e.Offered, ", ") + "; this client speaks " + strings.Join(e.Supported, ", ")
}

// InvalidResultError is a result the client cannot use (an unknown resultType, a result that
// fails its type).
type InvalidResultError struct{ Message string }

func (e *InvalidResultError) Error() string { return e.Message }

// MaxInputRoundsError is a request still answered input_required after the round limit.
type MaxInputRoundsError struct {
	Method string
	Rounds int
}

func (e *MaxInputRoundsError) Error() string {
	return fmt.Sprintf("%s: still input_required after %d rounds", e.Method, e.Rounds)
}

// Client is a client session: the lifecycle of its revision over one transport.
type Client struct {
	cfg       ClientConfig
	log       *slog.Logger
	conn      *engine.Conn
	transport engine.Transport

	mu     sync.Mutex
	active *protocol.Table
	server *ServerDescription
	meta   [][2][]byte
	subs   map[jsonrpc.ID]*Subscription
}

// NewClient returns a client; Connect starts it.
func NewClient(cfg ClientConfig) *Client {
	if cfg.Table == nil {
		panic("session: ClientConfig.Table is nil")
	}
	if cfg.Info == nil {
		cfg.Info = []byte(`{"name":"mcpgen-client","version":"0.0.0"}`)
	}
	if cfg.Capabilities == nil {
		cfg.Capabilities = []byte("{}")
	}
	if cfg.ProbeTimeout <= 0 {
		cfg.ProbeTimeout = 10 * time.Second
	}
	if cfg.MaxInputRounds <= 0 {
		cfg.MaxInputRounds = DefaultMaxInputRounds
	}
	c := &Client{cfg: cfg, log: cfg.Logger, active: cfg.Table, subs: map[jsonrpc.ID]*Subscription{}}
	if c.log == nil {
		c.log = slog.Default()
	}
	return c
}

// Table is the revision the client speaks now.
func (c *Client) Table() *protocol.Table {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.active
}

// Server is what the server said of itself at Connect (nil before).
func (c *Client) Server() *ServerDescription {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.server
}

// Conn is the client's connection.
func (c *Client) Conn() *engine.Conn { return c.conn }

// Capabilities is the ClientCapabilities JSON the client declares.
func (c *Client) Capabilities() []byte { return c.cfg.Capabilities }

// Connect starts the transport and runs the lifecycle: server/discover for a stateless
// revision (falling back to initialize with a handshake Fallback table when the server is of
// that era), initialize for a handshake one. It returns what the server said of itself.
func (c *Client) Connect(ctx context.Context, t engine.Transport) (*ServerDescription, error) {
	c.transport = t
	methods := jsonrpc.Methods{}
	for _, tb := range append([]*protocol.Table{c.cfg.Table}, c.cfg.Fallback...) {
		for k, v := range tb.Methods() {
			methods[k] = v
		}
	}
	c.conn = engine.NewConn(context.Background(), engine.ConnOptions{Handler: c, Methods: methods, Timeout: c.cfg.Timeout, Logger: c.log})
	ch, err := t.Connect(ctx, c.conn)
	if err != nil {
		return nil, err
	}
	c.conn.SetChannel(ch)
	var desc *ServerDescription
	if c.Table().Lifecycle == protocol.Stateless {
		desc, err = c.discover(ctx)
		if err == nil && desc == nil {
			desc, err = c.handshake(ctx)
		}
	} else {
		desc, err = c.handshake(ctx)
	}
	if err != nil {
		_ = c.Close()
		return nil, err
	}
	return desc, nil
}

func (c *Client) setActive(t *protocol.Table) {
	c.mu.Lock()
	c.active = t
	c.meta = nil
	c.mu.Unlock()
	if p, ok := c.transport.(engine.ProtocolSetter); ok {
		p.SetProtocol(t.ProtocolVersion, t.Lifecycle == protocol.Stateless)
	}
}

// versions is what the client speaks in an era, newest first.
func (c *Client) versions(l protocol.Lifecycle) []*protocol.Table {
	var out []*protocol.Table
	for _, t := range append([]*protocol.Table{c.cfg.Table}, c.cfg.Fallback...) {
		if t.Lifecycle == l {
			out = append(out, t)
		}
	}
	return out
}

func (c *Client) handshake(ctx context.Context) (*ServerDescription, error) {
	tables := c.versions(protocol.Handshake)
	if len(tables) == 0 {
		return nil, errors.New("session: the client speaks no handshake revision")
	}
	first := c.Table()
	if first.Lifecycle != protocol.Handshake {
		first = tables[0]
	}
	c.setActive(first)
	params := newObject().str("protocolVersion", first.ProtocolVersion).raw("capabilities", c.cfg.Capabilities).raw("clientInfo", c.cfg.Info)
	result, err := c.conn.Call(ctx, "initialize", params, engine.CallOptions{})
	if err != nil {
		return nil, err
	}
	version := str(result, "protocolVersion")
	var chosen *protocol.Table
	for _, t := range tables {
		if t.ProtocolVersion == version {
			chosen = t
			break
		}
	}
	if chosen == nil {
		var supported []string
		for _, t := range tables {
			supported = append(supported, t.ProtocolVersion)
		}
		return nil, &UnsupportedVersionError{Offered: []string{version}, Supported: supported}
	}
	if d := chosen.Types["InitializeResult"]; d != nil {
		if _, err := d(result); err != nil {
			return nil, &InvalidResultError{Message: "initialize: invalid result: " + wire.At(err, "result").Error()}
		}
	}
	c.setActive(chosen)
	desc := &ServerDescription{
		ProtocolVersion: chosen.ProtocolVersion,
		Capabilities:    objectOr(member(result, "capabilities")),
		Info:            member(result, "serverInfo"),
		Instructions:    str(result, "instructions"),
		Result:          result,
	}
	c.mu.Lock()
	c.server = desc
	c.mu.Unlock()
	if err := c.conn.Notify("notifications/initialized", nil); err != nil {
		return nil, err
	}
	if o, ok := c.transport.(engine.StandaloneOpener); ok {
		if err := o.OpenStandalone(ctx); err != nil {
			c.log.Debug("mcpgen: the standalone stream did not open", "error", err)
		}
	}
	return desc, nil
}

func objectOr(raw []byte) []byte {
	if isObject(raw) {
		return raw
	}
	return []byte("{}")
}

// isModernError: an error only a server of the stateless era answers (it does not fall back).
func isModernError(err error) bool {
	e := jsonrpc.AsError(err)
	return e != nil && (e.Code == codeHeaderMismatch || e.Code == codeMissingClientCapability || e.Code == codeUnsupportedProtocolVersion)
}

// discover probes with server/discover; nil, nil means: fall back to the handshake.
func (c *Client) discover(ctx context.Context) (*ServerDescription, error) {
	legacy := c.versions(protocol.Handshake)
	c.setActive(c.Table())
	probe := ctx
	if len(legacy) > 0 {
		var cancel context.CancelFunc
		probe, cancel = context.WithTimeout(ctx, c.cfg.ProbeTimeout)
		defer cancel()
	}
	result, err := c.sendStateless(probe, "server/discover", nil, engine.CallOptions{})
	if err != nil {
		if len(legacy) == 0 || isModernError(err) || ctx.Err() != nil || c.closed() {
			return nil, err
		}
		c.log.Debug("mcpgen: server/discover failed: falling back to initialize", "error", err, "version", legacy[0].ProtocolVersion)
		return nil, nil
	}
	t := c.Table()
	if versions, err := wire.List(member(result, "supportedVersions"), -1, wire.String); err == nil && len(versions) > 0 {
		found := false
		for _, v := range versions {
			found = found || v == t.ProtocolVersion
		}
		if !found {
			return nil, &UnsupportedVersionError{Offered: versions, Supported: []string{t.ProtocolVersion}}
		}
	}
	desc := &ServerDescription{
		ProtocolVersion: t.ProtocolVersion,
		Capabilities:    objectOr(member(result, "capabilities")),
		Info:            member(member(result, "_meta"), MetaServerInfo),
		Instructions:    str(result, "instructions"),
		Stateless:       true,
		Result:          result,
	}
	c.mu.Lock()
	c.server = desc
	c.mu.Unlock()
	return desc, nil
}

// Close ends the client: open subscriptions, the transport, requests in flight.
func (c *Client) Close() error {
	c.mu.Lock()
	subs := make([]*Subscription, 0, len(c.subs))
	for _, s := range c.subs {
		subs = append(subs, s)
	}
	c.mu.Unlock()
	for _, s := range subs {
		s.Close()
	}
	var err error
	if c.transport != nil {
		err = c.transport.Close()
	}
	if c.conn != nil {
		c.conn.Close(nil)
	}
	return err
}

func (c *Client) closed() bool {
	select {
	case <-c.conn.Done():
		return true
	default:
		return false
	}
}

// Done is closed when the connection closes.
func (c *Client) Done() <-chan struct{} { return c.conn.Done() }
