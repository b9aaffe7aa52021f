"""Streamable HTTP, client side: :class:`HttpClientTransport`, for both eras. It sends with
aiohttp by default (one ``aiohttp.ClientSession`` per transport: about a third of httpx2's CPU per
request), or through an ``httpx2.AsyncClient`` it is given (httpx2, the maintained continuation of
httpx with the same API, which the official Python SDK also uses): the way to add an ``httpx2.Auth``
flow such as :class:`~mcpgen_runtime.auth.OAuthClientAuth`, proxies or TLS settings of your own.

Its session tells it the era (``set_protocol``): sessions (2025-11-25) send ``Mcp-Session-Id``
and ``MCP-Protocol-Version`` after ``initialize``, open the standalone GET stream, resume an SSE
reply whose connection dropped with ``GET`` + ``Last-Event-ID`` (after the server's ``retry``),
and end the session with ``DELETE`` on close; a 404 for the session fails the request with
:class:`SessionExpiredError` (the client then starts a new session, field case 006). Stateless
(2026-07-28) POSTs carry the metadata headers (``Mcp-Method``, ``Mcp-Name``, ``Mcp-Param-*`` from
the tools' ``x-mcp-header``; tools whose annotations break the rules are left out of
``tools/list``); cancelling a request closes its reply stream; a 4xx whose body is no JSON-RPC
error raises :class:`~mcpgen_runtime.client.LegacyServerError` (the dual-era client falls back).
"""

from __future__ import annotations

import asyncio
import codecs
import functools
import logging
import ssl
import urllib.request
from collections.abc import AsyncIterator, Mapping
from typing import Any

import aiohttp
import httpx2

from .client import LegacyServerError
from .codec import SseParser
from .http_headers import ParamHeader, param_headers, request_headers
from .jsonrpc import ConnectionClosed, Message, RpcError, encode, id_key, loads
from .transport import Receiver

log = logging.getLogger("mcpgen_runtime.http_client")


class SessionExpiredError(ConnectionClosed):
    """The server answered 404 for the session: it ended or expired (2025-11-25 Session Management)."""


class HttpStatusError(ConnectionClosed):
    """The server answered a POST with an HTTP error and no JSON-RPC error to deliver."""

    def __init__(self, status: int, body: str) -> None:
        self.status = status
        self.body = body
        super().__init__(f"HTTP {status}: {body[:200]}")


@functools.cache
def _tls_context() -> ssl.SSLContext:
    # httpx2's default context (SSL_CERT_FILE/SSL_CERT_DIR, else the system's roots), made once per
    # process: loading the roots costs 20 to 40 ms, more than a hundred calls
    return httpx2.create_ssl_context()


#: What a failed exchange raises, from either library (connection refused or reset, a timeout, a
#: reply cut short).
HTTP_ERRORS: tuple[type[Exception], ...] = (httpx2.HTTPError, aiohttp.ClientError)


class _Reply:
    """One HTTP response, from httpx2 or aiohttp: its status, headers and body."""

    __slots__ = ("status", "headers", "_httpx", "_aio")

    def __init__(self, httpx_response: httpx2.Response | None = None, aio_response: aiohttp.ClientResponse | None = None) -> None:
        self._httpx, self._aio = httpx_response, aio_response
        if aio_response is not None:
            self.status: int = aio_response.status
            self.headers: Mapping[str, str] = aio_response.headers  # case-insensitive, as httpx2's
        else:
            assert httpx_response is not None
            self.status, self.headers = httpx_response.status_code, httpx_response.headers

    def chunks(self) -> AsyncIterator[bytes]:
        """The body's bytes as they arrive (an SSE stream)."""
        return self._aio.content.iter_any() if self._aio is not None else self._httpx.aiter_bytes()  # type: ignore[union-attr]

    async def read(self) -> bytes:
        """The whole body."""
        return await self._aio.read() if self._aio is not None else await self._httpx.aread()  # type: ignore[union-attr]

    async def close(self) -> None:
        """Ends the response: a connection whose body was read to its end is kept for the next
        request, one whose body was not (an SSE stream closed early) is closed."""
        if self._aio is not None:
            if self._aio.content.at_eof():
                self._aio.release()
            else:
                self._aio.close()
        else:
            await self._httpx.aclose()  # type: ignore[union-attr]


