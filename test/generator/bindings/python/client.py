"""A small MCP client over stdio, written with the bindings and the standard library only.

Usage: python3 -O client.py <package dir> <module> <server command...>
Starts the server command, then, by the revision's lifecycle:
- handshake: initialize, notifications/initialized, tools/list, tools/call echo;
- stateless: server/discover, tools/list and tools/call echo, each request with its own _meta.
Every message sent is built from the binding's dataclasses and every reply is decoded through
JSONRPCMessage and the method map (CLIENT_REQUESTS); prints one JSON summary line.
"""
import importlib
import json
import subprocess
import sys

sys.path.insert(0, sys.argv[1])
t = importlib.import_module(sys.argv[2])

server = subprocess.Popen(sys.argv[3:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8")
next_id = 0


def send(message) -> None:
    server.stdin.write(json.dumps(t.encode(message)) + "\n")
    server.stdin.flush()


def request(method: str, params):
    """Sends a request, returns its result decoded as the method map says."""
    global next_id
    next_id += 1
    info = t.CLIENT_REQUESTS[method]
    message = t.JSONRPCRequest(id=next_id, method=method, params=None if params is None else t.encode(params))
    info.request.from_json(t.encode(message))  # the request is valid for its own type
    send(message)
    while True:
        line = server.stdout.readline()
        if not line:
            raise SystemExit(f"server closed the pipe before answering {method}")
        reply = t.decode("JSONRPCMessage", json.loads(line))
        match reply:
            case t.JSONRPCResultResponse(id=reply_id) if reply_id == next_id:
                return info.decode_result(t.encode(reply.result))
            case t.JSONRPCErrorResponse(error=error):
                raise SystemExit(f"{method}: error {error.code}: {error.message}")
            case t.JSONRPCNotification() | t.JSONRPCRequest() | t.JSONRPCResultResponse():
                continue
            case _:
                typing_never(reply)


def typing_never(value) -> None:
    from typing import assert_never

    assert_never(value)


CLIENT_INFO = t.Implementation(name="python-bindings-client", version="1.0.0")
summary = {}

if t.LIFECYCLE == "handshake":
    init = request(
        "initialize",
        t.InitializeRequestParams(protocol_version=t.PROTOCOL_VERSION, capabilities=t.ClientCapabilities(), client_info=CLIENT_INFO),
    )
    assert_type = type(init).__name__
    summary["initialize"] = {"type": assert_type, "protocolVersion": init.protocol_version, "server": init.server_info.name}
    send(t.JSONRPCNotification(method="notifications/initialized"))

    def params(cls, **kw):
        return cls(**kw)

else:
    meta = t.RequestMetaObject(
        io_modelcontextprotocol_protocol_version=t.PROTOCOL_VERSION,
        io_modelcontextprotocol_client_info=CLIENT_INFO,
        io_modelcontextprotocol_client_capabilities=t.ClientCapabilities(),
    )
    discovered = request("server/discover", t.RequestParams(meta=meta))
    summary["discover"] = {"type": type(discovered).__name__, "versions": discovered.supported_versions, "resultType": discovered.result_type, "tools": discovered.capabilities.tools is not None}

    def params(cls, **kw):
        return cls(meta=meta, **kw)


tools = request("tools/list", params(t.PaginatedRequestParams))
summary["tools"] = {"type": type(tools).__name__, "names": [tool.name for tool in tools.tools]}
called = request("tools/call", params(t.CallToolRequestParams, name="echo", arguments={"text": "hello from python"}))
summary["call"] = {"type": type(called).__name__, "content": [t.encode(block) for block in called.content], "blockTypes": [type(b).__name__ for b in called.content]}

server.stdin.close()
server.wait(timeout=30)
print(json.dumps(summary, sort_keys=True))
