package cases

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mcpgen.dev/runtime/stdio"
)

// A regular file on stdin (`server < many.jsonl`) and a regular file on stdout: the process's
// stdio transport (stdio.Stdin) answers every request read before the end of its input, a large
// argument among them, before the server ends.
func TestStdinRegularFileEveryRequestAnswered(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("x", 1_000_000)
	var in strings.Builder
	in.WriteString(initialize)
	const calls = 2000
	for i := 2; i < 2+calls; i++ {
		text := fmt.Sprintf("call %d", i)
		if i == 1000 {
			text = big
		}
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":%q}}}`+"\n", i, text)
	}
	inPath, outPath := filepath.Join(dir, "many.jsonl"), filepath.Join(dir, "out.jsonl")
	must(t, os.WriteFile(inPath, []byte(in.String()), 0o600))
	stdin, err := os.Open(inPath)
	must(t, err)
	defer stdin.Close()
	stdout, err := os.Create(outPath)
	must(t, err)
	defer stdout.Close()
	saved := [2]*os.File{os.Stdin, os.Stdout}
	os.Stdin, os.Stdout = stdin, stdout
	t.Cleanup(func() { os.Stdin, os.Stdout = saved[0], saved[1] })

	srv := server(t)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(context.Background(), stdio.Stdin(stdio.Options{})) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the server did not end after its input did")
	}
	os.Stdin, os.Stdout = saved[0], saved[1]
	raw, err := os.ReadFile(outPath)
	must(t, err)
	seen := map[int]string{}
	for _, line := range strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n") {
		var r struct {
			ID     int
			Result *struct{ Content []struct{ Text string } }
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("not JSON: %.200q", line)
		}
		text := ""
		if r.Result != nil && len(r.Result.Content) > 0 {
			text = r.Result.Content[0].Text
		}
		seen[r.ID] = text
	}
	if len(seen) != calls+1 {
		t.Fatalf("%d replies, want %d (initialize and every tools/call)", len(seen), calls+1)
	}
	if seen[1000] != big || seen[1001] != "call 1001" || seen[calls+1] != fmt.Sprintf("call %d", calls+1) {
		t.Errorf("echoed texts: id 1000 %d bytes, id 1001 %q, id %d %q", len(seen[1000]), seen[1001], calls+1, seen[calls+1])
	}
}
