package jsonrpc

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzDecode checks Decode against encoding/json as the model: -32700 exactly when the input
// is not JSON in UTF-8 (messages are UTF-8; encoding/json lets invalid bytes in strings pass); for a JSON object, the kind, the method and the id it finds are the ones the
// object's members (as encoding/json reads them) give.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}`,
		`{"jsonrpc":"2.0","id":"a","result":{}}`,
		`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"m"}}`,
		`{"jsonrpc":"2.0","id":null,"method":"x"}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"x"}`,
		`{"jsonrpc":"2.0","id":1,"method":"x","params":[1]}`,
		`{"jsonrpc":"2.0","id":1,"method":"x","params":3}`,
		`{"jsonrpc":"1.0","id":1,"method":"x"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"x"}]`,
		`{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}`,
		`{"jsonrpc":"2.0","id":1e2,"method":"x"}`,
		`{"jsonrpc":"2.0","id":1,"\u006dethod":"x"}`,
		`{"jsonrpc":"2.0","id":1,"meth`,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\\u00e9\\ud83d\\ude00\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Decode(data)
		valid := json.Valid(data) && utf8.Valid(data)
		var code int64
		if err != nil {
			e, ok := err.(*Error)
			if !ok {
				t.Fatalf("error %T %v is no *Error", err, err)
			}
			code = e.Code
		}
		if (code == CodeParseError) == valid {
			t.Fatalf("json.Valid %v, but error %v", valid, err)
		}
		var members map[string]json.RawMessage
		if !valid || json.Unmarshal(data, &members) != nil || members == nil {
			if valid && err == nil {
				t.Fatalf("not a JSON object, decoded as %+v", m)
			}
			return
		}
		var version string
		_ = json.Unmarshal(members["jsonrpc"], &version)
		_, hasID := members["id"]
		_, hasMethod := members["method"]
		_, hasResult := members["result"]
		_, hasError := members["error"]
		var want Kind
		switch {
		case hasMethod && hasID:
			want = KindRequest
		case hasMethod:
			want = KindNotification
		case hasResult && !hasError:
			want = KindResult
		case hasError && !hasResult:
			want = KindError
		}
		if m.Kind != want {
			t.Fatalf("kind %v, want %v (members %v)", m.Kind, want, members)
		}
		if err != nil {
			return
		}
		if version != "2.0" {
			t.Fatalf("jsonrpc %q accepted", version)
		}
		if want == KindRequest || want == KindNotification {
			var method string
			if json.Unmarshal(members["method"], &method) != nil || method != m.Method {
				t.Fatalf("method %q, want %s", m.Method, members["method"])
			}
		}
		if hasID {
			var n int64
			var s string
			switch {
			case json.Unmarshal(members["id"], &n) == nil:
				if got, ok := m.ID.Int(); !ok || got != n {
					t.Fatalf("id %+v, want %d", m.ID, n)
				}
			case json.Unmarshal(members["id"], &s) == nil:
				if m.ID != StringID(s) {
					t.Fatalf("id %+v, want %q", m.ID, s)
				}
			}
		}
	})
}
