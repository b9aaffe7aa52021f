"""The reference server speaks each era's own fixtures (the rules of the TypeScript reference server):

- a 2026-07-28 client lists the tools of the reference server (over stdio and over the dual-era
  Streamable HTTP endpoint) and calls every one as a modern client does (arguments, input rounds
  answered, a log level and a progress token on every call): none answers "not a … request of
  protocol version", none does nothing (each ends in content; the logging and progress fixtures
  send their messages);
- 2025-11-25 over Streamable HTTP with the standalone GET stream open: a call's log and progress
  messages arrive on its own POST's SSE reply, none on the GET stream;
- the dual-era endpoint's 405 says what is true for the request (GET and DELETE need a session's
  id); a stateless-only endpoint's says POST only.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from typing import Any

import mcp_2025_11_25 as v2025
import mcp_2026_07_28 as v2026

from mcpgen_reference.__main__ import build_app
from mcpgen_reference.server import add_stateless_fixtures, make_server, older_handshake_tables, reference_features
from mcpgen_runtime import RequestContext, StdioClientTransport
from mcpgen_runtime.http_client import HttpClientTransport
from mcpgen_runtime.http_server import McpHttpApp
from mcpgen_runtime.stateless import LOG_LEVEL_META

from conftest import child_env
from helpers import INIT_2025, headers_2025, http_server, raw_http

#: What the 2026-07-28 era lists: the tools of every revision and the stateless counterparts.
MODERN_TOOLS = {
    "echo",
    "test_simple_text",
    "test_image_content",
    "test_audio_content",
    "test_embedded_resource",
    "test_multiple_content_types",
    "json_schema_2020_12_tool",
    "test_tool_with_progress",
    "test_error_handling",
    "test_missing_capability",
    "test_streaming_elicitation",
    "test_logging_tool",
    "test_trigger_tool_change",
    "test_trigger_prompt_change",
    "test_x_mcp_header",
    "test_input_required_result_elicitation",
    "test_input_required_result_sampling",
    "test_input_required_result_list_roots",
    "test_input_required_result_request_state",
    "test_input_required_result_multiple_inputs",
    "test_input_required_result_multi_round",
    "test_input_required_result_tampered_state",
    "test_input_required_result_capabilities",
}
#: What the 2025-11-25 era lists: the same base and the fixtures that need a session.
LEGACY_TOOLS = {
    "echo",
    "test_simple_text",
    "test_image_content",
    "test_audio_content",
    "test_embedded_resource",
    "test_multiple_content_types",
    "json_schema_2020_12_tool",
    "test_tool_with_progress",
    "test_error_handling",
    "test_reconnection",
    "test_tool_with_logging",
    "test_sampling",
    "test_elicitation",
    "test_elicitation_sep1034_defaults",
    "test_elicitation_sep1330_enums",
}
NOT_OF_ERA = re.compile(r"not a (server|client) request of protocol version")
CLIENT_INFO = {"name": "era-probe", "version": "0.0.1"}


def _form(schema: Any) -> dict[str, Any]:
    """An accepted elicitation's content: every property of the requested schema filled by type."""
    out: dict[str, Any] = {}
    for k, p in ((schema or {}).get("properties") or {}).items():
        t = p.get("type") if isinstance(p, dict) else None
        out[k] = True if t == "boolean" else 1 if t in ("integer", "number") else f"{k}-answer"
    return out


async def on_elicit(params: Any, ctx: RequestContext) -> Any:
    schema = getattr(params, "requested_schema", None)
    return {"action": "accept", "content": _form(schema.to_wire() if hasattr(schema, "to_wire") else schema)}


