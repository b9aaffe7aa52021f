"""The engine (``Peer``) on its own: bounded state, duplicate ids, timeouts, closing, handler
failures and bad input answered with the right JSON-RPC error, never a crash."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from helpers import ScriptedTransport
from mcpgen_runtime import ConnectionClosed, RequestTimeout, RpcError
from mcpgen_runtime.engine import Peer, RequestContext
from mcpgen_runtime.jsonrpc import classify


class Sink:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    async def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_served_requests_are_bounded_and_duplicates_refused() -> None:
    gate = asyncio.Event()

    async def slow(ctx: RequestContext) -> Any:
        await gate.wait()
        return {"ok": True}

    sink = Sink()
    peer = Peer(on_request=slow, channel=sink, max_in_flight=2)
    for rid in (1, 2, 3):
        peer.receive({"jsonrpc": "2.0", "id": rid, "method": "x"})
    peer.receive({"jsonrpc": "2.0", "id": 1, "method": "x"})
    await settle()
    errors = {m["id"]: m["error"]["code"] for m in sink.sent}
    assert errors == {3: -32603, 1: -32600}
    assert peer.in_flight == (0, 2)
    gate.set()
    await settle()
    assert sorted(m["id"] for m in sink.sent if "result" in m) == [1, 2]
    assert peer.in_flight == (0, 0)


async def test_handler_failures_and_bad_messages_get_the_right_codes() -> None:
    async def handler(ctx: RequestContext) -> Any:
        if ctx.method == "boom":
            raise ValueError("secret detail")
        if ctx.method == "refuse":
            raise RpcError(-32602, "Invalid params: no", {"why": 1})
        return None

    sink = Sink()
    peer = Peer(on_request=handler, channel=sink)
    peer.receive({"jsonrpc": "2.0", "id": 1, "method": "boom"})
    peer.receive({"jsonrpc": "2.0", "id": 2, "method": "refuse"})
    peer.receive({"jsonrpc": "2.0", "id": 3, "method": "none"})
    peer.receive({"jsonrpc": "2.0", "id": 4, "method": "x", "params": "text"})
    peer.receive({"jsonrpc": "1.0", "id": None, "method": "x"})
    peer.receive([1, 2])
    peer.receive({"jsonrpc": "2.0", "method": 7})  # a malformed notification: dropped
    await settle()
    by_id = {m.get("id"): m for m in sink.sent}
    assert by_id[1]["error"] == {"code": -32603, "message": "Internal error: the boom handler failed"}  # no detail leaks
    assert by_id[2]["error"] == {"code": -32602, "message": "Invalid params: no", "data": {"why": 1}}
    assert by_id[3]["result"] == {}
    assert by_id[4]["error"]["code"] == -32600
    assert [m["error"]["code"] for m in sink.sent if "id" not in m] == [-32600, -32600]
    assert len(sink.sent) == 6


async def test_a_timeout_cancels_the_request_and_a_close_fails_what_is_pending() -> None:
    t = ScriptedTransport()

    async def nothing(ctx: RequestContext) -> Any:
        return {}

    peer = Peer(on_request=nothing, channel=t, timeout=0.1)
    await t.start(peer)
    with pytest.raises(RequestTimeout):
        await peer.request("tools/call", {"name": "x"})
    sent = await t.next()
    cancel = await t.next()
    assert cancel == {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": sent["id"], "reason": "timed out after 0.1 s"}}
    pending = asyncio.ensure_future(peer.request("ping", timeout=0))
    await t.next()
    peer.close(None)
    with pytest.raises(ConnectionClosed):
        await pending
    with pytest.raises(ConnectionClosed):
        await peer.request("ping")
    assert peer.in_flight == (0, 0)


async def test_outbound_requests_are_bounded() -> None:
    t = ScriptedTransport()

    async def nothing(ctx: RequestContext) -> Any:
        return {}

    peer = Peer(on_request=nothing, channel=t, max_in_flight=3, timeout=0)
    waiting = [asyncio.ensure_future(peer.request("ping")) for _ in range(3)]
    await settle()
    with pytest.raises(RpcError, match="too many requests in flight"):
        await peer.request("ping")
    for i in range(3):
        peer.receive({"jsonrpc": "2.0", "id": i, "result": {}})
    assert await asyncio.gather(*waiting) == [{}, {}, {}]


async def test_invalid_requests_get_the_words_of_the_other_runtimes() -> None:
    """The same code, id presence and words as the TypeScript and Go engines (the table of
    test/runtime/transport/invalid-requests-langs.test.ts): a reused in-flight id, another
    ``jsonrpc``, an object with an id and no method, result or error."""
    gate = asyncio.Event()

    async def slow(ctx: RequestContext) -> Any:
        await gate.wait()
        return {}

    sink = Sink()
    peer = Peer(on_request=slow, channel=sink)
    peer.receive({"jsonrpc": "2.0", "id": 21, "method": "x"})
    peer.receive({"jsonrpc": "2.0", "id": 21, "method": "ping"})
    peer.receive({"jsonrpc": "2.0", "id": "aé", "method": "x"})
    peer.receive({"jsonrpc": "2.0", "id": "aé", "method": "ping"})
    await settle()
    assert sink.sent == [
        {"jsonrpc": "2.0", "id": 21, "error": {"code": -32600, "message": "Invalid Request: request id 21 is already in use"}},
        {"jsonrpc": "2.0", "id": "aé", "error": {"code": -32600, "message": 'Invalid Request: request id "aé" is already in use'}},
    ]
    assert peer.serving(21) and peer.serving("aé") and not peer.serving(22)
    gate.set()
    await settle()
    with pytest.raises(RpcError) as e:
        classify({"jsonrpc": "1.0", "id": 16, "method": "x"})
    assert (e.value.code, e.value.message) == (-32600, 'Invalid Request: jsonrpc must be "2.0"')
    with pytest.raises(RpcError) as e:
        classify({"jsonrpc": "2.0", "id": 15})
    assert (e.value.code, e.value.message) == (-32600, "Invalid Request: message has no method, result or error")
