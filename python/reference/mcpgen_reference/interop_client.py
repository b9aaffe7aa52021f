"""The Python client of the generated SDK against a reference server of any language (the
conformance fixtures: echo, test_tool_with_progress, test://static-text,
test_prompt_with_arguments), checking its answers::

    python -m mcpgen_reference.interop_client [--rev REV] --url URL          # Streamable HTTP
    python -m mcpgen_reference.interop_client [--rev REV] -- COMMAND ARGS... # stdio

``--rev 2025-11-25`` (the default) connects with initialize and a session; ``2026-07-28``
statelessly (server/discover), failing if the server answers in another era. On success it prints
``ok <rev> <transport> server=<name> protocolVersion=<version>`` and exits 0; a failed check is
printed on stderr with exit 1; a usage error exits 2.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from mcpgen_runtime import StdioClientTransport
from mcpgen_runtime.http_client import HttpClientTransport

from .server import revision_module

ECHOED = 'héllo "☃"\n'


class CheckFailed(Exception):
    pass


def check(ok: bool, what: str) -> None:
    if not ok:
        raise CheckFailed(what)


async def exercise(client: Any) -> None:
    names = {t.name for t in (await client.list_tools()).tools}
    check({"echo", "test_tool_with_progress"} <= names, f"tools/list: {sorted(names)}")
    r = await client.call_tool(name="echo", arguments={"text": ECHOED})
    check(not r.is_error and len(r.content) == 1 and r.content[0].text == ECHOED, f"tools/call echo: {r}")
    r = await client.call_tool(name="echo", arguments={"text": 5})
    check(bool(r.is_error), f"tools/call echo with text 5: isError not set: {r}")
    seen: list[float] = []
    r = await client.call_tool(name="test_tool_with_progress", arguments={}, on_progress=lambda p, t, m: seen.append(p))
    check(r.content[0].text == "Progress completed", f"tools/call test_tool_with_progress: {r}")
    check(seen == [0, 50, 100], f"tools/call test_tool_with_progress: progress {seen}")
    res = await client.read_resource(uri="test://static-text")
    check(
        len(res.contents) == 1 and res.contents[0].text == "This is the content of the static text resource.",
        f"resources/read: {res}",
    )
    p = await client.get_prompt(name="test_prompt_with_arguments", arguments={"arg1": "a", "arg2": "b"})
    check(p.messages[0].content.text == "Prompt with arguments: arg1='a', arg2='b'", f"prompts/get: {p}")


async def run(rev: str, url: str | None, command: list[str]) -> str:
    mod = revision_module(rev)
    client = mod.Client(client_info={"name": "mcpgen-py-interop", "version": "0.1.0"})
    transport = HttpClientTransport(url) if url else StdioClientTransport(command[0], command[1:])
    await client.connect(transport)
    try:
        server = client.server
        check(server is not None and server.protocol_version == rev, f"connect: protocol version {server and server.protocol_version}, want {rev}")
        await exercise(client)
        name = (server.server_info or {}).get("name")
        return f"ok {rev} {'http' if url else 'stdio'} server={name} protocolVersion={server.protocol_version}"
    finally:
        await client.close()


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    command: list[str] = []
    if "--" in args:
        i = args.index("--")
        args, command = args[:i], args[i + 1 :]
    parser = argparse.ArgumentParser(prog="interop_client")
    parser.add_argument("--rev", default="2025-11-25", choices=["2025-11-25", "2026-07-28"])
    parser.add_argument("--url")
    ns = parser.parse_args(args)
    if (ns.url is None) == (not command):
        print("interop_client: give one of --url URL and -- COMMAND ARGS...", file=sys.stderr)
        return 2
    try:
        print(asyncio.run(asyncio.wait_for(run(ns.rev, ns.url, command), 60)))
    except Exception as e:  # noqa: BLE001 - a failed check and a broken peer are reported alike
        print(f"interop_client ({ns.rev} over {'http' if ns.url else 'stdio'}): {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
