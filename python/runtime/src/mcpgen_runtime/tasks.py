"""Tasks (2025-11-25 ``basic/utilities/tasks``, experimental): a ``tools/call`` with ``params.task``
runs in the background and is answered at once with a ``CreateTaskResult``; ``tasks/get``,
``tasks/result``, ``tasks/list`` and ``tasks/cancel`` follow it.

Give ``ServerFeatures(tasks=TaskStore())`` and mark tools ``execution={"taskSupport": "optional"}``
(or ``"required"``). Decisions where the page leaves room (field case 020):

- ``ttl``: the request's, capped at ``max_ttl_ms`` (default 3,600,000); none asked is unlimited
  (``"ttl": null``); an expired task is forgotten (then -32602 like an unknown one).
- terminal states are final: a late result of a cancelled task's work changes nothing; cancelling
  a terminal task is -32602 and leaves ``lastUpdatedAt`` as it was.
- ``tasks/result`` of a task that is cancelled, before or while it waits, answers -32602
  "task was cancelled"; of a failed one, the underlying request's error.
- ``notifications/tasks/status`` carries the whole ``Task`` (``ttl`` included), no related-task ``_meta``.
- task ids are 128-bit random (no authorization context binds them); at most ``max_tasks`` are
  kept (the oldest terminal ones go first; -32603 when all are running).
"""

from __future__ import annotations

import asyncio
import base64
import json
import secrets
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from .engine import RequestContext
from .jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, RpcError, js_json, loads

TERMINAL = frozenset({"completed", "failed", "cancelled"})
RELATED_TASK_META = "io.modelcontextprotocol/related-task"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class _Task:
    __slots__ = ("id", "status", "message", "created", "updated", "ttl", "expires", "result", "error", "done", "job", "session")

    def __init__(self, ttl: int | None, session: Any) -> None:
        self.id = secrets.token_hex(16)
        self.status = "working"
        self.message: str | None = None
        self.created = self.updated = _now()
        self.ttl = ttl
        self.expires = None if ttl is None else time.monotonic() + ttl / 1000
        self.result: dict[str, Any] | None = None
        self.error: RpcError | None = None
        self.done = asyncio.Event()
        self.job: asyncio.Task[None] | None = None
        self.session = session

    def wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {"taskId": self.id, "status": self.status, "createdAt": self.created, "lastUpdatedAt": self.updated, "ttl": self.ttl}
        if self.message is not None:
            out["statusMessage"] = self.message
        return out


