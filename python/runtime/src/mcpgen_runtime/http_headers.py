"""Request metadata headers of Streamable HTTP in the stateless revisions (2026-07-28
``basic/transports/streamable-http``, "Request Metadata"): what a client mirrors from the body into
headers, and what a server checks against the body.

- ``MCP-Protocol-Version``: ``params._meta["io.modelcontextprotocol/protocolVersion"]``;
- ``Mcp-Method``: ``method``; ``Mcp-Name``: ``params.name`` (``tools/call``, ``prompts/get``) or
  ``params.uri`` (``resources/read``);
- ``Mcp-Param-{Name}``: a ``tools/call`` argument whose property carries ``"x-mcp-header": "{Name}"``.

Values outside visible ASCII with inner spaces, and values that look like the sentinel, travel as
``=?base64?{Base64 of UTF-8}?=`` ("Value Encoding").
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from .jsonrpc import RpcError

HEADER_MISMATCH: Final = -32020
PROTOCOL_VERSION_META: Final = "io.modelcontextprotocol/protocolVersion"
NAME_FIELD: Final = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}

_SENTINEL = re.compile(r"^=\?base64\?(.*)\?=$", re.S)
_SAFE = re.compile(r"^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$")
_TOKEN = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")
_MAX_SAFE_INTEGER: Final = 2**53 - 1


def encode_header_value(value: str) -> str:
    """A header value, in the Base64 sentinel form when the plain one is not safe."""
    if _SAFE.match(value) and not _SENTINEL.match(value):
        return value
    return "=?base64?" + base64.b64encode(value.encode("utf-8")).decode("ascii") + "?="


def decode_header_value(value: str) -> str | None:
    """A header value decoded (sentinel or plain); None when it is malformed."""
    if not re.fullmatch(r"[\t\x20-\x7e]*", value):
        return None
    m = _SENTINEL.match(value)
    if m is None:
        return value
    text = m.group(1)
    if not re.fullmatch(r"[A-Za-z0-9+/]*={0,2}", text) or len(text) % 4:
        return None
    try:
        return base64.b64decode(text, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None


@dataclass(frozen=True, slots=True)
class ParamHeader:
    """One ``x-mcp-header`` annotation: the header's ``{Name}``, the property path, the JSON type."""

    name: str
    path: tuple[str, ...]
    type: str


def _count(schema: Any) -> int:
    if isinstance(schema, list):
        return sum(_count(s) for s in schema)
    if not isinstance(schema, dict):
        return 0
    return (1 if "x-mcp-header" in schema else 0) + sum(_count(v) for v in schema.values())


def param_headers(input_schema: Any) -> list[ParamHeader]:
    """The ``x-mcp-header`` annotations of an ``inputSchema``; ValueError naming the broken rule
    (not a token, not unique, not a primitive, reached other than through ``properties``)."""
    out: list[ParamHeader] = []

    def walk(schema: Any, path: tuple[str, ...]) -> None:
        props = schema.get("properties") if isinstance(schema, dict) else None
        if not isinstance(props, dict):
            return
        for key, sub in props.items():
            if not isinstance(sub, dict):
                continue
            if "x-mcp-header" in sub:
                name = sub["x-mcp-header"]
                if not isinstance(name, str) or not _TOKEN.match(name):
                    raise ValueError(f"x-mcp-header of {'.'.join((*path, key))} is not a header token")
                if sub.get("type") not in ("string", "integer", "boolean"):
                    raise ValueError(f"x-mcp-header {name} is on a property of type {json.dumps(sub.get('type'))} (string, integer or boolean only)")
                if any(h.name.lower() == name.lower() for h in out):
                    raise ValueError(f"x-mcp-header {name} is not unique")
                out.append(ParamHeader(name, (*path, key), sub["type"]))
            walk(sub, (*path, key))

    walk(input_schema, ())
    if _count(input_schema) != len(out):
        raise ValueError("x-mcp-header is only allowed on properties reached through properties keys")
    return out


#: An argument the body does not have (TypeScript's ``undefined``), apart from one that is ``null``.
_ABSENT: Any = object()

#: Longest text of a value :func:`describe_value` gives, in characters (an ellipsis marks a cut).
DESCRIBE_MAX: Final = 80


