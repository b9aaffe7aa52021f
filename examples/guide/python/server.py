"""A server with one tool, over stdio (``python server.py``) or Streamable HTTP
(``python server.py --http 3000``, served by uvicorn at http://127.0.0.1:3000/mcp)."""

import sys

from mcp_2025_11_25 import Server
from mcpgen_runtime import StdioServerTransport
from mcpgen_runtime.features import ServerFeatures
from mcpgen_runtime.http_server import McpHttpApp

features = ServerFeatures()


@features.tool(input_schema={"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]})
async def greet(arguments, ctx):
    """Greets someone by name."""
    return f"Hello, {arguments['name']}!"


def make_server() -> Server:
    return Server(server_info={"name": "greeter", "version": "1.0.0"}, handlers=features, capabilities=features.capabilities())


# Streamable HTTP: an ASGI application, a Server per session
app = McpHttpApp(on_session=make_server)

if __name__ == "__main__":
    if sys.argv[1:2] == ["--http"]:
        import uvicorn

        uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]))
    else:
        import asyncio

        asyncio.run(make_server().serve(StdioServerTransport()))
