"""Shows that to_json and encode refuse what the decoder would refuse (EncodeError), deep in a
message too, and that an explicit null its type allows is written back.

Usage: python3 -O encode.py <package dir> <module>; prints one line per case:
"ok <json>" or "refused <path>: <message>".
"""
import importlib
import json
import sys

sys.path.insert(0, sys.argv[1])
m = importlib.import_module(sys.argv[2])


def show(make):
    try:
        print("ok " + json.dumps(make(), sort_keys=True))
    except m.EncodeError as error:
        print(f"refused {error.path}: {error.message}")


# draft's results say they are complete
done = {"result_type": "complete"} if "result_type" in m.CallToolResult.__dataclass_fields__ else {}

# a required member left None (what a careless constructor call gives)
show(lambda: m.CallToolResult(content=None, **done).to_json())
# a number out of its range, two levels down, through encode()
show(lambda: m.encode(m.CallToolResult(content=[m.TextContent(text="a", annotations=m.Annotations(priority=2))], **done)))
# an explicit null kept, an absent member left out
show(lambda: m.encode(m.decode("JSONRPCErrorResponse", {"jsonrpc": "2.0", "id": 1, "error": {"code": -32000, "message": "failed", "data": None}})))
show(lambda: m.TextContent(text="a").to_json())
