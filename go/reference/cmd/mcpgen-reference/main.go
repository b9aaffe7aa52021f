// Command mcpgen-reference is the Go reference server: the conformance fixtures
// (mcpgen.dev/reference/fixtures) on the generated Go SDK, what `mcpgen serve --lang go` runs.
//
//	mcpgen-reference [--rev REV] (--stdio | --http PORT [--host HOST])
//
// --stdio serves one client on stdin and stdout. --http PORT (0: any free port) serves
// Streamable HTTP at /mcp: 2025-11-25 sessions (negotiating the older versions) for
// --rev 2025-11-25; for 2026-07-28 (or draft) the dual-era endpoint (that revision statelessly,
// 2025-11-25 sessions to clients that send initialize). Once listening it prints
// "listening on http://HOST:PORT/mcp" on stderr. SIGINT or SIGTERM ends it (open streams get
// 2 s). With $MCPGEN_PARENT_PID set (`mcpgen serve --lang go` sets it to its own id) it also
// ends once that parent is gone, so a parent killed with SIGKILL leaves no server behind. The requestState
// secret of the stateless revision is $MCPGEN_REQUEST_STATE_SECRET when set (at least 32
// bytes), else random. Exit codes: 0 done, 1 failure, 2 usage.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"mcpgen.dev/reference/fixtures"
	"mcpgen.dev/runtime/codegen"
)

func main() {
	os.Exit(run())
}

func run() int {
	fs := flag.NewFlagSet("mcpgen-reference", flag.ContinueOnError)
	rev := fs.String("rev", "2025-11-25", "the revision to serve: 2025-11-25, 2026-07-28 or draft")
	stdio := fs.Bool("stdio", false, "serve one client on stdin and stdout")
	port := fs.String("http", "", "serve Streamable HTTP on `PORT` (0: any free port)")
	host := fs.String("host", "127.0.0.1", "the address to listen on")
	if err := fs.Parse(os.Args[1:]); err != nil {
		return 2
	}
	if *stdio == (*port != "") {
		fmt.Fprintln(os.Stderr, "mcpgen-reference: give one of --stdio and --http PORT")
		return 2
	}
	if *rev != "2025-11-25" && !fixtures.StatelessRevision(*rev) {
		fmt.Fprintf(os.Stderr, "mcpgen-reference: --rev %s: %v\n", *rev, fixtures.ErrUnknownRevision)
		return 2
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	opts := fixtures.Options{Logger: log}
	if s := os.Getenv("MCPGEN_REQUEST_STATE_SECRET"); s != "" {
		opts.RequestStateSecret = []byte(s)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if p, err := strconv.Atoi(os.Getenv("MCPGEN_PARENT_PID")); err == nil && p > 0 {
		var gone context.CancelFunc
		ctx, gone = context.WithCancel(ctx)
		defer gone()
		go watchParent(p, gone)
	}
	if *stdio {
		if err := serveStdio(ctx, *rev, opts); err != nil && !errors.Is(err, context.Canceled) {
			fmt.Fprintln(os.Stderr, "mcpgen-reference:", err)
			return 1
		}
		return 0
	}
	p, err := strconv.ParseUint(*port, 10, 16)
	if err != nil {
		fmt.Fprintf(os.Stderr, "mcpgen-reference: --http %q is not a port number\n", *port)
		return 2
	}
	if err := serveHTTP(ctx, *rev, *host, int(p), opts); err != nil {
		fmt.Fprintln(os.Stderr, "mcpgen-reference:", err)
		return 1
	}
	return 0
}

const (
	// parentPoll is how often the parent named by $MCPGEN_PARENT_PID is looked for.
	parentPoll = 500 * time.Millisecond
	// parentGoneGrace is how long the server has to end by itself (as on SIGTERM) once its
	// parent is gone, before it exits at once.
	parentGoneGrace = 3 * time.Second
)

// watchParent ends the server once its parent parent is gone (this process was handed to
// another parent): end() (what SIGTERM does), and after parentGoneGrace os.Exit(1).
func watchParent(parent int, end context.CancelFunc) {
	for os.Getppid() == parent {
		time.Sleep(parentPoll)
	}
	end()
	time.Sleep(parentGoneGrace)
	os.Exit(1)
}

func serveStdio(ctx context.Context, rev string, opts fixtures.Options) error {
	if fixtures.StatelessRevision(rev) {
		s, err := fixtures.NewStateless(opts)
		if err != nil {
			return err
		}
		return s.ServeStdio(ctx)
	}
	s, err := fixtures.NewHandshake(opts)
	if err != nil {
		return err
	}
	return s.ServeStdio(ctx)
}

func serveHTTP(ctx context.Context, rev, host string, port int, opts fixtures.Options) error {
	handler, closeHandler, err := fixtures.HTTPHandler(rev, opts, codegen.HTTPOptions{Logger: opts.Logger})
	if err != nil {
		return err
	}
	defer closeHandler()
	mux := http.NewServeMux()
	mux.Handle("/mcp", handler)
	ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(os.Stderr, "listening on http://%s/mcp\n", ln.Addr().String())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	closeHandler()
	shutdown, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = srv.Shutdown(shutdown)
	return nil
}
