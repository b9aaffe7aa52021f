"""What the stateless revisions add (2026-07-28 ``basic/patterns/mrtr``, ``basic/patterns/subscriptions``).

Server side: a handler of ``tools/call``, ``prompts/get`` or ``resources/read`` returns
:func:`input_required` instead of its result; the client answers the embedded requests and
retries with ``inputResponses`` and the exact ``requestState``, read back with :func:`read_input`.
:class:`RequestStateSealer` protects ``requestState`` with HMAC-SHA256 under a secret that several
workers may share, binding it to the request's method and target (tool, prompt, resource), the
server's audience and an expiry (mrtr page, Server Requirements 4-5).
:class:`SubscriptionHub` serves ``subscriptions/listen``: the acknowledgement first, then only the
notification kinds the client asked for and the server honours, each tagged with the subscription id.

Client side: :func:`run_input_rounds` is the retry loop of a stateless client.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final

from .engine import RequestContext
from .jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, RpcError, notification
from .protocol import ProtocolTable, RequestSpec, has_capability

META: Final = "io.modelcontextprotocol/"
PROTOCOL_VERSION_META: Final = META + "protocolVersion"
CLIENT_CAPABILITIES_META: Final = META + "clientCapabilities"
CLIENT_INFO_META: Final = META + "clientInfo"
LOG_LEVEL_META: Final = META + "logLevel"
SERVER_INFO_META: Final = META + "serverInfo"
SUBSCRIPTION_ID_META: Final = META + "subscriptionId"

#: ``resultType`` values a stateless client understands; any other is an invalid result.
RESULT_TYPES: Final = ("complete", "input_required")
#: Input-required rounds a client answers before it gives up (field case 016).
DEFAULT_MAX_INPUT_ROUNDS: Final = 10
#: Shortest request-state secret accepted, bytes.
MIN_SECRET_BYTES: Final = 32

MISSING_REQUIRED_CLIENT_CAPABILITY: Final = -32021


def input_required(*, input_requests: Mapping[str, Any] | None = None, request_state: str | None = None) -> dict[str, Any]:
    """An ``InputRequiredResult``: ``{"resultType": "input_required", inputRequests?, requestState?}``.

    Raises ``ValueError`` when both are absent (the mrtr page: at least one MUST be present).
    """
    if not input_requests and request_state is None:
        raise ValueError("an InputRequiredResult needs input_requests or request_state")
    out: dict[str, Any] = {"resultType": "input_required"}
    if input_requests:
        out["inputRequests"] = dict(input_requests)
    if request_state is not None:
        out["requestState"] = request_state
    return out


def elicit(params: Mapping[str, Any]) -> dict[str, Any]:
    """An embedded ``elicitation/create`` request (``ElicitRequestParams``)."""
    return {"method": "elicitation/create", "params": dict(params)}


def sample(params: Mapping[str, Any]) -> dict[str, Any]:
    """An embedded ``sampling/createMessage`` request (``CreateMessageRequestParams``)."""
    return {"method": "sampling/createMessage", "params": dict(params)}


def list_roots() -> dict[str, Any]:
    """An embedded ``roots/list`` request."""
    return {"method": "roots/list"}


def read_input(params: Mapping[str, Any] | None) -> tuple[dict[str, Any], str | None]:
    """``(inputResponses, requestState)`` of a retried request (``{}`` and None when absent)."""
    r = (params or {}).get("inputResponses")
    s = (params or {}).get("requestState")
    return (r if isinstance(r, dict) else {}), (s if isinstance(s, str) else None)


def client_capabilities_of(ctx: RequestContext) -> dict[str, Any]:
    """The client capabilities a stateless request declared in its ``_meta``."""
    caps = ctx.meta.get(CLIENT_CAPABILITIES_META)
    return caps if isinstance(caps, dict) else {}


def missing_capability(paths: Mapping[str, Any]) -> RpcError:
    """-32021 ``MissingRequiredClientCapability`` with ``data.requiredCapabilities``."""
    return RpcError(MISSING_REQUIRED_CLIENT_CAPABILITY, "Missing required client capability", {"requiredCapabilities": dict(paths)})


def require_client_capabilities(ctx: RequestContext, required: Mapping[str, Any]) -> None:
    """Raises -32021 unless the request's client capabilities declare every top-level key of ``required``."""
    caps = client_capabilities_of(ctx)
    missing = {k: v for k, v in required.items() if not has_capability(caps, (k,))}
    if missing:
        raise missing_capability(missing)


