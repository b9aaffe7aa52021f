package cases

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// badLine is one entry of test/fixtures/jsonrpc-bad-lines.json, the input set every runtime's
// tests share: a line a peer may send and the answer it must get (nil: none).
type badLine struct {
	Name   string
	Line   string
	Answer *struct {
		Code   int
		ID     json.RawMessage
		Result json.RawMessage
	}
}

func badLines(t *testing.T) []badLine {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "test", "fixtures", "jsonrpc-bad-lines.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Lines []badLine }
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Lines
}

// checkError says what is wrong with an error answer to l (members: the answer's JSON members):
// its code, and the id it must carry (JSON-RPC 2.0 section 5: the request's id when it could be
// read) or the id member it must not have.
func checkError(l badLine, members map[string]json.RawMessage, code int) string {
	var e struct{ Code int }
	_ = json.Unmarshal(members["error"], &e)
	id, has := members["id"]
	switch {
	case members["error"] == nil:
		return "not an error"
	case e.Code != code:
		return "code " + string(members["error"])
	case l.Answer.ID == nil && has:
		return "an id member " + string(id) + " (none can be read)"
	case l.Answer.ID != nil && string(id) != string(l.Answer.ID):
		return "id " + string(id) + ", want " + string(l.Answer.ID)
	}
	return ""
}

// The shared bad-line set over stdio, all lines in one write after the handshake and a ping
// after them: each bad line gets exactly one answer, -32700 with a parse message for what is
// not JSON, -32600 carrying the id when it can be read; the answers without id come in the
// order of their lines (only their order correlates them), and every valid request is served.
func TestBadLinesStdio(t *testing.T) {
	lines := badLines(t)
	var in strings.Builder
	in.WriteString(initialize)
	for _, l := range lines {
		in.WriteString(l.Line + "\n")
	}
	in.WriteString(`{"jsonrpc":"2.0","id":"last","method":"ping"}` + "\n")
	got := written(t, in.String())
	var errs []reply
	results := map[string]int{}
	for _, r := range got {
		if r.members["error"] != nil {
			errs = append(errs, r)
		} else {
			results[r.id()]++
		}
	}
	if len(results) != 3 || results["1"] != 1 || results["10"] != 1 || results[`"last"`] != 1 {
		t.Errorf("results by id: %v, want initialize's (1), the ping 10 and the ping \"last\" once each", results)
	}
	i := 0
	for _, l := range lines {
		if l.Answer == nil || l.Answer.Code == 0 {
			continue
		}
		if i >= len(errs) {
			t.Errorf("%s: no answer (%d errors for the lines before it)", l.Name, i)
			continue
		}
		if why := checkError(l, errs[i].members, l.Answer.Code); why != "" {
			t.Errorf("%s (%s): answer %d is %s: %s", l.Name, l.Line, i, why, errs[i].line)
		}
		if l.Answer.Code == -32700 && !strings.Contains(errs[i].line, "Parse error") {
			t.Errorf("%s: %s", l.Name, errs[i].line)
		}
		i++
	}
	if i != len(errs) {
		t.Errorf("%d errors for %d bad lines", len(errs), i)
	}
	// a line that is not JSON is named so, not described by what the decoder reached
	for _, r := range errs {
		if strings.Contains(r.line, "expected object") {
			t.Errorf("a parse error describes the decoder, not the input: %s", r.line)
		}
	}
}

// The same set as POST bodies: the 2025-11-25 session endpoint (in a session) and the
// 2026-07-28 dual-era endpoint answer each erroneous one 400 with the same error and id.
func TestBadLinesHTTP(t *testing.T) {
	lines := badLines(t)
	for _, rev := range []string{"2025-11-25", "2026-07-28"} {
		url, _ := endpoint(t, rev)
		headers := []string{"Accept", accept, "Content-Type", "application/json"}
		if rev == "2025-11-25" {
			headers = append(headers, "MCP-Protocol-Version", rev, "Mcp-Session-Id", session2025(t, url, rev))
		}
		for _, l := range lines {
			if l.Answer == nil {
				// a malformed notification is accepted and ignored (field case 004)
				if a := send(t, "POST", url, l.Line, headers...); a.status != 202 || a.body != "" {
					t.Errorf("%s %s: want 202 without a body: %d %s", rev, l.Name, a.status, a.body)
				}
				continue
			}
			if l.Answer.Code == 0 {
				continue
			}
			a := send(t, "POST", url, l.Line, headers...)
			var m map[string]json.RawMessage
			_ = json.Unmarshal([]byte(a.body), &m)
			if why := checkError(l, m, l.Answer.Code); a.status != 400 || why != "" {
				t.Errorf("%s %s (%s): %d %s: %s", rev, l.Name, l.Line, a.status, why, a.body)
			}
		}
	}
}
