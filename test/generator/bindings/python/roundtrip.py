"""Decodes every case of cases.json as its type (a case with a method: as that client request's
result, through the method map) and re-encodes it (see ../own.ts).

Usage: python3 -O roundtrip.py <package dir> <module> <cases.json> <results.json>
Only the bindings and the standard library; runs under -O (the decoders use no assert).
"""
import importlib
import json
import sys

sys.path.insert(0, sys.argv[1])
types = importlib.import_module(sys.argv[2])

with open(sys.argv[3], encoding="utf-8") as f:
    cases = json.load(f)

results = []
for case in cases:
    try:
        if "method" in case:
            decoded = types.CLIENT_REQUESTS[case["method"]].decode_result(case["data"])
            results.append({"ok": types.encode(decoded), "decoded": type(decoded).__name__})
            continue
        decoded = types.decode(case["type"], case["data"])
        results.append({"ok": types.encode(decoded)})
    except types.DecodeError as error:
        results.append({"path": error.path, "message": error.message})
    except types.EncodeError as error:
        results.append({"path": error.path, "message": "decoded, then refused by the encoder: " + error.message})

with open(sys.argv[4], "w", encoding="utf-8") as f:
    json.dump(results, f)
