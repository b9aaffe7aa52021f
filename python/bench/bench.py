"""The Python benchmark: ``tools/call`` → echo round trips, ours, the official SDK and a bare
asyncio JSON-RPC echo, side by side in one run.

- stdio, 64 requests in flight: our generated 2025-11-25 ``Client`` ↔ our ``Server``; the official
  ``mcp.Client`` ↔ its ``MCPServer``; bare newline JSON ↔ bare newline JSON (servers.py).
- Streamable HTTP, 16 clients (one session each, calls back to back): ours (sending with aiohttp)
  ↔ ``McpHttpApp`` under uvicorn; the official client (on httpx2) ↔ its
  ``streamable_http_app(json_response=True)`` under uvicorn; bare keep-alive POSTs on asyncio
  streams ↔ a raw ASGI echo under uvicorn; and ``aiohttp`` and ``httpx2``: the same POSTs sent
  with each library (one session or ``AsyncClient`` per client, as ours and the official client
  have) to the same raw echo, the limit of any client on it.

Throughput is the median of the rounds (interleaved, after a warm-up); CPU per call is the
server process's user+system time (Linux ``/proc/<pid>/stat``) and this process's (the clients),
over the measured calls. Prints ``name: value unit`` lines and ``name: N.NNx`` comparisons.

``python bench.py [--quick] [--only=stdio|--only=http]`` (``npm run bench:python [-- --quick]``).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import re
import socket
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SERVERS = str(HERE / "servers.py")
QUICK = "--quick" in sys.argv
ONLY = next((a.split("=", 1)[1] for a in sys.argv if a.startswith("--only=")), None)  # stdio or http
ROUNDS = 3 if QUICK else 5
STDIO_CALLS = 1500 if QUICK else 6000
HTTP_CALLS = 480 if QUICK else 2400
IN_FLIGHT = 64
HTTP_CLIENTS = 16
TEXT = "hello, benchmark"
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def child_pid(marker: str) -> int:
    """The child process of this one whose command line contains ``marker``."""
    me = os.getpid()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            cmd = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if ppid == me and marker in cmd:
            return int(entry)
    raise RuntimeError(f"no child process running {marker}")


Call = Callable[[], Awaitable[Any]]


async def flood(call: Call, n: int, in_flight: int) -> float:
    """Seconds for ``n`` calls with ``in_flight`` at a time."""
    counter = itertools.count()

    async def worker() -> None:
        while next(counter) < n:
            await call()

    t0 = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(in_flight)))
    return time.perf_counter() - t0


class Target:
    """One side of a comparison: how to call, the server's pid, how to close."""

    def __init__(self, name: str, calls: list[Call], pid: int, close: Callable[[], Awaitable[None]]) -> None:
        self.name, self.calls, self.pid, self.close = name, calls, pid, close
        self.rates: list[float] = []
        self.server_cpu: list[float] = []
        self.client_cpu: list[float] = []

    async def round(self, n: int, in_flight: int) -> None:
        s0, c0 = cpu_seconds(self.pid), time.process_time()
        if len(self.calls) == 1:
            seconds = await flood(self.calls[0], n, in_flight)
        else:  # one client per connection, calls back to back
            per = n // len(self.calls)
            t0 = time.perf_counter()
            await asyncio.gather(*(flood(c, per, 1) for c in self.calls))
            seconds = time.perf_counter() - t0
            n = per * len(self.calls)
        self.rates.append(n / seconds)
        self.server_cpu.append((cpu_seconds(self.pid) - s0) / n * 1e6)
        self.client_cpu.append((time.process_time() - c0) / n * 1e6)


def env() -> dict[str, str]:
    return {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}


# ---- stdio ----


async def ours_stdio() -> Target:
    import mcp_2025_11_25 as v
    from mcpgen_runtime import StdioClientTransport

    client = v.Client(client_info={"name": "bench", "version": "0"})
    transport = StdioClientTransport(sys.executable, [SERVERS, "ours", "stdio"], env=env())
    await client.connect(transport)
    assert transport.pid is not None
    return Target("ours", [lambda: client.call_tool(name="echo", arguments={"text": TEXT})], transport.pid, client.close)


