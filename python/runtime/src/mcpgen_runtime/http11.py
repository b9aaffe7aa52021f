"""A small HTTP/1.1 client on asyncio streams: what :class:`~mcpgen_runtime.http_client.HttpClientTransport`
sends its POSTs, GETs and DELETEs with.

Keep-alive connections per origin (at most ``max_idle`` kept idle), a request written in one write
on a ``TCP_NODELAY`` socket, responses framed by ``Content-Length``, chunked transfer coding or the
end of the connection (RFC 9112 §6), bodies read whole or streamed. ``https`` URLs use the default
TLS context. A request whose reused connection turns out closed before any byte of its response
arrived is sent once more on a new connection (the server never read it).

Why not httpx: per request, httpx/httpcore cost the client about 1-2 ms of CPU (connection-pool
bookkeeping, anyio wrappers), more than the rest of an MCP round trip; see python/bench.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
from collections.abc import AsyncIterator, Mapping
from typing import Final
from urllib.parse import urlsplit

MAX_HEADER_BYTES: Final = 64 * 1024


class HttpError(Exception):
    """The connection failed or the response was not HTTP/1.1."""


class _Conn:
    __slots__ = ("reader", "writer", "key")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, key: tuple[str, str, int]) -> None:
        self.reader, self.writer, self.key = reader, writer, key

    def close(self) -> None:
        self.writer.close()


class Response:
    """A response: ``status``, ``headers`` (lower-case names), and its body to :meth:`read` or
    :meth:`iter_bytes`. :meth:`close` returns the connection to the pool when the body was read
    whole, and closes it otherwise."""

    def __init__(self, client: Http11Client, conn: _Conn, status: int, headers: dict[str, str], no_body: bool) -> None:
        self._client = client
        self._conn: _Conn | None = conn
        self.status = status
        self.headers = headers
        te = headers.get("transfer-encoding", "").lower()
        self._chunked = "chunked" in te
        length = headers.get("content-length")
        self._left: int | None = 0 if no_body else (int(length) if length is not None and length.isdigit() and not self._chunked else None)
        self._until_close = not no_body and not self._chunked and self._left is None
        self._done = no_body or self._left == 0
        self._keep = headers.get("connection", "").lower() != "close" and not self._until_close

    async def iter_bytes(self) -> AsyncIterator[bytes]:
        """The body as it arrives."""
        conn = self._conn
        if conn is None or self._done:
            return
        r = conn.reader
        try:
            if self._chunked:
                while True:
                    size_line = await r.readline()
                    if not size_line:
                        raise HttpError("the connection closed inside a chunked body")
                    size = int(size_line.split(b";", 1)[0].strip() or b"0", 16)
                    if size == 0:
                        while (await r.readline()) not in (b"\r\n", b"\n", b""):
                            pass  # trailers
                        break
                    data = await r.readexactly(size)
                    await r.readexactly(2)
                    yield data
            elif self._left is not None:
                while self._left > 0:
                    data = await r.read(min(self._left, 65536))
                    if not data:
                        raise HttpError("the connection closed before the body's Content-Length")
                    self._left -= len(data)
                    yield data
            else:
                while data := await r.read(65536):
                    yield data
        except (OSError, asyncio.IncompleteReadError, ValueError) as e:
            self._keep = False
            raise HttpError(f"reading the response body failed: {e}") from e
        self._done = True

    async def read(self) -> bytes:
        """The whole body."""
        return b"".join([c async for c in self.iter_bytes()])

    async def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is None:
            return
        if self._done and self._keep:
            self._client._release(conn)
        else:
            conn.close()


class Http11Client:
    """Keep-alive HTTP/1.1 requests (see the module doc). ``timeout``: seconds to connect and to
    receive a response's head (a body may stream for as long as it lasts)."""

    def __init__(self, *, timeout: float = 60.0, max_idle: int = 64) -> None:
        self.timeout = timeout
        self.max_idle = max_idle
        self._idle: dict[tuple[str, str, int], list[_Conn]] = {}
        self._ssl: ssl.SSLContext | None = None
        self.closed = False

    async def _connect(self, key: tuple[str, str, int]) -> _Conn:
        scheme, host, port = key
        context = None
        if scheme == "https":
            self._ssl = self._ssl or ssl.create_default_context()
            context = self._ssl
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port, ssl=context, limit=1 << 22), self.timeout)
        except (OSError, TimeoutError) as e:
            raise HttpError(f"connecting to {host}:{port} failed: {e}") from e
        sock = writer.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return _Conn(reader, writer, key)

    def _release(self, conn: _Conn) -> None:
        idle = self._idle.setdefault(conn.key, [])
        if self.closed or len(idle) >= self.max_idle or conn.writer.is_closing():
            conn.close()
        else:
            idle.append(conn)

    async def request(self, method: str, url: str, *, headers: Mapping[str, str] | None = None, body: bytes = b"") -> Response:
        """Sends a request; returns once the response's head arrived (read or stream its body, then close it)."""
        if self.closed:
            raise HttpError("the client is closed")
        u = urlsplit(url)
        if u.scheme not in ("http", "https") or not u.hostname:
            raise HttpError(f"not an http(s) URL: {url}")
        port = u.port or (443 if u.scheme == "https" else 80)
        key = (u.scheme, u.hostname, port)
        target = (u.path or "/") + (f"?{u.query}" if u.query else "")
        host = u.netloc.rsplit("@", 1)[-1]
        lines = [f"{method} {target} HTTP/1.1", f"host: {host}"]
        for k, v in (headers or {}).items():
            if "\r" in k or "\n" in k or "\r" in v or "\n" in v:
                raise HttpError(f"header {k!r} holds a line break")
            lines.append(f"{k}: {v}")
        if body or method in ("POST", "PUT", "PATCH"):
            lines.append(f"content-length: {len(body)}")
        head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
        for attempt in (0, 1):
            idle = self._idle.get(key)
            reused = bool(idle)
            conn = idle.pop() if idle else await self._connect(key)
            try:
                conn.writer.write(head + body)
                await conn.writer.drain()
                status_line = await asyncio.wait_for(conn.reader.readline(), self.timeout)
                if not status_line:
                    raise ConnectionResetError("closed before the response")
            except (OSError, asyncio.IncompleteReadError) as e:
                conn.close()
                if reused and attempt == 0:
                    continue  # a kept connection the server had closed: it read nothing of ours
                raise HttpError(f"{method} {url}: {e}") from e
            except TimeoutError as e:
                conn.close()
                raise HttpError(f"{method} {url}: no response within {self.timeout} s") from e
            return await self._head(conn, status_line, method)
        raise HttpError(f"{method} {url}: no connection")

    async def _head(self, conn: _Conn, status_line: bytes, method: str) -> Response:
        parts = status_line.split(None, 2)
        if len(parts) < 2 or not parts[0].startswith(b"HTTP/1.") or not parts[1].isdigit():
            conn.close()
            raise HttpError(f"not an HTTP/1.1 response: {status_line[:80]!r}")
        status = int(parts[1])
        headers: dict[str, str] = {}
        size = 0
        while True:
            line = await conn.reader.readline()
            size += len(line)
            if size > MAX_HEADER_BYTES or not line:
                conn.close()
                raise HttpError("the response head is too long or cut short")
            if line in (b"\r\n", b"\n"):
                break
            name, _, value = line.decode("latin-1").partition(":")
            name = name.strip().lower()
            headers[name] = f"{headers[name]}, {value.strip()}" if name in headers else value.strip()
        if 100 <= status < 200:  # an interim response: the final one follows
            status_line = await conn.reader.readline()
            return await self._head(conn, status_line, method)
        no_body = method == "HEAD" or status in (204, 304)
        return Response(self, conn, status, headers, no_body)

    async def aclose(self) -> None:
        self.closed = True
        for conns in self._idle.values():
            for c in conns:
                c.close()
        self._idle.clear()