def _aiohttp_session(timeout: float) -> aiohttp.ClientSession:
    """The ``aiohttp.ClientSession`` a transport sends with when given no ``httpx2.AsyncClient``:
    HTTP/1.1 keep-alive, at most 256 connections (each open SSE stream holds one), ``timeout``
    seconds to connect or wait for a free connection and no read timeout (as :func:`http_client`),
    the shared TLS context. Proxies are taken from the environment (``HTTPS_PROXY``, ``NO_PROXY``...)
    as httpx2 takes them, when it names any: aiohttp then looks them up for each request on a
    thread, two hops that cost more CPU than the rest of the request."""
    return aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(limit=256, limit_per_host=0, ssl=_tls_context()),
        timeout=aiohttp.ClientTimeout(total=None, connect=timeout, sock_read=None),
        trust_env=bool(urllib.request.getproxies_environment()),
    )


def http_client(timeout: float = 60.0) -> httpx2.AsyncClient:
    """An ``httpx2.AsyncClient`` for :class:`HttpClientTransport` (``client=``), e.g. to add an
    ``auth`` flow, with the defaults of the transport's own session: HTTP/1.1 with keep-alive, at
    most 256 connections (each open SSE stream holds one) and 64 kept idle; ``timeout`` seconds to
    connect, to write and to wait for a free connection, and no read timeout (an SSE stream may be
    quiet for long; the engine's request timeout bounds each call). The TLS context (httpx2's
    default verification) is shared by all the clients made here."""
    return httpx2.AsyncClient(
        timeout=httpx2.Timeout(timeout, read=None),
        limits=httpx2.Limits(max_connections=256, max_keepalive_connections=64),
        verify=_tls_context(),
    )