async def on_sample(params: Any, ctx: RequestContext) -> Any:
    return {"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "probe-model"}


async def on_roots(params: Any, ctx: RequestContext) -> Any:
    return {"roots": [{"uri": "file:///probe/root", "name": "Probe Root"}]}


def modern_client() -> Any:
    return v2026.Client(
        client_info=CLIENT_INFO,
        capabilities={"elicitation": {"form": {}}, "sampling": {}, "roots": {}},
        elicit=on_elicit,
        create_message=on_sample,
        list_roots=on_roots,
        timeout=20.0,
    )


def arguments(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    """Arguments each listed tool accepts (strings and numbers by type; the 2020-12 tool's conditions met)."""
    if name == "json_schema_2020_12_tool":
        return {"name": "probe", "contactMethod": "email", "email": "probe@example.com"}
    out: dict[str, Any] = {}
    for k, p in (schema.get("properties") or {}).items():
        t = p.get("type") if isinstance(p, dict) else None
        if t == "string":
            out[k] = f"{k}-value"
        elif t in ("integer", "number"):
            out[k] = 1
        elif t == "boolean":
            out[k] = True
    return out


async def call_every_listed_tool(client: Any) -> None:
    """Lists the tools, calls each with a log level and a progress token; asserts each works in its era."""
    messages: list[Any] = []
    client.notification_handlers["notifications/message"] = messages.append
    listed = [t.to_wire() for t in (await client.list_tools()).tools]
    names = {t["name"] for t in listed}
    assert names == MODERN_TOOLS, f"listed beyond or short of the era's fixtures: extra {sorted(names - MODERN_TOOLS)}, missing {sorted(MODERN_TOOLS - names)}"
    failures: list[str] = []
    for tool in listed:
        name = tool["name"]
        progress: list[float] = []
        messages.clear()
        r = (await client.call_tool(name=name, arguments=arguments(name, tool.get("inputSchema") or {}), meta={LOG_LEVEL_META: "debug"}, on_progress=lambda p, total, m: progress.append(p))).to_wire()
        texts = " ".join(c.get("text", "") for c in r.get("content", []) if isinstance(c, dict))
        if NOT_OF_ERA.search(texts):
            failures.append(f"{name}: {texts}")
        if not r.get("content"):
            failures.append(f"{name}: no content ({json.dumps(r)})")
        if r.get("isError") and name != "test_error_handling":
            failures.append(f"{name}: isError ({texts})")
        if name == "test_logging_tool":
            await asyncio.sleep(0.05)
            got = [m.get("data") if isinstance(m, dict) else getattr(m, "data", None) for m in messages]
            if got != ["Tool execution started", "Tool processing data", "Tool execution completed"]:
                failures.append(f"{name}: logged {got}")
        if name == "test_tool_with_progress" and progress != [0, 50, 100]:
            failures.append(f"{name}: progress {progress}")
    assert not failures, "\n".join(failures)


async def test_a_2026_client_over_stdio_calls_every_listed_tool_and_each_works_in_its_era() -> None:
    client = modern_client()
    await client.connect(StdioClientTransport(sys.executable, ["-m", "mcpgen_reference", "--rev", "2026-07-28", "--stdio"], env=child_env()))
    try:
        assert client.active.lifecycle == "stateless"
        await call_every_listed_tool(client)
    finally:
        await client.close()


async def test_a_2026_client_over_the_dual_era_http_endpoint_calls_every_listed_tool_and_each_works_in_its_era() -> None:
    async with http_server(build_app("2026-07-28")) as url:
        client = modern_client()
        await client.connect(HttpClientTransport(url))
        try:
            assert client.active.lifecycle == "stateless"
            await call_every_listed_tool(client)
        finally:
            await client.close()


async def test_a_2025_session_lists_the_session_fixtures_and_none_of_the_stateless_ones() -> None:
    async with http_server(build_app("2026-07-28")) as url:
        # a 2025-11-25 client of the dual-era endpoint gets a session of that era
        client = v2025.Client(client_info=CLIENT_INFO, fallback_tables=older_handshake_tables("2025-11-25"))
        await client.connect(HttpClientTransport(url))
        try:
            names = {t.name for t in (await client.list_tools()).tools}
        finally:
            await client.close()
    assert names == LEGACY_TOOLS
    # what every handshake revision serves (stdio too), and the stateless revision's own set
    assert set(reference_features(lifecycle="handshake").tools) == LEGACY_TOOLS
    modern = reference_features(lifecycle="stateless")
    add_stateless_fixtures(modern)
    assert set(modern.tools) == MODERN_TOOLS


def _sse_messages(raw: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for event in raw.replace("\r\n", "\n").split("\n\n"):
        data = "\n".join(line[5:].lstrip(" ") for line in event.split("\n") if line.startswith("data:"))
        if data:
            out.append(json.loads(data))
    return out


async def test_2025_over_http_with_the_get_stream_open_a_calls_logs_and_progress_arrive_on_its_own_post_stream() -> None:
    for rev, app in (("2025-11-25", build_app("2025-11-25")), ("2026-07-28 (dual-era)", build_app("2026-07-28"))):
        async with http_server(app) as url, raw_http() as http:
            r = await http.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT_2025}, headers=headers_2025())
            assert r.status_code == 200, (rev, r.text)
            sid = r.headers["mcp-session-id"]
            r = await http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers_2025(sid))
            assert r.status_code == 202, (rev, r.text)
            on_get: list[str] = []
            opened = asyncio.Event()

            async def read_get() -> None:
                async with http.stream("GET", url, headers={**headers_2025(sid), "accept": "text/event-stream"}) as g:
                    assert g.status_code == 200, rev
                    opened.set()
                    async for chunk in g.aiter_text():
                        on_get.append(chunk)

            reader = asyncio.ensure_future(read_get())
            try:
                await asyncio.wait_for(opened.wait(), 10)
                for i, (tool, method, count) in enumerate((("test_tool_with_logging", "notifications/message", 3), ("test_tool_with_progress", "notifications/progress", 3))):
                    params = {"name": tool, "arguments": {}, "_meta": {"progressToken": f"p{i}"}}
                    r = await http.post(url, json={"jsonrpc": "2.0", "id": 10 + i, "method": "tools/call", "params": params}, headers=headers_2025(sid))
                    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream"), (rev, tool, r.headers, r.text)
                    got = _sse_messages(r.text)
                    assert [m.get("method") for m in got] == [method] * count + [None], (rev, tool, got)
                    assert got[-1]["id"] == 10 + i and got[-1]["result"]["content"], (rev, tool, got[-1])
                    if method == "notifications/message":
                        assert [m["params"]["data"] for m in got[:3]] == ["Tool execution started", "Tool processing data", "Tool execution completed"]
                    else:
                        assert [m["params"]["progress"] for m in got[:3]] == [0, 50, 100] and {m["params"]["progressToken"] for m in got[:3]} == {f"p{i}"}
                # what was queued for the GET stream would have reached it by now
                await asyncio.sleep(0.3)
                assert "data:" not in "".join(on_get), (rev, on_get)
                assert "stream open" in "".join(on_get), (rev, on_get)
            finally:
                reader.cancel()
                await asyncio.gather(reader, return_exceptions=True)


