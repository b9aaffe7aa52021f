"""A server whose handlers fail in each way a server's own code can, for test_server_failures.py:
a prompt and a resource read that throw, tools whose results JSON cannot express (a cycle, NaN),
a tool whose structuredContent fails its outputSchema, and a tool that works. No logging is set
up: what is logged goes where Python logs by default (stderr). ``python failing_server.py REV``
serves stdio."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from mcpgen_runtime.features import ServerFeatures
from mcpgen_runtime.stdio import StdioServerTransport

SECRET = "db down at postgres://admin:hunter2@db"


def failing_server(mod: Any) -> Any:
    f = ServerFeatures()

    def broken_prompt(args: Any, ctx: Any) -> Any:
        raise RuntimeError(SECRET)

    async def broken_read(uri: str, ctx: Any) -> Any:
        raise TypeError(SECRET)

    def loop(args: Any, ctx: Any) -> Any:
        cycle: dict[str, Any] = {"a": 1}
        cycle["self"] = cycle
        return {"content": [{"type": "text", "text": "x"}], "structuredContent": cycle}

    def nan(args: Any, ctx: Any) -> Any:
        return {"content": [{"type": "text", "text": "x"}], "structuredContent": {"n": float("nan")}}

    f.prompt("broken", get=broken_prompt)
    f.resource("mem://broken", "broken", read=broken_read)
    f.tool("loop", handler=loop)
    f.tool("nan", handler=nan)
    f.tool("shape", output_schema={"type": "object", "properties": {"n": {"type": "number"}}, "required": ["n"]}, handler=lambda a, c: {"content": [{"type": "text", "text": "x"}], "structuredContent": {"n": "not a number"}})
    f.tool("fine", handler=lambda a, c: "ok")
    return mod.Server(server_info={"name": "failing", "version": "1"}, handlers=f, capabilities=f.capabilities())


async def main(rev: str) -> None:
    mod = __import__("mcp_" + rev.replace("-", "_"))
    await failing_server(mod).serve(StdioServerTransport())


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