def describe_value(v: Any) -> str:
    """A value a peer sent, as an error message quotes it (TypeScript's ``describeValue``,
    runtime/jsonrpc/own.ts): a string in single quotes, a number, boolean or null as JSON writes
    it, an object or array as JSON, ``undefined`` when absent; at most :data:`DESCRIBE_MAX`
    characters of the value's text."""

    def cap(text: str) -> str:
        return text if len(text) <= DESCRIBE_MAX else f"{text[:DESCRIBE_MAX]}…"

    if v is _ABSENT:
        return "undefined"
    if isinstance(v, str):
        return f"'{cap(v)}'"
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e21:
        return str(int(v))
    if v is None or isinstance(v, (bool, int, float)):
        return json.dumps(v)
    return cap(json.dumps(v, separators=(",", ":"), ensure_ascii=False))


def _value_at(args: Any, path: tuple[str, ...]) -> Any:
    v = args
    for k in path:
        if not isinstance(v, dict) or k not in v:
            return _ABSENT
        v = v[k]
    return v


def _text_of(v: Any) -> str | None:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return v
    if isinstance(v, int) or (isinstance(v, float) and v.is_integer()):
        return str(int(v))
    return None


def request_headers(message: Mapping[str, Any], tool_headers: list[ParamHeader] | None = None) -> dict[str, str]:
    """The metadata headers of one outbound request (``tool_headers``: the called tool's annotations)."""
    h: dict[str, str] = {}
    params = message.get("params") or {}
    meta = params.get("_meta") if isinstance(params, dict) else None
    version = meta.get(PROTOCOL_VERSION_META) if isinstance(meta, dict) else None
    if isinstance(version, str):
        h["MCP-Protocol-Version"] = version
    method = message.get("method")
    if not isinstance(method, str):
        return h
    h["Mcp-Method"] = encode_header_value(method)
    field = NAME_FIELD.get(method)
    if field and isinstance(params.get(field), str):
        h["Mcp-Name"] = encode_header_value(params[field])
    if method == "tools/call":
        for p in tool_headers or ():
            text = _text_of(_value_at(params.get("arguments"), p.path))
            if text is not None:
                h[f"Mcp-Param-{p.name}"] = encode_header_value(text)
    return h


def _mismatch(message: str) -> RpcError:
    return RpcError(HEADER_MISMATCH, f"Header mismatch: {message}")


def check_request_headers(message: Mapping[str, Any], headers: Mapping[str, str], tool_headers: list[ParamHeader] | None = None) -> RpcError | None:
    """Server Validation: the -32020 error to answer with (HTTP 400) when the headers (lower-case
    names) disagree with the body, else None. Whether the version is supported is the caller's."""
    params = message.get("params") or {}
    meta = params.get("_meta") if isinstance(params, dict) else None
    version = meta.get(PROTOCOL_VERSION_META) if isinstance(meta, dict) else None
    hv = headers.get("mcp-protocol-version")
    if hv is None:
        return _mismatch("MCP-Protocol-Version header is missing")
    if hv != version:
        return _mismatch(f"MCP-Protocol-Version header value '{hv}' does not match body value {describe_value(version)}")
    method = message.get("method")
    raw = headers.get("mcp-method")
    hm = decode_header_value(raw) if raw is not None else None
    if hm is None:
        return _mismatch("Mcp-Method header is missing or malformed")
    if hm != method:
        return _mismatch(f"Mcp-Method header value '{hm}' does not match body value '{method}'")
    field = NAME_FIELD.get(method) if isinstance(method, str) else None
    if field:
        raw = headers.get("mcp-name")
        hn = decode_header_value(raw) if raw is not None else None
        body = params.get(field, _ABSENT) if isinstance(params, dict) else _ABSENT
        if hn is None:
            return _mismatch("Mcp-Name header is missing or malformed")
        if hn != body:
            return _mismatch(f"Mcp-Name header value '{hn}' does not match body value {describe_value(body)}")
    if method == "tools/call":
        args = params.get("arguments") if isinstance(params, dict) else None
        for p in tool_headers or ():
            raw = headers.get(f"mcp-param-{p.name.lower()}")
            value = _value_at(args, p.path)
            if raw is None:
                if value is _ABSENT or value is None:
                    continue
                return _mismatch(f"Mcp-Param-{p.name} header is missing")
            hv2 = decode_header_value(raw)
            if hv2 is None:
                return _mismatch(f"Mcp-Param-{p.name} header contains invalid characters")
            if value is _ABSENT or value is None:
                return _mismatch(f"Mcp-Param-{p.name} header is present but the argument is not")
            if p.type == "integer" and isinstance(value, (int, float)) and not isinstance(value, bool):
                try:
                    same = float(hv2) == value and abs(float(hv2)) <= _MAX_SAFE_INTEGER
                except ValueError:
                    same = False
            else:
                same = hv2 == _text_of(value)
            if not same:
                return _mismatch(f"Mcp-Param-{p.name} header value '{hv2}' does not match body value {describe_value(value)}")
    return None
