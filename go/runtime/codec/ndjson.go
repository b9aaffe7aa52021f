// Package codec frames messages on byte streams: newline-delimited JSON (the stdio transport)
// and server-sent events (Streamable HTTP).
//
// The ndjson reader splits on the byte 0x0A only and hands out whole lines, so how the stream's
// reads are chunked never changes what comes out: a multi-byte character or a CR LF pair cut
// between two reads is joined again. A CR before the LF is JSON whitespace and stays. Blank and
// whitespace-only lines are skipped. Spec: 2025-11-25 basic/transports (stdio), 2026-07-28
// basic/transports/stdio: "Messages are delimited by newlines, and MUST NOT contain embedded
// newlines"; messages are UTF-8.
package codec

import (
	"errors"
	"fmt"
	"io"
)

// DefaultMaxLineBytes is the default largest line (16 MiB, the LF not counted).
const DefaultMaxLineBytes = 16 << 20

// PeekBytes is how much of each end of an over-long line LineTooLongError keeps.
const PeekBytes = 4096

// ErrTruncated is returned once when the stream ends inside a line: its bytes are dropped,
// never parsed.
var ErrTruncated = errors.New("codec: the stream ended with an incomplete frame")

// LineTooLongError is a line over the limit. The line is skipped and reading goes on with the
// next one; Head and Tail hold up to PeekBytes of its first and last bytes (where a message's
// id usually is).
type LineTooLongError struct {
	Size  int
	Limit int
	Head  []byte
	Tail  []byte
}

func (e *LineTooLongError) Error() string {
	return fmt.Sprintf("codec: a line of %d bytes is over the limit of %d", e.Size, e.Limit)
}

// LineReader reads the lines of newline-delimited JSON from a stream.
type LineReader struct {
	r          io.Reader
	buf        []byte
	start, end int
	max        int
	err        error
}

// NewLineReader reads lines of at most maxLineBytes (0: DefaultMaxLineBytes) from r.
func NewLineReader(r io.Reader, maxLineBytes int) *LineReader {
	if maxLineBytes <= 0 {
		maxLineBytes = DefaultMaxLineBytes
	}
	size := 64 << 10
	if size > maxLineBytes+1 {
		size = maxLineBytes + 1
	}
	return &LineReader{r: r, buf: make([]byte, size), max: maxLineBytes}
}

// Next returns the next line that is not blank, without its LF. The line is valid until the
// next call. Errors: *LineTooLongError (then call Next again), ErrTruncated (the stream ended
// inside a line; the next call returns io.EOF), io.EOF, or the stream's read error.
func (l *LineReader) Next() ([]byte, error) {
	for {
		if i := indexLF(l.buf[l.start:l.end]); i >= 0 {
			line := l.buf[l.start : l.start+i]
			l.start += i + 1
			if len(line) > l.max {
				return nil, &LineTooLongError{Size: len(line), Limit: l.max, Head: head(line), Tail: tail(line)}
			}
			if isBlank(line) {
				continue
			}
			return line, nil
		}
		if l.end-l.start > l.max {
			return nil, l.discard()
		}
		if l.err != nil {
			return nil, l.finish()
		}
		l.fill()
	}
}

// fill reads more into the buffer, moving the unfinished line to its front or growing it.
func (l *LineReader) fill() {
	if l.start > 0 {
		n := copy(l.buf, l.buf[l.start:l.end])
		l.start, l.end = 0, n
	}
	if l.end == len(l.buf) {
		size := 2 * len(l.buf)
		if size > l.max+1 {
			size = l.max + 1
		}
		grown := make([]byte, size)
		copy(grown, l.buf[:l.end])
		l.buf = grown
	}
	n, err := l.r.Read(l.buf[l.end:])
	l.end += n
	if err != nil {
		l.err = err
	}
}

// finish reports the end of the stream: a partial line is dropped (ErrTruncated once).
func (l *LineReader) finish() error {
	rest := l.buf[l.start:l.end]
	l.start, l.end = 0, 0
	if len(rest) > 0 && !isBlank(rest) {
		if l.err == io.EOF {
			return ErrTruncated
		}
	}
	return l.err
}

// discard skips the rest of a line that is over the limit, keeping its two ends.
func (l *LineReader) discard() error {
	e := &LineTooLongError{Limit: l.max, Head: head(l.buf[l.start:l.end])}
	size := 0
	blank := true
	tail := make([]byte, 0, PeekBytes)
	keepTail := func(p []byte) {
		if len(p) >= PeekBytes {
			tail = append(tail[:0], p[len(p)-PeekBytes:]...)
			return
		}
		if over := len(tail) + len(p) - PeekBytes; over > 0 {
			tail = append(tail[:0], tail[over:]...)
		}
		tail = append(tail, p...)
	}
	for {
		chunk := l.buf[l.start:l.end]
		if i := indexLF(chunk); i >= 0 {
			size += i
			keepTail(chunk[:i])
			l.start += i + 1
			e.Size, e.Tail = size, tail
			return e
		}
		size += len(chunk)
		blank = blank && isBlank(chunk)
		keepTail(chunk)
		l.start, l.end = 0, 0
		if l.err != nil {
			// the stream ended inside the line: a partial line is dropped as in finish
			if l.err == io.EOF && !blank {
				return ErrTruncated
			}
			return l.err
		}
		n, err := l.r.Read(l.buf)
		l.end = n
		if err != nil {
			l.err = err
		}
	}
}

func indexLF(b []byte) int {
	for i, c := range b {
		if c == '\n' {
			return i
		}
	}
	return -1
}

func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// head and tail copy up to PeekBytes of each end of b.
func head(b []byte) []byte { return append([]byte(nil), b[:min(len(b), PeekBytes)]...) }

func tail(b []byte) []byte { return append([]byte(nil), b[max(0, len(b)-PeekBytes):]...) }
