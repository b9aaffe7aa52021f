"""Shared fixtures of the Python tests: the generated packages on the path (made by
python/generate.ts from generated/<rev>/model.json when missing), async tests run on asyncio, and
helpers that start real processes (servers over stdio pipes)."""

from __future__ import annotations

import asyncio
import inspect
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
GENERATED = Path(os.environ.get("MCPGEN_PY_GENERATED", ROOT / ".cache" / "python" / "generated"))
REVISIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]


def _ensure_generated() -> None:
    missing = [r for r in REVISIONS if not (GENERATED / r / f"mcp_{r.replace('-', '_')}" / "__init__.py").exists()]
    if missing:
        subprocess.run(["node", "--import", "tsx", str(ROOT / "python" / "generate.ts"), "--out", str(GENERATED)], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)


_ensure_generated()
for _r in REVISIONS:
    sys.path.insert(0, str(GENERATED / _r))
#: what a child Python process needs on its path to import the generated packages and the runtime
CHILD_PATH = os.pathsep.join([*(str(GENERATED / r) for r in REVISIONS), str(ROOT / "python" / "runtime" / "src"), str(ROOT / "python" / "reference")])


def child_env(**extra: str) -> dict[str, str]:
    """The environment of a child Python process of the tests."""
    return {**os.environ, "PYTHONPATH": CHILD_PATH, **extra}


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """Runs ``async def`` tests on a fresh asyncio loop (with a 60 s bound)."""
    if inspect.iscoroutinefunction(pyfuncitem.obj):
        args = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}

        async def bounded() -> Any:
            async with asyncio.timeout(60):
                return await pyfuncitem.obj(**args)

        asyncio.run(bounded())
        return True
    return None


@pytest.fixture
def python() -> str:
    return sys.executable


@pytest.fixture
def tmpdir_path(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path
