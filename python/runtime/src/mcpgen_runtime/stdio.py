"""The stdio transport: the client spawns the server and talks over its stdin and stdout.

2025-11-25 ``basic/transports`` (stdio), 2026-07-28 ``basic/transports/stdio``: one JSON-RPC
message per line, UTF-8, LF-terminated; nothing but messages on stdout (diagnostics go to
stderr). Framing is :class:`~mcpgen_runtime.codec.NdjsonDecoder`'s: per line, whatever the pipe's
chunking. A line that is not JSON gets -32700 (no id) from a server and a log line from a client;
a line over ``max_line_bytes`` gets -32000 "Payload Too Large" (with its id when its head shows
one), or fails the pending request it answers.
"""

from __future__ import annotations

import asyncio
import logging
import os
import stat
import sys
import threading
from collections.abc import Mapping, Sequence
from typing import IO, Any

from .codec import DEFAULT_MAX_LINE_BYTES, BadLine, LineTooLong, NdjsonDecoder, peek_line
from .jsonrpc import CONNECTION_CLOSED, ConnectionClosed, Message, RpcError, encode, error_response
from .transport import Receiver

log = logging.getLogger("mcpgen_runtime.stdio")


class _Lines(asyncio.Protocol):
    """The reading and writing half shared by both ends: decodes lines, hands messages on, writes with flow control."""

    def __init__(self, *, max_line_bytes: int, answer_parse_errors: bool, settle_at_end: bool = False) -> None:
        self.decoder = NdjsonDecoder(max_line_bytes)
        self.max_line_bytes = max_line_bytes
        self.answer_parse_errors = answer_parse_errors
        #: At the end of input, answer the requests read before it (and write the answers out) before closing.
        self.settle_at_end = settle_at_end
        self._ending = False
        self.receiver: Receiver | None = None
        self.write_transport: asyncio.WriteTransport | None = None
        self._paused = False
        self._drained: asyncio.Event = asyncio.Event()
        self._drained.set()
        self.closed = False
        self._close_error: BaseException | None = None
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    # -- writing --
    def pause_writing(self) -> None:
        self._paused = True
        self._drained.clear()

    def resume_writing(self) -> None:
        self._paused = False
        self._drained.set()

    async def send(self, message: Message) -> None:
        """Writes one message as one line ending in a single LF."""
        w = self.write_transport
        if self.closed or w is None or w.is_closing():
            raise ConnectionClosed("stdio: the connection is closed")
        w.write(encode(message) + b"\n")
        if self._paused:
            await self._drained.wait()
            if self.closed:
                raise ConnectionClosed("stdio: the connection closed")

    # -- reading --
    def data_received(self, data: bytes) -> None:
        if self.receiver is None:
            return
        for item in self.decoder.feed(data):
            if isinstance(item, BadLine):
                self._bad(item.error)
            elif isinstance(item, LineTooLong):
                self._too_long(item)
            else:
                self.receiver.receive(item, None)

    def _bad(self, error: RpcError) -> None:
        if self.answer_parse_errors:
            asyncio.ensure_future(self._send_quietly(error_response(None, error)))
        else:
            log.warning("stdio: dropped a line: %s", error.message)

    def _too_long(self, item: LineTooLong) -> None:
        ident, is_request = peek_line(item.head)
        err = RpcError(CONNECTION_CLOSED, "Payload Too Large", {"limit": self.max_line_bytes, "size": item.size}, has_data=True)
        if not is_request and ident is not None and self.receiver is not None:
            # a response over the limit fails the request it answers
            self.receiver.receive({"jsonrpc": "2.0", "id": ident, "error": err.to_error()}, None)
            return
        if self.answer_parse_errors or is_request:
            rid = ident if is_request and isinstance(ident, (str, int)) else None
            asyncio.ensure_future(self._send_quietly(error_response(rid, err)))
        else:
            log.warning("stdio: dropped a line of %d bytes (limit %d)", item.size, self.max_line_bytes)

    async def _send_quietly(self, message: Message) -> None:
        try:
            await self.send(message)
        except (ConnectionClosed, OSError):
            pass

    def eof_received(self) -> bool | None:
        if self.decoder.end():
            self._close_error = ConnectionClosed("stdio: closed with an incomplete frame")
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        if exc is None:
            self.end_of_input()
        else:
            self._finish(exc)

    def end_of_input(self) -> None:
        """The input ended: closes, after answering what was read before the end when ``settle_at_end``."""
        if self.closed or self._ending:
            return
        self._ending = True
        settle = getattr(self.receiver, "settle", None)
        if not self.settle_at_end or settle is None:
            self._finish(self._close_error)
            return

        async def end() -> None:
            try:
                await settle()
                await self._flush()
            finally:
                self._finish(self._close_error)

        asyncio.ensure_future(end())

    async def _flush(self) -> None:
        """Waits until everything written has left for the output (or the output closed)."""
        w = self.write_transport
        while not self.closed and w is not None and not w.is_closing():
            try:
                if w.get_write_buffer_size() == 0:
                    return
                w.set_write_buffer_limits(high=0)  # pauses until the buffer is empty
            except NotImplementedError:
                return  # a writer without a buffer (a regular file)
            await self._drained.wait()

    def _finish(self, error: BaseException | None) -> None:
        if self.closed:
            return
        self.closed = True
        self._drained.set()
        if self.receiver is not None:
            self.receiver.connection_lost(error)
        if not self.done.done():
            self.done.set_result(None)


