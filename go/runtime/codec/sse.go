package codec

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
)

// Event is one server-sent event (WHATWG HTML, "Server-sent events": event stream
// interpretation). Data joins the event's data lines with LF.
type Event struct {
	// ID is the event's id field ("" when it had none; LastEventID keeps the stream's).
	ID    string
	Event string
	Data  string
	// Retry is the reconnection time the event set, in milliseconds (-1: none).
	Retry int
}

// DefaultMaxEventBytes is the default largest event (16 MiB).
const DefaultMaxEventBytes = 16 << 20

// ErrEventTooLarge is an event over the reader's limit.
var ErrEventTooLarge = errors.New("codec: server-sent event over the size limit")

// SSEReader parses an event stream: lines end in CR LF, LF or CR; a blank line dispatches the
// event; comments (':') are skipped; a leading byte order mark is dropped.
type SSEReader struct {
	r           *bufio.Reader
	max         int
	lastEventID string
	started     bool
	pendingCR   bool
}

// NewSSEReader reads events of at most maxEventBytes (0: DefaultMaxEventBytes) from r.
func NewSSEReader(r io.Reader, maxEventBytes int) *SSEReader {
	if maxEventBytes <= 0 {
		maxEventBytes = DefaultMaxEventBytes
	}
	return &SSEReader{r: bufio.NewReaderSize(r, 16<<10), max: maxEventBytes}
}

// LastEventID is the stream's last event ID (what a reconnection sends as Last-Event-ID).
func (s *SSEReader) LastEventID() string { return s.lastEventID }

// line reads one line without its terminator.
func (s *SSEReader) line(limit int) ([]byte, error) {
	var out []byte
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			if len(out) > 0 && err == io.EOF {
				// a last line without terminator is not dispatched (the stream ended)
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
		if s.pendingCR {
			s.pendingCR = false
			if c == '\n' {
				continue
			}
		}
		switch c {
		case '\n':
			return out, nil
		case '\r':
			s.pendingCR = true
			return out, nil
		}
		if len(out) >= limit {
			return nil, ErrEventTooLarge
		}
		out = append(out, c)
	}
}

// Next returns the next event: every one that had a field, those without data included (a
// priming event carries an id and empty data). io.EOF at the end of the stream;
// io.ErrUnexpectedEOF when it ended inside an event.
func (s *SSEReader) Next() (Event, error) {
	ev := Event{Retry: -1}
	var data []byte
	hasData, hasField := false, false
	size := 0
	for {
		line, err := s.line(s.max - size)
		if err != nil {
			return Event{}, err
		}
		if !s.started {
			s.started = true
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
		}
		size += len(line) + 1
		if len(line) == 0 {
			if !hasField {
				continue
			}
			ev.Data = string(data)
			ev.ID = s.lastEventID
			return ev, nil
		}
		if line[0] == ':' {
			continue
		}
		name, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			name, value = line[:i], line[i+1:]
			value = bytes.TrimPrefix(value, []byte(" "))
		}
		switch string(name) {
		case "data":
			hasField = true
			if hasData {
				data = append(data, '\n')
			}
			data = append(data, value...)
			hasData = true
		case "event":
			hasField = true
			ev.Event = string(value)
		case "id":
			hasField = true
			if bytes.IndexByte(value, 0) < 0 {
				s.lastEventID = string(value)
			}
		case "retry":
			if n, err := strconv.Atoi(string(value)); err == nil && n >= 0 && isDigits(value) {
				hasField = true
				ev.Retry = n
			}
		}
	}
}

func isDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}

// AppendEvent appends one event: `id:` when id is set, `event:` when event is, one `data:`
// line per line of data, and the blank line that dispatches it.
func AppendEvent(b []byte, id, event string, data []byte) []byte {
	if id != "" {
		b = append(b, "id: "...)
		b = append(b, id...)
		b = append(b, '\n')
	}
	if event != "" {
		b = append(b, "event: "...)
		b = append(b, event...)
		b = append(b, '\n')
	}
	for {
		i := bytes.IndexAny(data, "\r\n")
		b = append(b, "data: "...)
		if i < 0 {
			b = append(b, data...)
			b = append(b, '\n')
			break
		}
		b = append(b, data[:i]...)
		b = append(b, '\n')
		if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i++
		}
		data = data[i+1:]
	}
	return append(b, '\n')
}

// AppendRetry appends an event that only sets the reconnection time (ms).
func AppendRetry(b []byte, ms int) []byte {
	b = append(b, "retry: "...)
	b = strconv.AppendInt(b, int64(ms), 10)
	return append(b, '\n', '\n')
}

// AppendComment appends a comment line (a keep-alive).
func AppendComment(b []byte, text string) []byte {
	b = append(b, ':')
	if text != "" {
		b = append(b, ' ')
		b = append(b, text...)
	}
	return append(b, '\n', '\n')
}

// SetLastEventID sets the stream's last event ID (a reconnected stream goes on from the one
// before).
func (s *SSEReader) SetLastEventID(id string) { s.lastEventID = id }
