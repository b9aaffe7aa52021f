"""The servers of the Python benchmark (python/bench/bench.py), one ``echo`` tool each:

- ``ours``: the generated 2025-11-25 ``Server`` with ``ServerFeatures`` (mcpgen_runtime);
- ``official``: the official SDK's ``MCPServer`` (``mcp`` from PyPI);
- ``bare``: newline JSON (stdio) or a raw ASGI app (HTTP) that parses each request and answers
  the echo with ``json`` alone: the limit of Python, asyncio and the pipe or socket.

``python servers.py <ours|official|bare> <stdio|http>``; over HTTP it prints ``listening on <url>``.
"""

from __future__ import annotations

import asyncio
import json
import socket
import sys
from typing import Any

import uvicorn


def ours_server() -> Any:
    from mcp_2025_11_25 import Server
    from mcpgen_runtime.features import ServerFeatures

    f = ServerFeatures()
    f.tool("echo", input_schema={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}, handler=lambda a: {"content": [{"type": "text", "text": a["text"]}]})
    return f, lambda: Server(server_info={"name": "bench", "version": "0"}, handlers=f, capabilities=f.capabilities())


def official_server() -> Any:
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("bench")

    @server.tool()
    def echo(text: str) -> str:
        return text

    return server


def bare_answer(line: bytes) -> bytes:
    m = json.loads(line)
    if "id" not in m:
        return b""
    method = m.get("method")
    if method == "initialize":
        result: dict[str, Any] = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "bare", "version": "0"}}
    elif method == "tools/call":
        result = {"content": [{"type": "text", "text": m["params"]["arguments"]["text"]}]}
    else:
        result = {}
    return json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": result}, separators=(",", ":")).encode() + b"\n"


async def bare_stdio() -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 24)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    wt, wp = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, sys.stdout)
    writer = asyncio.StreamWriter(wt, wp, None, loop)
    while line := await reader.readline():
        out = bare_answer(line)
        if out:
            writer.write(out)
            await writer.drain()


async def bare_asgi(scope: Any, receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    if scope["type"] != "http":
        return
    body = b""
    while True:
        msg = await receive()
        body += msg.get("body", b"")
        if not msg.get("more_body"):
            break
    out = bare_answer(body)
    status = 200 if out else 202
    data = out.rstrip(b"\n")
    await send({"type": "http.response.start", "status": status, "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]})
    await send({"type": "http.response.body", "body": data})


def listen() -> tuple[socket.socket, int]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # accepted sockets inherit it
    sock.bind(("127.0.0.1", 0))
    sock.listen(1024)
    return sock, sock.getsockname()[1]


def serve_asgi(app: Any) -> None:
    sock, port = listen()
    print(f"listening on http://127.0.0.1:{port}/mcp", file=sys.stderr, flush=True)
    uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False)).run(sockets=[sock])


def main() -> None:
    kind, transport = sys.argv[1], sys.argv[2]
    if kind == "ours":
        from mcpgen_runtime import StdioServerTransport
        from mcpgen_runtime.http_server import McpHttpApp

        _features, make = ours_server()
        if transport == "stdio":
            asyncio.run(make().serve(StdioServerTransport()))
        else:
            serve_asgi(McpHttpApp(on_session=make))
    elif kind == "official":
        server = official_server()
        if transport == "stdio":
            server.run("stdio")
        else:
            serve_asgi(server.streamable_http_app(json_response=True))
    else:
        if transport == "stdio":
            asyncio.run(bare_stdio())
        else:
            serve_asgi(bare_asgi)


if __name__ == "__main__":
    main()
