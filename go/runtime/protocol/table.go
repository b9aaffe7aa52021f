// Package protocol holds the table generated code fills for each revision: its methods, their
// directions, decoders and capabilities, and the revision's facts (protocol version, lifecycle,
// error codes, log levels, HTTP facts). The runtime reads every revision fact from a Table and
// holds no revision literal.
package protocol

import (
	"sort"

	"mcpgen.dev/runtime/jsonrpc"
	"mcpgen.dev/runtime/wire"
)

// Direction is which side sends a message.
type Direction uint8

// The directions.
const (
	ClientToServer Direction = iota + 1
	ServerToClient
)

// Lifecycle is how a revision starts a conversation.
type Lifecycle string

// The lifecycles.
const (
	// Handshake: initialize, then notifications/initialized (2025-11-25 and older).
	Handshake Lifecycle = "handshake"
	// Stateless: every request carries its version and capabilities in _meta (2026-07-28).
	Stateless Lifecycle = "stateless"
)

// Decoder validates raw JSON (nil: absent) as a type of the revision and returns the value.
type Decoder func([]byte) (any, error)

// Request is one request method of a revision.
type Request struct {
	Method    string
	Direction Direction
	// Capability is the path of the capability the receiver must declare (nil: none).
	Capability []string
	// ParamsRequired: the request must have params.
	ParamsRequired bool
	// TaskAugmentable: params may carry a task (2025-11-25 tasks).
	TaskAugmentable bool
	// InputRequired: may be answered with an InputRequiredResult (2026-07-28 MRTR).
	InputRequired bool
	// Embedded: a server→client request that only travels inside an InputRequiredResult.
	Embedded bool
	// ResultType: the result declares resultType (2026-07-28 Result): a server writes
	// "complete" into a result that lacks it.
	ResultType bool
	// Cacheable: the result declares the caching hints ttlMs and cacheScope (2026-07-28
	// CacheableResult): a server fills those a result lacks.
	Cacheable bool
	// DecodeParams validates the params (nil when the request has none).
	DecodeParams Decoder
	// DecodeResult validates a result of the plain call.
	DecodeResult Decoder
}

// Notification is one notification method of a revision.
type Notification struct {
	Method       string
	Direction    Direction
	Capability   []string
	DecodeParams Decoder
}

// Table is one revision as the runtime sees it.
type Table struct {
	Revision        string
	ProtocolVersion string
	Lifecycle       Lifecycle
	Requests        []*Request
	Notifications   []*Notification
	// ErrorCodes by schema.ts name (METHOD_NOT_FOUND …).
	ErrorCodes map[string]int64
	// LoggingLevels, least severe first.
	LoggingLevels []string
	// PrimesStreams: Streamable HTTP server streams open with a priming event (an event id and
	// empty data) so that a client can resume them.
	PrimesStreams bool
	// AssumedVersion is the version a server assumes for an HTTP request without
	// MCP-Protocol-Version and no other clue ("" when the revision says none).
	AssumedVersion string
	// HTTPTransport is "streamable-http" or "http+sse".
	HTTPTransport string
	// Types holds the decoders of the types the runtime reads itself (InputRequiredResult,
	// DiscoverResult, InitializeResult …), by schema name.
	Types map[string]Decoder

	index *index
}

type index struct {
	clientRequests, serverRequests           map[string]*Request
	clientNotifications, serverNotifications map[string]*Notification
	methods                                  jsonrpc.Methods
}

// Init builds the table's indexes; call it once, before the table is used (generated code does).
func (t *Table) Init() *Table {
	ix := &index{
		clientRequests:      map[string]*Request{},
		serverRequests:      map[string]*Request{},
		clientNotifications: map[string]*Notification{},
		serverNotifications: map[string]*Notification{},
		methods:             jsonrpc.Methods{},
	}
	for _, r := range t.Requests {
		if r.Direction == ClientToServer {
			ix.clientRequests[r.Method] = r
		} else {
			ix.serverRequests[r.Method] = r
		}
		ix.methods[r.Method] = r.Method
	}
	for _, n := range t.Notifications {
		if n.Direction == ClientToServer {
			ix.clientNotifications[n.Method] = n
		} else {
			ix.serverNotifications[n.Method] = n
		}
		ix.methods[n.Method] = n.Method
	}
	t.index = ix
	return t
}

func (t *Table) ix() *index {
	if t.index == nil {
		panic("protocol: Table.Init was not called")
	}
	return t.index
}

// ClientRequest is the client→server request method (nil when the revision has none).
func (t *Table) ClientRequest(method string) *Request { return t.ix().clientRequests[method] }

// ServerRequest is the server→client request method.
func (t *Table) ServerRequest(method string) *Request { return t.ix().serverRequests[method] }

// ClientNotification is the client→server notification method.
func (t *Table) ClientNotification(method string) *Notification {
	return t.ix().clientNotifications[method]
}

// ServerNotification is the server→client notification method.
func (t *Table) ServerNotification(method string) *Notification {
	return t.ix().serverNotifications[method]
}

// Methods is every method name of the revision (for jsonrpc.Methods.Decode).
func (t *Table) Methods() jsonrpc.Methods { return t.ix().methods }

// ErrorCode is the revision's code named name (UNSUPPORTED_PROTOCOL_VERSION …), or fallback
// when the revision has none.
func (t *Table) ErrorCode(name string, fallback int64) int64 {
	if c, ok := t.ErrorCodes[name]; ok {
		return c
	}
	return fallback
}

// LevelIndex is the position of a log level among LoggingLevels (-1: not one).
func (t *Table) LevelIndex(level string) int {
	for i, l := range t.LoggingLevels {
		if l == level {
			return i
		}
	}
	return -1
}

// Decode decodes raw JSON as the type name of the table (an error when the table has no such
// decoder).
func (t *Table) Decode(name string, data []byte) (any, error) {
	d := t.Types[name]
	if d == nil {
		return nil, wire.Errorf("the revision " + t.Revision + " has no type " + name)
	}
	return d(data)
}

// HasCapability reports whether the JSON object capabilities declares the object at path (an
// absent member, null and false do not count).
func HasCapability(capabilities []byte, path []string) bool {
	node := capabilities
	for _, key := range path {
		o, err := wire.Members(node)
		if err != nil {
			return false
		}
		var next []byte
		for o.Next() {
			if string(o.Key()) == key {
				next = o.Value()
			}
		}
		if next == nil {
			return false
		}
		if s := string(wire.Trim(next)); s == "null" || s == "false" {
			return false
		}
		node = next
	}
	return true
}

// VersionsNewestFirst returns the protocol versions of tables, newest first, each once.
func VersionsNewestFirst(tables ...*Table) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range tables {
		if t != nil && !seen[t.ProtocolVersion] {
			seen[t.ProtocolVersion] = true
			out = append(out, t.ProtocolVersion)
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(out)))
	return out
}
