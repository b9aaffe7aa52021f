"""The stdio server transport on what a process may be given as stdin besides a pipe: /dev/null
(a character device the event loop cannot watch) and a regular file are read by a thread, and
the server ends at their end instead of waiting forever."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

from conftest import child_env
from helpers import INIT_2025, STARTUP_TIMEOUT


@pytest.mark.parametrize("source", ["devnull", "file"])
async def test_a_stdio_server_ends_at_the_end_of_a_stdin_that_is_no_pipe(source: str, tmp_path: Path) -> None:
    if source == "devnull":
        path = Path(os.devnull)
    else:
        path = tmp_path / "in.jsonl"
        path.write_text(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT_2025}) + "\n")
    with open(path, "rb") as stdin:
        proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "mcpgen_reference", "--rev", "2025-11-25", "--stdio", stdin=stdin, stdout=asyncio.subprocess.PIPE, env=child_env())
        try:
            out, _ = await asyncio.wait_for(proc.communicate(), STARTUP_TIMEOUT)
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
    assert proc.returncode == 0
    if source == "devnull":
        assert out == b""
    else:
        assert all(json.loads(line).get("id") == 1 for line in out.splitlines())


@pytest.mark.parametrize("source", ["file", "pipe"])
async def test_every_request_read_before_the_end_of_stdin_is_answered(source: str, tmp_path: Path) -> None:
    """At the end of stdin the requests read before it are answered first, then the server ends:
    a regular file (read by a thread) and a pipe closed at once both get every reply, in a stream
    of 2000 tools/call with a large argument among them and a stdout that is read slowly."""
    big = "x" * 1_000_000
    lines = [json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": INIT_2025}), '{"jsonrpc":"2.0","method":"notifications/initialized"}']
    for i in range(1, 2001):
        text = big if i == 1000 else f"call {i}"
        lines.append(json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": text}}}))
    data = ("\n".join(lines) + "\n").encode()
    path = tmp_path / "many.jsonl"
    path.write_bytes(data)
    argv = [sys.executable, "-m", "mcpgen_reference", "--rev", "2025-11-25", "--stdio"]
    if source == "file":
        with open(path, "rb") as stdin:
            proc = await asyncio.create_subprocess_exec(*argv, stdin=stdin, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL, env=child_env())
    else:
        proc = await asyncio.create_subprocess_exec(*argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL, env=child_env())
        assert proc.stdin is not None
        proc.stdin.write(data)
        await proc.stdin.drain()
        proc.stdin.close()
    try:
        assert proc.stdout is not None
        out = await asyncio.wait_for(proc.stdout.read(), STARTUP_TIMEOUT)
        await asyncio.wait_for(proc.wait(), STARTUP_TIMEOUT)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    assert proc.returncode == 0
    replies = [json.loads(line) for line in out.splitlines()]
    assert sorted(r["id"] for r in replies) == list(range(2001))
    by_id = {r["id"]: r for r in replies}
    assert by_id[1000]["result"]["content"][0]["text"] == big
    assert by_id[2000]["result"]["content"][0]["text"] == "call 2000"