def check_input_required(table: ProtocolTable, spec: RequestSpec, result: Mapping[str, Any], capabilities: Mapping[str, Any]) -> None:
    """Checks an ``InputRequiredResult`` before it leaves: a method that may carry one, at least one
    field, embedded requests of the revision, each allowed by the request's client capabilities
    (-32021 otherwise); -32603 for a server fault."""
    if not spec.input_required:
        raise RpcError(INTERNAL_ERROR, f"Internal error: {spec.method} may not answer input_required")
    requests = result.get("inputRequests")
    if not requests and not isinstance(result.get("requestState"), str):
        raise RpcError(INTERNAL_ERROR, "Internal error: an InputRequiredResult needs inputRequests or requestState")
    missing: dict[str, Any] = {}
    for key, req in (requests or {}).items():
        method = req.get("method") if isinstance(req, dict) else None
        embedded = table.server_requests.get(method) if isinstance(method, str) else None
        if embedded is None:
            raise RpcError(INTERNAL_ERROR, f"Internal error: inputRequests[{key!r}] is not a request of {table.revision}")
        if embedded.capability and not has_capability(capabilities, embedded.capability):
            missing[embedded.capability[0]] = {}
    if missing:
        raise missing_capability(missing)


# ---- requestState ----


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def request_target(ctx: RequestContext) -> str:
    """What a request is about: its tool or prompt name, or its resource URI."""
    p = ctx.params
    for key in ("name", "uri"):
        v = p.get(key)
        if isinstance(v, str):
            return v
    return ""


class RequestStateSealer:
    """Seals ``requestState`` with HMAC-SHA256: ``<payload>.<mac>``, both base64url.

    ``secret`` (at least 32 bytes; default random, per process) may be shared by the workers of one
    endpoint; ``previous`` secrets are still accepted (rotation); ``ttl`` in seconds (default 300);
    ``audience`` names this server. Verification raises -32602 ``Invalid requestState`` with
    ``data.reason`` (``malformed``, ``tampered``, ``expired``, ``audience``, ``method``, ``request``).
    """

    def __init__(self, secret: bytes | str | None = None, *, previous: tuple[bytes, ...] = (), ttl: float = 300.0, audience: str = "", max_length: int = 65536) -> None:
        key = secret.encode() if isinstance(secret, str) else secret
        if key is None:
            key = secrets.token_bytes(32)
        if len(key) < MIN_SECRET_BYTES:
            raise ValueError(f"the requestState secret needs at least {MIN_SECRET_BYTES} bytes")
        self._keys = (key, *previous)
        self.ttl = ttl
        self.audience = audience
        self.max_length = max_length

    def seal(self, ctx: RequestContext, data: Any) -> str:
        """Seals ``data`` (JSON) for the request ``ctx`` (its method and target)."""
        payload = {"d": data, "m": ctx.method, "t": request_target(ctx), "a": self.audience, "e": int((time.time() + self.ttl) * 1000)}
        body = json.dumps(payload, separators=(",", ":"), sort_keys=True).encode()
        token = _b64(body) + "." + _b64(hmac.digest(self._keys[0], body, "sha256"))
        if len(token) > self.max_length:
            raise ValueError(f"sealed requestState has {len(token)} characters, more than {self.max_length}")
        return token

    def open(self, state: str, ctx: RequestContext) -> Any:
        """The data sealed into ``state``; raises -32602 when it fails verification for ``ctx``."""

        def fail(reason: str) -> RpcError:
            return RpcError(INVALID_PARAMS, f"Invalid requestState for {ctx.method}: {reason}", {"reason": reason})

        if len(state) > self.max_length:
            raise fail("too_large")
        body_text, dot, mac_text = state.partition(".")
        try:
            body, mac = _unb64(body_text), _unb64(mac_text)
        except (ValueError, TypeError):
            raise fail("malformed") from None
        if not dot or not any(hmac.compare_digest(hmac.digest(k, body, "sha256"), mac) for k in self._keys):
            raise fail("tampered")
        try:
            payload = json.loads(body)
        except ValueError:
            raise fail("malformed") from None
        if not isinstance(payload, dict):
            raise fail("malformed")
        if payload.get("a") != self.audience:
            raise fail("audience")
        if not isinstance(payload.get("e"), int) or payload["e"] < time.time() * 1000:
            raise fail("expired")
        if payload.get("m") != ctx.method:
            raise fail("method")
        if payload.get("t") != request_target(ctx):
            raise fail("request")
        return payload.get("d")


# ---- subscriptions/listen (server) ----

#: The filter keys of ``subscriptions/listen`` and the notification each one opts into.
LISTEN_FILTERS: Final = {
    "toolsListChanged": ("notifications/tools/list_changed", ("tools", "listChanged")),
    "promptsListChanged": ("notifications/prompts/list_changed", ("prompts", "listChanged")),
    "resourcesListChanged": ("notifications/resources/list_changed", ("resources", "listChanged")),
}
LISTEN_NOTIFICATIONS: Final = frozenset([*(m for m, _ in LISTEN_FILTERS.values()), "notifications/resources/updated"])


class _Subscription:
    __slots__ = ("ctx", "methods", "uris", "ended")

    def __init__(self, ctx: RequestContext, methods: set[str], uris: set[str]) -> None:
        self.ctx = ctx
        self.methods = methods
        self.uris = uris
        self.ended: asyncio.Future[None] = asyncio.get_running_loop().create_future()


