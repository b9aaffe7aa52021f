package codec

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// The codecs' fuzz targets: `go test` runs their seeds; `go test -fuzz=FuzzX` searches (a short
// run in npm test, a long one in `npm run fuzz:go`).

// chunked cuts data into pieces of at most size bytes (size < 1: one byte each).
func chunked(data []byte, size int) [][]byte {
	if size < 1 {
		size = 1
	}
	var out [][]byte
	for len(data) > size {
		out = append(out, data[:size])
		data = data[size:]
	}
	return append(out, data)
}

// ndjsonModel is what the line reader must produce: the stream split on LF, lines of only
// spaces, tabs and CRs skipped, lines over max reported as too long (their size), and an
// unfinished last line that is not blank reported as truncated.
func ndjsonModel(data []byte, max int) (lines []string, tooLong []int, truncated bool) {
	parts := bytes.Split(data, []byte{'\n'})
	last := parts[len(parts)-1]
	for _, p := range parts[:len(parts)-1] {
		switch {
		case len(p) > max:
			tooLong = append(tooLong, len(p))
		case !isBlank(p):
			lines = append(lines, string(p))
		}
	}
	return lines, tooLong, len(last) > 0 && !isBlank(last)
}

func FuzzLineReader(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n\n  \t\r\n{\"b\":\"x\"}\r\n{\"c\":[1,2]}\n"), 3, 0)
	f.Add([]byte("{\"id\":1,\"x\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}\n{\"ok\":1}\n"), 7, 20)
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n{\"trunc"), 1, 0)
	f.Add([]byte("\xe2\x98\x83\n\xe2\x98"), 2, 4)
	f.Fuzz(func(t *testing.T, data []byte, chunk, max int) {
		if max <= 0 || max > 1<<16 {
			max = DefaultMaxLineBytes
		}
		wantLines, wantLong, wantTrunc := ndjsonModel(data, max)
		lr := NewLineReader(&chunks{parts: chunked(data, chunk%97)}, max)
		var lines []string
		var long []int
		trunc := false
		for {
			line, err := lr.Next()
			if err == io.EOF {
				break
			}
			var tl *LineTooLongError
			switch {
			case errors.As(err, &tl):
				long = append(long, tl.Size)
				continue
			case errors.Is(err, ErrTruncated):
				trunc = true
				continue
			case err != nil:
				t.Fatalf("unexpected error %v", err)
			}
			if bytes.IndexByte(line, '\n') >= 0 {
				t.Fatalf("a line holds a LF: %q", line)
			}
			lines = append(lines, string(line))
		}
		if strings.Join(lines, "\x00") != strings.Join(wantLines, "\x00") || len(lines) != len(wantLines) {
			t.Fatalf("lines %q, want %q", lines, wantLines)
		}
		if len(long) != len(wantLong) {
			t.Fatalf("too long %v, want %v", long, wantLong)
		}
		for i := range long {
			if long[i] != wantLong[i] {
				t.Fatalf("too long %v, want %v", long, wantLong)
			}
		}
		if trunc != wantTrunc {
			t.Fatalf("truncated %v, want %v", trunc, wantTrunc)
		}
	})
}

func readEvents(t *testing.T, r io.Reader, max int) ([]Event, error) {
	sr := NewSSEReader(r, max)
	var out []Event
	for {
		ev, err := sr.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, ev)
	}
}

// FuzzSSEReader: whatever the chunking of a stream, the same events (or the same error) come
// out, and no field holds a line break.
func FuzzSSEReader(f *testing.F) {
	f.Add([]byte("\xef\xbb\xbf: comment\nid: 1_1\ndata: \n\nid: 1_2\nevent: message\ndata: {\"a\":\r\ndata: 1}\r\n\r\nretry: 500\n\ndata: last\rid: x\x00y\r\r"), 3)
	f.Add([]byte("data:a\ndata:b\n\nid:7\ndata\n\n"), 1)
	f.Add([]byte("retry: 12x\nevent: e\n\n:\n\ndata: \xe2\x98\x83\r\n\r\n"), 2)
	f.Fuzz(func(t *testing.T, data []byte, chunk int) {
		whole, errWhole := readEvents(t, bytes.NewReader(data), 1<<16)
		parts, errParts := readEvents(t, &chunks{parts: chunked(data, chunk%61)}, 1<<16)
		if (errWhole == nil) != (errParts == nil) {
			t.Fatalf("errors differ: %v / %v", errWhole, errParts)
		}
		if len(whole) != len(parts) {
			t.Fatalf("%d events whole, %d in chunks", len(whole), len(parts))
		}
		for i := range whole {
			if whole[i] != parts[i] {
				t.Fatalf("event %d: %+v whole, %+v in chunks", i, whole[i], parts[i])
			}
			ev := whole[i]
			if strings.ContainsAny(ev.ID+ev.Event, "\r\n") {
				t.Fatalf("event %d: a field holds a line break: %+v", i, ev)
			}
			if strings.Contains(ev.Data, "\r") {
				t.Fatalf("event %d: data keeps a CR: %q", i, ev.Data)
			}
		}
	})
}

// FuzzAppendEvent: an event written by AppendEvent reads back with its id, event and data
// (line breaks of the data as LF).
func FuzzAppendEvent(f *testing.F) {
	f.Add("7", "message", []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	f.Add("", "x", []byte("two\r\nlines\rhere\n"))
	f.Add("1_2", "", []byte(""))
	f.Fuzz(func(t *testing.T, id, event string, data []byte) {
		if strings.ContainsAny(id+event, "\r\n\x00") || strings.ContainsAny(event, ":") {
			t.Skip("id and event are single-line names")
		}
		stream := AppendEvent(nil, id, event, data)
		got, err := readEvents(t, bytes.NewReader(stream), 1<<20)
		if err != nil {
			t.Fatalf("%q: %v", stream, err)
		}
		wantData := strings.ReplaceAll(strings.ReplaceAll(string(data), "\r\n", "\n"), "\r", "\n")
		if len(got) != 1 {
			t.Fatalf("%q: %d events", stream, len(got))
		}
		if got[0].Data != wantData || got[0].Event != event || got[0].ID != id {
			t.Fatalf("%q read back as %+v (data want %q)", stream, got[0], wantData)
		}
	})
}