async def official_stdio() -> Target:
    import mcp
    from mcp import StdioServerParameters

    client = mcp.Client(StdioServerParameters(command=sys.executable, args=[SERVERS, "official", "stdio"], env=env()), mode="legacy")
    await client.__aenter__()

    async def close() -> None:
        await client.__aexit__(None, None, None)

    return Target("official", [lambda: client.call_tool("echo", {"text": TEXT})], child_pid(f"{SERVERS} official stdio"), close)


async def bare_stdio() -> Target:
    proc = await asyncio.create_subprocess_exec(sys.executable, SERVERS, "bare", "stdio", stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, env=env(), limit=1 << 24)
    assert proc.stdin is not None and proc.stdout is not None
    pending: dict[int, asyncio.Future[Any]] = {}
    ids = itertools.count(1)
    stdin, stdout = proc.stdin, proc.stdout

    async def reader() -> None:
        while line := await stdout.readline():
            m = json.loads(line)
            fut = pending.pop(m["id"], None)
            if fut is not None:
                fut.set_result(m["result"])

    task = asyncio.ensure_future(reader())

    async def call() -> Any:
        rid = next(ids)
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        pending[rid] = fut
        stdin.write(json.dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": TEXT}}}, separators=(",", ":")).encode() + b"\n")
        return await fut

    async def close() -> None:
        stdin.close()
        await proc.wait()
        task.cancel()

    return Target("bare", [call], proc.pid, close)


# ---- Streamable HTTP ----




async def start_http(kind: str) -> tuple[asyncio.subprocess.Process, str]:
    proc = await asyncio.create_subprocess_exec(sys.executable, SERVERS, kind, "http", stderr=asyncio.subprocess.PIPE, env=env())
    assert proc.stderr is not None
    while True:
        line = await asyncio.wait_for(proc.stderr.readline(), 300)  # a loaded machine can take minutes to start it
        if not line:
            raise RuntimeError(f"{kind} http server exited")
        m = re.search(rb"listening on (\S+)", line)
        if m:
            return proc, m.group(1).decode()


async def stop(proc: asyncio.subprocess.Process) -> None:
    proc.terminate()
    await proc.wait()


async def ours_http() -> Target:
    import mcp_2025_11_25 as v
    from mcpgen_runtime.http_client import HttpClientTransport

    proc, url = await start_http("ours")
    clients = []
    for _ in range(HTTP_CLIENTS):  # each with an aiohttp session of its own, as the official clients have an httpx2.AsyncClient each
        c = v.Client(client_info={"name": "bench", "version": "0"})
        await c.connect(HttpClientTransport(url, standalone_stream=False))
        clients.append(c)

    async def close() -> None:
        for c in clients:
            await c.close()
        await stop(proc)

    return Target("ours", [(lambda c=c: c.call_tool(name="echo", arguments={"text": TEXT})) for c in clients], proc.pid, close)


async def official_http() -> Target:
    import mcp

    proc, url = await start_http("official")
    stack = contextlib.AsyncExitStack()  # anyio's cancel scopes: exited in reverse, in this task
    clients = [await stack.enter_async_context(mcp.Client(url, mode="legacy")) for _ in range(HTTP_CLIENTS)]

    async def close() -> None:
        await stack.aclose()
        await stop(proc)

    return Target("official", [(lambda c=c: c.call_tool("echo", {"text": TEXT})) for c in clients], proc.pid, close)


async def bare_http() -> Target:
    """16 keep-alive connections, each request written in one write, each response read by its
    Content-Length: asyncio streams and ``json`` alone."""
    proc, url = await start_http("bare")
    port = int(url.split(":")[2].split("/")[0])
    ids = itertools.count(1)
    class Conn:
        reader: asyncio.StreamReader
        writer: asyncio.StreamWriter

    async def connect(c: Conn) -> None:
        c.reader, c.writer = await asyncio.open_connection("127.0.0.1", port)
        c.writer.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    conns = [Conn() for _ in range(HTTP_CLIENTS)]
    for c in conns:
        await connect(c)

    def caller(c: Conn) -> Call:
        async def call() -> Any:
            body = json.dumps({"jsonrpc": "2.0", "id": next(ids), "method": "tools/call", "params": {"name": "echo", "arguments": {"text": TEXT}}}, separators=(",", ":")).encode()
            request = b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body)
            for attempt in (0, 1):
                c.writer.write(request)
                try:
                    head = await c.reader.readuntil(b"\r\n\r\n")
                    break
                except (asyncio.IncompleteReadError, ConnectionError):
                    if attempt:
                        raise
                    await connect(c)  # the server closed the idle keep-alive connection
            length = int(re.search(rb"(?i)content-length: (\d+)", head).group(1))  # type: ignore[union-attr]
            return json.loads(await c.reader.readexactly(length))["result"]

        return call

    async def close() -> None:
        for c in conns:
            c.writer.close()
        await stop(proc)

    return Target("bare", [caller(c) for c in conns], proc.pid, close)


