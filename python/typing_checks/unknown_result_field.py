"""Fails mypy --strict: a tool result has no member `contents` and a handler must return its
revision's result model (expected: attr-defined, then return-value)."""

from __future__ import annotations

from mcp_2026_07_28 import Client, models as m
from mcpgen_runtime import RequestContext


async def use(client: Client) -> object:
    result = await client.call_tool(name="echo")
    return result.contents


class Handlers:
    async def call_tool(self, params: m.CallToolRequestParams, ctx: RequestContext, /) -> m.CallToolResult | m.InputRequiredResult:
        return m.ListToolsResult(tools=[])
