"""Test helpers: a raw stdio peer of a real server process, a scripted transport for a client
under test, and a Streamable HTTP server (uvicorn on a free loopback port) in the test's loop."""

from __future__ import annotations

import asyncio
import json
import socket
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx2
import uvicorn

from mcpgen_runtime.http_server import McpHttpApp, listen_socket
from mcpgen_runtime.jsonrpc import ConnectionClosed

from conftest import child_env

INIT_2025 = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "probe", "version": "0.0.1"}}
# A loaded machine (a CI runner with other suites going; load averages of 40 on 2 cores have been
# seen) can take minutes to start a Python process (the interpreter, pydantic, the generated
# package) and tens of seconds to answer an app's first request: the bounds on those are generous,
# and a hang still fails its test. Timing assertions of a test stay as they are.
STARTUP_TIMEOUT = 300.0
HTTP_TIMEOUT = 60.0
META_2026 = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}


async def stdio_answers(rev: str, lines: list[str]) -> list[Any]:
    """Every JSON line a reference server process (``--stdio --rev rev``) writes for ``lines``
    sent at once, stdin then closed: the whole exchange within STARTUP_TIMEOUT seconds."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "mcpgen_reference", "--rev", rev, "--stdio",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL, env=child_env(),
    )
    try:
        out, _ = await asyncio.wait_for(proc.communicate(("\n".join(lines) + "\n").encode()), STARTUP_TIMEOUT)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    return [json.loads(line) for line in out.splitlines() if line.strip()]


class RawStdio:
    """A reference server process (``python -m mcpgen_reference --stdio``) driven line by line."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.started = False  # has the process written its first line

    @classmethod
    async def start(cls, rev: str = "2025-11-25", module: str = "mcpgen_reference", extra: list[str] | None = None) -> RawStdio:
        args = ["-m", module, "--rev", rev, "--stdio", *(extra or [])]
        proc = await asyncio.create_subprocess_exec(sys.executable, *args, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, env=child_env(), limit=64 * 1024 * 1024)
        return cls(proc)

    async def write(self, data: bytes | str | dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        if isinstance(data, dict):
            data = json.dumps(data) + "\n"
        self.proc.stdin.write(data.encode() if isinstance(data, str) else data)
        await self.proc.stdin.drain()

    async def _line(self, timeout: float) -> bytes:
        """The next line; the first one's wait includes the process's start (``STARTUP_TIMEOUT``)."""
        assert self.proc.stdout is not None
        line = await asyncio.wait_for(self.proc.stdout.readline(), timeout if self.started else max(timeout, STARTUP_TIMEOUT))
        self.started = True
        return line

    async def read(self, timeout: float = 10.0) -> dict[str, Any]:
        line = await self._line(timeout)
        if not line:
            raise ConnectionClosed("the server's stdout ended")
        value: dict[str, Any] = json.loads(line)
        return value

    async def read_raw(self, timeout: float = 10.0) -> bytes:
        return await self._line(timeout)

    async def nothing_for(self, seconds: float) -> None:
        """Asserts the server writes nothing for ``seconds``."""
        assert self.proc.stdout is not None
        try:
            line = await asyncio.wait_for(self.proc.stdout.readline(), seconds)
        except TimeoutError:
            return
        raise AssertionError(f"the server wrote {line!r}")

    async def request(self, id: Any, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": id, "method": method}
        if params is not None:
            msg["params"] = params
        await self.write(msg)
        return await self.read()

    async def initialize(self) -> dict[str, Any]:
        r = await self.request(1, "initialize", INIT_2025)
        await self.write({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return r

    async def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            await asyncio.wait_for(self.proc.wait(), 5)
        except TimeoutError:
            self.proc.kill()
            await self.proc.wait()


def raw_http(**kwargs: Any) -> httpx2.AsyncClient:
    """An ``httpx2.AsyncClient`` for a test's raw requests, with ``HTTP_TIMEOUT`` (httpx2's default
    of 5 s is less than an app's first request can take on a loaded machine)."""
    return httpx2.AsyncClient(timeout=HTTP_TIMEOUT, **kwargs)


class ScriptedTransport:
    """A transport whose other end is the test: ``sent`` holds what the client sent; ``inject``
    delivers a message to the client."""

    def __init__(self) -> None:
        self.sent: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.receiver: Any = None
        self.closed = False
        self.on_send: Callable[[dict[str, Any]], Any] | None = None

    async def start(self, receiver: Any) -> None:
        self.receiver = receiver

    async def send(self, message: dict[str, Any]) -> None:
        if self.closed:
            raise ConnectionClosed("closed")
        self.sent.put_nowait(json.loads(json.dumps(message)))
        if self.on_send is not None:
            self.on_send(message)

    def inject(self, message: dict[str, Any]) -> None:
        self.receiver.receive(json.loads(json.dumps(message)), None)

    async def next(self, timeout: float = 5.0) -> dict[str, Any]:
        return await asyncio.wait_for(self.sent.get(), timeout)

    async def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.receiver.connection_lost(None)


@asynccontextmanager
async def http_server(app: Any) -> AsyncIterator[str]:
    """Serves ``app`` with uvicorn on a free loopback port; yields the endpoint's URL."""
    sock = listen_socket()
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    task = asyncio.ensure_future(server.serve(sockets=[sock]))
    while not server.started:
        await asyncio.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.should_exit = True
        if isinstance(app, McpHttpApp):
            await app.close()
        await asyncio.wait_for(task, 10)
        sock.close()


def headers_2025(session: str | None = None) -> dict[str, str]:
    h = {"accept": "application/json, text/event-stream", "content-type": "application/json", "mcp-protocol-version": "2025-11-25"}
    if session is not None:
        h["mcp-session-id"] = session
    return h


def headers_2026(method: str, name: str | None = None) -> dict[str, str]:
    h = {"accept": "application/json, text/event-stream", "content-type": "application/json", "mcp-protocol-version": "2026-07-28", "mcp-method": method}
    if name is not None:
        h["mcp-name"] = name
    return h