async def test_the_405_of_each_endpoint_says_what_it_serves() -> None:
    dual = build_app("2026-07-28")
    async with http_server(dual) as url, raw_http() as http:
        for method, verb in (("GET", "opens the stream of"), ("DELETE", "ends")):
            r = await http.request(method, url, headers={"accept": "text/event-stream, application/json"})
            assert r.status_code == 405 and r.headers["allow"] == "POST", (method, r.status_code, r.headers)
            message = r.json()["error"]["message"]
            assert message == f"Method Not Allowed: {method} without Mcp-Session-Id (a {method} here {verb} a session begun by initialize and needs its Mcp-Session-Id; 2026-07-28 requests are POSTs)", message
            assert r.json()["error"]["code"] == -32000
        r = await http.request("PUT", url, headers={"accept": "application/json, text/event-stream"})
        assert r.status_code == 405 and r.headers["allow"] == "GET, POST, DELETE", r.headers
        assert r.json()["error"]["message"] == "Method Not Allowed: PUT (this endpoint takes POST, and GET and DELETE with the Mcp-Session-Id of a session begun by initialize)"
        assert r.json()["error"]["code"] == -32000 and "id" not in r.json()
    stateless = McpHttpApp(stateless=make_server("2026-07-28"))
    async with http_server(stateless) as url, raw_http() as http:
        for method in ("GET", "DELETE", "PUT"):
            r = await http.request(method, url, headers={"accept": "application/json, text/event-stream", "mcp-session-id": "0" * 32})
            assert r.status_code == 405 and r.headers["allow"] == "POST", (method, r.headers)
            assert r.json()["error"]["message"] == f"Method Not Allowed: {method} (this endpoint takes POST only)"
            assert r.json()["error"]["code"] == -32000 and "id" not in r.json()
    sessions = build_app("2025-11-25")
    async with http_server(sessions) as url, raw_http() as http:
        r = await http.request("PUT", url, headers={"accept": "application/json, text/event-stream"})
        assert r.status_code == 405 and r.headers["allow"] == "GET, POST, DELETE", r.headers
        assert r.json()["error"]["message"] == "Method Not Allowed: PUT (this endpoint takes GET, POST and DELETE)"
        assert r.json()["error"]["code"] == -32000 and "id" not in r.json()
