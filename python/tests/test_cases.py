"""The field cases of /work/shared/cases (each test named after its number) against the Python
runtime: the reference server as a real process over stdio pipes and over Streamable HTTP (uvicorn
on a loopback socket), and the client against a scripted peer. Codec-level cases (001, 005, 013)
are in test_codec.py as well."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from helpers import INIT_2025, META_2026, RawStdio, ScriptedTransport, headers_2025, headers_2026, http_server, raw_http
from mcpgen_reference.__main__ import build_app
from mcpgen_reference.server import make_server
from mcpgen_runtime import RpcError
from mcpgen_runtime.client import CapabilityError
from mcpgen_runtime.http_client import HttpClientTransport, SessionExpiredError
from mcpgen_runtime.jsonrpc import RequestTimeout
from mcpgen_runtime.stateless import InvalidResultError, MaxInputRoundsError

import mcp_2025_11_25 as v2025
import mcp_2026_07_28 as v2026

# ---- 002: ids ----


async def test_002_ids_are_echoed_exactly_and_invalid_ids_are_invalid_requests() -> None:
    s = await RawStdio.start()
    try:
        r = await s.request(0, "initialize", INIT_2025)
        assert r["id"] == 0 and type(r["id"]) is int and "result" in r
        await s.write({"jsonrpc": "2.0", "method": "notifications/initialized"})
        for rid in ("0", 73, "probe-7f", -1):
            r = await s.request(rid, "ping")
            assert r["id"] == rid and type(r["id"]) is type(rid) and r["result"] == {}
        for bad in ('null', '1.5', 'true', '{"n":1}'):
            await s.write(f'{{"jsonrpc":"2.0","id":{bad},"method":"tools/list","params":{{}}}}\n')
            r = await s.read()
            assert r["error"]["code"] == -32600 and "id" not in r and "result" not in r
        await s.nothing_for(0.2)
    finally:
        await s.close()


async def test_002_the_client_matches_ids_by_type_and_value() -> None:
    t = ScriptedTransport()
    client = v2025.Client(client_info={"name": "c", "version": "1"})
    connecting = asyncio.ensure_future(client.connect(t))
    init = await t.next()
    assert init["method"] == "initialize" and init["id"] == 0
    t.inject({"jsonrpc": "2.0", "id": "0", "result": {}})  # "0" is not 0: dropped
    await asyncio.sleep(0.05)
    assert not connecting.done()
    t.inject({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}})
    description = await connecting
    assert description.protocol_version == "2025-11-25"
    assert (await t.next())["method"] == "notifications/initialized"
    await client.close()


# ---- 004: notifications ----


async def test_004_notifications_never_get_a_response_over_stdio() -> None:
    s = await RawStdio.start()
    try:
        r = await s.request(1, "initialize", INIT_2025)
        assert r["id"] == 1
        for line in (
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "method": "notifications/x-example/unknown", "params": {"a": 1}},
            {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "never-issued", "progress": 1}},
            {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {}},
            {"jsonrpc": "2.0", "method": "notifications/roots/list_changed", "params": "not-an-object"},
        ):
            await s.write(line)
        await s.write({"jsonrpc": "2.0", "id": "n1", "method": "notifications/initialized"})
        r = await s.read()
        assert r["id"] == "n1" and r["error"]["code"] == -32601
        r = await s.request(2, "ping")
        assert r == {"jsonrpc": "2.0", "id": 2, "result": {}}
        await s.nothing_for(0.2)
    finally:
        await s.close()


async def test_004_notification_posts_get_202_with_no_body() -> None:
    app = build_app("2025-11-25")
    async with http_server(app) as url, raw_http() as http:
        r = await http.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT_2025}, headers=headers_2025())
        sid = r.headers["mcp-session-id"]
        for body in (
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "method": "notifications/x-example/unknown", "params": {"a": 1}},
            {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {}},
            {"jsonrpc": "2.0", "method": "notifications/roots/list_changed", "params": "not-an-object"},
        ):
            r = await http.post(url, json=body, headers=headers_2025(sid))
            assert r.status_code == 202 and r.content == b""


async def test_004_the_client_answers_no_notification() -> None:
    t = ScriptedTransport()
    client = v2025.Client(client_info={"name": "c", "version": "1"})
    connecting = asyncio.ensure_future(client.connect(t))
    await t.next()
    t.inject({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}})
    await connecting
    await t.next()
    t.inject({"jsonrpc": "2.0", "method": "notifications/x-example/unknown"})
    t.inject({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {"bogus": True}})
    await asyncio.sleep(0.05)
    assert t.sent.empty() and not client.peer.is_closed
    await client.close()


# ---- 006: sessions over HTTP ----


async def test_006_unknown_or_ended_sessions_get_404_and_a_missing_one_400() -> None:
    app = build_app("2025-11-25")
    async with http_server(app) as url, raw_http() as http:
        r = await http.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT_2025}, headers=headers_2025())
        assert r.status_code == 200
        s1 = r.headers["mcp-session-id"]
        assert all(0x21 <= ord(c) <= 0x7E for c in s1)
        r = await http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers_2025(s1))
        assert r.status_code == 202
        r = await http.delete(url, headers=headers_2025(s1))
        assert 200 <= r.status_code < 300
        r = await http.post(url, json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, headers=headers_2025(s1))
        assert r.status_code == 404
        r = await http.get(url, headers={**headers_2025(s1), "accept": "text/event-stream"})
        assert r.status_code == 404
        r = await http.post(url, json={"jsonrpc": "2.0", "id": 3, "method": "tools/list"}, headers=headers_2025("00000000-never-issued"))
        assert r.status_code == 404
        r = await http.post(url, json={"jsonrpc": "2.0", "id": 4, "method": "tools/list"}, headers=headers_2025())
        assert r.status_code == 400


async def test_006_the_client_starts_a_new_session_after_a_404_and_fails_the_request_in_flight() -> None:
    app = build_app("2025-11-25")
    async with http_server(app) as url:
        transport = HttpClientTransport(url, standalone_stream=False)
        client = v2025.Client(client_info={"name": "c", "version": "1"})
        await client.connect(transport)
        s1 = transport.session_id
        assert s1 is not None and s1 in app.sessions
        app._end_session(app.sessions[s1])  # the server forgets it (as on expiry or restart)
        with pytest.raises(SessionExpiredError):
            await client.list_tools()
        s2 = transport.session_id
        assert s2 is not None and s2 != s1 and s2 in app.sessions
        assert app.sessions[s2].server.initialized
        tools = await client.list_tools()
        assert any(t.name == "echo" for t in tools.tools)
        await client.close()


async def test_006_the_2026_endpoint_ignores_session_ids_and_refuses_get_and_delete() -> None:
    app = build_app("2026-07-28")
    async with http_server(app) as url, raw_http() as http:
        body = {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": META_2026}}
        r = await http.post(url, json=body, headers={**headers_2026("server/discover"), "mcp-session-id": "whatever"})
        # a session id sends the request to the 2025-11-25 side of the dual-era endpoint only without modern _meta
        assert r.status_code == 200 and "mcp-session-id" not in r.headers
        assert r.json()["result"]["supportedVersions"][0] == "2026-07-28"
        assert (await http.get(url, headers={"accept": "text/event-stream"})).status_code == 405
        assert (await http.delete(url)).status_code == 405


# ---- 007: cancellation ----


async def test_007_a_cancelled_request_gets_no_response_and_stray_cancels_are_ignored() -> None:
    s = await RawStdio.start()
    try:
        await s.initialize()
        await s.write({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "test_tool_with_progress", "arguments": {}, "_meta": {"progressToken": "p7"}}})
        first = await s.read()
        assert first["method"] == "notifications/progress" and first["params"]["progressToken"] == "p7"
        await s.write({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7, "reason": "user aborted"}})
        r = await s.request(8, "ping")
        # progress the tool sent before the cancel arrived (a loaded machine: 10 ms between steps)
        # may come first; never an answer to 7
        while r.get("method") == "notifications/progress" and r["params"]["progressToken"] == "p7":
            r = await s.read()
        assert r["id"] == 8, r
        await s.write({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 12345}})
        r = await s.request(9, "ping")
        assert r["id"] == 9
        await s.write({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}})
        await s.nothing_for(0.3)
    finally:
        await s.close()


async def test_007_the_client_cancels_with_a_notification_and_drops_the_late_answer() -> None:
    t = ScriptedTransport()
    client = v2025.Client(client_info={"name": "c", "version": "1"})
    connecting = asyncio.ensure_future(client.connect(t))
    await t.next()
    t.inject({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "s", "version": "1"}}})
    await connecting
    await t.next()
    call = asyncio.ensure_future(client.call_tool(name="slow_echo", arguments={"text": "hi"}))
    sent = await t.next()
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    cancel = await t.next()
    assert cancel == {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": sent["id"], "reason": "cancelled by the caller"}}
    t.inject({"jsonrpc": "2.0", "id": sent["id"], "error": {"code": 0, "message": "Request cancelled"}})
    got: list[Any] = []
    client.notification_handlers["notifications/tools/list_changed"] = got.append
    t.inject({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    await asyncio.sleep(0.02)
    assert len(got) == 1 and not client.peer.is_closed
    await client.close()


async def test_007_initialize_that_times_out_is_not_cancelled() -> None:
    t = ScriptedTransport()
    client = v2025.Client(client_info={"name": "c", "version": "1"}, timeout=0.3)
    with pytest.raises(RequestTimeout):
        await client.connect(t)
    assert (await t.next())["method"] == "initialize"
    assert t.sent.empty()


async def test_007_closing_a_2026_reply_stream_cancels_the_request() -> None:
    features_server = make_server("2026-07-28")
    started = asyncio.Event()
    cancelled = asyncio.Event()

    async def slow(args: dict[str, Any], ctx: Any) -> str:
        started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "late"

    handlers = features_server.handlers["tools/call"].__self__  # the ServerFeatures
    handlers.tool("slow_echo", handler=slow)
    from mcpgen_runtime.http_server import McpHttpApp

    app = McpHttpApp(stateless=features_server)
    async with http_server(app) as url, raw_http() as http:
        body = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "slow_echo", "arguments": {}, "_meta": {**META_2026, "progressToken": 1}}}
        req = asyncio.ensure_future(http.post(url, json=body, headers=headers_2026("tools/call", "slow_echo")))
        await asyncio.wait_for(started.wait(), 5)
        req.cancel()
        await asyncio.gather(req, return_exceptions=True)
        await asyncio.wait_for(cancelled.wait(), 5)
        stray = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}}
        r = await http.post(url, json=stray, headers={**headers_2026("notifications/cancelled")})
        assert r.status_code == 202


# ---- 009: late progress ----


async def test_009_progress_after_the_response_is_dropped_quietly() -> None:
    t = ScriptedTransport()
    client = v2025.Client(client_info={"name": "c", "version": "1"})
    connecting = asyncio.ensure_future(client.connect(t))
    await t.next()
    t.inject({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "s", "version": "1"}}})
    await connecting
    await t.next()
    seen: list[tuple[float, float | None]] = []
    call = asyncio.ensure_future(client.call_tool(name="x", on_progress=lambda p, total, m: seen.append((p, total))))
    ping = asyncio.ensure_future(client.ping())
    sent_call, sent_ping = await t.next(), await t.next()
    token = sent_call["params"]["_meta"]["progressToken"]
    t.inject({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": token, "progress": 5, "total": 10}})
    t.inject({"jsonrpc": "2.0", "id": sent_call["id"], "result": {"content": [{"type": "text", "text": "done"}]}})
    t.inject({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": token, "progress": 10, "total": 10}})
    t.inject({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "never-issued", "progress": 1}})
    t.inject({"jsonrpc": "2.0", "id": sent_ping["id"], "result": {}})
    result = await call
    await ping
    assert result.content[0].text == "done"  # type: ignore[union-attr]
    assert seen == [(5, 10)]
    assert not client.peer.is_closed
    await client.close()


async def test_009_the_server_writes_every_progress_before_its_response() -> None:
    s = await RawStdio.start()
    try:
        await s.initialize()
        for i in range(20):
            await s.write({"jsonrpc": "2.0", "id": 100 + i, "method": "tools/call", "params": {"name": "test_tool_with_progress", "arguments": {}, "_meta": {"progressToken": f"t{i}"}}})
            kinds = []
            while True:
                m = await s.read()
                if "id" in m:
                    assert m["id"] == 100 + i
                    break
                kinds.append(m["params"]["progress"])
            assert kinds == [0, 50, 100]
    finally:
        await s.close()


# ---- 010: unknown methods ----


async def test_010_unknown_methods_and_undeclared_capabilities_get_32601() -> None:
    s = await RawStdio.start()
    try:
        await s.initialize()
        r = await s.request("q-501", "example/does-not-exist", {})
        assert r["id"] == "q-501" and r["error"]["code"] == -32601
        r = await s.request("q-503", "tools/list")
        assert r["id"] == "q-503" and "tools" in r["result"]
    finally:
        await s.close()
    # a server that declares tools but not prompts
    server = v2025.Server(server_info={"name": "s", "version": "1"}, handlers=v2025.UnimplementedServerHandlers(), capabilities={"tools": {}})
    from mcpgen_runtime import memory_pair

    a, b = memory_pair()
    await server.connect(b)
    client = v2025.Client(client_info={"name": "c", "version": "1"})
    await client.connect(a)
    with pytest.raises(CapabilityError, match="prompts"):
        await client.request("prompts/list", {})  # the client knows better than to ask
    with pytest.raises(RpcError) as e:
        await client.peer.request("prompts/list", {})  # the server answers it all the same
    assert e.value.code == -32601
    await client.close()


async def test_010_the_2026_endpoint_answers_404_with_32601() -> None:
    app = build_app("2026-07-28")
    async with http_server(app) as url, raw_http() as http:
        body = {"jsonrpc": "2.0", "id": 7, "method": "example/does-not-exist", "params": {"_meta": META_2026}}
        r = await http.post(url, json=body, headers=headers_2026("example/does-not-exist"))
        assert r.status_code == 404 and r.json() == {"jsonrpc": "2.0", "id": 7, "error": {"code": -32601, "message": "Method not found: example/does-not-exist"}}


# ---- 011: MCP-Protocol-Version ----


async def test_011_protocol_version_header_rules_of_both_eras() -> None:
    app = build_app("2026-07-28")
    async with http_server(app) as url, raw_http() as http:
        r = await http.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT_2025}, headers={k: v for k, v in headers_2025().items() if k != "mcp-protocol-version"})
        assert r.status_code == 200  # e: initialize without the header
        sid = r.headers["mcp-session-id"]
        await http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers_2025(sid))
        tl = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
        assert (await http.post(url, json=tl, headers=headers_2025(sid))).status_code == 200  # a
        no_header = {k: v for k, v in headers_2025(sid).items() if k != "mcp-protocol-version"}
        assert (await http.post(url, json=tl, headers=no_header)).status_code == 200  # b
        for bad in ("1999-01-01", "banana"):  # c, d
            assert (await http.post(url, json=tl, headers={**headers_2025(sid), "mcp-protocol-version": bad})).status_code == 400
        r = await http.get(url, headers={**headers_2025(sid), "accept": "text/event-stream", "mcp-protocol-version": "banana"})
        assert r.status_code == 400  # f

        def discover(p: str) -> dict[str, Any]:
            return {"jsonrpc": "2.0", "id": "d1", "method": "server/discover", "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": p, "io.modelcontextprotocol/clientCapabilities": {}}}}

        g = {k: v for k, v in headers_2026("server/discover").items() if k != "mcp-protocol-version"}
        r = await http.post(url, json=discover("2026-07-28"), headers=g)
        assert r.status_code == 400 and r.json()["error"]["code"] == -32020 and r.json()["id"] == "d1"
        r = await http.post(url, json=discover("2025-11-25"), headers=headers_2026("server/discover"))
        assert r.status_code == 400 and r.json()["error"]["code"] == -32020
        r = await http.post(url, json=discover("1900-01-01"), headers={**headers_2026("server/discover"), "mcp-protocol-version": "1900-01-01"})
        assert r.status_code == 400 and r.json()["error"]["code"] == -32022
        assert r.json()["error"]["data"] == {"supported": ["2026-07-28"], "requested": "1900-01-01"}
        # the version before the client capabilities: a request of a version not served, without them
        no_caps = {"jsonrpc": "2.0", "id": "d2", "method": "server/discover", "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2099-01-01"}}}
        r = await http.post(url, json=no_caps, headers={**headers_2026("server/discover"), "mcp-protocol-version": "2099-01-01"})
        assert r.status_code == 400 and r.json()["error"]["code"] == -32022
        assert r.json()["error"]["data"] == {"supported": ["2026-07-28"], "requested": "2099-01-01"}
        r = await http.post(url, json=discover("2026-07-28"), headers=headers_2026("server/discover"))
        assert r.status_code == 200 and r.json()["result"]["resultType"] == "complete"


async def test_011_the_clients_send_the_header() -> None:
    for rev, mod in (("2025-11-25", v2025), ("2026-07-28", v2026)):
        app = build_app(rev)
        seen: list[tuple[str, dict[str, str], bytes]] = []

        async def recording(scope: Any, receive: Any, send: Any) -> None:
            if scope["type"] != "http":
                return await app(scope, receive, send)
            first = await receive()
            body = first.get("body", b"")
            seen.append((scope["method"], {k.decode(): v.decode() for k, v in scope["headers"]}, body))
            replayed = False

            async def again() -> Any:
                nonlocal replayed
                if not replayed:
                    replayed = True
                    return first
                return await receive()

            await app(scope, again, send)

        async with http_server(recording) as url:  # type: ignore[arg-type]
            client = mod.Client(client_info={"name": "c", "version": "1"}, capabilities={})
            await client.connect(HttpClientTransport(url))
            await client.list_tools()
            await client.close()
        after_init = [r for r in seen if b'"initialize"' not in r[2]]
        assert len(after_init) >= 2
        for method, headers, body in after_init:
            assert headers.get("mcp-protocol-version") == rev, (rev, method, body[:80])


# ---- 013: CRLF over stdio ----


async def test_013_crlf_and_blank_lines_reach_the_server_and_it_writes_bare_lf() -> None:
    s = await RawStdio.start()
    try:
        await s.write(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT_2025}) + "\r\n")
        raw = await s.read_raw()
        assert raw.endswith(b"}\n") and b"\r" not in raw
        await s.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\r\n   \t\r\n')
        await s.write('{"jsonrpc":"2.0","id":2,"method":"ping"}\r')
        await s.write("\n")
        assert json.loads(await s.read_raw()) == {"jsonrpc": "2.0", "id": 2, "result": {}}
        await s.write("not json\n")
        r = await s.read()
        assert r["error"]["code"] == -32700 and "id" not in r
        assert (await s.request(3, "ping"))["id"] == 3
    finally:
        await s.close()


# ---- 015: tool argument validation ----


async def test_015_argument_failures_are_tool_results_and_malformed_calls_are_32602() -> None:
    from mcpgen_runtime import memory_pair
    from mcpgen_runtime.features import ServerFeatures

    for mod in (v2025, v2026):
        f = ServerFeatures()
        calls: list[Any] = []
        f.tool(
            "book_flight",
            input_schema={"type": "object", "properties": {"departureDate": {"type": "string", "format": "date"}, "passengers": {"type": "integer", "minimum": 1}}, "required": ["departureDate", "passengers"], "additionalProperties": False},
            handler=lambda a: calls.append(a) or "booked",
        )
        server = mod.Server(server_info={"name": "s", "version": "1"}, handlers=f, capabilities=f.capabilities())
        a, b = memory_pair()
        await server.connect(b)
        client = mod.Client(client_info={"name": "c", "version": "1"})
        await client.connect(a)
        for args, words in (({"passengers": 2}, ["departureDate", "required"]), ({"departureDate": "2031-05-01", "passengers": 0}, ["passengers", "minimum"]), ({"departureDate": 12, "passengers": "two"}, ["departureDate", "passengers"])):
            r = await client.call_tool(name="book_flight", arguments=args)
            assert r.is_error is True
            text = r.content[0].text  # type: ignore[union-attr]
            for w in words:
                assert w in text, (w, text)
        assert calls == []
        with pytest.raises(RpcError) as e:
            await client.call_tool(name="book_fligth", arguments={"departureDate": "2031-05-01", "passengers": 1})
        assert e.value.code == -32602 and "book_fligth" in e.value.message
        for params in ({"arguments": {"departureDate": "2031-05-01", "passengers": 1}}, {"name": "book_flight", "arguments": "departureDate=2031-05-01"}):
            with pytest.raises(RpcError) as e:
                await client.request("tools/call", params)
            assert e.value.code == -32602
        ok = await client.call_tool(name="book_flight", arguments={"departureDate": "2031-05-01", "passengers": 1})
        assert ok.is_error is None and calls == [{"departureDate": "2031-05-01", "passengers": 1}]
        await client.close()


# ---- 016: MRTR ----


async def _stateless_client(t: ScriptedTransport, **kw: Any) -> Any:
    client = v2026.Client(client_info={"name": "c", "version": "1"}, **kw)
    connecting = asyncio.ensure_future(client.connect(t))
    d = await t.next()
    assert d["method"] == "server/discover"
    t.inject({"jsonrpc": "2.0", "id": d["id"], "result": {"resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}, "ttlMs": 0, "cacheScope": "public"}})
    await connecting
    return client


async def test_016_input_required_rounds_retry_with_new_ids_and_the_exact_state() -> None:
    t = ScriptedTransport()
    asked: list[Any] = []

    async def on_elicit(params: Any, ctx: Any) -> Any:
        asked.append(params.message)
        return {"action": "accept", "content": {"approved": True}}

    client = await _stateless_client(t, capabilities={"elicitation": {}}, elicit=on_elicit)
    call = asyncio.ensure_future(client.call_tool(name="deploy", arguments={"env": "staging"}))
    c1 = await t.next()
    r1 = {"resultType": "input_required", "_meta": {}, "inputRequests": {"approve_deploy": {"method": "elicitation/create", "params": {"mode": "form", "message": "Deploy to staging?", "requestedSchema": {"type": "object", "properties": {"approved": {"type": "boolean"}}, "required": ["approved"]}}}}, "requestState": "b3BhcXVlLTE="}
    t.inject({"jsonrpc": "2.0", "id": c1["id"], "result": r1})
    c2 = await t.next()
    assert c2["id"] != c1["id"]
    assert c2["params"]["name"] == "deploy" and c2["params"]["arguments"] == {"env": "staging"}
    assert c2["params"]["inputResponses"] == {"approve_deploy": {"action": "accept", "content": {"approved": True}}}
    assert c2["params"]["requestState"] == "b3BhcXVlLTE="
    t.inject({"jsonrpc": "2.0", "id": c2["id"], "result": {"resultType": "input_required", "requestState": "c3RhdGUtMg=="}})
    c3 = await t.next()
    assert c3["params"]["requestState"] == "c3RhdGUtMg==" and "inputResponses" not in c3["params"]
    t.inject({"jsonrpc": "2.0", "id": c3["id"], "result": {"content": [{"type": "text", "text": "deployed"}]}})
    result = await call
    assert result.content[0].text == "deployed" and asked == ["Deploy to staging?"]  # type: ignore[union-attr]
    # S4: no requestState → none in the retry; S5: an unknown resultType is invalid
    call = asyncio.ensure_future(client.call_tool(name="deploy", arguments={}))
    c = await t.next()
    t.inject({"jsonrpc": "2.0", "id": c["id"], "result": {"resultType": "input_required", "inputRequests": r1["inputRequests"]}})
    c = await t.next()
    assert "requestState" not in c["params"]
    t.inject({"jsonrpc": "2.0", "id": c["id"], "result": {"resultType": "totally_new", "content": []}})
    with pytest.raises(InvalidResultError):
        await call
    await client.close()


async def test_016_the_round_limit_and_undeclared_capabilities() -> None:
    t = ScriptedTransport()
    client = await _stateless_client(t, capabilities={"elicitation": {}}, elicit=lambda p, c: asyncio.sleep(0, {"action": "decline"}), max_input_rounds=3)
    call = asyncio.ensure_future(client.call_tool(name="loop"))
    for _ in range(4):
        c = await t.next()
        t.inject({"jsonrpc": "2.0", "id": c["id"], "result": {"resultType": "input_required", "requestState": "s"}})
    with pytest.raises(MaxInputRoundsError, match="3 rounds"):
        await call
    called: list[Any] = []
    client.handlers["sampling/createMessage"] = lambda p, c: called.append(p)
    call = asyncio.ensure_future(client.call_tool(name="sample"))
    c = await t.next()
    t.inject({"jsonrpc": "2.0", "id": c["id"], "result": {"resultType": "input_required", "inputRequests": {"q": {"method": "sampling/createMessage", "params": {"messages": [], "maxTokens": 5}}}}})
    with pytest.raises(CapabilityError, match="sampling"):
        await call
    assert called == []
    await client.close()


def _scripted_2026(tool_results: dict[str, Any]) -> Any:
    """An ASGI app answering 2026-07-28 requests over HTTP: server/discover, and tools/call with
    ``tool_results[name]`` as it is (notifications: 202)."""

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            m = await receive()
            body += m.get("body", b"")
            if not m.get("more_body"):
                break
        msg = json.loads(body)
        if "id" not in msg:
            await send({"type": "http.response.start", "status": 202, "headers": []})
            await send({"type": "http.response.body", "body": b""})
            return
        if msg["method"] == "server/discover":
            result = {"resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}, "ttlMs": 0, "cacheScope": "public"}
        else:
            result = tool_results[msg["params"]["name"]]
        out = json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}).encode()
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": out})

    return app


async def test_016_a_complete_result_must_be_the_requests_result() -> None:
    # resultType "complete" names the request's result type: a tools/call result that is not a
    # CallToolResult is refused, naming the member, though it would pass as an InputRequiredResult
    # (whose members besides resultType are all optional); the client checks a complete result
    # against the request's result type alone
    tools = {
        "bad": {"resultType": "complete", "content": [{"type": "txt"}]},
        "bare": {"resultType": "complete"},
        "good": {"resultType": "complete", "content": [{"type": "text", "text": "ok"}]},
    }
    async with http_server(_scripted_2026(tools)) as url:
        client = v2026.Client(client_info={"name": "c", "version": "1"})
        await client.connect(HttpClientTransport(url))
        try:
            with pytest.raises(InvalidResultError, match=r"result\.content\.0: Input tag 'txt' found using 'type'"):
                await client.call_tool(name="bad")
            with pytest.raises(InvalidResultError, match=r"result\.content: Field required"):
                await client.call_tool(name="bare")
            result = await client.call_tool(name="good")
            assert result.content[0].text == "ok"  # type: ignore[union-attr]
        finally:
            await client.close()


# ---- 017: subscriptions ----


async def test_017_the_acknowledgement_comes_first_and_carries_the_exact_id() -> None:
    s = await RawStdio.start("2026-07-28")
    try:
        await s.write({"jsonrpc": "2.0", "id": "L1", "method": "subscriptions/listen", "params": {"_meta": META_2026, "notifications": {"toolsListChanged": True}}})
        ack = await s.read()
        assert ack["method"] == "notifications/subscriptions/acknowledged"
        assert ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == "L1"
        assert ack["params"]["notifications"] == {"toolsListChanged": True}
        await s.write({"jsonrpc": "2.0", "id": 2, "method": "subscriptions/listen", "params": {"_meta": META_2026, "notifications": {"resourceSubscriptions": ["test://static-text"]}}})
        ack2 = await s.read()
        assert ack2["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == 2
        await s.write({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"_meta": {**META_2026, "progressToken": "p"}, "name": "test_trigger_tool_change", "arguments": {}}})
        got = [await s.read(), await s.read()]
        change = next(m for m in got if m.get("method") == "notifications/tools/list_changed")
        assert change["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == "L1"
        assert any(m.get("id") == 3 for m in got)
        await s.write({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "L1"}})
        await asyncio.sleep(0.1)
        await s.write({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"_meta": META_2026, "name": "test_trigger_tool_change", "arguments": {}}})
        r = await s.read()
        assert r.get("id") == 4  # nothing more for L1
        await s.nothing_for(0.2)
    finally:
        await s.close()


async def test_017_the_client_demultiplexes_by_subscription_id() -> None:
    from mcpgen_runtime import memory_pair

    server = make_server("2026-07-28")
    a, b = memory_pair()
    await server.connect(b)
    client = v2026.Client(client_info={"name": "c", "version": "1"})
    await client.connect(a)
    sub = await client.listen({"toolsListChanged": True, "promptsListChanged": True})
    assert sub.acknowledged == {"toolsListChanged": True, "promptsListChanged": True}
    await client.call_tool(name="test_trigger_tool_change", arguments={})
    await client.call_tool(name="test_trigger_prompt_change", arguments={})
    it = aiter(sub)
    first, second = await asyncio.wait_for(anext(it), 5), await asyncio.wait_for(anext(it), 5)
    assert {first[0], second[0]} == {"notifications/tools/list_changed", "notifications/prompts/list_changed"}
    await server.close()  # graceful: the listen request gets its completion result
    await asyncio.wait_for(sub.task, 5)  # type: ignore[arg-type]
    assert sub.completed
    await client.close()


# ---- 020: tasks (2025-11-25) ----


async def test_020_terminal_states_are_final_and_a_blocked_result_always_returns() -> None:
    from mcpgen_runtime import memory_pair
    from mcpgen_runtime.features import ServerFeatures
    from mcpgen_runtime.tasks import TaskStore

    f = ServerFeatures(tasks=TaskStore())

    async def long_job(args: dict[str, Any]) -> str:
        await asyncio.sleep(args["ms"] / 1000)
        return "done"

    f.tool("long_job", input_schema={"type": "object", "properties": {"ms": {"type": "integer"}}, "required": ["ms"]}, execution={"taskSupport": "optional"}, handler=long_job)
    statuses: list[dict[str, Any]] = []
    server = v2025.Server(server_info={"name": "s", "version": "1"}, handlers=f, capabilities=f.capabilities())
    a, b = memory_pair()
    await server.connect(b)
    client = v2025.Client(client_info={"name": "c", "version": "1"}, notification_handlers={"notifications/tasks/status": lambda p: statuses.append(p.to_wire())})
    await client.connect(a)
    req = client.peer.request
    created = await req("tools/call", {"name": "long_job", "arguments": {"ms": 50}, "task": {"ttl": 60000}})  # 1
    t1 = created["task"]
    assert t1["status"] == "working" and isinstance(t1["taskId"], str) and t1["ttl"] == 60000
    assert t1["createdAt"].endswith("Z") and t1["lastUpdatedAt"]
    await asyncio.sleep(0.2)
    got = await req("tasks/get", {"taskId": t1["taskId"]})  # 2
    assert got["status"] == "completed"
    with pytest.raises(RpcError) as e:
        await req("tasks/cancel", {"taskId": t1["taskId"]})  # 3
    assert e.value.code == -32602
    again = await req("tasks/get", {"taskId": t1["taskId"]})  # 4
    assert again["status"] == "completed" and again["lastUpdatedAt"] == got["lastUpdatedAt"]
    t2 = (await req("tools/call", {"name": "long_job", "arguments": {"ms": 60000}, "task": {}}))["task"]  # 5
    assert t2["status"] == "working" and "ttl" in t2 and t2["ttl"] is None
    blocked = asyncio.ensure_future(req("tasks/result", {"taskId": t2["taskId"]}))  # 6
    await asyncio.sleep(0.05)
    cancelled = await req("tasks/cancel", {"taskId": t2["taskId"]})  # 7
    assert cancelled["status"] == "cancelled"
    with pytest.raises(RpcError) as e:
        await asyncio.wait_for(blocked, 5)
    assert e.value.code == -32602 and "cancelled" in e.value.message
    assert (await req("tasks/get", {"taskId": t2["taskId"]}))["status"] == "cancelled"  # 8
    with pytest.raises(RpcError) as e:
        await req("tasks/cancel", {"taskId": t2["taskId"]})  # 9
    assert e.value.code == -32602
    for method, params in (("tasks/get", {"taskId": "no-such-task"}), ("tasks/list", {"cursor": "not-a-cursor"})):  # 10, 11
        with pytest.raises(RpcError) as e:
            await req(method, params)
        assert e.value.code == -32602
    # tasks/list refuses a cursor it did not issue in TypeScript's words (was "Invalid params: unknown cursor 'not-a-cursor'")
    assert (e.value.message, e.value.data) == ('Invalid cursor: "not-a-cursor"', {"cursor": "not-a-cursor"})
    with pytest.raises(RpcError) as e:
        await req("tasks/list", {"cursor": "c" * 300})
    assert (e.value.code, e.value.message, e.value.data) == (-32602, "Invalid cursor (300 characters: not one this server issued)", {"length": 300})
    r = await req("tasks/result", {"taskId": t1["taskId"]})
    assert r["content"][0]["text"] == "done" and r["_meta"]["io.modelcontextprotocol/related-task"] == {"taskId": t1["taskId"]}
    await asyncio.sleep(0.05)
    assert statuses and all("ttl" in s and "_meta" not in s for s in statuses)
    assert {s["status"] for s in statuses} == {"completed", "cancelled"}
    await client.close()
