"""Streamable HTTP, server side: :class:`McpHttpApp`, an ASGI application serving one MCP endpoint.

Serve it with any ASGI server (``uvicorn.run(app)``). It serves either era or both (dual-era):

- sessions (2025-11-25 ``basic/transports``, Streamable HTTP): ``initialize`` opens a session
  (``on_session()`` makes its server; the ``Mcp-Session-Id`` is 32 hex digits), later requests
  name it (400 without it, 404 for an unknown, ended or expired one); ``DELETE`` ends it; ``GET``
  opens the session's one standalone stream (409 for a second). A request's reply is JSON, or an
  SSE stream as soon as anything but its response goes first (``reply_mode="auto"``); streams
  open with a priming event and are resumable by ``GET`` with ``Last-Event-ID`` for
  ``keep_events_seconds``; a dropped connection does not cancel the request. Sessions idle (no
  request in flight, no open stream) for ``session_idle_seconds`` end; at ``max_sessions`` a new
  ``initialize`` evicts the least recently used idle one, or gets 503 with ``Retry-After``.
- stateless (2026-07-28 ``basic/transports/streamable-http``): one server (``stateless``) answers
  every POST; the metadata headers are checked against the body (400 with -32020), an unknown
  version is 400 with -32022, an unknown method 404 with -32601; closing a reply's stream cancels
  its request; ``GET`` and ``DELETE`` are 405; an ``Mcp-Session-Id`` is ignored.

Checks on the request head come before any of the body is read: 403 for a ``Host`` not allowed
or an ``Origin`` not allowed (DNS rebinding; default: the loopback names), 405, 406 for an
``Accept`` without ``application/json`` and ``text/event-stream``, 415 for a non-JSON
``Content-Type`` (a charset other than utf-8 included) or a ``Content-Encoding`` other than
``identity`` (RFC 9110 section 15.5.16, with ``Accept-Encoding: identity``), 413 for a ``Content-Length`` over ``max_body_bytes``; each is a JSON-RPC error
response with code -32000 and no ``id``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import socket
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping, MutableMapping, Sequence
from typing import Any, Final

from .codec import sse_event
from .engine import RequestContext
from .http_headers import HEADER_MISMATCH, PROTOCOL_VERSION_META, check_request_headers
from .jsonrpc import BATCH_REVISIONS, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR, ConnectionClosed, Message, RpcError, TooDeep, answer_id, classify, encode, error_response, id_in_use, id_key, is_request_id, loads
from .server import ServerSession

# A refusal on the request line or headers (403, 405, 406, 413, 415), before any message was read:
# -32000 with no id, as the TypeScript and Go servers (and the official TypeScript SDK's 405) answer
# the same statuses.
REFUSED: Final = -32000
from .stateless import CLIENT_CAPABILITIES_META

log = logging.getLogger("mcpgen_runtime.http")

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]

LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "[::1]")
STATUS_OF_CODE = {HEADER_MISMATCH: 400, -32021: 400, -32022: 400}


def _accepts(accept: str, media_type: str) -> bool:
    """Whether an ``Accept`` value lists ``media_type`` itself with a non-zero q (a wildcard such as
    ``*/*`` does not count: the 2025-11-25 transports page has the client list both types)."""
    for part in accept.split(","):
        media_range, *params = (x.strip().lower() for x in part.split(";"))
        if media_range != media_type:
            continue
        q = next((p[2:] for p in params if p.startswith("q=")), None)
        try:
            if q is None or float(q) > 0:
                return True
        except ValueError:
            continue
    return False


def _host_name(value: str) -> str:
    """``localhost:8080`` → ``localhost``; ``[::1]:80`` → ``[::1]``."""
    if value.startswith("["):
        return value[: value.find("]") + 1]
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


class _Reply:
    """Where the messages of one POSTed request go: JSON when its response comes first, else SSE."""

    def __init__(self, request_id: Any, mode: str, primes: bool, stream_id: str | None) -> None:
        self.request_id = request_id
        self.mode = mode
        self.primes = primes
        self.stream_id = stream_id
        self.decided: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self.json: Message | None = None
        #: ``json`` encoded (in ``send``: a result JSON cannot express fails there, the request still open)
        self.body = b""
        self.events: list[tuple[int, bytes]] = []
        self.seq = 0
        self.queue: asyncio.Queue[bytes | None] | None = None
        self.ended = False
        self.ended_at = 0.0
        if mode == "sse":
            self._start_sse()

    def _is_final(self, message: Message) -> bool:
        return "id" in message and ("result" in message or "error" in message) and message.get("id") == self.request_id

    def _start_sse(self) -> None:
        self.queue = asyncio.Queue()
        if self.primes and self.stream_id is not None:
            self._push(None)
        if not self.decided.done():
            self.decided.set_result("sse")

    def _push(self, message: Message | None) -> None:
        text = "" if message is None else encode(message).decode("utf-8")  # first: it may fail
        self.seq += 1
        event_id = f"{self.stream_id}_{self.seq}" if self.stream_id is not None else None
        data = sse_event(text, id=event_id)
        if self.stream_id is not None:
            self.events.append((self.seq, data))
            if len(self.events) > 1000:
                del self.events[0]
        if self.queue is not None:
            self.queue.put_nowait(data)

    async def send(self, message: Message) -> None:
        if self.ended:
            raise ConnectionClosed("the request's stream has ended")
        final = self._is_final(message)
        if not self.decided.done() and self.mode != "sse":
            if final or self.mode == "json":
                if final:
                    self.body = encode(message)  # first: it may fail
                    self.json = message
                    self.ended = True
                    self.ended_at = time.monotonic()
                    self.decided.set_result("json")
                return  # json mode: only the response travels
            self._start_sse()
        self._push(message)
        if final:
            self.end()

    def end(self) -> None:
        if not self.ended:
            self.ended = True
            self.ended_at = time.monotonic()
        if self.queue is not None:
            self.queue.put_nowait(None)
        if not self.decided.done():
            self.decided.set_result("none")

    def close_connection(self, retry_ms: int | None = None) -> None:
        """Ends the current connection of the stream without ending the stream (resumable)."""
        if self.queue is not None:
            if retry_ms is not None:
                self.queue.put_nowait(sse_event(None, retry=retry_ms))
            self.queue.put_nowait(None)
            self.queue = None

    def attach(self, after: int) -> asyncio.Queue[bytes | None]:
        """A new connection of the stream, given the events after sequence number ``after``."""
        q: asyncio.Queue[bytes | None] = asyncio.Queue()
        for seq, data in self.events:
            if seq > after:
                q.put_nowait(data)
        if self.ended:
            q.put_nowait(None)
        else:
            if self.queue is not None:
                self.queue.put_nowait(None)
            self.queue = q
        return q


class _Standalone:
    """The session's channel for messages outside any request: its GET stream, when one is open."""

    def __init__(self, owner: HttpSession) -> None:
        self.owner = owner
        self.queue: asyncio.Queue[bytes | None] | None = None
        self.pending: list[bytes] = []

    async def send(self, message: Message) -> None:
        if self.owner.ended:
            raise ConnectionClosed("the session has ended")
        data = sse_event(encode(message).decode("utf-8"))
        if self.queue is not None:
            self.queue.put_nowait(data)
        elif len(self.pending) < 100:
            self.pending.append(data)


class HttpSession:
    """One session of the handshake era: its server, its reply streams, its standalone stream."""

    def __init__(self, app: McpHttpApp, session_id: str, server: ServerSession) -> None:
        self.app = app
        self.id = session_id
        self.server = server
        self.standalone = _Standalone(self)
        self.replies: dict[str, _Reply] = {}
        self.by_request: dict[Any, _Reply] = {}
        self.busy = 0
        self.last_used = time.monotonic()
        self.ended = False
        self._stream_ids = 0
        self._pruned_at = 0.0
        server.peer.channel = self.standalone
        server.http_session = self  # type: ignore[attr-defined]

    def new_stream_id(self) -> str:
        self._stream_ids += 1
        return f"{self._stream_ids}"

    def close_sse_connection(self, request_id: Any, retry_ms: int = 500) -> bool:
        """Closes the SSE connection of a request being served (its stream stays resumable)."""
        reply = self.by_request.get(id_key(request_id))
        if reply is None or reply.queue is None:
            return False
        reply.close_connection(retry_ms)
        return True

    def end(self) -> None:
        if self.ended:
            return
        self.ended = True
        for r in list(self.replies.values()):
            r.end()
        if self.standalone.queue is not None:
            self.standalone.queue.put_nowait(None)
        self.server.connection_lost(None)

    def prune(self, keep: float) -> None:
        """Forgets the reply streams that ended more than ``keep`` seconds ago (at most once a second)."""
        now = time.monotonic()
        if now - self._pruned_at < 1.0:
            return
        self._pruned_at = now
        for sid, r in list(self.replies.items()):
            if r.ended and now - r.ended_at > keep:
                del self.replies[sid]


class McpHttpApp:
    """The ASGI application of one MCP endpoint (see the module doc)."""

    def __init__(
        self,
        *,
        on_session: Callable[[], ServerSession] | None = None,
        stateless: ServerSession | None = None,
        path: str = "/mcp",
        allowed_hosts: Sequence[str] | None = None,
        allowed_origins: Sequence[str] | None = None,
        max_body_bytes: int = 4 * 1024 * 1024,
        max_sessions: int = 10000,
        session_idle_seconds: float = 1800.0,
        keep_events_seconds: float = 300.0,
        reply_mode: str = "auto",
        retry_ms: int = 500,
    ) -> None:
        if on_session is None and stateless is None:
            raise ValueError("McpHttpApp needs on_session (sessions), stateless (stateless) or both")
        self.on_session = on_session
        self.stateless = stateless
        self.path = path
        self.allowed_hosts = tuple(h.lower() for h in allowed_hosts) if allowed_hosts is not None else None
        self.allowed_origins = tuple(allowed_origins) if allowed_origins is not None else None
        self.max_body_bytes = max_body_bytes
        self.max_sessions = max_sessions
        self.session_idle_seconds = session_idle_seconds
        self.keep_events_seconds = keep_events_seconds
        self.reply_mode = reply_mode
        self.retry_ms = retry_ms
        self.sessions: OrderedDict[str, HttpSession] = OrderedDict()
        self._sweeper: asyncio.Task[None] | None = None

    # ---- ASGI ----

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        if self._sweeper is None or self._sweeper.done():
            self._sweeper = asyncio.ensure_future(self._sweep())
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        if scope.get("path") != self.path:
            await _plain(send, 404, b"Not Found")
            return
        refusal = self._check_origin(headers)
        if refusal:
            await _error(send, 403, REFUSED, refusal)
            return
        method = scope.get("method", "GET")
        if method == "POST":
            await self._post(headers, receive, send)
        elif method == "GET":
            await self._get(headers, receive, send)
        elif method == "DELETE":
            await self._delete(headers, send)
        else:
            await self._refuse_method(send, method)

    async def _refuse_method(self, send: Send, method: str) -> None:
        """405 for a request this endpoint does not serve, saying what it does serve: a stateless
        endpoint takes POST only; the dual-era one takes POST, and GET and DELETE with the
        ``Mcp-Session-Id`` of a session (``Allow: POST`` to a GET or DELETE without one); a
        sessions-only endpoint takes GET, POST and DELETE."""
        m = method.upper()
        if self.on_session is None:
            message, allow = f"Method Not Allowed: {m} (this endpoint takes POST only)", b"POST"
        elif self.stateless is None:
            message, allow = f"Method Not Allowed: {m} (this endpoint takes GET, POST and DELETE)", b"GET, POST, DELETE"
        else:
            modern = self.stateless.table.protocol_version
            use = {"GET": "opens the stream of", "DELETE": "ends"}.get(m)
            if use is not None:
                message = f"Method Not Allowed: {m} without Mcp-Session-Id (a {m} here {use} a session begun by initialize and needs its Mcp-Session-Id; {modern} requests are POSTs)"
                allow = b"POST"
            else:
                message = f"Method Not Allowed: {m} (this endpoint takes POST, and GET and DELETE with the Mcp-Session-Id of a session begun by initialize)"
                allow = b"GET, POST, DELETE"
        await _error(send, 405, REFUSED, message, extra=[(b"allow", allow)])

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            msg = await receive()
            if msg["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif msg["type"] == "lifespan.shutdown":
                await self.close()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def close(self) -> None:
        """Ends every session and the stateless server's listen streams."""
        for s in list(self.sessions.values()):
            s.end()
        self.sessions.clear()
        if self.stateless is not None and self.stateless.subscriptions is not None:
            await self.stateless.subscriptions.close()
        if self._sweeper is not None:
            self._sweeper.cancel()

    def _check_origin(self, headers: Mapping[str, str]) -> str | None:
        host = headers.get("host")
        hosts = self.allowed_hosts
        if host is not None:
            name = _host_name(host.lower())
            if (hosts is None and name not in LOOPBACK_HOSTS) or (hosts is not None and host.lower() not in hosts and name not in hosts):
                return f"Forbidden: Host {host!r} is not allowed"
        origin = headers.get("origin")
        if origin is not None:
            allowed = self.allowed_origins
            if allowed is not None:
                ok = origin in allowed
            else:
                rest = origin.split("://", 1)[1] if "://" in origin else ""
                ok = origin.startswith(("http://", "https://")) and _host_name(rest.lower()) in LOOPBACK_HOSTS
            if not ok:
                return f"Forbidden: Origin {origin!r} is not allowed"
        return None

    # ---- POST ----

    async def _post(self, headers: Mapping[str, str], receive: Receive, send: Send) -> None:
        accept = headers.get("accept", "")
        if not (_accepts(accept, "application/json") and _accepts(accept, "text/event-stream")):
            await _error(send, 406, REFUSED, "Not Acceptable: Accept must list application/json and text/event-stream")
            return
        if not _json_type(headers.get("content-type", "")):
            await _error(
                send, 415, REFUSED, "Unsupported Media Type: Content-Type must be application/json (charset utf-8, if named)"
            )
            return
        coding = headers.get("content-encoding", "")
        if coding and coding.strip().lower() != "identity":
            await _error(
                send,
                415,
                REFUSED,
                f"Unsupported Media Type: Content-Encoding {json.dumps(coding[:64])} is not read",
                extra=((b"accept-encoding", b"identity"),),
            )
            return
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_body_bytes):
            await _error(send, 413, REFUSED, f"Payload Too Large: at most {self.max_body_bytes} bytes")
            return
        body = await _read_body(receive, self.max_body_bytes)
        if body is None:
            await _error(send, 413, REFUSED, f"Payload Too Large: at most {self.max_body_bytes} bytes")
            return
        try:
            message = loads(body)
        except ValueError as e:
            # the TypeScript server's words: the nesting named, any other fault not
            await _error(send, 400, PARSE_ERROR, f"Parse error: {e if isinstance(e, TooDeep) else 'body is not JSON'}")
            return
        if isinstance(message, list):
            sid = headers.get("mcp-session-id")
            batch_session = self.sessions.get(sid) if sid is not None else None
            if batch_session is not None and not batch_session.ended and batch_session.server.active.protocol_version in BATCH_REVISIONS:
                await self._session_batch(batch_session, message, headers, send)
                return
            await _error(send, 400, INVALID_REQUEST, self._batch_refused(sid))
            return
        if not isinstance(message, dict):
            await _error(send, 400, INVALID_REQUEST, "Invalid Request: body must be a JSON object")
            return
        try:
            kind = classify(message)
        except RpcError as e:
            if isinstance(message, dict) and "method" in message and "id" not in message:
                await _plain(send, 202, b"")  # a malformed notification is accepted and ignored (case 004)
                return
            # the request's id when it could be read (JSON-RPC 2.0 section 5), else none
            await _send_json(send, 400, error_response(answer_id(message), e))
            return
        sid = headers.get("mcp-session-id")
        hv = headers.get("mcp-protocol-version")
        is_init = message.get("method") == "initialize"
        params = message.get("params")
        meta = params.get("_meta") if isinstance(params, dict) else None
        modern = isinstance(meta, dict) and PROTOCOL_VERSION_META in meta
        if self.on_session is not None and (sid is not None and (self.stateless is None or not modern) or is_init and not modern):
            if is_init:
                if sid is not None:
                    await _error(send, 400, INVALID_REQUEST, "Bad Request: initialize must not carry Mcp-Session-Id")
                    return
                await self._initialize(message, headers, receive, send)
                return
            assert sid is not None
            session = self.sessions.get(sid)
            if session is None or session.ended:
                await _error(send, 404, REFUSED, "Session not found")
                return
            if hv is not None and hv not in session.server.versions():
                await _error(send, 400, INVALID_REQUEST, f"Bad Request: unsupported MCP-Protocol-Version {hv!r}")
                return
            await self._session_message(session, message, kind, headers, receive, send)
            return
        # anything else is the modern side's (docs/guide/dual-era.md), so a request that fits
        # neither era gets the modern error (-32602 for a missing _meta protocol version)
        if self.stateless is not None:
            await self._stateless(message, kind, headers, receive, send)
            return
        await _error(send, 400, REFUSED, "Bad Request: Mcp-Session-Id header is required")

    async def _session_batch(self, session: HttpSession, items: list[Any], headers: Mapping[str, str], send: Send) -> None:
        """A batch POSTed in a session whose revision has them (2025-03-26), as the TypeScript
        server answers it: an empty one 400 "empty batch"; each invalid entry -32600 in the words
        a POSTed message gets (its id when readable; a malformed response none), each valid one
        handled as if it came alone; 200 with the responses as one JSON array once every request
        is answered, 202 when there are none. What its requests send on the way (notifications,
        requests to the client) goes to the standalone stream."""
        if not items:
            await _error(send, 400, INVALID_REQUEST, "Invalid Request: empty batch")
            return
        answers: list[Message] = []
        valid: list[Any] = []
        for entry in items:
            try:
                if isinstance(entry, list):
                    raise RpcError(INVALID_REQUEST, self._batch_refused(None))
                if not isinstance(entry, dict):
                    raise RpcError(INVALID_REQUEST, "Invalid Request: body must be a JSON object")
                classify(entry)
                valid.append(entry)
            except RpcError as e:
                if not (isinstance(entry, dict) and "method" not in entry and ("result" in entry or "error" in entry)):
                    rid = entry.get("id") if isinstance(entry, dict) else None
                    answers.append(error_response(rid if is_request_id(rid) else None, e))
        session.last_used = time.monotonic()
        session.busy += 1
        try:
            info = {"session_id": session.id, "headers": headers, "http_session": session}
            answers += await session.server.peer.batch(valid, session.standalone, info) if valid else []
        finally:
            session.busy -= 1
            session.last_used = time.monotonic()
        if answers:
            await _send_json(send, 200, answers)
        else:
            await _plain(send, 202, b"")

    def _batch_refused(self, sid: str | None) -> str:
        """The -32600 message answering a JSON array, as the TypeScript server words it: naming
        the protocol version of the session ``sid`` names, if there is one."""
        session = self.sessions.get(sid) if sid is not None else None
        version = f" in protocol version {session.server.active.protocol_version}" if session is not None and not session.ended else ""
        return f"Invalid Request: batches are not accepted{version}; send one message per POST"

    async def _initialize(self, message: Message, headers: Mapping[str, str], receive: Receive, send: Send) -> None:
        assert self.on_session is not None
        if len(self.sessions) >= self.max_sessions:
            idle = next((s for s in self.sessions.values() if s.busy == 0), None)
            if idle is None:
                await _error(send, 503, INVALID_REQUEST, "Service Unavailable: too many sessions", extra=[(b"retry-after", b"5")])
                return
            self._end_session(idle)
        session = HttpSession(self, secrets.token_hex(16), self.on_session())
        self.sessions[session.id] = session
        await self._session_message(session, message, "request", headers, receive, send, new=True)
        if session.server.initialize_received is False:
            self._end_session(session)

    def _end_session(self, session: HttpSession) -> None:
        self.sessions.pop(session.id, None)
        session.end()

    async def _session_message(self, session: HttpSession, message: Message, kind: str, headers: Mapping[str, str], receive: Receive, send: Send, new: bool = False) -> None:
        session.last_used = time.monotonic()
        self.sessions.move_to_end(session.id)
        info = {"session_id": session.id, "headers": headers, "http_session": session}
        if kind != "request":
            session.server.receive(message, session.standalone, info)
            await _plain(send, 202, b"")
            return
        if session.server.peer.serving(message["id"]):
            # a reused in-flight id: 400 with that id and the engine's words, not run (as the
            # TypeScript and Go servers answer it)
            await _send_json(send, 400, error_response(message["id"], id_in_use(message["id"])))
            return
        primes = session.server.active.primes_streams
        reply = _Reply(message["id"], self.reply_mode, primes, session.new_stream_id())
        session.replies[reply.stream_id or ""] = reply
        session.by_request[id_key(message["id"])] = reply
        session.busy += 1
        extra = [(b"mcp-session-id", session.id.encode())] if new else []
        try:
            ctx = session.server.receive(message, reply, info)
            if ctx is None:
                # answered at once (an invalid or duplicate request): wait for what was sent
                await asyncio.sleep(0)
            await self._write_reply(reply, receive, send, extra, cancel=None)
        finally:
            session.busy -= 1
            session.by_request.pop(id_key(message["id"]), None)
            if not (reply.decided.done() and reply.decided.result() == "sse"):
                # answered in JSON, or 202, or never answered on this connection: no stream to resume
                session.replies.pop(reply.stream_id or "", None)
            session.last_used = time.monotonic()
            session.prune(self.keep_events_seconds)

    async def _write_reply(self, reply: _Reply, receive: Receive, send: Send, extra: list[tuple[bytes, bytes]], cancel: Callable[[], None] | None) -> None:
        disconnected = asyncio.ensure_future(_wait_disconnect(receive))
        try:
            waits: set[asyncio.Future[Any]] = {reply.decided, disconnected}
            done, _ = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            if reply.decided not in done:
                if cancel is not None:
                    cancel()
                return
            mode = reply.decided.result()
            if mode == "json":
                assert reply.json is not None
                await _send_json(send, _status_of(reply.json), reply.json, extra, reply.body)
                return
            if mode == "none":
                await _plain(send, 202, b"", extra)
                return
            queue = reply.queue
            assert queue is not None
            await _start_sse(send, extra)
            await self._pump(queue, send, disconnected, cancel)
        finally:
            disconnected.cancel()

    async def _pump(self, queue: asyncio.Queue[bytes | None], send: Send, disconnected: asyncio.Future[None], cancel: Callable[[], None] | None) -> None:
        while True:
            getter = asyncio.ensure_future(queue.get())
            waits: set[asyncio.Future[Any]] = {getter, disconnected}
            done, _ = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            if getter not in done:
                getter.cancel()
                if cancel is not None:
                    cancel()
                return
            data = getter.result()
            if data is None:
                break
            try:
                await send({"type": "http.response.body", "body": data, "more_body": True})
            except OSError:
                if cancel is not None:
                    cancel()
                return
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    # ---- GET / DELETE ----

    async def _get(self, headers: Mapping[str, str], receive: Receive, send: Send) -> None:
        sid = headers.get("mcp-session-id")
        if self.on_session is None or (sid is None and self.stateless is not None):
            await self._refuse_method(send, "GET")
            return
        if not _accepts(headers.get("accept", ""), "text/event-stream"):
            await _error(send, 406, REFUSED, "Not Acceptable: Accept must list text/event-stream")
            return
        if sid is None:
            await _error(send, 400, REFUSED, "Bad Request: Mcp-Session-Id header is required")
            return
        session = self.sessions.get(sid)
        if session is None or session.ended:
            await _error(send, 404, REFUSED, "Session not found")
            return
        hv = headers.get("mcp-protocol-version")
        if hv is not None and hv not in session.server.versions():
            await _error(send, 400, INVALID_REQUEST, f"Bad Request: unsupported MCP-Protocol-Version {hv!r}")
            return
        session.last_used = time.monotonic()
        last = headers.get("last-event-id")
        disconnected = asyncio.ensure_future(_wait_disconnect(receive))
        session.busy += 1
        try:
            if last is not None:
                stream_id, _, seq = last.partition("_")
                reply = session.replies.get(stream_id)
                if reply is None or not seq.isdigit():
                    await _error(send, 404, INVALID_REQUEST, "Not Found: unknown Last-Event-ID")
                    return
                queue = reply.attach(int(seq))
                await _start_sse(send, [])
                await self._pump(queue, send, disconnected, None)
                return
            if session.standalone.queue is not None:
                await _error(send, 409, INVALID_REQUEST, "Conflict: the session's standalone stream is already open")
                return
            queue = asyncio.Queue()
            for data in session.standalone.pending:
                queue.put_nowait(data)
            session.standalone.pending.clear()
            session.standalone.queue = queue
            await _start_sse(send, [])
            try:
                await send({"type": "http.response.body", "body": b": stream open\n\n", "more_body": True})
                await self._pump(queue, send, disconnected, None)
            finally:
                if session.standalone.queue is queue:
                    session.standalone.queue = None
        finally:
            session.busy -= 1
            session.last_used = time.monotonic()
            disconnected.cancel()

    async def _delete(self, headers: Mapping[str, str], send: Send) -> None:
        sid = headers.get("mcp-session-id")
        if self.on_session is None or (sid is None and self.stateless is not None):
            await self._refuse_method(send, "DELETE")
            return
        if sid is None:
            await _error(send, 400, REFUSED, "Bad Request: Mcp-Session-Id header is required")
            return
        session = self.sessions.get(sid)
        if session is None:
            await _error(send, 404, REFUSED, "Session not found")
            return
        self._end_session(session)
        await _plain(send, 200, b"")

    # ---- stateless ----

    async def _stateless(self, message: Message, kind: str, headers: Mapping[str, str], receive: Receive, send: Send) -> None:
        server = self.stateless
        assert server is not None
        if kind == "notification":
            server.receive(message, None, {"headers": headers})
            await _plain(send, 202, b"")
            return
        if kind != "request":
            await _error(send, 400, INVALID_REQUEST, "Invalid Request: clients send no responses")
            return
        rid = message["id"]
        if isinstance(message.get("params"), list):
            # by-position params: a valid JSON-RPC request that MCP cannot take, -32602 as the engine answers it
            await _send_json(send, 400, error_response(rid, RpcError(INVALID_PARAMS, "Invalid params: params must be an object")))
            return
        method = message["method"]
        params = message.get("params") if isinstance(message.get("params"), dict) else {}
        meta = params.get("_meta") if isinstance(params, dict) else None
        version = meta.get(PROTOCOL_VERSION_META) if isinstance(meta, dict) else None
        supported = server.table.protocol_version
        hv = headers.get("mcp-protocol-version")
        if hv is not None and hv != supported and (version is None or version == hv):
            await _send_json(send, 400, error_response(rid, RpcError(-32022, "Unsupported protocol version", {"supported": [supported], "requested": hv})))
            return
        if not isinstance(version, str):
            await _send_json(send, 400, error_response(rid, RpcError(INVALID_PARAMS, f'Invalid params: missing _meta["{PROTOCOL_VERSION_META}"]')))
            return
        tool_headers = None
        if method == "tools/call" and isinstance(params, dict) and isinstance(params.get("name"), str):
            lookup = getattr(server, "tool_header_params", None)
            tool_headers = lookup(params["name"]) if callable(lookup) else None
        mismatch = check_request_headers(message, headers, tool_headers)
        if mismatch is not None:
            await _send_json(send, 400, error_response(rid, mismatch))
            return
        if version != supported:
            await _send_json(send, 400, error_response(rid, RpcError(-32022, "Unsupported protocol version", {"supported": [supported], "requested": version})))
            return
        if not isinstance(meta, dict) or not isinstance(meta.get(CLIENT_CAPABILITIES_META), dict):
            await _send_json(send, 400, error_response(rid, RpcError(INVALID_PARAMS, f'Invalid params: missing _meta["{CLIENT_CAPABILITIES_META}"]')))
            return
        if method not in server.table.client_requests and method not in server.handlers:
            await _send_json(send, 404, error_response(rid, RpcError(METHOD_NOT_FOUND, f"Method not found: {method}")))
            return
        reply = _Reply(rid, "sse" if method == "subscriptions/listen" else self.reply_mode, False, None)
        # each POST is its own exchange: another request with this id (from any client) is not
        # refused and cannot cancel it; closing the response stream cancels it (as TypeScript, Go)
        ctx = server.peer.receive_apart(message, reply, {"headers": headers})

        def cancel() -> None:
            if isinstance(ctx, RequestContext):
                server.peer.cancel_inbound(ctx)

        await self._write_reply(reply, receive, send, [], cancel)

    async def _sweep(self) -> None:
        """Ends idle sessions (no request in flight, no open stream) after ``session_idle_seconds``."""
        while True:
            await asyncio.sleep(min(60.0, max(0.05, self.session_idle_seconds / 4)))
            now = time.monotonic()
            for s in list(self.sessions.values()):
                if s.busy == 0 and s.standalone.queue is None and now - s.last_used > self.session_idle_seconds:
                    self._end_session(s)


def _status_of(message: Message) -> int:
    err = message.get("error")
    code = err.get("code") if isinstance(err, dict) else None
    return STATUS_OF_CODE.get(code, 200) if isinstance(code, int) else 200


async def _read_body(receive: Receive, limit: int) -> bytes | None:
    parts: list[bytes] = []
    size = 0
    while True:
        msg = await receive()
        if msg["type"] == "http.disconnect":
            raise ConnectionClosed("the client went away")
        chunk = msg.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        parts.append(chunk)
        if not msg.get("more_body", False):
            return b"".join(parts)


async def _wait_disconnect(receive: Receive) -> None:
    while True:
        msg = await receive()
        if msg["type"] == "http.disconnect":
            return


async def _start_sse(send: Send, extra: list[tuple[bytes, bytes]]) -> None:
    await send({
        "type": "http.response.start",
        "status": 200,
        "headers": [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache"), (b"x-accel-buffering", b"no"), *extra],
    })


async def _send_json(send: Send, status: int, body: Any, extra: Sequence[tuple[bytes, bytes]] = (), data: bytes | None = None) -> None:
    """Answers with ``body`` as JSON (``data``: its encoded form, when made already)."""
    if data is None:
        data = encode(body)
    await send({"type": "http.response.start", "status": status, "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode()), *extra]})
    await send({"type": "http.response.body", "body": data})


async def _plain(send: Send, status: int, body: bytes, extra: Sequence[tuple[bytes, bytes]] = ()) -> None:
    await send({"type": "http.response.start", "status": status, "headers": [(b"content-length", str(len(body)).encode()), *extra]})
    await send({"type": "http.response.body", "body": body})


def _json_type(value: str) -> bool:
    """Whether a POST's Content-Type is JSON as MCP sends it: ``application/json`` with no
    ``charset`` or ``charset=utf-8`` (RFC 8259 section 8.1: JSON between systems is UTF-8; a body in
    another charset would be misread)."""
    media, *params = value.split(";")
    if media.strip().lower() != "application/json":
        return False
    for param in params:
        name, eq, charset = param.partition("=")
        if eq and name.strip().lower() == "charset":
            charset = charset.strip()
            if len(charset) >= 2 and charset[0] == charset[-1] == '"':
                charset = charset[1:-1]
            if charset.lower() not in ("utf-8", "utf8"):
                return False
    return True


async def _error(send: Send, status: int, code: int, message: str, *, extra: Sequence[tuple[bytes, bytes]] = ()) -> None:
    await _send_json(send, status, error_response(None, RpcError(code, message)), extra)


def listen_socket(host: str = "127.0.0.1", port: int = 0, backlog: int = 1024) -> socket.socket:
    """A listening TCP socket with ``TCP_NODELAY`` (which accepted connections inherit): without it
    a reply written in two parts (head, body) waits for the client's delayed ACK, about 40 ms."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((host, port))
    sock.listen(backlog)
    sock.setblocking(False)
    return sock


def serve(app: McpHttpApp, *, host: str = "127.0.0.1", port: int = 3000, log_level: str = "warning") -> None:
    """Runs the application with uvicorn (the ``uvicorn`` extra) on a :func:`listen_socket`."""
    import uvicorn

    sock = listen_socket(host, port)
    uvicorn.Server(uvicorn.Config(app, log_level=log_level, lifespan="on")).run(sockets=[sock])


def json_body(message: Mapping[str, Any]) -> bytes:
    """A message as an HTTP body."""
    return json.dumps(message, separators=(",", ":")).encode()
