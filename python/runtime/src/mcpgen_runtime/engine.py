"""The peer under every session: correlation, dispatch, cancellation both ways, progress, timeouts.

A :class:`Peer` owns what one connection has in flight: the requests it sent (answered by id,
``"0"`` and ``0`` apart) and the requests it serves (each an asyncio task its
``notifications/cancelled`` cancels). Messages leave through a :class:`Channel`: the connection
itself (stdio) or the stream of one HTTP request, so that what relates to a request (progress, log
messages, the server's own requests, the response) travels where that request came from.
State that grows with the peer is bounded (``max_in_flight``).

Spec: JSON-RPC 2.0; 2025-11-25 ``basic/utilities/cancellation``, ``basic/utilities/progress``;
2026-07-28 ``basic/patterns/cancellation``, ``basic/patterns/progress``.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol

from pydantic import BaseModel, ValidationError

from .jsonrpc import (
    BATCH_REFUSED,
    BATCH_REVISIONS,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    ConnectionClosed,
    Message,
    RequestCancelled,
    RequestId,
    RequestTimeout,
    RpcError,
    answer_id,
    classify,
    error_response,
    id_in_use,
    id_key,
    notification,
    request,
    result_response,
)
from .protocol import validation_message

log = logging.getLogger("mcpgen_runtime")

#: Methods never cancelled by the runtime when their caller gives up (2025-11-25 cancellation:
#: "The initialize request MUST NOT be cancelled by clients").
NOT_CANCELLABLE = frozenset({"initialize"})


class Channel(Protocol):
    """Where messages leave: a connection, or the response stream of one HTTP request."""

    async def send(self, message: Message) -> None:
        """Writes one message; raises :class:`ConnectionClosed` when it can no longer."""
        ...


class _BatchReply:
    """The channel of one inbound batch's requests: responses are kept, other messages
    (notifications, requests to the client) leave at once on ``out``."""

    def __init__(self, out: Channel) -> None:
        self.out = out
        self.responses: list[Message] = []

    async def send(self, message: Message) -> None:
        if "method" in message:
            await self.out.send(message)
        else:
            self.responses.append(message)


async def _send_batch(answered: asyncio.Future[list[Message]], out: Channel) -> None:
    """Sends the responses to a batch read from a connection as one array."""
    responses = await answered
    if responses:
        try:
            await out.send(responses)  # type: ignore[arg-type]
        except (ConnectionClosed, OSError):
            pass


ProgressCallback = Callable[[float, float | None, str | None], Any]
"""``(progress, total, message)``; may return an awaitable (scheduled, not awaited)."""


def dump(value: Any) -> Any:
    """A model (or a structure holding models) as JSON data: wire names, unset members left out."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_unset=True)
    if isinstance(value, dict):
        return {k: dump(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [dump(v) for v in value]
    return value


class UnserializableResult(ValueError):
    """A handler's result JSON cannot express (a cycle, NaN, an object): raised where the result
    is turned into JSON data; the engine answers -32603 naming the handler and logs it."""


def handler_label(method: str, params: Any) -> str:
    """The handler of a request, in words, for logs and -32603 messages: ``tool add``, ``prompt
    greet``, ``resource mem://x`` (from the request's own params), else ``the <method> handler``."""
    p = params if isinstance(params, dict) else {}
    if method == "tools/call":
        return f"tool {p.get('name')}"
    if method == "prompts/get":
        return f"prompt {p.get('name')}"
    if method == "resources/read":
        return f"resource {p.get('uri')}"
    if method == "completion/complete":
        ref = p.get("ref")
        ref = ref if isinstance(ref, dict) else {}
        return f"completion {ref.get('uri') if ref.get('type') == 'ref/resource' else ref.get('name')}"
    return f"the {method} handler"


class RequestContext:
    """What a request handler sees of its request: id, method, params, ``_meta``, its channel.

    ``send_progress`` / ``send_notification`` / ``send_request`` travel with the request
    (``relatedRequestId``); ``cancelled`` is set when the peer cancels it (the handler's task is
    cancelled too). ``session`` is the serving session; ``info`` what the transport knows (the
    HTTP session id, headers).
    """

    __slots__ = ("peer", "request_id", "method", "params", "channel", "session", "info", "state", "task", "cancelled", "done", "_progress_token")

    def __init__(self, peer: Peer, request_id: RequestId, method: str, params: dict[str, Any], channel: Channel, info: Mapping[str, Any] | None) -> None:
        self.peer = peer
        self.request_id = request_id
        self.method = method
        self.params = params
        self.channel = channel
        self.session: Any = None
        self.info: Mapping[str, Any] = info or {}
        #: Per-request data the lifecycle and features keep (client capabilities, log level …).
        self.state: dict[str, Any] = {}
        self.task: asyncio.Task[None] | None = None
        self.cancelled = False
        self.done = False
        meta = params.get("_meta")
        token = meta.get("progressToken") if isinstance(meta, dict) else None
        self._progress_token: Any = token if isinstance(token, (str, int)) and not isinstance(token, bool) else None

    @property
    def meta(self) -> dict[str, Any]:
        """The request's ``_meta`` (empty when it has none)."""
        m = self.params.get("_meta")
        return m if isinstance(m, dict) else {}

    @property
    def progress_token(self) -> str | int | None:
        """The request's progress token, when it asked for progress."""
        token: str | int | None = self._progress_token
        return token

    async def send_progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        """``notifications/progress`` for this request (nothing when it asked for none or is done)."""
        if self._progress_token is None or self.done or self.cancelled:
            return
        params: dict[str, Any] = {"progressToken": self._progress_token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None:
            params["message"] = message
        await self.send_notification("notifications/progress", params)

    async def send_notification(self, method: str, params: Any = None) -> None:
        """A notification on this request's channel (dropped once the request is done or cancelled)."""
        if self.done or self.cancelled:
            return
        await self.channel.send(notification(method, dump(params) if params is not None else None))

    async def log(self, level: str, data: Any, logger: str | None = None) -> bool:
        """A log message (``notifications/message``) for this request, when the client's level lets
        it through (see ``ServerSession.log``); False when nothing was sent."""
        log_fn = getattr(self.session, "log", None)
        if log_fn is None:
            return False
        sent: bool = await log_fn(level, data, logger, ctx=self)
        return sent

    async def send_request(self, method: str, params: Any = None, *, timeout: float | None = None) -> dict[str, Any]:
        """A request to the peer related to this one (its answer comes back on any channel)."""
        return await self.peer.request(method, dump(params) if params is not None else None, channel=self.channel, timeout=timeout)


RequestHook = Callable[[RequestContext], Awaitable[Any]]
NotificationHook = Callable[[str, Any, Channel | None], Any]


class _Pending:
    __slots__ = ("future", "method", "on_progress")

    def __init__(self, future: asyncio.Future[dict[str, Any]], method: str, on_progress: ProgressCallback | None) -> None:
        self.future = future
        self.method = method
        self.on_progress = on_progress


class Peer:
    """One side of a connection: sends requests and notifications, serves inbound requests.

    ``on_request(ctx)`` answers a request (returns a result model or dict, raises
    :class:`RpcError`); ``on_notification(method, params, channel)`` takes the notifications the
    engine does not handle itself (cancellation and progress are handled here).
    """

    def __init__(
        self,
        *,
        on_request: RequestHook,
        on_notification: NotificationHook | None = None,
        channel: Channel | None = None,
        timeout: float | None = 60.0,
        max_in_flight: int = 4096,
        answer_parse_errors: bool = True,
    ) -> None:
        self.on_request = on_request
        self.on_notification = on_notification
        self.channel = channel
        self.timeout = timeout
        self.max_in_flight = max_in_flight
        #: A server answers unparseable input with -32700; a client only logs it.
        self.answer_parse_errors = answer_parse_errors
        #: The protocol version a handshake-era server serves, for the -32600 answering a JSON array
        #: (no batches since 2025-06-18) as the TypeScript engine words it: "protocol version
        #: <revision()> has no JSON-RPC batches", "empty batch" for ``[]``. ``None``:
        #: :data:`.jsonrpc.BATCH_REFUSED` (the stateless era's words).
        self.revision: Callable[[], str] | None = None
        self._ids = itertools.count()
        self._pending: dict[RequestId, _Pending] = {}
        #: requests being served, by id key (an object of its own for one served apart)
        self._inbound: dict[object, RequestContext] = {}
        self._closed: BaseException | None = None
        self.is_closed = False

    # ---- outbound ----

    async def request(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        channel: Channel | None = None,
        timeout: float | None = None,
        on_progress: ProgressCallback | None = None,
        on_id: Callable[[RequestId], Any] | None = None,
    ) -> dict[str, Any]:
        """Sends a request and returns its result object; raises :class:`RpcError` (the peer's error),
        :class:`RequestTimeout`, :class:`ConnectionClosed`; cancelling the awaiting task sends
        ``notifications/cancelled`` (not for ``initialize``). ``timeout`` in seconds (default the
        peer's; 0 or less: none); ``on_id`` is told the request's id before it is sent.
        """
        if self.is_closed:
            raise ConnectionClosed("the connection is closed")
        if len(self._pending) >= self.max_in_flight:
            raise RpcError(INTERNAL_ERROR, f"too many requests in flight (at most {self.max_in_flight})")
        rid = next(self._ids)
        if on_id is not None:
            on_id(rid)
        loop = asyncio.get_running_loop()
        future: asyncio.Future[dict[str, Any]] = loop.create_future()
        if on_progress is not None:
            params = dict(params or {})
            meta = params.get("_meta")
            params["_meta"] = {**(meta if isinstance(meta, dict) else {}), "progressToken": rid}
        self._pending[rid] = _Pending(future, method, on_progress)
        out = channel or self.channel
        try:
            if out is None:
                raise ConnectionClosed("no channel to send on")
            await out.send(request(rid, method, params))
            limit = self.timeout if timeout is None else timeout
            if limit is None or limit <= 0:
                return await future
            try:
                async with asyncio.timeout(limit):
                    return await future
            except TimeoutError:
                if not future.done() or future.cancelled():
                    await self._cancel_remote(rid, method, out, f"timed out after {limit} s")
                    raise RequestTimeout(f"{method}: no answer within {limit} s") from None
                raise
        except asyncio.CancelledError:
            # the awaited future is cancelled with its awaiting task: it was not answered
            if not future.done() or future.cancelled():
                await self._cancel_remote(rid, method, out, "cancelled by the caller")
            raise
        finally:
            self._pending.pop(rid, None)
            if not future.done():
                future.cancel()

    async def _cancel_remote(self, rid: RequestId, method: str, channel: Channel | None, reason: str) -> None:
        self._pending.pop(rid, None)
        if method in NOT_CANCELLABLE or channel is None or self.is_closed:
            return
        try:
            await asyncio.shield(channel.send(notification("notifications/cancelled", {"requestId": rid, "reason": reason})))
        except (ConnectionClosed, OSError, asyncio.CancelledError):
            pass

    async def notify(self, method: str, params: Any = None, *, channel: Channel | None = None) -> None:
        """Sends a notification (on the connection's channel unless another is given)."""
        out = channel or self.channel
        if out is None or self.is_closed:
            raise ConnectionClosed("the connection is closed")
        await out.send(notification(method, dump(params) if params is not None else None))

    # ---- inbound ----

    def receive(self, message: Any, channel: Channel | None = None, info: Mapping[str, Any] | None = None) -> RequestContext | None:
        """Takes one decoded message from the connection (``channel``: where its answer goes;
        default the connection's). Returns the context of a request it started serving.
        Never raises for bad input: an invalid request is answered, a bad notification dropped.
        """
        out = channel or self.channel
        if isinstance(message, list) and message and out is not None and self.revision is not None and self.revision() in BATCH_REVISIONS:
            asyncio.ensure_future(_send_batch(self.batch(message, out, info), out))
            return None
        try:
            kind = classify(message)
        except RpcError as e:
            if isinstance(message, list) and self.revision is not None:
                e = RpcError(INVALID_REQUEST, "Invalid Request: empty batch" if not message else f"Invalid Request: protocol version {self.revision()} has no JSON-RPC batches")
            if isinstance(message, dict) and "method" in message and "id" not in message:
                log.debug("dropped a malformed notification: %s", e.message)
                return None
            if isinstance(message, dict) and "id" not in message and ("result" in message or "error" in message):
                log.debug("dropped a response without id")
                return None
            if isinstance(message, dict) and "method" not in message and "result" in message and "error" in message:
                # a response with both: dropped, as the TypeScript and Go engines drop it (an answer
                # would read as a response); the call it names fails
                log.debug("dropped a response with both result and error")
                self._response({"id": message["id"], "error": {"code": INTERNAL_ERROR, "message": "Malformed response: a response has either result or error"}}, True)
                return None
            if out is not None:
                # the request's id when it could be read (an object with a bad member); none otherwise
                self._spawn_send(out, error_response(answer_id(message), e))
            return None
        if kind == "request":
            return self._start(message, out, info)
        if kind == "notification":
            self._notification(message["method"], message.get("params"), channel)
            return None
        self._response(message, kind == "error")
        return None

    def batch(self, items: list[Any], out: Channel, info: Mapping[str, Any] | None = None) -> asyncio.Future[list[Message]]:
        """A non-empty JSON-RPC 2.0 section 6 batch where the revision has them (2025-03-26, whose
        basic page says a server MUST support receiving them): each entry handled as if it came
        alone (other messages its requests send leave on ``out``). Resolves with the responses
        (the -32600 of invalid entries among them) once every request of the batch is answered;
        none for notifications and responses only (TypeScript's engine/batch.ts)."""
        reply = _BatchReply(out)
        tasks = []
        for item in items:
            if isinstance(item, list):
                reply.responses.append(error_response(None, RpcError(INVALID_REQUEST, BATCH_REFUSED)))
            elif (ctx := self.receive(item, reply, info)) is not None and ctx.task is not None:
                tasks.append(ctx.task)

        async def answered() -> list[Message]:
            # the refusals' sends were scheduled first, so they ran before this (tasks run in order)
            await asyncio.gather(*tasks, return_exceptions=True)
            return reply.responses

        return asyncio.ensure_future(answered())

    def _response(self, message: Message, is_error: bool) -> None:
        rid = message.get("id")
        if rid is None or isinstance(rid, bool) or not isinstance(rid, (str, int, float)):
            err = RpcError.from_error(message.get("error"))
            log.warning("the peer sent an error without id: %s", err)
            return
        pending = self._pending.get(id_key(rid))
        if pending is None or pending.future.done():
            log.debug("dropped a response to unknown request %r", rid)
            return
        if is_error:
            pending.future.set_exception(RpcError.from_error(message["error"]))
            return
        result = message["result"]
        if not isinstance(result, dict):
            pending.future.set_exception(RpcError(INTERNAL_ERROR, f"{pending.method}: the result is not an object"))
            return
        pending.future.set_result(result)

    def _notification(self, method: str, params: Any, channel: Channel | None) -> None:
        if method == "notifications/cancelled":
            rid = params.get("requestId") if isinstance(params, dict) else None
            if rid is None or isinstance(rid, bool) or not isinstance(rid, (str, int, float)):
                return
            ctx = self._inbound.get(id_key(rid))
            if ctx is not None and ctx.method not in NOT_CANCELLABLE:
                self.cancel_inbound(ctx)
            return
        if method == "notifications/progress":
            token = params.get("progressToken") if isinstance(params, dict) else None
            if isinstance(token, int) and not isinstance(token, bool):
                pending = self._pending.get(token)
                progress = params.get("progress")
                if pending is not None and pending.on_progress is not None and not pending.future.done() and isinstance(progress, (int, float)):
                    total = params.get("total")
                    message = params.get("message")
                    try:
                        r = pending.on_progress(progress, total if isinstance(total, (int, float)) else None, message if isinstance(message, str) else None)
                        if inspect.isawaitable(r):
                            asyncio.ensure_future(r)
                    except Exception:
                        log.exception("progress callback failed")
                    return
            log.debug("dropped progress for an unknown token %r", token)
            return
        if self.on_notification is not None:
            try:
                r = self.on_notification(method, params, channel)
                if inspect.isawaitable(r):
                    asyncio.ensure_future(r)
            except Exception:
                log.exception("notification handler for %s failed", method)

    def cancel_inbound(self, ctx: RequestContext) -> None:
        """Cancels a request being served: its task is cancelled and it gets no response."""
        if ctx.done or ctx.cancelled:
            return
        ctx.cancelled = True
        if ctx.task is not None:
            ctx.task.cancel()

    def receive_apart(self, message: Message, channel: Channel, info: Mapping[str, Any] | None = None) -> RequestContext | None:
        """Starts serving the request ``message`` (a valid request: the caller classified it) as an
        exchange of its own, its answer to ``channel``: its id is not registered, so a request with
        the same id is not refused (-32600 "already in use") and a ``notifications/cancelled`` naming
        it does not reach it (cancel with :meth:`cancel_inbound`). What the draft stateless HTTP
        endpoint does with each POST (2026-07-28: ids are per request, the closed stream cancels)."""
        return self._start(message, channel, info, apart=True)

    def _start(self, message: Message, channel: Channel | None, info: Mapping[str, Any] | None, apart: bool = False) -> RequestContext | None:
        rid = message["id"]
        key: object = object() if apart else id_key(rid)
        if channel is None:
            return None
        if not apart and key in self._inbound:
            self._spawn_send(channel, error_response(rid, id_in_use(rid)))
            return None
        if len(self._inbound) >= self.max_in_flight:
            self._spawn_send(channel, error_response(rid, RpcError(INTERNAL_ERROR, f"too many requests in flight (at most {self.max_in_flight})")))
            return None
        params = message.get("params")
        ctx = RequestContext(self, rid, message["method"], params if isinstance(params, dict) else {}, channel, info)
        if params is not None and not isinstance(params, dict):
            self._spawn_send(channel, error_response(rid, RpcError(INVALID_PARAMS, "Invalid params: params must be an object")))
            return None
        self._inbound[key] = ctx
        ctx.task = asyncio.get_running_loop().create_task(self._serve(ctx, key))
        return ctx

    async def _serve(self, ctx: RequestContext, key: object) -> None:
        try:
            try:
                result = await self.on_request(ctx)
                try:
                    data = dump(result) if result is not None else {}
                except RecursionError as e:  # a cycle in the result
                    raise UnserializableResult(str(e)) from None
                reply = result_response(ctx.request_id, data)
            except RpcError as e:
                reply = error_response(ctx.request_id, e)
            except ValidationError as e:
                reply = error_response(ctx.request_id, RpcError(INTERNAL_ERROR, f"Internal error: the result is invalid: {validation_message(e)}"))
            except asyncio.CancelledError:
                ctx.cancelled = True
                return
            except UnserializableResult as e:
                reply = self._unserializable(ctx, e)
            except Exception as e:
                # the error stays in the log (it may hold what the client must not see); the answer names the handler
                label = handler_label(ctx.method, ctx.params)
                log.error("request handler failed: %s (%s): %s: %s", label, ctx.method, type(e).__name__, e, exc_info=e)
                reply = error_response(ctx.request_id, RpcError(INTERNAL_ERROR, f"Internal error: {label} failed"))
            if ctx.cancelled:
                return
            ctx.done = True
            try:
                await ctx.channel.send(reply)
            except (ConnectionClosed, OSError):
                pass
            except (TypeError, ValueError, RecursionError) as e:
                # a result JSON cannot express (NaN, an object): every channel encodes before it
                # writes anything, so the request is still open for -32603
                if "result" not in reply:
                    raise
                try:
                    await ctx.channel.send(self._unserializable(ctx, e))
                except (ConnectionClosed, OSError):
                    pass
        finally:
            ctx.done = True
            self._inbound.pop(key, None)

    @staticmethod
    def _unserializable(ctx: RequestContext, e: BaseException) -> Message:
        """Logs a result JSON cannot express; the -32603 answer naming its handler."""
        label = handler_label(ctx.method, ctx.params)
        log.error("result cannot be serialised as JSON: %s (%s): %s", label, ctx.method, e)
        return error_response(ctx.request_id, RpcError(INTERNAL_ERROR, f"Internal error: {label} returned a result that cannot be serialised as JSON"))

    def _spawn_send(self, channel: Channel, message: Message) -> None:
        async def go() -> None:
            try:
                await channel.send(message)
            except (ConnectionClosed, OSError):
                pass

        asyncio.ensure_future(go())

    # ---- lifetime ----

    def close(self, error: BaseException | None = None) -> None:
        """The connection closed: pending requests fail with :class:`ConnectionClosed`, served ones are cancelled."""
        if self.is_closed:
            return
        self.is_closed = True
        self._closed = error
        for p in list(self._pending.values()):
            if not p.future.done():
                exc = ConnectionClosed(f"{p.method}: the connection closed before the answer" + (f" ({error})" if error else ""))
                p.future.set_exception(exc)
                p.future.exception()  # a caller that went away must not leave "never retrieved" noise
        self._pending.clear()
        for ctx in list(self._inbound.values()):
            self.cancel_inbound(ctx)

    async def settle(self) -> None:
        """Returns once every request being served has been answered (or cancelled), those that
        start meanwhile included: what a transport awaits at the end of its input before it closes."""
        while self._inbound:
            tasks = [ctx.task for ctx in self._inbound.values() if ctx.task is not None]
            if not tasks:
                await asyncio.sleep(0)
                continue
            await asyncio.wait(tasks)
        # the answers sent apart from a request's task (invalid requests, parse errors) go out first
        await asyncio.sleep(0)

    def serving(self, request_id: RequestId) -> bool:
        """Whether a request with this id (``1`` and ``1.0`` alike) is being served: a request
        reusing it is refused -32600 (:func:`~mcpgen_runtime.jsonrpc.id_in_use`)."""
        return id_key(request_id) in self._inbound

    @property
    def in_flight(self) -> tuple[int, int]:
        """(requests sent and unanswered, requests being served)."""
        return len(self._pending), len(self._inbound)


__all__ = [
    "Channel",
    "ConnectionClosed",
    "Peer",
    "ProgressCallback",
    "RequestCancelled",
    "RequestContext",
    "RequestTimeout",
    "dump",
]
