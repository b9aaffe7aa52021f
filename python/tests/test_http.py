"""Streamable HTTP over real loopback sockets: the client transport on its own aiohttp session (one
kept-alive connection for calls in turn, closed with the transport) or on an ``httpx2.AsyncClient``
of the caller's (its headers and auth flow), failures as ``ConnectionClosed`` either way, and what
the server keeps of each reply (only SSE streams, to resume them, until they expire)."""

from __future__ import annotations

import socket
from collections.abc import Generator

import httpx2
import pytest

from helpers import http_server, raw_http
from mcpgen_reference.__main__ import build_app
from mcpgen_runtime.http_client import HttpClientTransport, http_client
from mcpgen_runtime.jsonrpc import ConnectionClosed

import mcp_2025_11_25 as v2025


async def test_json_replies_are_not_kept_and_sse_streams_are_kept_until_they_expire() -> None:
    app = build_app("2025-11-25")
    async with http_server(app) as url:
        transport = HttpClientTransport(url, standalone_stream=False)
        client = v2025.Client(client_info={"name": "c", "version": "1"})
        await client.connect(transport)
        assert transport.session_id is not None
        session = app.sessions[transport.session_id]
        for i in range(40):
            result = await client.call_tool(name="echo", arguments={"text": f"n{i}"})
            assert result.content[0].text == f"n{i}"  # type: ignore[union-attr]
        assert session.replies == {}  # answered in JSON: nothing to resume, nothing kept

        seen: list[float] = []
        await client.call_tool(name="test_tool_with_progress", arguments={}, on_progress=lambda p, total, message: seen.append(p))
        assert seen == [0, 50, 100]  # the progress went first, so the reply was an SSE stream
        kept = list(session.replies.values())
        assert len(kept) == 1 and kept[0].ended and kept[0].events

        app.keep_events_seconds = 0.0
        session._pruned_at = 0.0
        await client.call_tool(name="echo", arguments={"text": "again"})
        assert session.replies == {}  # expired, forgotten
        await client.close()


async def test_the_transports_own_session_keeps_one_connection_and_closes_it_with_the_transport() -> None:
    app = build_app("2025-11-25")
    peers: list[tuple[str, int]] = []
    agents: set[str] = set()

    async def recording(scope, receive, send):  # type: ignore[no-untyped-def]
        if scope["type"] == "http":
            peers.append(scope["client"])
            agents.add(dict(scope["headers"]).get(b"user-agent", b"").decode())
        await app(scope, receive, send)

    async with http_server(recording) as url:
        transport = HttpClientTransport(url, standalone_stream=False)
        client = v2025.Client(client_info={"name": "c", "version": "1"})
        await client.connect(transport)
        for i in range(5):
            assert (await client.call_tool(name="echo", arguments={"text": f"k{i}"})).content[0].text == f"k{i}"  # type: ignore[union-attr]
        session = transport._session
        assert session is not None and not session.closed
        await client.close()
        assert session.closed
    # initialize, notifications/initialized, 5 calls and the DELETE, all on one connection
    assert len(peers) == 8 and len(set(peers)) == 1
    assert len(agents) == 1 and "aiohttp" in agents.pop()


async def test_a_client_of_the_callers_carries_its_headers_and_auth_flow() -> None:
    class Bearer(httpx2.Auth):
        def __init__(self) -> None:
            self.requests: list[str] = []

        def auth_flow(self, request: httpx2.Request) -> Generator[httpx2.Request, httpx2.Response, None]:
            request.headers["authorization"] = "Bearer t0ken"
            self.requests.append(request.method)
            yield request

    app = build_app("2025-11-25")
    seen: list[dict[str, str]] = []

    async def recording(scope, receive, send):  # type: ignore[no-untyped-def]
        if scope["type"] == "http":
            seen.append({k.decode(): v.decode() for k, v in scope["headers"]})
        await app(scope, receive, send)

    auth = Bearer()
    async with http_server(recording) as url, raw_http(auth=auth, headers={"x-tenant": "blue"}) as http:
        client = v2025.Client(client_info={"name": "c", "version": "1"})
        await client.connect(HttpClientTransport(url, client=http, headers={"x-trace": "7"}, standalone_stream=False))
        await client.list_tools()
        await client.close()
        assert not http.is_closed  # the caller's client is the caller's to close
    assert auth.requests[:3] == ["POST", "POST", "POST"] and auth.requests[-1] == "DELETE"
    assert len(seen) == len(auth.requests)
    for h in seen:
        assert (h.get("authorization"), h.get("x-tenant"), h.get("x-trace")) == ("Bearer t0ken", "blue", "7")


async def test_connection_failures_are_connection_closed() -> None:
    with pytest.raises(httpx2.InvalidURL):
        HttpClientTransport("http://[::1/mcp")
    with socket.socket() as held:  # bound, not listening: connecting is refused
        held.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{held.getsockname()[1]}/mcp"
        client = v2025.Client(client_info={"name": "c", "version": "1"})
        with pytest.raises(ConnectionClosed, match=f"POST {url}"):
            await client.connect(HttpClientTransport(url, timeout=5))
        await client.close()


async def test_the_default_clients_share_one_tls_context() -> None:
    a, b = http_client(), http_client()
    try:
        pools = [c._transport._pool for c in (a, b)]  # type: ignore[attr-defined]
        assert pools[0]._ssl_context is pools[1]._ssl_context
        assert pools[0]._ssl_context.verify_mode.name == "CERT_REQUIRED"
    finally:
        await a.aclose()
        await b.aclose()
