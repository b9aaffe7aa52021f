"""``python -m mcpgen_reference --rev REV (--stdio | --http PORT) [--host HOST]``: the reference server.

``--stdio`` serves one client on stdin/stdout. ``--http PORT`` (0: any free port) serves
Streamable HTTP at ``/mcp``: sessions for a handshake revision; for a stateless revision the
dual-era endpoint (that revision statelessly, and 2025-11-25 with its older versions to clients
that send ``initialize``). Once listening it prints ``listening on http://HOST:PORT/mcp`` on stderr.
SIGTERM or SIGINT ends it (open streams get 2 s). With ``MCPGEN_PARENT_PID`` set (``mcpgen serve
--lang python`` sets it to its own id) it also ends once that parent is gone, so a parent killed
with SIGKILL leaves no server behind.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
import threading
import time

from mcpgen_runtime import StdioServerTransport
from mcpgen_runtime.http_server import McpHttpApp, listen_socket

from .server import make_server, older_handshake_tables, revision_module

LEGACY_REV = "2025-11-25"


def build_app(rev: str, secret: str | None = None) -> McpHttpApp:
    """The HTTP application ``--http`` serves for ``rev``."""
    table = revision_module(rev).TABLE
    if table.lifecycle == "stateless":
        legacy = older_handshake_tables(LEGACY_REV)
        return McpHttpApp(stateless=make_server(rev, request_state_secret=secret), on_session=lambda: make_server(LEGACY_REV, fallback_tables=legacy))
    return McpHttpApp(on_session=lambda: make_server(rev))


async def serve_http(rev: str, host: str, port: int) -> None:
    import uvicorn

    app = build_app(rev, os.environ.get("MCPGEN_REQUEST_STATE_SECRET"))
    sock = listen_socket(host, port)
    bound = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=2)
    server = uvicorn.Server(config)
    shown = f"[{host}]" if ":" in host else host
    print(f"listening on http://{shown}:{bound}/mcp", file=sys.stderr, flush=True)
    await server.serve(sockets=[sock])


async def serve_stdio(rev: str) -> None:
    server = make_server(rev)
    await server.serve(StdioServerTransport())


PARENT_POLL_S = 0.5
"""How often (seconds) the parent named by ``MCPGEN_PARENT_PID`` is looked for."""
PARENT_GONE_GRACE_S = 3.0
"""How long (seconds) the server has to end by itself (as on SIGTERM) once its parent is gone, before it exits at once."""


def watch_parent(parent: int) -> None:
    """Ends this process once its parent ``parent`` is gone (this process was handed to another parent):
    SIGTERM to itself, and after :data:`PARENT_GONE_GRACE_S` an immediate exit (status 1)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_S)
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(PARENT_GONE_GRACE_S)
        os._exit(1)

    threading.Thread(target=watch, name="mcpgen-parent-watch", daemon=True).start()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="mcpgen_reference", description="The mcpgen reference server (Python).")
    p.add_argument("--rev", default=LEGACY_REV, help="the revision to serve (default 2025-11-25)")
    mode = p.add_mutually_exclusive_group(required=True)
    mode.add_argument("--stdio", action="store_true", help="serve one client on stdin/stdout")
    mode.add_argument("--http", type=int, metavar="PORT", help="serve Streamable HTTP on PORT (0: any free port)")
    p.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1)")
    args = p.parse_args(argv)
    try:
        revision_module(args.rev)
    except ImportError:
        print(f"mcpgen_reference: unknown revision {args.rev} (no generated package mcp_{args.rev.replace('-', '_')})", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    parent = os.environ.get("MCPGEN_PARENT_PID", "")
    if parent.isdigit():
        watch_parent(int(parent))
    try:
        if args.stdio:
            asyncio.run(serve_stdio(args.rev))
        else:
            asyncio.run(serve_http(args.rev, args.host, args.http))
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
