package sdk_test

import (
	"bytes"
	"encoding/json"
	"testing"

	mcp "mcpgen.dev/reference/gen/mcp20251125"
	mcp2 "mcpgen.dev/reference/gen/mcp20260728"
)

// The generated decoders' fuzz targets: what a decoder accepts is JSON that encodes back to
// JSON the decoder accepts again, encoding to the same bytes (a decoded value loses nothing its
// encoding keeps); and it never accepts what is not JSON. `go test` runs the seeds; `go test
// -fuzz` searches (short in npm test, long in `npm run fuzz:go`).

type codec interface {
	UnmarshalJSON([]byte) error
	AppendJSON([]byte) ([]byte, error)
}

func roundTrip[T any, P interface {
	*T
	codec
}](t *testing.T, data []byte) {
	var v T
	if err := P(&v).UnmarshalJSON(data); err != nil {
		return
	}
	if !json.Valid(data) {
		t.Fatalf("accepted what is not JSON: %q", data)
	}
	first, err := P(&v).AppendJSON(nil)
	if err != nil {
		t.Fatalf("decoded %q, encoding failed: %v", data, err)
	}
	if !json.Valid(first) {
		t.Fatalf("encoded %q as invalid JSON %q", data, first)
	}
	var again T
	if err := P(&again).UnmarshalJSON(first); err != nil {
		t.Fatalf("decoded %q, encoded %q, which does not decode: %v", data, first, err)
	}
	second, err := P(&again).AppendJSON(nil)
	if err != nil || !bytes.Equal(first, second) {
		t.Fatalf("encoding not stable:\n%s\n%s (%v)", first, second, err)
	}
}

func seeds(f *testing.F, s ...string) {
	for _, x := range s {
		f.Add([]byte(x))
	}
}

func FuzzCallToolRequestParams(f *testing.F) {
	seeds(f,
		`{"name":"echo","arguments":{"text":"hi ☃"},"_meta":{"progressToken":"p"}}`,
		`{"name":"x","task":{"ttl":1000},"extra":[1,2.5e3,null]}`,
		`{"name":"\u0000\ud83d\ude00","arguments":{}}`,
	)
	f.Fuzz(func(t *testing.T, data []byte) { roundTrip[mcp.CallToolRequestParams](t, data) })
}

func FuzzCallToolResult(f *testing.F) {
	seeds(f,
		`{"content":[{"type":"text","text":"a"},{"type":"image","data":"AA==","mimeType":"image/png"}],"isError":false}`,
		`{"content":[{"type":"resource","resource":{"uri":"x:y","text":"t"}}],"structuredContent":{"a":1}}`,
		`{"content":[{"type":"resource_link","uri":"file:///a","name":"a","annotations":{"priority":0.5}}]}`,
	)
	f.Fuzz(func(t *testing.T, data []byte) { roundTrip[mcp.CallToolResult](t, data) })
}

func FuzzStatelessCallToolResult(f *testing.F) {
	seeds(f,
		`{"resultType":"complete","content":[{"type":"text","text":"a"}]}`,
		`{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create","params":{"mode":"form","message":"m","requestedSchema":{"type":"object","properties":{}}}}},"requestState":"s"}`,
	)
	f.Fuzz(func(t *testing.T, data []byte) { roundTrip[mcp2.CallToolResult](t, data) })
}

func FuzzTool(f *testing.F) {
	seeds(f,
		`{"name":"t","inputSchema":{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},"annotations":{"readOnlyHint":true}}`,
		`{"name":"t","inputSchema":{"type":"object"},"outputSchema":{"type":"object"},"icons":[{"src":"https://x/i.png"}]}`,
	)
	f.Fuzz(func(t *testing.T, data []byte) { roundTrip[mcp.Tool](t, data) })
}