class SubscriptionHub:
    """The listen streams of one server: :meth:`listen` serves ``subscriptions/listen``, :meth:`publish`
    sends a change to the streams that asked for it. :meth:`close` ends them gracefully (each gets
    its completion result)."""

    def __init__(self, capabilities: Callable[[], Mapping[str, Any]], *, max_subscriptions: int = 10000) -> None:
        self._capabilities = capabilities
        self._subs: dict[int, _Subscription] = {}
        self.max_subscriptions = max_subscriptions

    async def listen(self, ctx: RequestContext) -> dict[str, Any]:
        """Serves one ``subscriptions/listen`` request until the client cancels it or the hub closes."""
        wanted = ctx.params.get("notifications")
        if not isinstance(wanted, dict):
            raise RpcError(INVALID_PARAMS, "Invalid params: notifications must be an object")
        if len(self._subs) >= self.max_subscriptions:
            raise RpcError(INTERNAL_ERROR, "too many subscriptions")
        caps = self._capabilities()
        honoured: dict[str, Any] = {}
        methods: set[str] = set()
        for key, (method, path) in LISTEN_FILTERS.items():
            if wanted.get(key) is True and has_capability(caps, path):
                honoured[key] = True
                methods.add(method)
        uris: set[str] = set()
        rs = wanted.get("resourceSubscriptions")
        if isinstance(rs, list) and has_capability(caps, ("resources", "subscribe")):
            uris = {u for u in rs if isinstance(u, str)}
            honoured["resourceSubscriptions"] = sorted(uris)
        sid = ctx.request_id
        await ctx.send_notification("notifications/subscriptions/acknowledged", {"_meta": {SUBSCRIPTION_ID_META: sid}, "notifications": honoured})
        sub = _Subscription(ctx, methods, uris)
        slot = id(sub)
        self._subs[slot] = sub
        try:
            await sub.ended
        finally:
            self._subs.pop(slot, None)
        return {"resultType": "complete", "_meta": {SUBSCRIPTION_ID_META: sid}}

    def publish(self, method: str, params: Mapping[str, Any] | None = None) -> None:
        """Sends a change notification to every stream that opted into it."""
        uri = (params or {}).get("uri")
        for sub in list(self._subs.values()):
            if method == "notifications/resources/updated":
                if uri not in sub.uris:
                    continue
            elif method not in sub.methods:
                continue
            body = {**(params or {}), "_meta": {**((params or {}).get("_meta") or {}), SUBSCRIPTION_ID_META: sub.ctx.request_id}}
            asyncio.ensure_future(_send(sub.ctx, notification(method, body)))

    async def close(self) -> None:
        """Ends every stream gracefully: each listen request gets its completion result."""
        for sub in list(self._subs.values()):
            if not sub.ended.done():
                sub.ended.set_result(None)
        await asyncio.sleep(0)

    def __len__(self) -> int:
        return len(self._subs)


async def _send(ctx: RequestContext, message: dict[str, Any]) -> None:
    if ctx.done or ctx.cancelled:
        return
    try:
        await ctx.channel.send(message)
    except Exception:
        pass


# ---- the client's retry loop ----

InputHandler = Callable[[Any], Awaitable[Any]]


class MaxInputRoundsError(Exception):
    """A request was still answered ``input_required`` after the client's round limit."""


class InvalidResultError(RpcError):
    """A result the client cannot use (an unknown ``resultType``, a result that fails its schema)."""

    def __init__(self, message: str) -> None:
        super().__init__(INTERNAL_ERROR, message)


async def run_input_rounds(
    method: str,
    params: dict[str, Any],
    send: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]],
    answer: Callable[[str, dict[str, Any]], Awaitable[Any]],
    *,
    max_rounds: int = DEFAULT_MAX_INPUT_ROUNDS,
) -> tuple[dict[str, Any], int]:
    """Sends ``params`` and answers ``input_required`` results until a complete one: each retry is a
    new request with ``inputResponses`` (by key) and the exact ``requestState`` (none when the
    result had none). ``answer(key, embedded_request)`` fulfils one embedded request. Returns
    (result, rounds); raises :class:`MaxInputRoundsError` after ``max_rounds`` rounds and
    :class:`InvalidResultError` on an unknown ``resultType``.
    """
    base = {k: v for k, v in params.items() if k not in ("inputResponses", "requestState")}
    attempt = dict(base)
    rounds = 0
    while True:
        result = await send(attempt)
        kind = result.get("resultType", "complete")
        if kind == "complete":
            return result, rounds
        if kind != "input_required":
            raise InvalidResultError(f"{method}: unknown resultType {kind!r}")
        rounds += 1
        if rounds > max_rounds:
            raise MaxInputRoundsError(f"{method}: still input_required after {max_rounds} rounds")
        requests = result.get("inputRequests")
        responses: dict[str, Any] = {}
        if isinstance(requests, dict):
            keys = list(requests)
            answers = await asyncio.gather(*(answer(k, requests[k]) for k in keys))
            responses = dict(zip(keys, answers))
        attempt = dict(base)
        if responses:
            attempt["inputResponses"] = responses
        state = result.get("requestState")
        if isinstance(state, str):
            attempt["requestState"] = state
