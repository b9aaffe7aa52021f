"""The Python conformance client: run by ``conformance client --command "<cmd>"``, the server URL
last on its command line, the scenario in ``MCP_CONFORMANCE_SCENARIO`` and its data in
``MCP_CONFORMANCE_CONTEXT``. With ``--rev 2026-07-28`` (before the URL) it speaks that revision
statelessly (falling back to a 2025-11-25 session when the server is of that era).

Every scenario: connect, list the tools (when the server declares them), call each with arguments
its input schema asks for (a ``schema`` object argument gets another tool's input schema), close.
Elicitation is accepted with the requested schema's defaults; sampling answers a fixed text; roots
lists one root. A scenario's ``toolCalls`` context names the calls to make instead.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import traceback
from typing import Any

from mcpgen_runtime import RequestContext
from mcpgen_runtime.http_client import HttpClientTransport

from .server import older_handshake_tables, revision_module

CLIENT_INFO = {"name": "mcpgen-conformance-client", "version": "0.1.0"}


def defaults(schema: Any) -> dict[str, Any]:
    """Content for an elicitation form: each property's default."""
    props = schema.get("properties") if isinstance(schema, dict) else None
    return {k: p["default"] for k, p in (props or {}).items() if isinstance(p, dict) and "default" in p}


def arguments_for(schema: Any) -> dict[str, Any]:
    """Arguments satisfying a tool's input schema: numbers 1, 2, …; strings 'test'; booleans true."""
    out: dict[str, Any] = {}
    n = 0
    props = schema.get("properties") if isinstance(schema, dict) else None
    for k, p in (props or {}).items():
        t = p.get("type") if isinstance(p, dict) else None
        if t in ("number", "integer"):
            n += 1
            out[k] = n
        elif t == "boolean":
            out[k] = True
        elif t == "string":
            out[k] = "test"
    return out


async def on_elicit(params: Any, ctx: RequestContext) -> Any:
    schema = getattr(params, "requested_schema", None)
    data = schema.to_wire() if schema is not None and hasattr(schema, "to_wire") else schema
    return {"action": "accept", "content": defaults(data)}


async def on_sample(params: Any, ctx: RequestContext) -> Any:
    return {"role": "assistant", "content": {"type": "text", "text": "This is a test response."}, "model": "conformance-model"}


async def on_roots(params: Any, ctx: RequestContext) -> Any:
    return {"roots": [{"uri": "file:///conformance/root", "name": "Conformance Root"}]}


async def call_all(client: Any, tools: list[Any]) -> None:
    listed = [t.to_wire() for t in tools]
    for tool in listed:
        args = arguments_for(tool.get("inputSchema"))
        other = next((t for t in listed if t["name"] != tool["name"]), None)
        props = (tool.get("inputSchema") or {}).get("properties") or {}
        if isinstance(props.get("schema"), dict) and props["schema"].get("type") == "object" and other is not None:
            args["schema"] = other.get("inputSchema")
        await client.call_tool(name=tool["name"], arguments=args)


async def run(url: str, revision: str | None, scenario: str, context: dict[str, Any]) -> None:
    timeout = 60.0 if scenario.startswith("auth/") else 20.0
    transport = HttpClientTransport(url, max_retries=3)
    if revision == "2026-07-28":
        mod = revision_module("2026-07-28")
        legacy = [revision_module("2025-11-25").TABLE, *older_handshake_tables("2025-11-25")]
        client = mod.Client(
            client_info=CLIENT_INFO,
            capabilities={"elicitation": {"form": {}}, "sampling": {}, "roots": {}},
            elicit=on_elicit,
            create_message=on_sample,
            list_roots=on_roots,
            fallback_tables=legacy,
            timeout=timeout,
        )
    else:
        mod = revision_module("2025-11-25")
        client = mod.Client(
            client_info=CLIENT_INFO,
            capabilities={"elicitation": {"form": {}}, "sampling": {}},
            elicit=on_elicit,
            create_message=on_sample,
            fallback_tables=older_handshake_tables("2025-11-25"),
            timeout=timeout,
        )
    server = await client.connect(transport)
    try:
        # the tools are listed first: their x-mcp-header annotations name the Mcp-Param-* headers
        tools = (await client.list_tools()).tools if server.capabilities.get("tools") is not None else []
        planned = context.get("toolCalls")
        if isinstance(planned, list):
            for c in planned:
                await client.call_tool(name=c["name"], arguments=c.get("arguments") or {})
        else:
            await call_all(client, tools)
    finally:
        await client.close()


def main() -> int:
    argv = sys.argv[1:]
    url = argv[-1]
    revision = argv[argv.index("--rev") + 1] if "--rev" in argv else None
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT", "{}") or "{}")
    try:
        asyncio.run(run(url, revision, scenario, context))
    except BaseException as e:
        sys.stderr.write(f"conformance client ({scenario}): {e!r}\n{traceback.format_exc()}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
