"""Fails mypy --strict: call_tool's name is a str, its arguments a dict (expected: arg-type twice)."""

from __future__ import annotations

from mcp_2025_11_25 import Client


async def use(client: Client) -> None:
    await client.call_tool(name=42)
    await client.call_tool(name="echo", arguments=["not", "an", "object"])
