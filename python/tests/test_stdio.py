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