class TaskStore:
    """The tasks of a server (see the module doc). ``poll_interval_ms`` is suggested to requestors."""

    def __init__(self, *, max_ttl_ms: int = 3_600_000, max_tasks: int = 1000, poll_interval_ms: int = 500) -> None:
        self.max_ttl_ms = max_ttl_ms
        self.max_tasks = max_tasks
        self.poll_interval_ms = poll_interval_ms
        self._tasks: dict[str, _Task] = {}

    def capabilities(self) -> dict[str, Any]:
        """The ``tasks`` server capability."""
        return {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}

    def _sweep(self) -> None:
        now = time.monotonic()
        for tid, t in list(self._tasks.items()):
            if t.expires is not None and now > t.expires and t.status in TERMINAL:
                del self._tasks[tid]
        if len(self._tasks) >= self.max_tasks:
            for tid, t in list(self._tasks.items()):
                if t.status in TERMINAL:
                    del self._tasks[tid]
                    if len(self._tasks) < self.max_tasks:
                        break
        if len(self._tasks) >= self.max_tasks:
            raise RpcError(INTERNAL_ERROR, f"Internal error: too many tasks running (at most {self.max_tasks})")

    def _get(self, ctx: RequestContext) -> _Task:
        self._sweep()
        tid = ctx.params.get("taskId")
        task = self._tasks.get(tid) if isinstance(tid, str) else None
        if task is None:
            raise RpcError(INVALID_PARAMS, f"Invalid params: unknown task {tid!r}")
        return task

    def start(self, ctx: RequestContext, run: Callable[[], Awaitable[Any]]) -> dict[str, Any]:
        """Starts ``run()`` as a task of the request ``ctx`` (its ``params.task.ttl``); returns the ``CreateTaskResult``."""
        self._sweep()
        spec = ctx.params.get("task")
        asked = spec.get("ttl") if isinstance(spec, dict) else None
        ttl = None if not isinstance(asked, int) or isinstance(asked, bool) else max(0, min(asked, self.max_ttl_ms))
        task = _Task(ttl, ctx.session)
        self._tasks[task.id] = task

        async def work() -> None:
            try:
                result = await run()
                self._finish(task, "failed" if isinstance(result, dict) and result.get("isError") else "completed", result=result)
            except RpcError as e:
                self._finish(task, "failed", error=e)
            except asyncio.CancelledError:
                pass
            except Exception as e:  # noqa: BLE001 - the task fails with it
                self._finish(task, "failed", error=RpcError(INTERNAL_ERROR, f"Internal error: {e}"))

        task.job = asyncio.get_running_loop().create_task(work())
        return {"task": {**task.wire(), "pollInterval": self.poll_interval_ms}}

    def _finish(self, task: _Task, status: str, *, result: dict[str, Any] | None = None, error: RpcError | None = None, message: str | None = None) -> bool:
        if task.status in TERMINAL:
            return False  # terminal states are final
        task.status, task.result, task.error, task.message = status, result, error, message
        task.updated = _now()
        task.done.set()
        notify = getattr(task.session, "notify_changed", None)
        if callable(notify):
            notify("notifications/tasks/status", task.wire())
        return True

    # ---- the handlers (ServerHandlers: get_task, get_task_payload, list_tasks, cancel_task) ----

    async def get_task(self, params: Any, ctx: RequestContext) -> dict[str, Any]:
        task = self._get(ctx)
        return {**task.wire(), "pollInterval": self.poll_interval_ms}

    async def get_task_payload(self, params: Any, ctx: RequestContext) -> dict[str, Any]:
        task = self._get(ctx)
        await task.done.wait()
        if task.status == "cancelled":
            raise RpcError(INVALID_PARAMS, "Invalid params: task was cancelled", {"taskId": task.id})
        if task.error is not None:
            raise task.error
        result = dict(task.result or {})
        meta = result.get("_meta")
        result["_meta"] = {**(meta if isinstance(meta, dict) else {}), RELATED_TASK_META: {"taskId": task.id}}
        return result

    async def list_tasks(self, params: Any, ctx: RequestContext) -> dict[str, Any]:
        self._sweep()
        cursor = ctx.params.get("cursor")
        items = list(self._tasks.values())
        start = 0
        if isinstance(cursor, str) and len(cursor) > 256:  # issued ones are short: named by its length, not echoed
            raise RpcError(INVALID_PARAMS, f"Invalid cursor ({len(cursor)} characters: not one this server issued)", {"length": len(cursor)})
        if cursor is not None:
            try:
                start = int(loads(base64.urlsafe_b64decode(str(cursor).encode()))["t"])
                if not 0 <= start <= len(items):
                    raise ValueError
            except (ValueError, KeyError, TypeError, UnicodeDecodeError):
                raise RpcError(INVALID_PARAMS, f"Invalid cursor: {js_json(cursor)}", {"cursor": cursor}) from None
        page = items[start : start + 100]
        out: dict[str, Any] = {"tasks": [t.wire() for t in page]}
        if start + 100 < len(items):
            out["nextCursor"] = base64.urlsafe_b64encode(json.dumps({"t": start + 100}).encode()).decode()
        return out

    async def cancel_task(self, params: Any, ctx: RequestContext) -> dict[str, Any]:
        task = self._get(ctx)
        if task.status in TERMINAL:
            raise RpcError(INVALID_PARAMS, f"Invalid params: task {task.id} is already {task.status}")
        self._finish(task, "cancelled", message="cancelled by the requestor")
        if task.job is not None:
            task.job.cancel()
        return task.wire()
