"""``ServerSession``: the server facade the generated ``Server`` of every revision extends.

It serves a handler table (method → ``async (params, ctx) -> result``) checked against the
revision's :class:`~mcpgen_runtime.protocol.ProtocolTable`: unknown methods and methods of a
capability the server does not declare get -32601, params that fail their model -32602, results
are checked against their model before they leave. The lifecycle is picked from the table:

- ``handshake`` (2025-11-25 and older, ``basic/lifecycle``): ``initialize`` negotiates the
  version (the table's, or one of ``fallback_tables`` the client asks for), then
  ``notifications/initialized``; ``ping``; ``logging/setLevel`` sets the threshold of :meth:`log`.
- ``stateless`` (2026-07-28, ``basic/versioning``): every request carries its protocol version and
  client capabilities in ``_meta`` (-32602 when missing, -32022 with ``data.supported`` for another
  version); ``server/discover``; results get ``resultType: "complete"``; an ``InputRequiredResult``
  is checked against the request's client capabilities (-32021); ``subscriptions/listen`` streams
  get the list changes (:meth:`notify_changed`); log messages follow each request's ``_meta`` level.

One session may serve many connections at once in the stateless era (each request brings its
channel); in the handshake era it is one client's.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from .engine import Channel, Peer, RequestContext, dump
from .jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, ConnectionClosed, RpcError
from .protocol import ProtocolTable, RequestSpec, Schema, has_capability, is_instance, validate, validate_params, validation_message
from .stateless import (
    CLIENT_CAPABILITIES_META,
    LISTEN_NOTIFICATIONS,
    LOG_LEVEL_META,
    PROTOCOL_VERSION_META,
    SERVER_INFO_META,
    RequestStateSealer,
    SubscriptionHub,
    check_input_required,
    client_capabilities_of,
)
from .transport import Transport

log = logging.getLogger("mcpgen_runtime.server")

Handler = Callable[[Any, RequestContext], Awaitable[Any]]
"""A request handler: ``async (params_model, ctx) -> result`` (a model or a dict)."""

NotificationHandler = Callable[[Any], Any]
"""A notification handler: ``(params_model) -> None`` (may be async)."""

UNSUPPORTED_PROTOCOL_VERSION = -32022



def _bad_level(params: dict[str, Any]) -> RpcError:
    """The -32602 of a ``logging/setLevel`` whose level is missing, not a string or not a level: in
    the words and ``data.errors`` of the TypeScript runtime's params check (its schema validator's)."""
    path, keyword, words = (
        ("", "required", "must have required property 'level'")
        if "level" not in params
        else ("/level", "type", "must be string")
        if not isinstance(params["level"], str)
        else ("/level", "enum", "must be equal to one of the allowed values")
    )
    return RpcError(INVALID_PARAMS, f"Invalid params for logging/setLevel: {path or '/'} {words}", {"errors": [{"path": path, "keyword": keyword, "message": words}]})

class ServerSession:
    """A server speaking one revision (``table``) to one client (handshake) or to any (stateless).

    ``handlers`` maps each client request method to its handler (the generated ``Server`` builds it
    from a ``ServerHandlers`` object, so that a missing or mistyped handler is a type error).
    ``capabilities`` is the ``ServerCapabilities`` object sent to the client; ``server_info`` its
    ``Implementation``; ``fallback_tables``: older handshake revisions ``initialize`` also accepts.
    ``request_state_secret``: the HMAC key of sealed ``requestState`` (share it between workers).
    """

    def __init__(
        self,
        table: ProtocolTable,
        *,
        server_info: Mapping[str, Any] | BaseModel,
        handlers: Mapping[str, Handler],
        capabilities: Mapping[str, Any] | BaseModel | None = None,
        instructions: str | None = None,
        notification_handlers: Mapping[str, NotificationHandler] | None = None,
        fallback_tables: Sequence[ProtocolTable] = (),
        request_state_secret: bytes | str | None = None,
        timeout: float | None = 60.0,
        cache_hints: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> None:
        self.table = table
        #: Caching hints (``ttlMs``, ``cacheScope``) by method, for the results whose schema asks for
        #: them (2026-07-28 ``server/utilities/caching``); default ``{"ttlMs": 0, "cacheScope": "private"}``.
        self.cache_hints = {k: dict(v) for k, v in (cache_hints or {}).items()}
        self.active = table
        self.server_info: dict[str, Any] = dump(server_info)
        self.handlers = dict(handlers)
        self.capabilities: dict[str, Any] = dump(capabilities) if capabilities is not None else {}
        self.instructions = instructions
        self.notification_handlers = dict(notification_handlers or {})
        self.fallback_tables = [t for t in fallback_tables if t.lifecycle == "handshake" and t.protocol_version != table.protocol_version]
        self.stateless = table.lifecycle == "stateless"
        self.peer = Peer(on_request=self._on_request, on_notification=self._on_notification, timeout=timeout)
        if not self.stateless:
            self.peer.revision = lambda: self.active.protocol_version
        self.request_state = RequestStateSealer(request_state_secret)
        self.subscriptions = SubscriptionHub(lambda: self.capabilities) if self.stateless else None
        # handshake state
        self.initialize_received = False
        self.initialized = False
        self.client_info: dict[str, Any] | None = None
        self.client_capabilities: dict[str, Any] = {}
        self.log_level: str | None = None
        self.resource_subscriptions: set[str] = set()
        self._closed = asyncio.Event()
        self._close_listeners: list[Callable[[], Any]] = []
        self.transport: Transport | None = None
        #: The ``x-mcp-header`` annotations of a tool by name (set by ``ServerFeatures.attach``).
        self.tool_header_params: Callable[[str], Any] | None = None

    # ---- connection ----

    async def connect(self, transport: Transport) -> None:
        """Serves the client at the other end of ``transport`` (returns once it is started)."""
        self.transport = transport
        self.peer.channel = transport
        await transport.start(self)

    async def serve(self, transport: Transport) -> None:
        """:meth:`connect`, then wait until the connection closes."""
        await self.connect(transport)
        await self.wait_closed()

    def receive(self, message: Any, channel: Channel | None = None, info: Mapping[str, Any] | None = None) -> RequestContext | None:
        """One inbound message (what transports call)."""
        return self.peer.receive(message, channel, info)

    def connection_lost(self, error: BaseException | None = None) -> None:
        """The connection closed (what transports call): requests in flight are cancelled."""
        if self._closed.is_set():
            return
        self.peer.close(error)
        if self.subscriptions is not None:
            asyncio.ensure_future(self.subscriptions.close())
        self._closed.set()
        for f in self._close_listeners:
            try:
                f()
            except Exception:
                log.exception("close listener failed")

    async def settle(self) -> None:
        """Returns once the requests received so far are answered (what a stdio transport awaits
        at the end of stdin before it closes the connection)."""
        await self.peer.settle()

    def on_close(self, listener: Callable[[], Any]) -> None:
        """Calls ``listener`` once the session's connection closes."""
        self._close_listeners.append(listener)

    async def close(self) -> None:
        """Ends the session: listen streams get their completion result, the transport closes."""
        if self.subscriptions is not None:
            await self.subscriptions.close()
        if self.transport is not None:
            await self.transport.close()
        self.connection_lost(None)

    async def wait_closed(self) -> None:
        """Returns once the connection closed."""
        await self._closed.wait()

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    # ---- outbound ----

    async def request(self, method: str, params: Any = None, *, timeout: float | None = None, ctx: RequestContext | None = None) -> dict[str, Any]:
        """A server→client request (handshake era); the client must declare its capability.
        ``ctx``: the request it relates to (sent on that request's channel)."""
        spec = self.active.server_requests.get(method)
        if spec is not None and spec.embedded:
            raise RpcError(INVALID_REQUEST, f"{method} travels only inside an InputRequiredResult in {self.active.revision}")
        if spec is not None and spec.capability and not has_capability(self.client_capabilities, spec.capability):
            raise RpcError(METHOD_NOT_FOUND, f"the client does not declare capabilities.{'.'.join(spec.capability)} ({method})")
        return await self.peer.request(method, dump(params) if params is not None else None, channel=ctx.channel if ctx else None, timeout=timeout)

    async def notify(self, method: str, params: Any = None) -> None:
        """A server→client notification on the connection (handshake era); list changes and
        resource updates of a stateless revision go to the listen streams (:meth:`notify_changed`)."""
        if self.stateless:
            if method in LISTEN_NOTIFICATIONS and self.subscriptions is not None:
                self.subscriptions.publish(method, dump(params) if params is not None else None)
            return
        await self.peer.notify(method, params)

    def notify_changed(self, method: str, params: Mapping[str, Any] | None = None) -> None:
        """A list change or resource update: to the listen streams (stateless) or the client, when
        initialized and subscribed where that applies (handshake). Never raises."""
        if self.stateless:
            if self.subscriptions is not None:
                self.subscriptions.publish(method, params)
            return
        if not self.initialized or self.peer.is_closed:
            return
        if method == "notifications/resources/updated" and (params or {}).get("uri") not in self.resource_subscriptions:
            return

        async def go() -> None:
            try:
                await self.peer.notify(method, params)
            except (ConnectionClosed, OSError):
                pass

        asyncio.ensure_future(go())

    async def log(self, level: str, data: Any, logger: str | None = None, *, ctx: RequestContext | None = None) -> bool:
        """``notifications/message`` at ``level`` when the client's threshold lets it through:
        ``logging/setLevel``'s (handshake; all levels before one is set) or the request's
        ``_meta`` level (stateless; nothing without one). Returns whether it was sent."""
        levels = list(self.active.logging_levels)
        if level not in levels:
            raise ValueError(f"unknown log level {level!r} (levels: {', '.join(levels)})")
        params: dict[str, Any] = {"level": level, "data": data}
        if logger is not None:
            params["logger"] = logger
        if self.stateless:
            threshold = ctx.meta.get(LOG_LEVEL_META) if ctx is not None else None
            if not isinstance(threshold, str) or threshold not in levels or levels.index(level) < levels.index(threshold) or ctx is None:
                return False
            await ctx.send_notification("notifications/message", params)
            return True
        if not has_capability(self.capabilities, ("logging",)):
            return False
        if self.log_level is not None and levels.index(level) < levels.index(self.log_level):
            return False
        if ctx is not None:
            await ctx.send_notification("notifications/message", params)
        else:
            await self.peer.notify("notifications/message", params)
        return True

    # ---- inbound ----

    async def _on_request(self, ctx: RequestContext) -> Any:
        ctx.session = self
        method = ctx.method
        if self.stateless:
            return await self._stateless_request(ctx)
        if method == "initialize":
            return self._initialize(ctx)
        if method == "ping":
            return {}
        if not self.initialize_received:
            raise RpcError(INVALID_REQUEST, f"Invalid Request: {method} before initialize")
        if method == "logging/setLevel" and "logging/setLevel" not in self.handlers and "logging/setLevel" in self.active.client_requests:
            if not has_capability(self.capabilities, ("logging",)):
                raise RpcError(METHOD_NOT_FOUND, "Method not found: logging/setLevel (the server does not declare capabilities.logging)")
            level = ctx.params.get("level")
            if not isinstance(level, str) or level not in self.active.logging_levels:
                raise _bad_level(ctx.params)
            self.log_level = level
            return {}
        return await self.dispatch(ctx)

    async def dispatch(self, ctx: RequestContext) -> Any:
        """Routes a request to its handler through the table (see the class doc)."""
        spec = self.active.client_requests.get(ctx.method)
        handler = self.handlers.get(ctx.method) if spec is not None else None
        if spec is None or handler is None:
            raise RpcError(METHOD_NOT_FOUND, f"Method not found: {ctx.method}")
        if spec.capability and not has_capability(self.capabilities, spec.capability[:1]):
            raise RpcError(METHOD_NOT_FOUND, f"Method not found: {ctx.method} (the server does not declare capabilities.{spec.capability[0]})")
        params = validate_params(spec, ctx.params)
        result = handler(params, ctx)
        if inspect.isawaitable(result):
            result = await result
        return self._checked(spec, result, ctx)

    def _checked(self, spec: RequestSpec, result: Any, ctx: RequestContext) -> dict[str, Any]:
        """The result as JSON data, checked against its model (by ``resultType``), -32603 when it fails."""
        data = dump(result) if result is not None else {}
        if not isinstance(data, dict):
            raise RpcError(INTERNAL_ERROR, f"Internal error: the {ctx.method} handler returned no object")
        if self.stateless and "resultType" not in data:
            data = {"resultType": "complete", **data}
        kind = data.get("resultType")
        if self.stateless:
            data = self._cache_hints(spec, data, kind)
        candidates: tuple[Schema, ...] = (spec.result, *spec.alt_results)
        if kind == "input_required":
            check_input_required(self.active, spec, data, client_capabilities_of(ctx))
            found = self.active.model("InputRequiredResult")
            candidates = (found,) if found is not None else ()
        elif is_instance(result, candidates):
            return data
        errors: list[ValidationError] = []
        for model in candidates:
            try:
                validate(model, data)
                return data
            except ValidationError as e:
                errors.append(e)
        if errors:
            log.error("invalid %s result: %s", ctx.method, validation_message(errors[0]))
            raise RpcError(INTERNAL_ERROR, f"Internal error: invalid {ctx.method} result: {validation_message(errors[0], 'result.')}")
        return data

    def _cache_hints(self, spec: RequestSpec, data: dict[str, Any], kind: Any) -> dict[str, Any]:
        """Caching hints on the complete results whose model has them (the cacheable methods); none on input_required."""
        if kind == "input_required":
            if "ttlMs" in data or "cacheScope" in data:
                data = {k: v for k, v in data.items() if k not in ("ttlMs", "cacheScope")}
            return data
        fields = getattr(spec.result, "model_fields", {})
        aliases = {f.alias or n for n, f in fields.items()}
        if "ttlMs" not in aliases or ("ttlMs" in data and data.get("cacheScope") in ("public", "private")):
            return data
        hint = self.cache_hints.get(spec.method, {"ttlMs": 0, "cacheScope": "private"})
        out = {**data}
        if not isinstance(out.get("ttlMs"), int) or out["ttlMs"] < 0:
            out["ttlMs"] = hint.get("ttlMs", 0)
        if out.get("cacheScope") not in ("public", "private"):
            out["cacheScope"] = hint.get("cacheScope", "private")
        return out

    def _initialize(self, ctx: RequestContext) -> dict[str, Any]:
        spec = self.table.client_requests.get("initialize")
        if spec is None:
            raise RpcError(METHOD_NOT_FOUND, "Method not found: initialize")
        validate_params(spec, ctx.params)
        if self.initialize_received:
            raise RpcError(INVALID_REQUEST, "Invalid Request: the session is already initialized")
        requested = ctx.params.get("protocolVersion")
        chosen = self.table
        for t in self.fallback_tables:
            if t.protocol_version == requested:
                chosen = t
        self.active = chosen
        self.initialize_received = True
        info = ctx.params.get("clientInfo")
        caps = ctx.params.get("capabilities")
        self.client_info = info if isinstance(info, dict) else None
        self.client_capabilities = caps if isinstance(caps, dict) else {}
        result: dict[str, Any] = {"protocolVersion": chosen.protocol_version, "capabilities": self.capabilities, "serverInfo": self.server_info}
        if self.instructions is not None:
            result["instructions"] = self.instructions
        return result

    def versions(self) -> list[str]:
        """The protocol versions this session answers, newest first."""
        return [self.table.protocol_version, *(t.protocol_version for t in self.fallback_tables)]

    async def _stateless_request(self, ctx: RequestContext) -> Any:
        meta = ctx.meta
        version = meta.get(PROTOCOL_VERSION_META)
        if not isinstance(version, str):
            raise RpcError(INVALID_PARAMS, f'Invalid params: missing _meta["{PROTOCOL_VERSION_META}"]')
        if version != self.table.protocol_version:
            code = self.table.error_code("UNSUPPORTED_PROTOCOL_VERSION") or UNSUPPORTED_PROTOCOL_VERSION
            raise RpcError(code, "Unsupported protocol version", {"supported": [self.table.protocol_version], "requested": version})
        if not isinstance(meta.get(CLIENT_CAPABILITIES_META), dict):
            raise RpcError(INVALID_PARAMS, f'Invalid params: missing _meta["{CLIENT_CAPABILITIES_META}"]')
        if ctx.method == "server/discover":
            return self.discover()
        if ctx.method == "subscriptions/listen" and "subscriptions/listen" not in self.handlers:
            assert self.subscriptions is not None
            return await self.subscriptions.listen(ctx)
        return await self.dispatch(ctx)

    def discover(self) -> dict[str, Any]:
        """The ``DiscoverResult`` of this server (cacheable for a minute by anyone)."""
        result: dict[str, Any] = {
            "resultType": "complete",
            "supportedVersions": [self.table.protocol_version, *(t.protocol_version for t in self.fallback_tables)],
            "capabilities": self.capabilities,
            "ttlMs": 60000,
            "cacheScope": "public",
            "_meta": {SERVER_INFO_META: self.server_info},
        }
        if self.instructions is not None:
            result["instructions"] = self.instructions
        return result

    def _on_notification(self, method: str, params: Any, channel: Channel | None) -> Any:
        if not self.stateless and method == "notifications/initialized":
            self.initialized = True
        spec = self.active.client_notifications.get(method)
        handler = self.notification_handlers.get(method)
        if spec is None or handler is None:
            return None
        try:
            model = validate_params(spec, params)
        except RpcError as e:
            log.debug("dropped %s: %s", method, e.message)
            return None
        return handler(model)
