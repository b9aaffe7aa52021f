"""Fails mypy --strict: the handlers lack call_tool (expected: arg-type on the Server call)."""

from __future__ import annotations

from mcp_2025_11_25 import Server, UnimplementedServerHandlers, models as m
from mcpgen_runtime import RequestContext


class Partial:
    async def list_tools(self, params: m.PaginatedRequestParams, ctx: RequestContext, /) -> m.ListToolsResult:
        return m.ListToolsResult(tools=[])


server = Server(server_info={"name": "s", "version": "1"}, handlers=Partial())
fine = Server(server_info={"name": "s", "version": "1"}, handlers=UnimplementedServerHandlers())
