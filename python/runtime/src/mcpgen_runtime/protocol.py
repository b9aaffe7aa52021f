"""The table generated code fills: a revision's methods, directions, models, capabilities and facts.

Every revision fact the runtime needs (protocol version, lifecycle, error codes, log levels, HTTP
facts) comes from a :class:`ProtocolTable`; the runtime holds no revision literal.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from pydantic import BaseModel, TypeAdapter, ValidationError

from .jsonrpc import INVALID_PARAMS, RpcError

Schema: TypeAlias = type[BaseModel] | TypeAdapter[Any]
"""What validates a value: a model class, or a ``TypeAdapter`` of a union."""

Direction: TypeAlias = Literal["clientToServer", "serverToClient"]
Lifecycle: TypeAlias = Literal["handshake", "stateless"]


@dataclass(frozen=True, slots=True)
class RequestSpec:
    """One request method of a revision (from the ProtocolModel's ``requests``)."""

    method: str
    direction: Direction
    #: The params model (None: the request has no params member).
    params: Schema | None
    #: The result model of a plain call.
    result: Schema
    #: Other results the receiver may answer with (``CreateTaskResult``).
    alt_results: tuple[Schema, ...] = ()
    #: The capability path the receiver must declare (``("resources", "subscribe")``), or None.
    capability: tuple[str, ...] | None = None
    params_required: bool = False
    #: May carry ``params.task`` (2025-11-25 tasks).
    task_augmentable: bool = False
    #: May be answered with an ``InputRequiredResult`` (2026-07-28 MRTR).
    input_required: bool = False
    #: A server→client request that only travels inside an ``InputRequiredResult``.
    embedded: bool = False


@dataclass(frozen=True, slots=True)
class NotificationSpec:
    """One notification method of a revision."""

    method: str
    direction: Direction
    params: Schema | None
    capability: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class ProtocolTable:
    """A revision as the runtime sees it (generated as ``TABLE`` in ``<package>/protocol.py``)."""

    revision: str
    protocol_version: str
    lifecycle: Lifecycle
    client_requests: Mapping[str, RequestSpec]
    server_requests: Mapping[str, RequestSpec]
    client_notifications: Mapping[str, NotificationSpec]
    server_notifications: Mapping[str, NotificationSpec]
    error_codes: Mapping[str, int] = field(default_factory=dict)
    #: ``LoggingLevel`` members, least severe first.
    logging_levels: Sequence[str] = ()
    #: Streamable HTTP: server SSE streams open with a priming event (an event ID, empty data).
    primes_streams: bool = False
    #: The version a server assumes for an HTTP request without ``MCP-Protocol-Version``.
    assumed_version: str | None = None
    #: ``http+sse`` (2024-11-05) or ``streamable-http``.
    http_transport: str = "streamable-http"
    #: Models by schema name (the ``InputRequiredResult``, ``DiscoverResult`` … the runtime builds).
    models: Mapping[str, type[BaseModel]] = field(default_factory=dict)

    def requests_to(self, side: Literal["client", "server"]) -> Mapping[str, RequestSpec]:
        """The requests the given side receives."""
        return self.client_requests if side == "server" else self.server_requests

    def model(self, name: str) -> type[BaseModel] | None:
        """A model by its schema name, or None when the revision has no such type."""
        return self.models.get(name)

    def error_code(self, name: str) -> int | None:
        """An error code of the revision by its schema.ts name (``UNSUPPORTED_PROTOCOL_VERSION``)."""
        return self.error_codes.get(name)


def has_capability(capabilities: Mapping[str, Any] | None, path: Sequence[str]) -> bool:
    """Whether ``capabilities`` declares the object at ``path`` (own keys only)."""
    node: Any = capabilities
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return False
        node = node[key]
        if node is None or node is False:
            return False
    return True


def validation_message(e: ValidationError, prefix: str = "") -> str:
    """A one-line account of a pydantic validation error: each failing path and what it needs."""
    parts = []
    for err in e.errors(include_url=False)[:5]:
        loc = ".".join(str(x) for x in err["loc"] if not (isinstance(x, str) and x.startswith("function-")))
        parts.append(f"{prefix}{loc}: {err['msg']}" if loc else f"{prefix}{err['msg']}")
    more = e.error_count() - len(parts)
    return "; ".join(parts) + (f"; and {more} more" if more > 0 else "")


def validate(schema: Schema, data: Any) -> Any:
    """JSON data as ``schema``'s model (wire names only); raises ``pydantic.ValidationError``."""
    if isinstance(schema, TypeAdapter):
        return schema.validate_python(data, by_alias=True, by_name=False)
    return schema.model_validate(data, by_alias=True, by_name=False)


def is_instance(value: Any, schemas: Sequence[Schema]) -> bool:
    """Whether ``value`` is already an instance of one of the model classes."""
    return any(isinstance(s, type) and isinstance(value, s) for s in schemas)


def validate_params(spec: RequestSpec | NotificationSpec, params: Any) -> Any:
    """The params of a message as the spec's model; -32602 naming the failing members otherwise."""
    model = spec.params
    if model is None:
        return None
    if params is None:
        if isinstance(spec, RequestSpec) and spec.params_required:
            raise RpcError(INVALID_PARAMS, f"Invalid params: {spec.method} needs params")
        params = {}
    if not isinstance(params, dict):
        raise RpcError(INVALID_PARAMS, "Invalid params: params must be an object")
    try:
        return validate(model, params)
    except ValidationError as e:
        raise RpcError(INVALID_PARAMS, f"Invalid params: {validation_message(e, 'params.')}") from None


def version_order(tables: Sequence[ProtocolTable]) -> list[str]:
    """The protocol versions of some tables, newest first, each once."""
    seen: list[str] = []
    for v in sorted((t.protocol_version for t in tables), reverse=True):
        if v not in seen:
            seen.append(v)
    return seen
