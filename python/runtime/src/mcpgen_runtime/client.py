"""``ClientSession``: the client facade the generated ``Client`` of every revision extends.

``connect(transport)`` runs the table's lifecycle:

- ``handshake`` (2025-11-25 and older, ``basic/lifecycle``): ``initialize`` with the table's
  version; the server's answer must be that version or one of ``fallback_tables``' (else
  :class:`UnsupportedVersionError`, and the connection is closed); then ``notifications/initialized``.
- ``stateless`` (2026-07-28, ``basic/versioning``): ``server/discover``, every request carrying
  ``_meta`` (protocol version, client capabilities, client info); ``input_required`` results are
  answered by the client's handlers and retried (:func:`~mcpgen_runtime.stateless.run_input_rounds`,
  10 rounds at most by default). With a handshake table among ``fallback_tables`` the discover is
  the dual-era probe (``basic/versioning`` "Backward Compatibility"): an error that is not a modern
  one (-32020, -32021, -32022), no answer within ``probe_timeout``, or an HTTP answer without a
  JSON-RPC error body switches to that table and its handshake.

Server→client requests (handshake era) and embedded input requests (stateless) go to
``handlers`` by method (``sampling/createMessage``, ``elicitation/create``, ``roots/list``); a
method whose capability the client did not declare is refused.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError

from .engine import Channel, Peer, ProgressCallback, RequestContext, dump
from .jsonrpc import INTERNAL_ERROR, METHOD_NOT_FOUND, ConnectionClosed, RequestId, RequestTimeout, RpcError, id_key
from .protocol import ProtocolTable, has_capability, validate, validate_params, validation_message
from .stateless import (
    CLIENT_CAPABILITIES_META,
    CLIENT_INFO_META,
    DEFAULT_MAX_INPUT_ROUNDS,
    PROTOCOL_VERSION_META,
    SERVER_INFO_META,
    SUBSCRIPTION_ID_META,
    InvalidResultError,
    run_input_rounds,
)
from .transport import Transport

log = logging.getLogger("mcpgen_runtime.client")

Handler = Callable[[Any, RequestContext], Awaitable[Any]]
NotificationHandler = Callable[[Any], Any]

#: Errors only a stateless-era server gives: a probe failing with one of these is not a legacy server.
MODERN_ERRORS = frozenset({-32020, -32021, -32022})


class UnsupportedVersionError(Exception):
    """The server speaks no protocol version this client does."""

    def __init__(self, offered: Sequence[str], supported: Sequence[str]) -> None:
        self.offered = list(offered)
        self.supported = list(supported)
        super().__init__(f"the server speaks {', '.join(offered) or 'no version'}; this client speaks {', '.join(supported)}")


class CapabilityError(Exception):
    """A request needs a capability the other side did not declare (a local refusal)."""


class LegacyServerError(Exception):
    """Raised by an HTTP transport when a modern request was answered the way only a server of the
    handshake era answers (a 4xx without a JSON-RPC error body): the client falls back."""


@dataclass
class ServerDescription:
    """What the client learned of the server: version, capabilities, identity, instructions."""

    protocol_version: str
    capabilities: dict[str, Any]
    server_info: dict[str, Any] | None
    instructions: str | None
    result: dict[str, Any] = field(default_factory=dict)


class Subscription:
    """An open ``subscriptions/listen`` stream: iterate it for ``(method, params)`` notifications;
    ``acknowledged`` is the filter the server honours; :meth:`close` cancels it."""

    def __init__(self, session: ClientSession) -> None:
        self._session = session
        self.id: RequestId | None = None
        self.acknowledged: dict[str, Any] | None = None
        self._ack: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._queue: asyncio.Queue[tuple[str, dict[str, Any]] | None] = asyncio.Queue(maxsize=1024)
        self.task: asyncio.Task[dict[str, Any]] | None = None
        #: True once the server ended the stream with its completion result (a graceful end).
        self.completed = False

    def _deliver(self, method: str, params: dict[str, Any]) -> None:
        if method == "notifications/subscriptions/acknowledged":
            n = params.get("notifications")
            self.acknowledged = n if isinstance(n, dict) else {}
            if not self._ack.done():
                self._ack.set_result(self.acknowledged)
            return
        if not self._ack.done():
            return  # nothing counts before the acknowledgement
        try:
            self._queue.put_nowait((method, params))
        except asyncio.QueueFull:
            log.warning("subscription %r: dropped %s (the reader is behind)", self.id, method)

    def _ended(self, task: asyncio.Task[dict[str, Any]]) -> None:
        self.completed = not task.cancelled() and task.exception() is None
        if not self._ack.done():
            exc = task.exception() if not task.cancelled() else None
            self._ack.set_exception(exc or ConnectionClosed("the subscription ended before its acknowledgement"))
        self._queue.put_nowait(None)
        if self.id is not None:
            self._session._subscriptions.pop(id_key(self.id), None)

    async def wait_acknowledged(self) -> dict[str, Any]:
        """The acknowledged filter (waits for it)."""
        return await self._ack

    def __aiter__(self) -> AsyncIterator[tuple[str, dict[str, Any]]]:
        return self._iter()

    async def _iter(self) -> AsyncIterator[tuple[str, dict[str, Any]]]:
        while True:
            item = await self._queue.get()
            if item is None:
                return
            yield item

    async def close(self) -> None:
        """Cancels the subscription (``notifications/cancelled`` on stdio; the stream closes on HTTP)."""
        if self.task is not None and not self.task.done():
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)


class ClientSession:
    """A client of one revision (``table``). See the module doc for the lifecycles.

    ``client_info``: this client's ``Implementation``; ``capabilities``: its ``ClientCapabilities``;
    ``timeout``: default seconds per request; ``max_input_rounds``: stateless retries at most.
    """

    def __init__(
        self,
        table: ProtocolTable,
        *,
        client_info: Mapping[str, Any] | BaseModel,
        capabilities: Mapping[str, Any] | BaseModel | None = None,
        handlers: Mapping[str, Handler] | None = None,
        notification_handlers: Mapping[str, NotificationHandler] | None = None,
        fallback_tables: Sequence[ProtocolTable] = (),
        timeout: float | None = 60.0,
        probe_timeout: float = 10.0,
        max_input_rounds: int = DEFAULT_MAX_INPUT_ROUNDS,
        validate_results: bool = True,
    ) -> None:
        self.table = table
        self.active = table
        self.client_info: dict[str, Any] = dump(client_info)
        self.capabilities: dict[str, Any] = dump(capabilities) if capabilities is not None else {}
        self.handlers = dict(handlers or {})
        self.notification_handlers = dict(notification_handlers or {})
        self.fallback_tables = list(fallback_tables)
        self.probe_timeout = probe_timeout
        self.max_input_rounds = max_input_rounds
        self.validate_results = validate_results
        self.peer = Peer(on_request=self._on_request, on_notification=self._on_notification, timeout=timeout, answer_parse_errors=False)
        self.server: ServerDescription | None = None
        self.transport: Transport | None = None
        self._subscriptions: dict[RequestId, Subscription] = {}
        self._closed = asyncio.Event()

    @property
    def stateless(self) -> bool:
        return self.active.lifecycle == "stateless"

    # ---- lifecycle ----

    async def connect(self, transport: Transport) -> ServerDescription:
        """Starts ``transport`` and runs the lifecycle; returns what the server said of itself."""
        self.transport = transport
        self.peer.channel = transport
        await transport.start(self)
        try:
            if self.active.lifecycle == "stateless":
                description = await self._discover()
                if description is not None:
                    return description
            return await self._handshake()
        except BaseException:
            await self.close()
            raise

    async def _handshake(self) -> ServerDescription:
        versions = [self.active.protocol_version, *(t.protocol_version for t in self.fallback_tables if t.lifecycle == "handshake")]
        self._tell_transport(self.active.protocol_version, "handshake")
        result = await self.peer.request(
            "initialize", {"protocolVersion": self.active.protocol_version, "capabilities": self.capabilities, "clientInfo": self.client_info}
        )
        version = result.get("protocolVersion")
        chosen = next((t for t in [self.active, *self.fallback_tables] if t.lifecycle == "handshake" and t.protocol_version == version), None)
        if chosen is None:
            raise UnsupportedVersionError([version] if isinstance(version, str) else [], versions)
        self.active = chosen
        self._check_result("initialize", result)
        self._tell_transport(chosen.protocol_version, "handshake")
        caps = result.get("capabilities")
        info = result.get("serverInfo")
        instructions = result.get("instructions")
        self.server = ServerDescription(chosen.protocol_version, caps if isinstance(caps, dict) else {}, info if isinstance(info, dict) else None, instructions if isinstance(instructions, str) else None, result)
        await self.peer.notify("notifications/initialized")
        opener = getattr(self.transport, "open_standalone_stream", None)
        if callable(opener):
            await opener()
        return self.server

    async def _discover(self) -> ServerDescription | None:
        legacy = next((t for t in self.fallback_tables if t.lifecycle == "handshake"), None)
        self._tell_transport(self.active.protocol_version, "stateless")
        try:
            result = await self._send_stateless("server/discover", {}, timeout=self.probe_timeout if legacy else None)
        except (RpcError, RequestTimeout, LegacyServerError) as e:
            if legacy is None or (isinstance(e, RpcError) and e.code in MODERN_ERRORS):
                raise
            log.debug("server/discover failed (%s): falling back to initialize at %s", e, legacy.protocol_version)
            self.active = legacy
            return None
        versions = result.get("supportedVersions")
        if isinstance(versions, list) and versions and self.active.protocol_version not in versions:
            raise UnsupportedVersionError([v for v in versions if isinstance(v, str)], [self.active.protocol_version])
        meta = result.get("_meta")
        info = meta.get(SERVER_INFO_META) if isinstance(meta, dict) else None
        caps = result.get("capabilities")
        instructions = result.get("instructions")
        self.server = ServerDescription(self.active.protocol_version, caps if isinstance(caps, dict) else {}, info if isinstance(info, dict) else None, instructions if isinstance(instructions, str) else None, result)
        return self.server

    def _tell_transport(self, version: str, era: str) -> None:
        setter = getattr(self.transport, "set_protocol", None)
        if callable(setter):
            setter(version, era)

    def _with_meta(self, params: Mapping[str, Any]) -> dict[str, Any]:
        meta = params.get("_meta")
        return {
            **params,
            "_meta": {
                **(meta if isinstance(meta, dict) else {}),
                PROTOCOL_VERSION_META: self.active.protocol_version,
                CLIENT_CAPABILITIES_META: self.capabilities,
                CLIENT_INFO_META: self.client_info,
            },
        }

    async def close(self) -> None:
        """Ends the connection (the transport closes; requests in flight fail)."""
        for sub in list(self._subscriptions.values()):
            await sub.close()
        if self.transport is not None:
            try:
                await self.transport.close()
            except Exception:
                log.debug("transport close failed", exc_info=True)
        self.peer.close(None)
        self._closed.set()

    async def __aenter__(self) -> ClientSession:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # ---- transport receiver ----

    def receive(self, message: Any, channel: Channel | None = None, info: Mapping[str, Any] | None = None) -> Any:
        return self.peer.receive(message, channel, info)

    def connection_lost(self, error: BaseException | None = None) -> None:
        """The transport closed (what transports call): requests in flight fail."""
        self.peer.close(error)
        self._closed.set()

    async def wait_closed(self) -> None:
        """Returns once the connection closed."""
        await self._closed.wait()

    # ---- outbound ----

    async def request(self, method: str, params: Any = None, *, timeout: float | None = None, on_progress: ProgressCallback | None = None) -> dict[str, Any]:
        """Sends a client request of the active revision and returns its (complete) result as JSON data.

        Stateless revisions: ``_meta`` is added and ``input_required`` rounds are run. Raises
        :class:`RpcError` (the server's error), :class:`RequestTimeout`, :class:`ConnectionClosed`,
        :class:`CapabilityError` (the server did not declare what the method needs).
        """
        data: dict[str, Any] = dump(params) if params is not None else {}
        spec = self.active.client_requests.get(method)
        if spec is not None and spec.capability and self.server is not None and not has_capability(self.server.capabilities, spec.capability[:1]):
            raise CapabilityError(f"{method}: the server does not declare capabilities.{spec.capability[0]}")
        if not self.stateless:
            try:
                result = await self.peer.request(method, data if (params is not None or (spec and spec.params_required)) else None, timeout=timeout, on_progress=on_progress)
            except ConnectionClosed as e:
                if type(e).__name__ == "SessionExpiredError" and not self.peer.is_closed:
                    # field case 006: a new session for the calls after this one; this one fails
                    # (it is not resent: it may not be idempotent)
                    await self._handshake()
                raise
            return self._check_result(method, result)

        async def send(attempt: dict[str, Any]) -> dict[str, Any]:
            return await self._send_stateless(method, attempt, timeout=timeout, on_progress=on_progress)

        result, _ = await run_input_rounds(method, data, send, self._answer_input, max_rounds=self.max_input_rounds)
        return self._check_result(method, result)

    async def _send_stateless(self, method: str, params: dict[str, Any], *, timeout: float | None = None, on_progress: ProgressCallback | None = None) -> dict[str, Any]:
        """Sends once; on -32022 (UnsupportedProtocolVersion) naming the version sent among the
        supported ones, sends again once; naming another stateless table's version, switches to it."""
        try:
            return await self.peer.request(method, self._with_meta(params), timeout=timeout, on_progress=on_progress)
        except RpcError as e:
            if e.code != (self.active.error_code("UNSUPPORTED_PROTOCOL_VERSION") or -32022):
                raise
            supported = e.data.get("supported") if isinstance(e.data, dict) else None
            if not isinstance(supported, list):
                raise
            if self.active.protocol_version not in supported:
                other = next((t for t in [self.table, *self.fallback_tables] if t.lifecycle == "stateless" and t.protocol_version in supported), None)
                if other is None:
                    raise
                self.active = other
                self._tell_transport(other.protocol_version, "stateless")
            return await self.peer.request(method, self._with_meta(params), timeout=timeout, on_progress=on_progress)

    def _check_result(self, method: str, result: dict[str, Any]) -> dict[str, Any]:
        spec = self.active.client_requests.get(method)
        if spec is None or not self.validate_results:
            return result
        if self.stateless:
            if result.get("resultType", "complete") != "complete":
                raise InvalidResultError(f"{method}: unknown resultType {result.get('resultType')!r}")
            if "resultType" not in result:
                # a server of an earlier version: an absent resultType is "complete" (basic/index, ResultType)
                result = {"resultType": "complete", **result}
        for model in (spec.result, *spec.alt_results):
            try:
                validate(model, result)
                return result
            except ValidationError as e:
                first = e
        raise InvalidResultError(f"{method}: invalid result: {validation_message(first, 'result.')}")

    async def _answer_input(self, key: str, embedded: Any) -> Any:
        method = embedded.get("method") if isinstance(embedded, dict) else None
        spec = self.active.server_requests.get(method) if isinstance(method, str) else None
        if spec is None:
            raise InvalidResultError(f"inputRequests[{key!r}]: not a request of {self.active.revision}")
        if spec.capability and not has_capability(self.capabilities, spec.capability):
            raise CapabilityError(f"inputRequests[{key!r}]: {method} needs capabilities.{'.'.join(spec.capability)}, which this client did not declare")
        handler = self.handlers.get(spec.method)
        if handler is None:
            raise CapabilityError(f"inputRequests[{key!r}]: this client has no handler for {method}")
        params = validate_params(spec, embedded.get("params"))
        ctx = RequestContext(self.peer, key, spec.method, embedded.get("params") or {}, _NoChannel(), None)
        ctx.session = self
        r = handler(params, ctx)
        if inspect.isawaitable(r):
            r = await r
        return dump(r)

    async def notify(self, method: str, params: Any = None) -> None:
        """A client notification (``notifications/roots/list_changed`` …)."""
        await self.peer.notify(method, params)

    async def listen(self, notifications: Mapping[str, Any], *, timeout: float | None = None) -> Subscription:
        """Opens a ``subscriptions/listen`` stream (stateless revisions) and waits for its acknowledgement."""
        sub = Subscription(self)

        def on_id(rid: RequestId) -> None:
            sub.id = rid
            self._subscriptions[id_key(rid)] = sub

        sub.task = asyncio.ensure_future(self.peer.request("subscriptions/listen", self._with_meta({"notifications": dict(notifications)}), timeout=0, on_id=on_id))
        sub.task.add_done_callback(sub._ended)
        if timeout is None:
            await sub.wait_acknowledged()
        else:
            async with asyncio.timeout(timeout):
                await sub.wait_acknowledged()
        return sub

    # ---- inbound ----

    async def _on_request(self, ctx: RequestContext) -> Any:
        ctx.session = self
        if ctx.method == "ping":
            return {}
        spec = self.active.server_requests.get(ctx.method)
        handler = self.handlers.get(ctx.method) if spec is not None else None
        if spec is None or handler is None or spec.embedded:
            raise RpcError(METHOD_NOT_FOUND, f"Method not found: {ctx.method}")
        if spec.capability and not has_capability(self.capabilities, spec.capability[:1]):
            raise RpcError(METHOD_NOT_FOUND, f"Method not found: {ctx.method} (the client does not declare capabilities.{spec.capability[0]})")
        params = validate_params(spec, ctx.params)
        r = handler(params, ctx)
        if inspect.isawaitable(r):
            r = await r
        data = dump(r)
        if not isinstance(data, dict):
            raise RpcError(INTERNAL_ERROR, f"Internal error: the {ctx.method} handler returned no object")
        return data

    def _on_notification(self, method: str, params: Any, channel: Channel | None) -> Any:
        if isinstance(params, dict):
            meta = params.get("_meta")
            sid = meta.get(SUBSCRIPTION_ID_META) if isinstance(meta, dict) else None
            if sid is not None and isinstance(sid, (str, int)) and not isinstance(sid, bool):
                sub = self._subscriptions.get(id_key(sid))
                if sub is not None and type(sub.id) is type(sid):
                    sub._deliver(method, params)
                    return None
        spec = self.active.server_notifications.get(method)
        handler = self.notification_handlers.get(method)
        if spec is None or handler is None:
            return None
        try:
            model = validate_params(spec, params)
        except RpcError as e:
            log.debug("dropped %s: %s", method, e.message)
            return None
        return handler(model)


class _NoChannel:
    async def send(self, message: Any) -> None:
        raise ConnectionClosed("an input request answers through its retry, not a channel")