async def httpx2_http() -> Target:
    """16 httpx2 clients POSTing the bare JSON-RPC request to the raw ASGI echo, each body parsed with ``json``."""
    from mcpgen_runtime.http_client import http_client

    proc, url = await start_http("bare")
    ids = itertools.count(1)
    clients = [http_client() for _ in range(HTTP_CLIENTS)]
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}

    def caller(http: Any) -> Call:
        async def call() -> Any:
            body = json.dumps({"jsonrpc": "2.0", "id": next(ids), "method": "tools/call", "params": {"name": "echo", "arguments": {"text": TEXT}}}, separators=(",", ":")).encode()
            response = await http.post(url, content=body, headers=headers)
            return json.loads(response.content)["result"]

        return call

    async def close() -> None:
        for c in clients:
            await c.aclose()
        await stop(proc)

    return Target("httpx2", [caller(c) for c in clients], proc.pid, close)


async def aiohttp_http() -> Target:
    """16 aiohttp sessions POSTing the bare JSON-RPC request to the raw ASGI echo, each body parsed
    with ``json``: the limit of any client on aiohttp, the sender of ours."""
    import aiohttp

    proc, url = await start_http("bare")
    ids = itertools.count(1)
    sessions = [aiohttp.ClientSession() for _ in range(HTTP_CLIENTS)]
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}

    def caller(session: Any) -> Call:
        async def call() -> Any:
            body = json.dumps({"jsonrpc": "2.0", "id": next(ids), "method": "tools/call", "params": {"name": "echo", "arguments": {"text": TEXT}}}, separators=(",", ":")).encode()
            async with session.post(url, data=body, headers=headers) as response:
                return json.loads(await response.read())["result"]

        return call

    async def close() -> None:
        for s in sessions:
            await s.close()
        await stop(proc)

    return Target("aiohttp", [caller(s) for s in sessions], proc.pid, close)


async def compare(title: str, makers: list[Callable[[], Awaitable[Target]]], n: int, in_flight: int) -> dict[str, Target]:
    targets: list[Target] = []
    try:
        for m in makers:  # a target that fails to start still gets the others closed
            targets.append(await m())
        for t in targets:
            await t.round(max(100, n // 5), in_flight)  # warm-up
            t.rates.clear()
            t.server_cpu.clear()
            t.client_cpu.clear()
        for _ in range(ROUNDS):
            for t in targets:
                await t.round(n, in_flight)
    finally:
        for t in targets:
            await t.close()
    out = {t.name: t for t in targets}
    for t in targets:
        print(f"{title} {t.name}: {statistics.median(t.rates):.0f} calls/s")
    for t in targets:
        print(f"{title} {t.name} server cpu per call: {statistics.median(t.server_cpu):.0f} µs")
        print(f"{title} {t.name} client cpu per call: {statistics.median(t.client_cpu):.0f} µs")
    ours = statistics.median(out["ours"].rates)
    for t in targets[1:]:
        print(f"{title} ours/{t.name}: {ours / statistics.median(t.rates):.2f}x")
    return out


async def main() -> None:
    print(f"python: {sys.version.split()[0]}; load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; rounds: {ROUNDS}")
    if ONLY in (None, "stdio"):
        await compare(f"stdio ({IN_FLIGHT} in flight)", [ours_stdio, official_stdio, bare_stdio], STDIO_CALLS, IN_FLIGHT)
    if ONLY in (None, "http"):
        await compare(f"http ({HTTP_CLIENTS} clients)", [ours_http, official_http, bare_http, aiohttp_http, httpx2_http], HTTP_CALLS, 1)


if __name__ == "__main__":
    asyncio.run(main())
