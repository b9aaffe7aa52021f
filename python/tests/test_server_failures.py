"""A server's own failures are answered and explained, as in the TypeScript runtime: a prompt and
a resource read that throw, results JSON cannot express (a cycle, NaN) and a tool's
structuredContent that fails its outputSchema are each answered -32603 naming the handler
(``prompt broken``, ``resource mem://broken``, ``tool loop``), never with the error's text, and
each is logged to stderr by default (no logging set up) with the handler's name and the error,
over stdio and Streamable HTTP (JSON and SSE answers); the server goes on serving. JSON Schema
``default``: a tool's handler gets the defaults of its inputSchema (``with_defaults``)."""

from __future__ import annotations

import logging
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from conftest import child_env
from helpers import http_server
from mcpgen_runtime import RpcError, memory_pair
from mcpgen_runtime.features import ServerFeatures, with_defaults
from mcpgen_runtime.http_client import HttpClientTransport
from mcpgen_runtime.http_server import McpHttpApp
from mcpgen_runtime.stdio import StdioClientTransport

import mcp_2025_11_25 as v2025
import mcp_2026_07_28 as v2026

sys.path.insert(0, str(Path(__file__).parent / "peers"))
from failing_server import SECRET, failing_server  # noqa: E402

FIXTURE = Path(__file__).parent / "peers" / "failing_server.py"


async def _refusal(call: Any) -> RpcError:
    with pytest.raises(RpcError) as e:
        await call
    return e.value


async def _failures(client: Any) -> None:
    prompt = await _refusal(client.get_prompt(name="broken"))
    assert (prompt.code, prompt.message) == (-32603, "Internal error: prompt broken failed")
    read = await _refusal(client.read_resource(uri="mem://broken"))
    assert (read.code, read.message) == (-32603, "Internal error: resource mem://broken failed")
    for name in ("loop", "nan"):
        e = await _refusal(client.call_tool(name=name, arguments={}))
        assert e.code == -32603, name
        assert e.message == f"Internal error: tool {name} returned a result that cannot be serialised as JSON", e.message
    shape = await _refusal(client.call_tool(name="shape", arguments={}))
    assert shape.code == -32603 and "tool shape returned structuredContent that fails its outputSchema" in shape.message
    for e in (prompt, read, shape):
        assert "hunter2" not in str(e.message) + repr(e.data)
    ok = await client.call_tool(name="fine", arguments={})
    assert ok.content[0].text == "ok"


@pytest.mark.parametrize("rev", ["2025-11-25", "2026-07-28"])
async def test_each_failure_is_answered_and_logged_on_stderr_by_default_over_stdio(rev: str) -> None:
    mod = v2025 if rev == "2025-11-25" else v2026
    with tempfile.TemporaryFile() as err:
        client = mod.Client(client_info={"name": "t", "version": "1"})
        await client.connect(StdioClientTransport(sys.executable, [str(FIXTURE), rev], env=child_env(), stderr=err))
        try:
            await _failures(client)
        finally:
            await client.close()
        err.seek(0)
        stderr = err.read().decode()
    assert "prompt broken" in stderr and f"RuntimeError: {SECRET}" in stderr, stderr
    assert "resource mem://broken" in stderr and f"TypeError: {SECRET}" in stderr, stderr
    assert "Traceback" in stderr  # the stack of what was thrown
    assert "tool nan" in stderr and "cannot be serialised as JSON" in stderr, stderr
    assert "tool loop" in stderr and "maximum recursion depth" in stderr, stderr
    assert "tool shape" in stderr and "outputSchema" in stderr, stderr


