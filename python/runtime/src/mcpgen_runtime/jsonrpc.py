"""JSON-RPC 2.0: message kinds, ids, error objects and codes. No MCP knowledge.

A message is the decoded JSON object (``dict``). :func:`classify` tells its kind and checks the
envelope (JSON-RPC 2.0, "Request object" / "Response object"; MCP ``basic/index``: ids are
strings or integers, never ``null``). :class:`RpcError` is the one error that travels to the peer.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Final, Literal, TypeAlias

RequestId: TypeAlias = str | int
"""A request id: a string or an integer (MCP ``RequestId``; never ``null``, never a bool)."""

Message: TypeAlias = dict[str, Any]
"""A decoded JSON-RPC message."""

Kind: TypeAlias = Literal["request", "notification", "response", "error"]

PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602
INTERNAL_ERROR: Final = -32603
#: Implementation-defined (JSON-RPC's server error range): the connection closed, the request
#: timed out, the server is shutting down. Local errors are raised as :class:`ConnectionClosed` /
#: :class:`RequestTimeout`, never confused with an error the peer sent.
CONNECTION_CLOSED: Final = -32000
REQUEST_TIMEOUT: Final = -32001

_MESSAGES: Final = {
    PARSE_ERROR: "Parse error",
    INVALID_REQUEST: "Invalid Request",
    METHOD_NOT_FOUND: "Method not found",
    INVALID_PARAMS: "Invalid params",
    INTERNAL_ERROR: "Internal error",
}


class RpcError(Exception):
    """A JSON-RPC error object (``{code, message, data?}``), raised by handlers to answer a request
    with it and raised to callers whose request the peer answered with it.

    ``code`` is an integer (JSON-RPC 2.0 §5.1; MCP ``basic/index`` "Error Codes").
    """

    def __init__(self, code: int, message: str | None = None, data: Any = None, *, has_data: bool | None = None) -> None:
        self.code = code
        self.message = message if message is not None else _MESSAGES.get(code, "Error")
        self.data = data
        self.has_data = data is not None if has_data is None else has_data
        super().__init__(f"{self.message} ({code})")

    def to_error(self) -> dict[str, Any]:
        """The error object of a response."""
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.has_data:
            out["data"] = self.data
        return out

    @classmethod
    def from_error(cls, error: Any) -> RpcError:
        """The :class:`RpcError` of a response's ``error`` member (a malformed one becomes -32603)."""
        if isinstance(error, dict) and isinstance(error.get("code"), int) and not isinstance(error.get("code"), bool):
            message = error.get("message")
            return cls(error["code"], message if isinstance(message, str) else "", error.get("data"), has_data="data" in error)
        return cls(INTERNAL_ERROR, "malformed error object", error)


class ConnectionClosed(Exception):
    """The connection closed before the request was answered (a local error, not the peer's)."""


class RequestTimeout(Exception):
    """No answer within the request's timeout (a local error; the request was cancelled)."""


class RequestCancelled(Exception):
    """The caller cancelled the request (a local error)."""


