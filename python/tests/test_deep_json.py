"""Issue 44: a peer's JSON nested too deep. ``json.loads`` raises ``RecursionError`` (not a
``ValueError``) past the interpreter's recursion limit, at a depth that depends on the stack; the
HTTP client caught only ``ValueError``, so such a body or SSE event ended its reading task. Now
every peer text goes through ``jsonrpc.loads``: deeper than ``MAX_JSON_DEPTH`` (512, as in the
TypeScript and Go runtimes) is a ``ValueError`` before ``json.loads`` runs, answered -32700 by the
servers (HTTP 400 for a POST body, one answer line over stdio) with no id; depth 512 is parsed.
Real servers: the reference app on a loopback socket, ``mcpgen_reference --stdio`` as a process."""

from __future__ import annotations

import json
import sys

import pytest

from helpers import INIT_2025, headers_2025, http_server, raw_http, stdio_answers
from mcpgen_reference.__main__ import build_app
from mcpgen_runtime.jsonrpc import MAX_JSON_DEPTH, RpcError, decode, loads, too_deep

MIB4 = 4 * 1024 * 1024


def arrays(depth: int) -> str:
    return "[" * depth + "]" * depth


def objects(depth: int) -> str:
    return '{"a":' * (depth - 1) + "{}" + "}" * (depth - 1)


DEEP = [arrays(MIB4 // 2 - 1), objects(MIB4 // 6 - 1)]


def test_the_bound_is_512_levels_counted_outside_strings() -> None:
    assert MAX_JSON_DEPTH == 512
    assert not too_deep(arrays(512)) and too_deep(arrays(513)) and too_deep(objects(513))
    assert too_deep(arrays(513).encode()) and not too_deep(arrays(512).encode())
    assert not too_deep('["' + "[" * 2000 + '"]')
    assert not too_deep('["\\"' + "[" * 2000 + '\\\\"]')
    assert too_deep("[" * 513), "unclosed"
    assert loads(arrays(512)) is not None
    for text in (*DEEP, arrays(513), "[" * 100_000):
        with pytest.raises(ValueError, match="nested deeper than 512 levels"):
            loads(text)
        with pytest.raises(RpcError) as e:
            decode(text.encode())
        assert e.value.code == -32700


def test_a_recursion_error_below_the_bound_is_a_value_error() -> None:
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(200)
    try:
        with pytest.raises(ValueError):
            loads(arrays(400))
    finally:
        sys.setrecursionlimit(limit)


@pytest.mark.parametrize("rev", ["2025-11-25", "2026-07-28"])
async def test_a_4_mib_body_nested_too_deep_is_400_parse_error(rev: str) -> None:
    async with http_server(build_app(rev)) as url, raw_http() as http:
        headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
        if rev == "2025-11-25":
            r = await http.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT_2025}, headers=headers_2025())
            headers = headers_2025(r.headers["mcp-session-id"])
        for body in DEEP:
            r = await http.post(url, content=body.encode(), headers=headers)
            assert r.status_code == 400, r.text[:200]
            got = r.json()
            assert got["error"]["code"] == -32700 and "id" not in got, got
            assert "nested deeper than 512 levels" in got["error"]["message"]
        r = await http.post(url, content=arrays(MAX_JSON_DEPTH).encode(), headers=headers)
        assert "-32700" not in r.text, r.text


async def test_stdio_answers_a_4_mib_deep_line_once_and_serves_the_next() -> None:
    lines = [DEEP[0], json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT_2025})]
    answers = await stdio_answers("2025-11-25", lines)
    assert len(answers) == 2, answers
    assert answers[0]["error"]["code"] == -32700 and "id" not in answers[0], answers[0]
    assert answers[1]["id"] == 1 and "result" in answers[1], answers[1]


async def test_a_list_cursor_nested_too_deep_is_an_unknown_cursor() -> None:
    """A cursor is base64 of JSON from the peer too: deeply nested, it was a RecursionError out of
    the list handler (answered as an internal error), now -32602 "Invalid cursor"."""
    import base64

    cursor = base64.urlsafe_b64encode(arrays(5000).encode()).decode()
    async with http_server(build_app("2025-11-25")) as url, raw_http() as http:
        r = await http.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT_2025}, headers=headers_2025())
        headers = headers_2025(r.headers["mcp-session-id"])
        await http.post(url, content=b'{"jsonrpc":"2.0","method":"notifications/initialized"}', headers=headers)
        for method in ("tools/list", "tasks/list"):
            r = await http.post(url, json={"jsonrpc": "2.0", "id": 2, "method": method, "params": {"cursor": cursor}}, headers=headers)
            body = r.json() if "json" in r.headers.get("content-type", "") else json.loads(r.text.split("data: ", 1)[1].split("\n", 1)[0])
            assert body["error"]["code"] in (-32602, -32601), (method, body)
            if method == "tools/list":
                assert body["error"]["code"] == -32602 and body["error"]["message"].startswith("Invalid cursor"), body
