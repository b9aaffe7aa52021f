"""Passes mypy --strict: a hand-written ServerHandlers with every handler, typed as the revision asks."""

from __future__ import annotations

from mcp_2025_11_25 import Client, Server, ServerHandlers, models as m
from mcpgen_runtime import RequestContext, RpcError


class Handlers:
    async def complete(self, params: m.CompleteRequestParams, ctx: RequestContext, /) -> m.CompleteResult:
        return m.CompleteResult(completion=m.CompleteResultCompletion(values=[]))

    async def get_prompt(self, params: m.GetPromptRequestParams, ctx: RequestContext, /) -> m.GetPromptResult:
        raise RpcError(-32602, "no prompts")

    async def list_prompts(self, params: m.PaginatedRequestParams, ctx: RequestContext, /) -> m.ListPromptsResult:
        return m.ListPromptsResult(prompts=[])

    async def list_resources(self, params: m.PaginatedRequestParams, ctx: RequestContext, /) -> m.ListResourcesResult:
        return m.ListResourcesResult(resources=[])

    async def read_resource(self, params: m.ReadResourceRequestParams, ctx: RequestContext, /) -> m.ReadResourceResult:
        return m.ReadResourceResult(contents=[m.TextResourceContents(uri=params.uri, text="x")])

    async def subscribe(self, params: m.SubscribeRequestParams, ctx: RequestContext, /) -> m.EmptyResult:
        return m.EmptyResult()

    async def list_resource_templates(self, params: m.PaginatedRequestParams, ctx: RequestContext, /) -> m.ListResourceTemplatesResult:
        return m.ListResourceTemplatesResult(resource_templates=[])

    async def unsubscribe(self, params: m.UnsubscribeRequestParams, ctx: RequestContext, /) -> m.EmptyResult:
        return m.EmptyResult()

    async def cancel_task(self, params: m.CancelTaskRequestParams, ctx: RequestContext, /) -> m.CancelTaskResult:
        raise RpcError(-32602, "no tasks")

    async def get_task(self, params: m.GetTaskRequestParams, ctx: RequestContext, /) -> m.GetTaskResult:
        raise RpcError(-32602, "no tasks")

    async def list_tasks(self, params: m.PaginatedRequestParams, ctx: RequestContext, /) -> m.ListTasksResult:
        return m.ListTasksResult(tasks=[])

    async def get_task_payload(self, params: m.GetTaskPayloadRequestParams, ctx: RequestContext, /) -> m.GetTaskPayloadResult:
        raise RpcError(-32602, "no tasks")

    async def call_tool(self, params: m.CallToolRequestParams, ctx: RequestContext, /) -> m.CallToolResult | m.CreateTaskResult:
        return m.CallToolResult(content=[m.TextContent(text=params.name)])

    async def list_tools(self, params: m.PaginatedRequestParams, ctx: RequestContext, /) -> m.ListToolsResult:
        return m.ListToolsResult(tools=[m.Tool(name="echo", input_schema=m.ToolInputSchema())])


handlers: ServerHandlers = Handlers()
server = Server(server_info={"name": "s", "version": "1"}, handlers=Handlers())


async def use(client: Client) -> str | None:
    result = await client.call_tool(name="echo", arguments={"text": "hi"})
    block = result.content[0]
    return block.text if isinstance(block, m.TextContent) else None
