"""The bad-line set every runtime's tests share (test/fixtures/jsonrpc-bad-lines.json; the
TypeScript and Go runtimes run it too) against the reference server: over stdio (a real process)
each bad line gets exactly one answer, in the order of the lines, and the requests around them are
served; as POST bodies, the 2025-11-25 session endpoint and the 2026-07-28 dual-era endpoint
answer each with 400 and the same error. JSON-RPC 2.0 section 5: an error answering a request
whose id can be read carries that id; when it cannot (not JSON, not an object, an id that is
neither a string nor an integer) the error has no id member (the error-id rule, docs/findings.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import ROOT
from helpers import INIT_2025, headers_2025, http_server, raw_http, stdio_answers
from mcpgen_reference.__main__ import build_app

LINES: list[dict[str, Any]] = json.loads((Path(ROOT) / "test" / "fixtures" / "jsonrpc-bad-lines.json").read_text("utf-8"))["lines"]
ERRONEOUS = [entry for entry in LINES if entry["answer"] is not None and "code" in entry["answer"]]


def wrong(entry: dict[str, Any], got: dict[str, Any] | None) -> str:
    """What is wrong with ``got`` as the error answering ``entry`` ('' when nothing)."""
    want = entry["answer"]
    if not isinstance(got, dict) or not isinstance(got.get("error"), dict):
        return f"not an error: {got!r}"
    if got["error"].get("code") != want["code"]:
        return f"code: {got!r}"
    if "id" not in want and "id" in got:
        return f"an id member (none can be read): {got!r}"
    if "id" in want and (got.get("id") != want["id"] or type(got.get("id")) is not type(want["id"])):
        return f"id {got.get('id')!r}, want {want['id']!r}: {got!r}"
    if want["code"] == -32700 and not str(got["error"].get("message", "")).startswith("Parse error"):
        return f"message: {got!r}"
    return ""


async def test_bad_lines_over_stdio_get_one_answer_each_in_order() -> None:
    rev = "2025-11-25"
    lines = [
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT_2025}),
        '{"jsonrpc":"2.0","method":"notifications/initialized"}',
        *(entry["line"] for entry in LINES),
        '{"jsonrpc":"2.0","id":"last","method":"ping"}',
    ]
    answers = await stdio_answers(rev, lines)
    errors = [a for a in answers if "error" in a]
    served = sorted(str(a.get("id")) for a in answers if "error" not in a)
    assert served == sorted(["1", "10", "last"]), answers
    assert len(errors) == len(ERRONEOUS), errors
    for entry, got in zip(ERRONEOUS, errors):
        assert wrong(entry, got) == "", f"{entry['name']} ({entry['line']})"


@pytest.mark.parametrize("rev", ["2025-11-25", "2026-07-28"])
async def test_bad_post_bodies_get_400_with_the_same_error(rev: str) -> None:
    async with http_server(build_app(rev)) as url, raw_http() as http:
        headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
        if rev == "2025-11-25":
            r = await http.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT_2025}, headers=headers_2025())
            headers = headers_2025(r.headers["mcp-session-id"])
            r = await http.post(url, content=b'{"jsonrpc":"2.0","method":"notifications/initialized"}', headers=headers)
            assert r.status_code == 202
        for entry in (e for e in LINES if e["answer"] is None):
            # a malformed notification is accepted and ignored (field case 004)
            r = await http.post(url, content=entry["line"].encode(), headers=headers)
            assert r.status_code == 202 and r.content == b"", f"{entry['name']}: {r.status_code} {r.text}"
        for entry in ERRONEOUS:
            r = await http.post(url, content=entry["line"].encode(), headers=headers)
            body = r.json() if r.content else None
            assert r.status_code == 400, f"{entry['name']}: {r.status_code} {r.text}"
            assert wrong(entry, body) == "", f"{entry['name']} ({entry['line']})"


@pytest.mark.parametrize("rev", ["2025-11-25", "2026-07-28"])
async def test_post_refused_415_on_a_charset_or_content_encoding_it_would_misread(rev: str) -> None:
    async with http_server(build_app(rev)) as url, raw_http() as http:
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT_2025}).encode()
        accept = "application/json, text/event-stream"
        for content_type in ("application/json; charset=utf-16", 'application/json;charset="ISO-8859-1"'):
            r = await http.post(url, content=body, headers={"accept": accept, "content-type": content_type})
            assert r.status_code == 415, f"{content_type}: {r.status_code} {r.text}"
            assert "charset utf-8" in r.json()["error"]["message"]
        r = await http.post(
            url, content=body, headers={"accept": accept, "content-type": "application/json", "content-encoding": "gzip"}
        )
        assert r.status_code == 415, r.text
        assert r.headers["accept-encoding"] == "identity"
        assert r.json()["error"]["message"] == 'Unsupported Media Type: Content-Encoding "gzip" is not read'
        for headers in (
            {"content-type": 'application/json; charset="UTF-8"'},
            {"content-type": "application/json", "content-encoding": "identity"},
        ):
            r = await http.post(url, content=body, headers={"accept": accept, **headers})
            assert r.status_code != 415, f"{headers}: {r.status_code} {r.text}"



async def test_by_position_params_on_the_stateless_endpoint_get_the_engines_answer() -> None:
    """params ``[1]`` (a valid JSON-RPC 2.0 request whose params MCP takes by name) on the
    2026-07-28 endpoint: 400 -32602 "Invalid params: params must be an object" with the id, as the
    engine answers it over stdio and the TypeScript and Go endpoints answer it (it said "missing
    _meta[…]")."""
    async with http_server(build_app("2026-07-28")) as url, raw_http() as http:
        headers = {"accept": "application/json, text/event-stream", "content-type": "application/json", "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list"}
        r = await http.post(url, content=b'{"jsonrpc":"2.0","id":11,"method":"tools/list","params":[1]}', headers=headers)
        assert r.status_code == 400, r.text
        assert r.json() == {"jsonrpc": "2.0", "id": 11, "error": {"code": -32602, "message": "Invalid params: params must be an object"}}
