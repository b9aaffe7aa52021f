"""A client of server.py: over stdio (``python client.py``) or HTTP (``python client.py URL``)."""

import asyncio
import sys

from mcp_2025_11_25 import Client
from mcpgen_runtime import StdioClientTransport
from mcpgen_runtime.http_client import HttpClientTransport


async def main() -> None:
    client = Client(client_info={"name": "greeter-client", "version": "1.0.0"})
    if len(sys.argv) > 1:
        transport = HttpClientTransport(sys.argv[1])
    else:
        transport = StdioClientTransport(sys.executable, ["server.py"])
    server = await client.connect(transport)
    print("connected to", server.server_info["name"])
    tools = await client.list_tools()
    print("tools:", [tool.name for tool in tools.tools])
    result = await client.call_tool(name="greet", arguments={"name": "Ada"})
    print(result.content[0].text)
    await client.close()


try:
    asyncio.run(main())
except Exception as e:  # one line, not a traceback: no server, a refused call, ...
    sys.exit(f"client: {type(e).__name__}: {e}")
