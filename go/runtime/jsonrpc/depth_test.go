package jsonrpc

import (
	"strings"
	"testing"

	"mcpgen.dev/runtime/wire"
)

// Issue 44: a peer's JSON nested deeper than wire.MaxDepth (512) is a parse error (-32700, no
// id), found by the one scan every message gets, for a 4 MiB body of either shape; 512 levels
// parse.
func TestDecodeRefusesJSONNestedDeeperThan512(t *testing.T) {
	if wire.MaxDepth != 512 {
		t.Fatalf("wire.MaxDepth = %d, want 512 (as the TypeScript and Python runtimes)", wire.MaxDepth)
	}
	const mib4 = 4 << 20
	objects := func(depth int) string {
		return strings.Repeat(`{"a":`, depth-1) + "{}" + strings.Repeat("}", depth-1)
	}
	arrays := func(depth int) string { return strings.Repeat("[", depth) + strings.Repeat("]", depth) }
	for name, body := range map[string]string{
		"[[[…]]] 4 MiB":         arrays(mib4/2 - 1),
		`{"a":{"a":…}} 4 MiB`:   objects(mib4/6 - 1),
		"513 levels of arrays":  arrays(513),
		`513 levels, in params`: `{"jsonrpc":"2.0","id":1,"method":"ping","params":` + objects(512) + `}`,
	} {
		m, err := Decode([]byte(body))
		e, ok := err.(*Error)
		if !ok || e.Code != CodeParseError || !strings.Contains(e.Message, "JSON nested deeper than 512 levels") {
			t.Errorf("%s: got %v, want -32700 naming the nesting", name, err)
		}
		if m.AnswerID().IsValid() {
			t.Errorf("%s: an answer id", name)
		}
	}
	// 512 levels in all: parsed (then judged as a message)
	m, err := Decode([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping","params":` + objects(511) + `}`))
	if err != nil || m.Kind != KindRequest {
		t.Fatalf("512 levels: %v", err)
	}
}

// The cost of refusing a 4 MiB nested body, per message (go test -bench Depth ./jsonrpc).
func BenchmarkDecodeDeep(b *testing.B) {
	body := []byte(strings.Repeat("[", 2<<20) + strings.Repeat("]", 2<<20))
	small := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + strings.Repeat("x", 100) + `"}}}`)
	b.Run("deep4MiB", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			_, _ = Decode(body)
		}
	})
	b.Run("small200B", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			_, _ = Decode(small)
		}
	})
}
