package codec

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// chunks is a reader that returns the given pieces one Read at a time.
type chunks struct{ parts [][]byte }

func (c *chunks) Read(p []byte) (int, error) {
	for len(c.parts) > 0 && len(c.parts[0]) == 0 {
		c.parts = c.parts[1:]
	}
	if len(c.parts) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.parts[0])
	c.parts[0] = c.parts[0][n:]
	return n, nil
}

// split cuts data at the offsets.
func split(data []byte, at ...int) [][]byte {
	var out [][]byte
	prev := 0
	for _, a := range at {
		out = append(out, data[prev:a])
		prev = a
	}
	return append(out, data[prev:])
}

func bytesOneByOne(data []byte) [][]byte {
	out := make([][]byte, len(data))
	for i := range data {
		out[i] = data[i : i+1]
	}
	return out
}

func readAll(t *testing.T, r io.Reader, max int) (lines []string, errs []error) {
	t.Helper()
	lr := NewLineReader(r, max)
	for {
		line, err := lr.Next()
		if err == io.EOF {
			return lines, errs
		}
		if err != nil {
			errs = append(errs, err)
			if errors.Is(err, ErrTruncated) {
				continue
			}
			var tl *LineTooLongError
			if !errors.As(err, &tl) {
				return lines, errs
			}
			continue
		}
		lines = append(lines, string(line))
	}
}

func TestLineReaderReadsEveryLineWhateverTheChunks(t *testing.T) {
	text := []byte("{\"a\":1}\n\n  \t\r\n{\"b\":\"x\"}\r\n{\"c\":[1,2]}\n")
	want := []string{`{"a":1}`, "{\"b\":\"x\"}\r", `{"c":[1,2]}`}
	for name, parts := range map[string][][]byte{
		"whole":     {text},
		"bytes":     bytesOneByOne(text),
		"cr|lf":     split(text, bytes.IndexByte(text, '\r')+1),
		"mid-value": split(text, 3, 17, 30),
	} {
		lines, errs := readAll(t, &chunks{parts: parts}, 0)
		if len(errs) != 0 || strings.Join(lines, "|") != strings.Join(want, "|") {
			t.Errorf("%s: lines %q errors %v", name, lines, errs)
		}
	}
}

func TestLineReaderLimitAppliesToWholeLines(t *testing.T) {
	long := "{\"id\":3,\"x\":\"" + strings.Repeat("a", 100) + "\"}"
	text := []byte(long + "\n{\"ok\":true}\n")
	for name, parts := range map[string][][]byte{
		"whole": {text},
		"bytes": bytesOneByOne(text),
		"split": split(text, 40),
	} {
		lines, errs := readAll(t, &chunks{parts: parts}, 50)
		var tl *LineTooLongError
		if len(errs) != 1 || !errors.As(errs[0], &tl) || tl.Size != len(long) || !bytes.HasPrefix(tl.Head, []byte(`{"id":3`)) {
			t.Fatalf("%s: errors %v", name, errs)
		}
		if len(lines) != 1 || lines[0] != `{"ok":true}` {
			t.Fatalf("%s: lines %q", name, lines)
		}
	}
	// exactly at the limit is accepted, one over is not
	lines, errs := readAll(t, strings.NewReader(strings.Repeat("1", 50)+"\n"), 50)
	if len(errs) != 0 || len(lines) != 1 {
		t.Fatal(lines, errs)
	}
}

func TestLineReaderTruncatedFrame(t *testing.T) {
	lines, errs := readAll(t, strings.NewReader("{\"a\":1}\n{\"jsonrpc\":\"2.0\",\"id\":1,"), 0)
	if len(lines) != 1 || len(errs) != 1 || !errors.Is(errs[0], ErrTruncated) {
		t.Fatal(lines, errs)
	}
	// a blank tail is no frame
	lines, errs = readAll(t, strings.NewReader("{\"a\":1}\n  "), 0)
	if len(lines) != 1 || len(errs) != 0 {
		t.Fatal(lines, errs)
	}
}

func TestLineReaderLargeLineGrowsTheBuffer(t *testing.T) {
	big := "{\"text\":\"" + strings.Repeat("a", 5<<20) + "\"}"
	data := []byte(big + "\n")
	var parts [][]byte
	for i := 0; i < len(data); i += 65536 {
		parts = append(parts, data[i:min(i+65536, len(data))])
	}
	for name, p := range map[string][][]byte{"one": {data}, "64k": parts, "two": split(data, 4194305)} {
		lines, errs := readAll(t, &chunks{parts: p}, 0)
		if len(errs) != 0 || len(lines) != 1 || len(lines[0]) != len(big) {
			t.Fatalf("%s: %d lines, errors %v", name, len(lines), errs)
		}
	}
}

func TestSSEReader(t *testing.T) {
	stream := "\xef\xbb\xbf: comment\nid: 1_1\ndata: \n\nid: 1_2\nevent: message\ndata: {\"a\":\r\ndata: 1}\r\n\r\nretry: 500\n\ndata: last\rid: x\x00y\r\r"
	for name, parts := range map[string][][]byte{"whole": {[]byte(stream)}, "bytes": bytesOneByOne([]byte(stream))} {
		r := NewSSEReader(&chunks{parts: parts}, 0)
		var got []Event
		for {
			ev, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			got = append(got, ev)
		}
		want := []Event{
			{ID: "1_1", Data: "", Retry: -1},
			{ID: "1_2", Event: "message", Data: "{\"a\":\n1}", Retry: -1},
			{ID: "1_2", Retry: 500},
			{ID: "1_2", Data: "last", Retry: -1},
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %+v", name, got)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s: event %d = %+v, want %+v", name, i, got[i], want[i])
			}
		}
		if r.LastEventID() != "1_2" {
			t.Errorf("%s: last event id %q", name, r.LastEventID())
		}
	}
}

func TestSSEReaderLimit(t *testing.T) {
	r := NewSSEReader(strings.NewReader("data: "+strings.Repeat("x", 100)+"\n\n"), 50)
	if _, err := r.Next(); !errors.Is(err, ErrEventTooLarge) {
		t.Fatal(err)
	}
}

func TestAppendEventRoundTrips(t *testing.T) {
	b := AppendEvent(nil, "7", "", []byte(`{"jsonrpc":"2.0"}`))
	b = AppendEvent(b, "", "x", []byte("two\r\nlines\rhere"))
	b = AppendRetry(b, 1000)
	b = AppendComment(b, "keep-alive")
	r := NewSSEReader(bytes.NewReader(b), 0)
	first, _ := r.Next()
	second, _ := r.Next()
	third, _ := r.Next()
	if first.ID != "7" || first.Data != `{"jsonrpc":"2.0"}` || second.Data != "two\nlines\nhere" || second.Event != "x" || third.Retry != 1000 {
		t.Fatalf("%+v %+v %+v", first, second, third)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatal(err)
	}
}
