package session

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"mcpgen.dev/runtime/engine"
	"mcpgen.dev/runtime/jsonrpc"
	"mcpgen.dev/runtime/wire"
)

// MinSecretBytes is the shortest requestState secret accepted.
const MinSecretBytes = 32

// Sealer protects requestState with HMAC-SHA256: `<payload>.<mac>`, both base64url. The
// payload binds the sealed data to the request's method and target (tool or prompt name,
// resource URI), the server's audience and an expiry (2026-07-28 basic/patterns/mrtr, Server
// Requirements 4-5). Open fails with -32602 "Invalid requestState", data.reason one of
// malformed, tampered, expired, audience, method, request, too_large.
//
// The secret may be shared by the workers of one endpoint (any of them opens what another
// sealed); Previous secrets are still accepted (rotation).
type Sealer struct {
	keys [][]byte
	// TTL of sealed state (default 5 minutes).
	TTL time.Duration
	// Audience names this server (sealed in, checked on open).
	Audience string
	// MaxLength of a sealed state, characters (default 65536).
	MaxLength int
	now       func() time.Time
}

// NewSealer returns a sealer with secret (nil: 32 random bytes, this process only) and the
// previous secrets still accepted.
func NewSealer(secret []byte, previous ...[]byte) (*Sealer, error) {
	if secret == nil {
		secret = make([]byte, 32)
		if _, err := rand.Read(secret); err != nil {
			return nil, err
		}
	}
	if len(secret) < MinSecretBytes {
		return nil, errors.New("session: the requestState secret needs at least 32 bytes")
	}
	return &Sealer{keys: append([][]byte{secret}, previous...), TTL: 5 * time.Minute, MaxLength: 65536, now: time.Now}, nil
}

type sealed struct {
	Data     json.RawMessage `json:"d"`
	Method   string          `json:"m"`
	Target   string          `json:"t"`
	Audience string          `json:"a"`
	Expiry   int64           `json:"e"`
}

// target is what a request is about: its tool or prompt name, or its resource URI.
func target(req *engine.Request) string {
	if s := str(req.Params, "name"); s != "" {
		return s
	}
	return str(req.Params, "uri")
}

// Seal seals data (any JSON value; a json.RawMessage as is) for the request req.
func (s *Sealer) Seal(req *engine.Request, data any) (string, error) {
	raw, err := rawJSON(data)
	if err != nil {
		return "", err
	}
	body, err := json.Marshal(sealed{Data: raw, Method: req.Method, Target: target(req), Audience: s.Audience, Expiry: s.now().Add(s.TTL).UnixMilli()})
	if err != nil {
		return "", err
	}
	mac := hmac.New(sha256.New, s.keys[0])
	mac.Write(body)
	token := base64.RawURLEncoding.EncodeToString(body) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
	if len(token) > s.MaxLength {
		return "", errors.New("session: sealed requestState over MaxLength")
	}
	return token, nil
}

// Open returns the data sealed into state, checking it for the request req.
func (s *Sealer) Open(req *engine.Request, state string) (json.RawMessage, error) {
	fail := func(reason string) error {
		return errorWithData(jsonrpc.CodeInvalidParams, "Invalid requestState for "+req.Method+": "+reason, newObject().str("reason", reason).bytes())
	}
	if len(state) > s.MaxLength {
		return nil, fail("too_large")
	}
	bodyText, macText, ok := strings.Cut(state, ".")
	if !ok {
		return nil, fail("malformed")
	}
	body, err1 := base64.RawURLEncoding.DecodeString(bodyText)
	sum, err2 := base64.RawURLEncoding.DecodeString(macText)
	if err1 != nil || err2 != nil {
		return nil, fail("malformed")
	}
	valid := false
	for _, k := range s.keys {
		mac := hmac.New(sha256.New, k)
		mac.Write(body)
		if hmac.Equal(mac.Sum(nil), sum) {
			valid = true
		}
	}
	if !valid {
		return nil, fail("tampered")
	}
	var p sealed
	if err := json.Unmarshal(body, &p); err != nil || !wire.Valid(p.Data) {
		return nil, fail("malformed")
	}
	switch {
	case p.Audience != s.Audience:
		return nil, fail("audience")
	case p.Expiry < s.now().UnixMilli():
		return nil, fail("expired")
	case p.Method != req.Method:
		return nil, fail("method")
	case p.Target != target(req):
		return nil, fail("request")
	}
	return p.Data, nil
}
