"""A server on the official MCP Python SDK (``mcp`` from PyPI), the peer of the interop tests:
``python official_server.py stdio`` or ``python official_server.py http`` (prints ``listening on <url>``)."""

from __future__ import annotations

import socket
import sys

import uvicorn
from mcp.server.mcpserver import MCPServer

server = MCPServer("official-peer", version="2.3.0")


@server.tool()
def add(a: int, b: int) -> int:
    """Adds two integers."""
    return a + b


@server.tool()
def shout(text: str) -> str:
    """Upper-cases its text."""
    return text.upper()


@server.resource("peer://greeting")
def greeting() -> str:
    """A fixed text."""
    return "hello from the official SDK"


@server.prompt()
def review(code: str) -> str:
    """Asks for a review of the code."""
    return f"Please review: {code}"


if __name__ == "__main__":
    if sys.argv[1:] == ["stdio"]:
        server.run("stdio")
    else:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        sock.listen(128)
        port = sock.getsockname()[1]
        app = server.streamable_http_app()
        print(f"listening on http://127.0.0.1:{port}/mcp", file=sys.stderr, flush=True)
        uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])
