"""Interop over real pipes and sockets: the official Python SDK (``mcp`` from PyPI, pinned in
python/requirements.lock) as client of our Python server and as server of our Python client, over
stdio and Streamable HTTP, in both eras where the peer speaks them; and our Python client against
the TypeScript reference server (``mcpgen serve``, stdio and HTTP, 2025-11-25 and 2026-07-28)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import mcp
import pytest
from mcp import StdioServerParameters

from conftest import ROOT, child_env
from helpers import STARTUP_TIMEOUT, http_server
from mcpgen_reference.__main__ import build_app
from mcpgen_runtime import StdioClientTransport
from mcpgen_runtime.http_client import HttpClientTransport

import mcp_2025_11_25 as v2025
import mcp_2026_07_28 as v2026

PEER = str(Path(__file__).parent / "peers" / "official_server.py")


def reference(rev: str) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "mcpgen_reference", "--rev", rev, "--stdio"], env=child_env())


async def exercise_official_client(client: mcp.Client) -> None:
    tools = {t.name for t in (await client.list_tools()).tools}
    assert {"echo", "test_simple_text", "test_tool_with_progress"} <= tools
    r = await client.call_tool("echo", {"text": "héllo ☃"})
    assert r.content[0].text == "héllo ☃" and not r.is_error  # type: ignore[union-attr]
    seen: list[float] = []

    async def progress(p: float, total: float | None, message: str | None) -> None:
        seen.append(p)

    r = await client.call_tool("test_tool_with_progress", {}, progress_callback=progress)
    assert r.content[0].text == "Progress completed"  # type: ignore[union-attr]
    r = await client.call_tool("echo", {"text": 5})
    assert r.is_error  # argument validation is a tool execution error
    res = await client.read_resource("test://static-text")
    assert res.contents[0].text == "This is the content of the static text resource."  # type: ignore[union-attr]
    p = await client.get_prompt("test_prompt_with_arguments", {"arg1": "a", "arg2": "b"})
    assert p.messages[0].content.text == "Prompt with arguments: arg1='a', arg2='b'"  # type: ignore[union-attr]


async def test_the_official_client_against_our_server_over_stdio_2025() -> None:
    async with mcp.Client(reference("2025-11-25"), mode="legacy") as client:
        assert client.session.protocol_version == "2025-11-25"  # type: ignore[attr-defined]
        await exercise_official_client(client)


async def test_the_official_client_against_our_server_over_stdio_2026() -> None:
    async with mcp.Client(reference("2026-07-28"), mode="auto") as client:
        await exercise_official_client(client)


async def test_the_official_client_against_our_server_over_http_both_eras() -> None:
    for rev, mode in (("2025-11-25", "legacy"), ("2026-07-28", "auto"), ("2026-07-28", "legacy")):
        app = build_app(rev)
        async with http_server(app) as url:
            async with mcp.Client(url, mode=mode) as client:  # type: ignore[arg-type]
                await exercise_official_client(client)


@contextlib.asynccontextmanager
async def process_url(*args: str, env: dict[str, str] | None = None, cwd: str | None = None) -> AsyncIterator[str]:
    """Starts a server process that prints ``listening on <url>``; yields the URL."""
    proc = await asyncio.create_subprocess_exec(*args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT, env=env or child_env(), cwd=cwd)
    assert proc.stdout is not None
    try:
        seen = b""
        async with asyncio.timeout(STARTUP_TIMEOUT):
            while True:
                line = await proc.stdout.readline()
                if not line:
                    raise AssertionError(f"{args} exited before listening: {seen.decode(errors='replace')}")
                seen += line
                m = re.search(rb"listening on (http://\S+)", line)
                if m:
                    break
        drain = asyncio.ensure_future(proc.stdout.read())
        yield m.group(1).decode()
        drain.cancel()
    finally:
        if proc.returncode is None:
            proc.terminate()
            try:
                await asyncio.wait_for(proc.wait(), 10)
            except TimeoutError:
                proc.kill()
                await proc.wait()


async def exercise_our_client_on_the_peer(client: Any) -> None:
    assert client.server.server_info["name"] == "official-peer"
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert {"add", "shout"} <= set(tools)
    r = await client.call_tool(name="add", arguments={"a": 2, "b": 40})
    assert r.content[0].text == "42"
    assert r.structured_content == {"result": 42}
    r = await client.call_tool(name="shout", arguments={"text": "quiet"})
    assert r.content[0].text == "QUIET"
    res = await client.read_resource(uri="peer://greeting")
    assert res.contents[0].text == "hello from the official SDK"
    p = await client.get_prompt(name="review", arguments={"code": "x = 1"})
    assert "x = 1" in p.messages[0].content.text


async def test_our_client_against_the_official_server_over_stdio() -> None:
    client = v2025.Client(client_info={"name": "mcpgen-interop", "version": "0.1.0"}, timeout=STARTUP_TIMEOUT)
    await client.connect(StdioClientTransport(sys.executable, [PEER, "stdio"], env=child_env()))
    assert client.server is not None and client.server.protocol_version == "2025-11-25"
    await exercise_our_client_on_the_peer(client)
    await client.close()
    # the 2026-07-28 client probes with server/discover and speaks that revision when the peer does
    client26 = v2026.Client(client_info={"name": "mcpgen-interop", "version": "0.1.0"}, timeout=STARTUP_TIMEOUT, probe_timeout=STARTUP_TIMEOUT, fallback_tables=[v2025.TABLE])
    await client26.connect(StdioClientTransport(sys.executable, [PEER, "stdio"], env=child_env()))
    assert client26.active.lifecycle == "stateless"
    await exercise_our_client_on_the_peer(client26)
    await client26.close()


async def test_our_client_against_the_official_server_over_http() -> None:
    async with process_url(sys.executable, PEER, "http") as url:
        client = v2025.Client(client_info={"name": "mcpgen-interop", "version": "0.1.0"}, timeout=STARTUP_TIMEOUT)
        await client.connect(HttpClientTransport(url))
        await exercise_our_client_on_the_peer(client)
        await client.close()
        client26 = v2026.Client(client_info={"name": "mcpgen-interop", "version": "0.1.0"}, timeout=STARTUP_TIMEOUT, probe_timeout=STARTUP_TIMEOUT, fallback_tables=[v2025.TABLE])
        await client26.connect(HttpClientTransport(url))
        await exercise_our_client_on_the_peer(client26)
        await client26.close()


# ---- our Python client against the TypeScript reference server ----

MCPGEN = [os.environ.get("MCPGEN_NODE", "node"), str(ROOT / "bin" / "mcpgen.js")]


async def exercise_reference(client: Any) -> None:
    tools = {t.name for t in (await client.list_tools()).tools}
    assert {"echo", "test_tool_with_progress", "test_simple_text"} <= tools
    r = await client.call_tool(name="echo", arguments={"text": "from python"})
    assert r.content[0].text == "from python"
    seen: list[float] = []
    r = await client.call_tool(name="test_tool_with_progress", arguments={}, on_progress=lambda p, t, m: seen.append(p))
    assert r.content[0].text == "Progress completed" and seen == [0, 50, 100]
    res = await client.read_resource(uri="test://template/42/data")
    assert '"id":"42"' in res.contents[0].text


@pytest.mark.parametrize("rev", ["2025-11-25", "2026-07-28"])
async def test_our_client_against_the_typescript_reference_server_over_stdio(rev: str) -> None:
    mod = v2026 if rev == "2026-07-28" else v2025
    client = mod.Client(client_info={"name": "mcpgen-py", "version": "0.1.0"})
    await client.connect(StdioClientTransport(MCPGEN[0], [*MCPGEN[1:], "serve", "--stdio", "--rev", rev], cwd=str(ROOT)))
    assert client.server is not None and client.server.server_info is not None
    assert client.server.server_info["name"] == "mcpgen-reference-server"
    await exercise_reference(client)
    await client.close()


@pytest.mark.parametrize("rev", ["2025-11-25", "2026-07-28"])
async def test_our_client_against_the_typescript_reference_server_over_http(rev: str) -> None:
    async with process_url(*MCPGEN, "serve", "--http", "0", "--rev", rev, cwd=str(ROOT), env=dict(os.environ)) as url:
        mod = v2026 if rev == "2026-07-28" else v2025
        client = mod.Client(client_info={"name": "mcpgen-py", "version": "0.1.0"}, capabilities={"elicitation": {"form": {}}})
        await client.connect(HttpClientTransport(url))
        assert client.active.protocol_version == rev
        await exercise_reference(client)
        await client.close()
