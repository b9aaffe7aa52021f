package stdio

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"mcpgen.dev/runtime/engine"
)

// Stdin returns the transport of a server on its own stdin and stdout (Close does not close
// them). The connection ends when stdin does, once the requests being served are answered (for
// at most opts.EndGrace, default 10 s).
func Stdin(opts Options) *Stream {
	if opts.EndGrace == 0 {
		opts.EndGrace = 10 * time.Second
	}
	return NewStream(os.Stdin, os.Stdout, nil, opts)
}

// CommandTransport is a client's stdio transport: it starts the server command and talks
// over the command's stdin and stdout; the command's stderr goes to cmd.Stderr (os.Stderr when
// nil).
type CommandTransport struct {
	Cmd *exec.Cmd
	// Options of the stream.
	Options Options
	// CloseTimeout is how long Close waits for the server to exit after closing its stdin,
	// and again after SIGTERM, before killing it (default 2 s; basic/transports, Shutdown).
	CloseTimeout time.Duration

	stream *Stream
	once   sync.Once
	exited chan struct{}
	err    error
}

// Command returns the transport that runs name with args.
func Command(name string, args ...string) *CommandTransport {
	return &CommandTransport{Cmd: exec.Command(name, args...)}
}

// Connect starts the command.
func (t *CommandTransport) Connect(ctx context.Context, conn *engine.Conn) (engine.Channel, error) {
	stdin, err := t.Cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := t.Cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if t.Cmd.Stderr == nil {
		t.Cmd.Stderr = os.Stderr
	}
	if err := t.Cmd.Start(); err != nil {
		return nil, err
	}
	t.exited = make(chan struct{})
	go func() {
		t.err = t.Cmd.Wait()
		close(t.exited)
	}()
	t.stream = NewStream(stdout, stdin, stdin.Close, t.Options)
	return t.stream.Connect(ctx, conn)
}

// Close closes the server's stdin, waits for it to exit, and ends it if it does not
// (SIGTERM, then SIGKILL).
func (t *CommandTransport) Close() error {
	var err error
	t.once.Do(func() {
		if t.stream == nil {
			return
		}
		_ = t.stream.Close()
		wait := t.CloseTimeout
		if wait <= 0 {
			wait = 2 * time.Second
		}
		select {
		case <-t.exited:
		case <-time.After(wait):
			_ = t.Cmd.Process.Signal(terminate)
			select {
			case <-t.exited:
			case <-time.After(wait):
				_ = t.Cmd.Process.Kill()
				<-t.exited
			}
		}
		var exit *exec.ExitError
		if t.err != nil && !errors.As(t.err, &exit) && !errors.Is(t.err, io.ErrClosedPipe) {
			err = t.err
		}
	})
	return err
}