class _Writer(asyncio.Protocol):
    def __init__(self, lines: _Lines) -> None:
        self.lines = lines

    def pause_writing(self) -> None:
        self.lines.pause_writing()

    def resume_writing(self) -> None:
        self.lines.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        self.lines._finish(exc)


class _FileWriter(asyncio.WriteTransport):
    """Writes to a file descriptor that the event loop cannot watch (a regular file)."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd = fd
        self._closing = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        view = memoryview(data)
        while view:
            n = os.write(self._fd, view)
            view = view[n:]

    def is_closing(self) -> bool:
        return self._closing

    def close(self) -> None:
        self._closing = True


def _pollable(fd: int) -> bool:
    """Whether the event loop can watch ``fd`` for reading: a pipe, a socket or a terminal. epoll
    refuses regular files and character devices such as /dev/null, and asyncio accepts the latter
    but only fails to watch it later, in a callback: stdin would then never be read, nor its end."""
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or os.isatty(fd)


class StdioServerTransport:
    """The server's end: messages from stdin, messages to stdout (nothing else is written there).

    ``stdin`` / ``stdout`` default to the process's; ``max_line_bytes`` bounds one inbound line
    (default 16 MiB). At the end of stdin (a pipe, a socket or a regular file) the requests read
    before it are answered and the answers written out (the receiver's ``settle``), then the
    connection closes.
    """

    def __init__(self, stdin: IO[bytes] | None = None, stdout: IO[bytes] | None = None, *, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> None:
        self._stdin = stdin if stdin is not None else sys.stdin.buffer
        self._stdout = stdout if stdout is not None else sys.stdout.buffer
        self._max = max_line_bytes
        self._lines: _Lines | None = None
        self._thread: threading.Thread | None = None

    async def start(self, receiver: Receiver) -> None:
        loop = asyncio.get_running_loop()
        lines = _Lines(max_line_bytes=self._max, answer_parse_errors=True, settle_at_end=True)
        lines.receiver = receiver
        self._lines = lines
        try:
            w, _ = await loop.connect_write_pipe(lambda: _Writer(lines), os.fdopen(os.dup(self._stdout.fileno()), "wb", buffering=0))
            lines.write_transport = w
        except (ValueError, OSError):
            # a regular file on stdout: plain blocking writes (a file never holds a writer up for long)
            lines.write_transport = _FileWriter(self._stdout.fileno())
        try:
            if not _pollable(self._stdin.fileno()):
                raise ValueError("stdin is neither a pipe, a socket nor a terminal")
            await loop.connect_read_pipe(lambda: lines, os.fdopen(os.dup(self._stdin.fileno()), "rb", buffering=0))
        except (ValueError, OSError):
            # a regular file or /dev/null on stdin (no event-loop reads): a thread reads it
            self._thread = threading.Thread(target=self._read_blocking, args=(loop, lines), daemon=True)
            self._thread.start()

    def _read_blocking(self, loop: asyncio.AbstractEventLoop, lines: _Lines) -> None:
        fd = self._stdin.fileno()
        while True:
            chunk = os.read(fd, 65536)
            if not chunk:
                def end() -> None:
                    lines.eof_received()
                    lines.end_of_input()

                loop.call_soon_threadsafe(end)
                return
            loop.call_soon_threadsafe(lines.data_received, chunk)

    async def send(self, message: Message) -> None:
        if self._lines is None:
            raise ConnectionClosed("stdio: not started")
        await self._lines.send(message)

    async def close(self) -> None:
        lines = self._lines
        if lines is None or lines.closed:
            return
        if lines.write_transport is not None:
            lines.write_transport.close()
        lines._finish(None)

    async def wait_closed(self) -> None:
        """Returns once stdin ended or the transport closed."""
        if self._lines is not None:
            await self._lines.done


class _Child(asyncio.SubprocessProtocol):
    def __init__(self, lines: _Lines) -> None:
        self.lines = lines
        self.exited: asyncio.Future[int | None] = asyncio.get_running_loop().create_future()

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        if fd == 1:
            self.lines.data_received(data)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd == 1:
            self.lines.eof_received()
            self.lines._finish(exc or self.lines._close_error)

    def pause_writing(self) -> None:
        self.lines.pause_writing()

    def resume_writing(self) -> None:
        self.lines.resume_writing()

    def process_exited(self) -> None:
        if not self.exited.done():
            self.exited.set_result(None)


class StdioClientTransport:
    """The client's end: spawns ``command`` with ``args`` and speaks over its stdin and stdout.

    The child's stderr is inherited (its diagnostics reach the parent's stderr) unless
    ``stderr`` names a file object or ``asyncio.subprocess.DEVNULL``. :meth:`close` closes its
    stdin, waits ``close_timeout`` seconds for it to exit, then terminates and finally kills it.
    """

    def __init__(
        self,
        command: str,
        args: Sequence[str] = (),
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        stderr: Any = None,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        close_timeout: float = 2.0,
    ) -> None:
        self.command = command
        self.args = list(args)
        self.env = dict(env) if env is not None else None
        self.cwd = cwd
        self.stderr = stderr
        self.close_timeout = close_timeout
        self._max = max_line_bytes
        self._lines: _Lines | None = None
        self._proc: asyncio.SubprocessTransport | None = None
        self._child: _Child | None = None

    async def start(self, receiver: Receiver) -> None:
        loop = asyncio.get_running_loop()
        lines = _Lines(max_line_bytes=self._max, answer_parse_errors=False)
        lines.receiver = receiver
        self._lines = lines
        child = _Child(lines)
        env = None if self.env is None else {**os.environ, **self.env}
        proc, _ = await loop.subprocess_exec(
            lambda: child, self.command, *self.args, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=self.stderr, env=env, cwd=self.cwd
        )
        self._proc, self._child = proc, child
        stdin = proc.get_pipe_transport(0)
        assert isinstance(stdin, asyncio.WriteTransport)
        lines.write_transport = stdin

    @property
    def pid(self) -> int | None:
        """The child's process id once started."""
        return self._proc.get_pid() if self._proc is not None else None

    async def send(self, message: Message) -> None:
        if self._lines is None:
            raise ConnectionClosed("stdio: not started")
        await self._lines.send(message)

    async def close(self) -> None:
        proc, child, lines = self._proc, self._child, self._lines
        if proc is None or child is None or lines is None:
            return
        w = lines.write_transport
        if w is not None and not w.is_closing():
            w.close()
        for step in (None, proc.terminate, proc.kill):
            if step is not None and proc.get_returncode() is None:
                try:
                    step()
                except ProcessLookupError:
                    break
            try:
                await asyncio.wait_for(asyncio.shield(child.exited), self.close_timeout)
                break
            except TimeoutError:
                continue
        proc.close()
        lines._finish(None)