async def test_an_unserialisable_result_is_answered_over_http_json_and_sse(caplog: pytest.LogCaptureFixture) -> None:
    app = McpHttpApp(on_session=lambda: failing_server(v2025))
    async with http_server(app) as url:
        client = v2025.Client(client_info={"name": "t", "version": "1"})
        await client.connect(HttpClientTransport(url, standalone_stream=False))
        try:
            with caplog.at_level(logging.ERROR, logger="mcpgen_runtime"):
                await _failures(client)
                # with a progress token the answer may come on an SSE stream: answered there too
                e = await _refusal(client.request("tools/call", {"name": "nan", "arguments": {}, "_meta": {"progressToken": "p"}}))
                assert e.code == -32603 and "tool nan" in e.message
        finally:
            await client.close()
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "tool nan" in logged and "resource mem://broken" in logged and "prompt broken" in logged


async def test_a_tool_gets_the_defaults_of_its_input_schema() -> None:
    schema = {
        "type": "object",
        "properties": {
            "url": {"type": "string"},
            "width": {"type": "integer", "default": 640, "minimum": 1},
            "crop": {"type": "object", "properties": {"x": {"type": "integer", "default": 0}}, "default": {}},
            "tags": {"type": "array", "items": {"type": "string"}, "default": ["new"]},
        },
        "required": ["url"],
        "additionalProperties": False,
    }
    seen: list[Any] = []

    def resize(args: Any) -> str:
        seen.append(args)
        args["tags"].append("seen")  # each call gets its own copy of a default
        return f"{args['url']} {args['width']} {args['crop']['x']}"

    f = ServerFeatures()
    f.tool("resize", input_schema=schema, handler=resize)
    server = v2025.Server(server_info={"name": "s", "version": "1"}, handlers=f, capabilities=f.capabilities())
    a, b = memory_pair()
    await server.connect(b)
    client = v2025.Client(client_info={"name": "c", "version": "1"})
    await client.connect(a)
    r = await client.call_tool(name="resize", arguments={"url": "a.png"})
    assert r.content[0].text == "a.png 640 0"
    await client.call_tool(name="resize", arguments={"url": "b.png"})
    assert seen[0] == {"url": "a.png", "width": 640, "crop": {"x": 0}, "tags": ["new", "seen"]}
    assert seen[1]["tags"] == ["new", "seen"]
    given = await client.call_tool(name="resize", arguments={"url": "c.png", "width": 10, "crop": {"x": 5}})
    assert given.content[0].text == "c.png 10 5"
    wrong = await client.call_tool(name="resize", arguments={"url": "d.png", "width": 0})
    assert wrong.is_error is True and "width" in wrong.content[0].text
    listed = (await client.list_tools()).tools[0].input_schema
    assert listed.required == ["url"]  # listed as given: optional for callers
    await client.close()

    # the walk: $ref, allOf, array items, prefixItems by position, never anyOf/oneOf; the value given unchanged
    s2 = {
        "$defs": {"point": {"type": "object", "properties": {"x": {"default": 0}, "y": {"default": 0}}}},
        "allOf": [{"properties": {"unit": {"default": "px"}}}],
        "properties": {
            "origin": {"$ref": "#/$defs/point"},
            "path": {"type": "array", "items": {"$ref": "#/$defs/point"}},
            "pair": {"type": "array", "prefixItems": [{"properties": {"a": {"default": 1}}}], "items": False},
            "either": {"anyOf": [{"properties": {"b": {"default": 1}}}]},
        },
    }
    value = {"origin": {"x": 3}, "path": [{}, {"y": 2}], "pair": [{}, {}], "either": {}}
    out = with_defaults(s2, value)
    assert out == {"origin": {"x": 3, "y": 0}, "path": [{"x": 0, "y": 0}, {"x": 0, "y": 2}], "pair": [{"a": 1}, {}], "either": {}, "unit": "px"}
    assert value == {"origin": {"x": 3}, "path": [{}, {"y": 2}], "pair": [{}, {}], "either": {}}
    full = {"url": "x", "width": 1, "crop": {"x": 1}, "tags": []}
    assert with_defaults(schema, full) is full
    assert with_defaults({"$ref": "#"}, {}) == {}
