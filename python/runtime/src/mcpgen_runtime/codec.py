"""Byte framing: newline-delimited JSON (stdio) and server-sent events (Streamable HTTP).

ndjson (2025-11-25 ``basic/transports`` stdio; 2026-07-28 ``basic/transports/stdio``): "Messages
are delimited by newlines, and MUST NOT contain embedded newlines". Only the LF byte delimits a
frame, whatever the reads' sizes; a line is decoded as UTF-8 only once whole (a character split
across reads is never corrupted); a CR before the LF and blank lines are JSON whitespace; the size
limit applies to the whole line, so its verdict does not depend on the chunking.

SSE (WHATWG HTML §9.2 "Server-sent events", the event stream format): the parser takes text in
any chunking, handles LF, CR and CRLF line ends and comments; :func:`sse_event` encodes one event.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final

from .jsonrpc import PARSE_ERROR, RpcError

DEFAULT_MAX_LINE_BYTES: Final = 16 * 1024 * 1024
"""The default maximum stdio line, in bytes (the LF not counted): 16 MiB."""

PEEK_BYTES: Final = 256
"""Bytes kept from the head of an over-long line (to read its ``id`` and ``method``)."""


@dataclass(frozen=True, slots=True)
class LineTooLong:
    """A line over the limit: its size in bytes and its first :data:`PEEK_BYTES` bytes. The rest was dropped."""

    size: int
    head: bytes


@dataclass(frozen=True, slots=True)
class BadLine:
    """A complete line that is not a JSON text in UTF-8: answered with -32700."""

    error: RpcError


class NdjsonDecoder:
    """Splits a byte stream into JSON values, one per LF-terminated line.

    :meth:`feed` takes any chunk and returns what completed: decoded values, :class:`BadLine`
    (invalid UTF-8 or JSON) and :class:`LineTooLong`. Memory is bounded by ``max_line_bytes``
    plus one chunk. :meth:`end` tells whether an incomplete frame was left at end of stream.
    """

    __slots__ = ("_max", "_parts", "_size", "_dropping", "_drop_size", "_drop_head")

    def __init__(self, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> None:
        if max_line_bytes <= 0:
            raise ValueError("max_line_bytes must be positive")
        self._max = max_line_bytes
        self._parts: list[bytes] = []
        self._size = 0
        self._dropping = False
        self._drop_size = 0
        self._drop_head = b""

    def feed(self, chunk: bytes) -> list[object]:
        """The values, bad lines and over-long lines completed by ``chunk``, in order."""
        out: list[object] = []
        start = 0
        n = len(chunk)
        while start < n:
            nl = chunk.find(b"\n", start)
            end = n if nl < 0 else nl
            piece = chunk[start:end]
            if self._dropping:
                self._drop_size += len(piece)
            elif self._size + len(piece) > self._max:
                head = (b"".join(self._parts) + piece)[:PEEK_BYTES]
                self._dropping, self._drop_size, self._drop_head = True, self._size + len(piece), head
                self._parts, self._size = [], 0
            elif piece:
                self._parts.append(piece)
                self._size += len(piece)
            if nl < 0:
                break
            if self._dropping:
                out.append(LineTooLong(self._drop_size, self._drop_head))
                self._dropping, self._drop_size, self._drop_head = False, 0, b""
            else:
                line = self._parts[0] if len(self._parts) == 1 else b"".join(self._parts)
                self._parts, self._size = [], 0
                value = _line_value(line)
                if value is not _BLANK:
                    out.append(value)
            start = nl + 1
        return out

    def end(self) -> bool:
        """End of stream: True when an incomplete frame (bytes after the last LF) was left. Resets."""
        incomplete = self._dropping or any(p.strip(b" \t\r") for p in self._parts)
        self._parts, self._size, self._dropping = [], 0, False
        return incomplete


_BLANK: Final = object()


def _line_value(line: bytes) -> object:
    if not line.strip(b" \t\r"):
        return _BLANK
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as e:
        return BadLine(RpcError(PARSE_ERROR, f"Parse error: invalid UTF-8 at byte {e.start}"))
    from .jsonrpc import loads

    try:
        return loads(text)
    except ValueError as e:
        # the TypeScript stdio transport's words
        return BadLine(RpcError(PARSE_ERROR, f"Parse error: line is not JSON: {e}"))


_ID_RE: Final = re.compile(rb'"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")')
_METHOD_RE: Final = re.compile(rb'"method"\s*:\s*"')


def peek_line(head: bytes) -> tuple[object, bool]:
    """The ``id`` (or None) and whether a ``method`` member shows in an over-long line's head."""
    m = _ID_RE.search(head)
    ident: object = None
    if m:
        raw = m.group(1)
        try:
            from .jsonrpc import decode

            ident = decode(raw)
        except RpcError:
            ident = None
    return ident, _METHOD_RE.search(head) is not None


# ---- server-sent events ----


@dataclass(slots=True)
class SseEvent:
    """One dispatched event: ``data`` lines joined by LF, the last ``id`` seen, ``event`` type, ``retry`` ms."""

    data: str
    event: str = "message"
    id: str | None = None
    retry: int | None = None


@dataclass(slots=True)
class SseParser:
    """The event stream parser (WHATWG HTML §9.2.6): feed decoded text in any chunking."""

    last_event_id: str | None = None
    retry: int | None = None
    _buf: str = ""
    _data: list[str] = field(default_factory=list)
    _event: str = ""
    _saw_cr: bool = False
    _has_data: bool = False

    def feed(self, text: str) -> list[SseEvent]:
        """The events completed by ``text``."""
        out: list[SseEvent] = []
        if self._saw_cr and text.startswith("\n"):
            text = text[1:]
        self._saw_cr = False
        buf = self._buf + text
        pos = 0
        n = len(buf)
        while pos < n:
            cr = buf.find("\r", pos)
            lf = buf.find("\n", pos)
            if cr < 0 and lf < 0:
                break
            if cr < 0 or (0 <= lf < cr):
                line, pos = buf[pos:lf], lf + 1
            else:
                line = buf[pos:cr]
                if cr + 1 < n:
                    pos = cr + 2 if buf[cr + 1] == "\n" else cr + 1
                else:
                    pos = cr + 1
                    self._saw_cr = True
            ev = self._line(line)
            if ev is not None:
                out.append(ev)
        self._buf = buf[pos:]
        return out

    def _line(self, line: str) -> SseEvent | None:
        if not line:
            if not self._has_data:
                self._event = ""
                return None
            ev = SseEvent("\n".join(self._data), self._event or "message", self.last_event_id, self.retry)
            self._data, self._event, self._has_data = [], "", False
            return ev
        if line.startswith(":"):
            return None
        name, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
            self._has_data = True
        elif name == "event":
            self._event = value
        elif name == "id":
            if "\0" not in value:
                self.last_event_id = value
        elif name == "retry":
            if value.isdigit():
                self.retry = int(value)
        return None


def sse_event(data: str | None, *, id: str | None = None, event: str | None = None, retry: int | None = None) -> bytes:
    """One event in the event stream format (UTF-8), each data line on its own ``data:`` line."""
    parts: list[str] = []
    if event:
        parts.append(f"event: {event}\n")
    if id is not None:
        parts.append(f"id: {id}\n")
    if retry is not None:
        parts.append(f"retry: {retry}\n")
    if data is not None:
        for line in data.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
            parts.append(f"data: {line}\n")
    parts.append("\n")
    return "".join(parts).encode("utf-8")