class HttpClientTransport:
    """A client transport over Streamable HTTP (see the module doc).

    ``url``: the MCP endpoint; ``headers``: sent on every request (e.g. ``Authorization``);
    ``client``: an ``httpx2.AsyncClient`` to send through, e.g. shared by many transports or with
    an ``auth`` flow (:func:`http_client` makes one with the defaults; the caller closes it);
    without it the transport sends with an ``aiohttp.ClientSession`` of its own, made on first use
    and closed with the transport; ``timeout``: seconds to connect, for the transport's own
    session; ``max_retries``: reconnections of an SSE reply;
    ``standalone_stream``: open the GET stream (sessions). Raises ``httpx2.InvalidURL`` for a
    ``url`` that is no URL.
    """

    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        client: httpx2.AsyncClient | None = None,
        timeout: float = 60.0,
        max_retries: int = 3,
        standalone_stream: bool = True,
    ) -> None:
        self.url = url
        self._url = httpx2.URL(url)
        self.headers = dict(headers or {})
        self.client = client
        self.timeout = timeout
        self._aio_url = str(self._url)
        self._session: aiohttp.ClientSession | None = None
        self.max_retries = max_retries
        self.standalone_stream = standalone_stream
        self.session_id: str | None = None
        self.protocol_version: str | None = None
        self.era = "handshake"
        self.receiver: Receiver | None = None
        self.closed = False
        self._tasks: set[asyncio.Task[None]] = set()
        self._by_request: dict[Any, asyncio.Task[None]] = {}
        self._tools: dict[str, list[ParamHeader]] = {}
        self._tools_list_ids: set[Any] = set()
        self._standalone: asyncio.Task[None] | None = None

    def set_protocol(self, version: str, era: str) -> None:
        """The session's protocol version and era (``handshake`` or ``stateless``)."""
        self.protocol_version = version
        self.era = era

    async def start(self, receiver: Receiver) -> None:
        self.receiver = receiver

    # ---- sending ----

    def _headers(self, message: Message | None) -> dict[str, str]:
        h = {"accept": "application/json, text/event-stream", **self.headers}
        if message is not None:
            h["content-type"] = "application/json"
        if self.era == "stateless" and message is not None:
            name = (message.get("params") or {}).get("name") if message.get("method") == "tools/call" else None
            h.update(request_headers(message, self._tools.get(name) if isinstance(name, str) else None))
        else:
            if self.session_id is not None:
                h["mcp-session-id"] = self.session_id
            if self.protocol_version is not None and (message is None or message.get("method") != "initialize"):
                h["mcp-protocol-version"] = self.protocol_version
        return h

    async def send(self, message: Message) -> None:
        if self.closed:
            raise ConnectionClosed("the transport is closed")
        if self.era == "stateless" and message.get("method") == "notifications/cancelled":
            # closing the reply stream is the cancellation on HTTP (2026-07-28 Cancellation)
            rid = (message.get("params") or {}).get("requestId")
            task = self._by_request.pop(id_key(rid), None) if isinstance(rid, (str, int)) else None
            if task is not None:
                task.cancel()
            return
        is_request = "method" in message and "id" in message
        if is_request and message.get("method") == "tools/list":
            self._tools_list_ids.add(id_key(message["id"]))
        try:
            response = await self._request("POST", self._headers(message), encode(message))
        except HTTP_ERRORS as e:
            raise ConnectionClosed(f"POST {self.url}: {str(e) or type(e).__name__}") from e
        try:
            await self._answer(message, response, is_request)
        except BaseException:
            await response.close()
            raise

    async def _request(self, method: str, headers: dict[str, str], body: bytes | None = None, timeout: float | None = None) -> _Reply:
        """Sends one request; returns once the response's head arrived (its body is streamed)."""
        if self.client is not None:
            request = self.client.build_request(method, self._url, content=body, headers=headers, timeout=timeout if timeout is not None else httpx2.USE_CLIENT_DEFAULT)
            return _Reply(httpx_response=await self.client.send(request, stream=True))
        if self._session is None:
            self._session = _aiohttp_session(self.timeout)
        limit = aiohttp.ClientTimeout(total=timeout) if timeout is not None else None
        return _Reply(aio_response=await self._session.request(method, self._aio_url, data=body, headers=headers, timeout=limit))

    async def _answer(self, message: Message, response: _Reply, is_request: bool) -> None:
        status = response.status
        ctype = response.headers.get("content-type", "")
        if message.get("method") == "initialize" and "mcp-session-id" in response.headers:
            self.session_id = response.headers["mcp-session-id"]
        if status == 202 or (200 <= status < 300 and not is_request):
            await response.read()  # read to its end, the connection is kept
            await response.close()
            return
        if status == 404 and self.session_id is not None and self.era == "handshake" and message.get("method") != "initialize":
            await response.close()
            self.session_id = None
            raise SessionExpiredError(f"the session ended or expired (HTTP 404 for {message.get('method')})")
        if 200 <= status < 300 and ctype.startswith("text/event-stream"):
            task = asyncio.ensure_future(self._read_sse(response, message.get("id") if is_request else None))
            self._track(task, message.get("id") if is_request else None)
            return
        try:
            body = await response.read()
        except HTTP_ERRORS as e:
            raise ConnectionClosed(f"POST {self.url}: {str(e) or type(e).__name__}") from e
        finally:
            await response.close()
        data: Any = None
        try:
            data = loads(body) if body else None
        except ValueError:
            data = None
        if isinstance(data, dict) and data.get("jsonrpc") == "2.0" and ("result" in data or "error" in data):
            if status >= 400 and "id" not in data and is_request:
                err = RpcError.from_error(data.get("error"))
                if self.era == "stateless" and status in (400, 404, 405) and err.code not in (-32020, -32021, -32022, -32601, -32602):
                    raise LegacyServerError(f"HTTP {status}: {err.message}")
                data = {**data, "id": message["id"]}
            self._deliver(data)
            return
        if self.era == "stateless" and status in (400, 404, 405):
            raise LegacyServerError(f"HTTP {status} without a JSON-RPC error: the server speaks an earlier protocol version")
        raise HttpStatusError(status, body.decode("utf-8", "replace"))

    def _track(self, task: asyncio.Task[None], rid: Any) -> None:
        self._tasks.add(task)
        if rid is not None:
            self._by_request[id_key(rid)] = task

        def done(t: asyncio.Task[None]) -> None:
            self._tasks.discard(t)
            if rid is not None and self._by_request.get(id_key(rid)) is t:
                del self._by_request[id_key(rid)]

        task.add_done_callback(done)

    def _deliver(self, message: Any) -> None:
        if self.receiver is None:
            return
        if isinstance(message, dict) and "result" in message and message.get("id") is not None and id_key(message["id"]) in self._tools_list_ids:
            self._tools_list_ids.discard(id_key(message["id"]))
            message = self._learn_tools(message)
        self.receiver.receive(message, None)

    def _learn_tools(self, message: Message) -> Message:
        """Keeps each listed tool's ``x-mcp-header`` annotations; drops the tools whose are invalid."""
        result = message.get("result")
        if not isinstance(result, dict):
            return message
        tools = result.get("tools")
        if not isinstance(tools, list):
            return message
        kept = []
        for tool in tools:
            name = tool.get("name") if isinstance(tool, dict) else None
            try:
                headers = param_headers(tool.get("inputSchema")) if isinstance(tool, dict) else []
            except ValueError as e:
                log.warning("tools/list: left out tool %r: %s", name, e)
                continue
            if isinstance(name, str):
                self._tools[name] = headers
            kept.append(tool)
        if len(kept) == len(tools):
            return message
        return {**message, "result": {**result, "tools": kept}}

    async def _read_sse(self, response: _Reply, rid: Any) -> None:
        """Reads an SSE reply; a connection lost before the response is resumed with Last-Event-ID."""
        parser = SseParser()
        attempts = 0
        answered = False
        while True:
            decoder = codecs.getincrementaldecoder("utf-8")("replace")
            try:
                async for chunk in response.chunks():
                    for ev in parser.feed(decoder.decode(chunk)):
                        if not ev.data:
                            continue
                        try:
                            msg = loads(ev.data)
                        except ValueError:
                            log.warning("dropped an SSE event that is not JSON")
                            continue
                        if isinstance(msg, dict) and rid is not None and msg.get("id") == rid and ("result" in msg or "error" in msg):
                            answered = True
                        self._deliver(msg)
            except HTTP_ERRORS as e:
                log.debug("SSE reply interrupted: %s", e)
            finally:
                await response.close()
            if answered or rid is None or self.closed or self.era == "stateless" or parser.last_event_id is None:
                if not answered and rid is not None and self.era == "stateless" and not self.closed:
                    self._fail(rid, "the reply stream ended before the response")
                return
            attempts += 1
            if attempts > self.max_retries:
                self._fail(rid, f"the reply stream ended and {self.max_retries} reconnections failed")
                return
            await asyncio.sleep((parser.retry or 1000) / 1000)
            try:
                headers = {**self._headers(None), "last-event-id": parser.last_event_id}
                response = await self._request("GET", headers)
            except HTTP_ERRORS:
                continue
            if response.status != 200:
                await response.close()
                self._fail(rid, f"resuming the reply stream failed (HTTP {response.status})")
                return

    def _fail(self, rid: Any, why: str) -> None:
        if self.receiver is not None:
            self.receiver.receive({"jsonrpc": "2.0", "id": rid, "error": {"code": -32000, "message": f"Connection closed: {why}"}}, None)

    async def open_standalone_stream(self, wait: float = 5.0) -> bool:
        """Opens the session's GET stream (messages outside any request), once initialized; returns
        once the server answered it (True: open; False: the server has none, or no answer in ``wait`` s)."""
        if not (self.standalone_stream and self.era == "handshake" and self.session_id is not None and self._standalone is None):
            return False
        opened: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._standalone = asyncio.ensure_future(self._read_standalone(opened))
        self._tasks.add(self._standalone)
        try:
            return await asyncio.wait_for(asyncio.shield(opened), wait)
        except TimeoutError:
            return False

    async def _read_standalone(self, opened: asyncio.Future[bool]) -> None:
        try:
            await self._standalone_loop(opened)
        finally:
            if not opened.done():
                opened.set_result(False)

    async def _standalone_loop(self, opened: asyncio.Future[bool]) -> None:
        attempts = 0
        parser = SseParser()
        while not self.closed and attempts <= self.max_retries:
            headers = self._headers(None)
            if parser.last_event_id is not None:
                headers["last-event-id"] = parser.last_event_id
            try:
                response = await self._request("GET", headers)
                try:
                    if not opened.done():
                        opened.set_result(response.status == 200)
                    if response.status != 200:
                        return  # 405: the server has no standalone stream
                    decoder = codecs.getincrementaldecoder("utf-8")("replace")
                    async for chunk in response.chunks():
                        for ev in parser.feed(decoder.decode(chunk)):
                            if ev.data:
                                try:
                                    self._deliver(loads(ev.data))
                                except ValueError:
                                    pass
                finally:
                    await response.close()
            except HTTP_ERRORS:
                pass
            attempts += 1
            await asyncio.sleep((parser.retry or 1000) / 1000)

    async def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        for t in list(self._tasks):
            t.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self.session_id is not None and self.era == "handshake":
            try:
                response = await self._request("DELETE", self._headers(None), timeout=5.0)
                await response.read()
                await response.close()
            except (httpx2.HTTPError, aiohttp.ClientError, TimeoutError):
                pass
        if self._session is not None:
            await self._session.close()
        if self.receiver is not None:
            self.receiver.connection_lost(None)
