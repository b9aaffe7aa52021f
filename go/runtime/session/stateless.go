package session

import (
	"mcpgen.dev/runtime/jsonrpc"
	"mcpgen.dev/runtime/protocol"
	"mcpgen.dev/runtime/wire"
)

// The _meta members of the stateless revisions (2026-07-28 basic/index, "_meta").
const (
	MetaPrefix             = "io.modelcontextprotocol/"
	MetaProtocolVersion    = MetaPrefix + "protocolVersion"
	MetaClientCapabilities = MetaPrefix + "clientCapabilities"
	MetaClientInfo         = MetaPrefix + "clientInfo"
	MetaLogLevel           = MetaPrefix + "logLevel"
	MetaServerInfo         = MetaPrefix + "serverInfo"
	MetaSubscriptionID     = MetaPrefix + "subscriptionId"
)

// Fallback codes for revisions whose schema names none (the table's win).
const (
	codeHeaderMismatch             = -32020
	codeMissingClientCapability    = -32021
	codeUnsupportedProtocolVersion = -32022
)

// ErrorCode returns a code of the table by name with the fallback of this package.
func errorCode(t *protocol.Table, name string) int64 {
	switch name {
	case "UNSUPPORTED_PROTOCOL_VERSION":
		return t.ErrorCode(name, codeUnsupportedProtocolVersion)
	case "MISSING_REQUIRED_CLIENT_CAPABILITY":
		return t.ErrorCode(name, codeMissingClientCapability)
	case "HEADER_MISMATCH":
		return t.ErrorCode(name, codeHeaderMismatch)
	}
	return t.ErrorCode(name, jsonrpc.CodeInternalError)
}

// UnsupportedVersion is the -32022 error listing the supported versions (2026-07-28
// basic/versioning).
func UnsupportedVersion(t *protocol.Table, supported []string, requested string) *jsonrpc.Error {
	data := newObject().raw("supported", stringList(supported)).str("requested", requested).bytes()
	return errorWithData(errorCode(t, "UNSUPPORTED_PROTOCOL_VERSION"), "Unsupported protocol version", data)
}

// MissingClientCapabilities is the -32021 error naming the client capabilities a request needs
// (data.requiredCapabilities: each top-level capability, {}).
func MissingClientCapabilities(t *protocol.Table, names []string) *jsonrpc.Error {
	caps := newObject()
	for _, n := range names {
		caps.raw(n, []byte("{}"))
	}
	data := newObject().raw("requiredCapabilities", caps.bytes()).bytes()
	return errorWithData(errorCode(t, "MISSING_REQUIRED_CLIENT_CAPABILITY"), "Missing required client capability", data)
}

// RequestMeta is what a stateless request says of itself in _meta.
type RequestMeta struct {
	ProtocolVersion    string
	ClientCapabilities []byte
	ClientInfo         []byte
	LogLevel           string
	Raw                []byte
}

// ReadMeta reads the _meta of stateless request params.
func ReadMeta(params []byte) RequestMeta {
	meta := member(params, "_meta")
	m := RequestMeta{Raw: meta}
	if meta == nil {
		return m
	}
	o, err := wire.Members(meta)
	if err != nil {
		return m
	}
	for o.Next() {
		switch string(o.Key()) {
		case MetaProtocolVersion:
			m.ProtocolVersion, _ = wire.String(o.Value())
		case MetaClientCapabilities:
			if isObject(o.Value()) {
				m.ClientCapabilities = o.Value()
			}
		case MetaClientInfo:
			m.ClientInfo = o.Value()
		case MetaLogLevel:
			m.LogLevel, _ = wire.String(o.Value())
		}
	}
	return m
}

// checkInputRequired checks an InputRequiredResult before it leaves (2026-07-28
// basic/patterns/mrtr, Server Requirements): a method that may answer one, at least one of
// inputRequests and requestState, embedded requests of the revision, each allowed by the
// request's client capabilities (-32021 otherwise; -32603 for the server's own faults).
func checkInputRequired(t *protocol.Table, spec *protocol.Request, result []byte, caps []byte) error {
	if spec == nil || !spec.InputRequired {
		return jsonrpc.NewError(jsonrpc.CodeInternalError, "Internal error: "+methodOf(spec)+" may not answer input_required")
	}
	requests := member(result, "inputRequests")
	state := member(result, "requestState")
	empty := requests == nil || string(wire.Trim(requests)) == "{}"
	if empty && state == nil {
		return jsonrpc.NewError(jsonrpc.CodeInternalError, "Internal error: an InputRequiredResult needs inputRequests or requestState")
	}
	if requests == nil {
		return nil
	}
	o, err := wire.Members(requests)
	if err != nil {
		return jsonrpc.NewError(jsonrpc.CodeInternalError, "Internal error: inputRequests is not an object")
	}
	var missing []string
	for o.Next() {
		method := str(o.Value(), "method")
		embedded := t.ServerRequest(method)
		if embedded == nil {
			return jsonrpc.NewError(jsonrpc.CodeInternalError, "Internal error: inputRequests["+string(o.Key())+"] is not a request of "+t.Revision)
		}
		if len(embedded.Capability) > 0 && !protocol.HasCapability(caps, embedded.Capability) {
			missing = appendOnce(missing, embedded.Capability[0])
		}
	}
	if len(missing) > 0 {
		return MissingClientCapabilities(t, missing)
	}
	return nil
}

func methodOf(spec *protocol.Request) string {
	if spec == nil {
		return "this request"
	}
	return spec.Method
}

func appendOnce(xs []string, s string) []string {
	for _, x := range xs {
		if x == s {
			return xs
		}
	}
	return append(xs, s)
}

// CacheHint is the caching hint of a method's results (2026-07-28 server/utilities/caching).
type CacheHint struct {
	TTLMs int64
	// Scope is "public" or "private".
	Scope string
}

// CacheHinted is a result type with caching hints (what generated types with ttlMs and
// cacheScope implement): the runtime sets the hints the handler left unset.
type CacheHinted interface {
	DefaultCacheHints(ttlMs int64, scope string)
}