def is_request_id(value: object) -> bool:
    """A valid id: a string, or an integer (an integral float such as ``1.0`` counts, as in JSON Schema)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, (str, int)):
        return True
    return isinstance(value, float) and math.isfinite(value) and value.is_integer()


def id_key(value: RequestId | float) -> RequestId:
    """The key an id is correlated by: ``"0"`` and ``0`` differ; ``1.0`` and ``1`` do not."""
    if isinstance(value, float):
        return int(value)
    return value


def answer_id(message: object) -> RequestId | None:
    """The id an error answering ``message`` carries (JSON-RPC 2.0 section 5): the id of something
    with a ``method`` and an ``id`` that is a string or an integer, even when the rest is invalid (a
    method that is not a string, another ``jsonrpc`` version, params that are not an object);
    ``None`` otherwise (not an object, a response, an id that is null, a fraction, a bool or an
    object), and the error then has no ``id`` member (the error-id rule, docs/findings.md)."""
    if isinstance(message, dict) and "method" in message:
        rid = message.get("id")
        if isinstance(rid, (str, int, float)) and is_request_id(rid):
            return id_key(rid)
    return None


#: The -32600 message answering a JSON array (a JSON-RPC 2.0 section 6 batch: no MCP revision has
#: them since 2025-06-18), the TypeScript engine's words.
BATCH_REFUSED: Final = "Invalid Request: batch arrays are not supported"
#: The protocol versions whose revision has JSON-RPC batches (its schema defines
#: ``JSONRPCBatchRequest``; 2025-06-18 removed them): a server receives them there.
BATCH_REVISIONS: Final = frozenset({"2025-03-26"})
#: The -32600 message answering a JSON value neither an object nor an array, the TypeScript engine's words.
NOT_OBJECT: Final = "Invalid Request: message is not a JSON object"


def classify(message: object) -> Kind:
    """The kind of a decoded message; raises :class:`RpcError` -32600 when it is none.

    A member ``id`` makes a message a request or a response, whatever its value: an invalid id
    (``null``, a fraction, a bool, an object) is an invalid request, never a notification.
    """
    if not isinstance(message, dict):
        raise RpcError(INVALID_REQUEST, BATCH_REFUSED if isinstance(message, list) else NOT_OBJECT)
    if message.get("jsonrpc") != "2.0":
        raise RpcError(INVALID_REQUEST, 'Invalid Request: jsonrpc must be "2.0"')
    has_id = "id" in message
    if "method" in message:
        if not isinstance(message["method"], str):
            raise RpcError(INVALID_REQUEST, "Invalid Request: method must be a string")
        params = message.get("params")
        if params is not None and not isinstance(params, (dict, list)) or ("params" in message and params is None):
            raise RpcError(INVALID_REQUEST, "Invalid Request: params must be an object")
        if has_id and not is_request_id(message["id"]):
            raise RpcError(INVALID_REQUEST, "Invalid Request: id must be a string or an integer")
        if "result" in message or "error" in message:
            # (a notification so formed is dropped, a request answered with its id: TypeScript's rule)
            raise RpcError(INVALID_REQUEST, "Invalid Request: a request must not carry result or error")
        return "request" if has_id else "notification"
    if "result" in message and "error" not in message:
        if not has_id or not is_request_id(message["id"]):
            raise RpcError(INVALID_REQUEST, "Invalid Request: a response needs a string or integer id")
        return "response"
    if "error" in message and "result" not in message:
        return "error"
    if "result" in message:
        raise RpcError(INVALID_REQUEST, RESPONSE_WITH_BOTH)
    raise RpcError(INVALID_REQUEST, "Invalid Request: message has no method, result or error")


#: The -32600 words for an object with both ``result`` and ``error`` (the TypeScript and Go runtimes' words).
RESPONSE_WITH_BOTH = "Invalid Request: a response has either result or error"


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def js_json(value: Any) -> str:
    """``value`` as JSON text as the TypeScript runtime's ``JSON.stringify`` writes it, for a message
    quoting a peer's value in the same words: non-ASCII as is, a lone surrogate (which UTF-8 cannot
    carry) as its escape in lower case (``"a\\ud800"``)."""
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(value, ensure_ascii=False))


def id_in_use(rid: RequestId) -> RpcError:
    """The -32600 answering a request that reuses the id of a request still being served on its
    connection or session (the words of the TypeScript and Go runtimes: "Invalid Request: request
    id 21 is already in use", the id as JSON)."""
    return RpcError(INVALID_REQUEST, f"Invalid Request: request id {js_json(id_key(rid))} is already in use")


def request(id: RequestId, method: str, params: dict[str, Any] | None = None) -> Message:
    """A request message."""
    m: Message = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        m["params"] = params
    return m


def notification(method: str, params: dict[str, Any] | None = None) -> Message:
    """A notification message."""
    m: Message = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        m["params"] = params
    return m


def result_response(id: RequestId, result: dict[str, Any]) -> Message:
    """A result response."""
    return {"jsonrpc": "2.0", "id": id, "result": result}


def error_response(id: RequestId | None, error: RpcError) -> Message:
    """An error response; without an id when the request's id could not be read (MCP schema form)."""
    m: Message = {"jsonrpc": "2.0"}
    if id is not None:
        m["id"] = id
    m["error"] = error.to_error()
    return m


_encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
_ascii_encoder = json.JSONEncoder(ensure_ascii=True, separators=(",", ":"), allow_nan=False)


def encode(message: Message) -> bytes:
    """The UTF-8 JSON text of a message, on one line (line breaks inside strings are escaped).

    A string holding a lone surrogate (which UTF-8 cannot carry) is written with ``\\u`` escapes.
    """
    text = _encoder.encode(message)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return _ascii_encoder.encode(message).encode("ascii")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


MAX_JSON_DEPTH: Final = 512
"""How deep arrays and objects in a peer's JSON may nest (the outermost value is level 1), as in
the TypeScript and Go runtimes. A deeper text is a parse error (-32700): one far deeper stops
``json.loads`` at once (``RecursionError``), one that parses is then scanned (:func:`too_deep`),
so the bound is the same on every stack, where ``RecursionError``'s depth is not."""

_KEPT: Final = frozenset(b'[]{}"\\')
_DROPPED: Final = bytes(b for b in range(256) if b not in _KEPT)
_ESCAPED: Final = re.compile(rb"\\.", re.DOTALL)


def too_deep(data: bytes | str, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether ``data`` nests arrays and objects deeper than ``limit`` levels (brackets in strings
    not counted). A text of at most ``limit`` characters, or with at most ``limit`` opening
    brackets anywhere, is not scanned further. Else every byte but brackets, quotes and
    backslashes is dropped, escapes and the strings left empty removed (all at C speed), and what
    remains is walked up to the first level past ``limit``. Never raises."""
    if len(data) <= limit:
        return False
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    kept = raw.translate(None, _DROPPED)
    if kept.count(b"[") + kept.count(b"{") <= limit:
        return False
    if b"\\" in kept:
        kept = _ESCAPED.sub(b"", kept)
    # quotes alternate open/close: an adjacent pair is an empty string or two strings with nothing
    # kept between them, either way no bracket is hidden by dropping it
    kept = kept.replace(b'""', b"")
    depth = 0
    in_string = False
    for c in kept:
        if c == 0x22:
            in_string = not in_string
        elif in_string:
            continue
        elif c == 0x5B or c == 0x7B:
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


class TooDeep(ValueError):
    """A peer's JSON text nested deeper than :data:`MAX_JSON_DEPTH` (:func:`loads`)."""


def loads(data: bytes | str) -> Any:
    """``json.loads`` of a peer's text (NaN and Infinity refused); raises ``ValueError`` for a text
    that is not JSON, :class:`TooDeep` for one that nests deeper than :data:`MAX_JSON_DEPTH`
    (never ``RecursionError``)."""
    # parsed first: json's C scanner gives up on a far deeper text at once (RecursionError, near
    # the recursion limit), so only a text that parsed is scanned (and only a long one)
    try:
        value = json.loads(data, parse_constant=_no_constant)
    except RecursionError:
        raise TooDeep(f"JSON nested deeper than {MAX_JSON_DEPTH} levels") from None
    if too_deep(data):
        raise TooDeep(f"JSON nested deeper than {MAX_JSON_DEPTH} levels")
    return value


def decode(data: bytes | str) -> Any:
    """Parses JSON text; raises :class:`RpcError` -32700 on anything that is not JSON (NaN included)
    or nests deeper than :data:`MAX_JSON_DEPTH`."""
    try:
        return loads(data)
    except ValueError as e:
        raise RpcError(PARSE_ERROR, f"Parse error: {e}") from None
