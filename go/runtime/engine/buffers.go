package engine

import (
	"fmt"
	"log/slog"
	"sync"
)

type buffer struct{ b []byte }

var buffers = sync.Pool{New: func() any { return &buffer{b: make([]byte, 0, 1024)} }}

func getBuffer() *buffer { return buffers.Get().(*buffer) }

// putBuffer returns a buffer to the pool unless it grew large (64 KiB).
func putBuffer(b *buffer) {
	if cap(b.b) > 64<<10 {
		return
	}
	b.b = b.b[:0]
	buffers.Put(b)
}

func logPanic(method string, p any) {
	slog.Default().Error("mcpgen: a handler panicked", "method", method, "panic", fmt.Sprint(p))
}

func logHandlerError(err error) {
	slog.Default().Debug("mcpgen: a handler failed (answered -32603 Internal error)", "error", err)
}
