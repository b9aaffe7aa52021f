"""The transport contract every transport implements, and an in-memory transport pair.

A transport moves whole JSON-RPC messages. :meth:`Transport.start` hands it the receiver (a
:class:`~mcpgen_runtime.engine.Peer` or a session's front) that takes each inbound message;
the transport is itself the channel outbound messages go through.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any, Protocol

from .jsonrpc import ConnectionClosed, Message, decode, encode


class Receiver(Protocol):
    """What takes a transport's inbound messages."""

    def receive(self, message: Any, channel: Any = None, info: Mapping[str, Any] | None = None) -> Any:
        """One decoded message (``channel``: where its answer goes; default the transport)."""
        ...

    def connection_lost(self, error: BaseException | None = None) -> None:
        """The transport closed (``error``: why, when it failed)."""
        ...


class Transport(Protocol):
    """A connection: started once with its receiver, then sends messages until closed."""

    async def start(self, receiver: Receiver) -> None:
        """Starts delivering inbound messages to ``receiver`` (returns once reading has begun)."""
        ...

    async def send(self, message: Message) -> None:
        """Sends one message; raises :class:`ConnectionClosed` once closed."""
        ...

    async def close(self) -> None:
        """Closes the connection; the receiver's ``connection_lost`` is called once."""
        ...


class MemoryTransport:
    """One end of an in-process pair (:func:`memory_pair`): messages cross as JSON text, so what
    arrives is what a real connection would deliver (no shared objects)."""

    def __init__(self) -> None:
        self.other: MemoryTransport | None = None
        self._receiver: Receiver | None = None
        self._queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self.closed = False

    async def start(self, receiver: Receiver) -> None:
        self._receiver = receiver
        self._task = asyncio.get_running_loop().create_task(self._pump())

    async def _pump(self) -> None:
        assert self._receiver is not None
        while True:
            data = await self._queue.get()
            if data is None:
                break
            self._receiver.receive(decode(data), self)
        self.closed = True
        self._receiver.connection_lost(None)

    async def send(self, message: Message) -> None:
        if self.closed or self.other is None or self.other.closed:
            raise ConnectionClosed("memory transport closed")
        self.other._queue.put_nowait(encode(message))

    async def close(self) -> None:
        if self.closed:
            return
        self._queue.put_nowait(None)
        if self.other is not None and not self.other.closed:
            self.other._queue.put_nowait(None)
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)


def memory_pair() -> tuple[MemoryTransport, MemoryTransport]:
    """Two connected in-memory transports (client end, server end)."""
    a, b = MemoryTransport(), MemoryTransport()
    a.other, b.other = b, a
    return a, b
