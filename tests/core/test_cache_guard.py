"""envs/core/cache.py: a kernel compiled from several files never runs stale cached code.

Numba's ``cache=True`` checks a cached compile against the file of the function only; a
caller that compiled in a sibling file's function kept the old machine code after that
sibling changed. The test builds a two-file kernel package in a temporary folder, runs
it in fresh processes (so the on-disk cache is used), edits the callee's file and runs
again: with the guard the caller sees the new rule; without it (the control) it does not,
which shows the test exercises the cache at all.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

CALLEE = """
from numba import njit

@njit(cache=True)
def rule():
    return {value}
"""

CALLER = """
from numba import njit
{guard_import}
from kern.callee import rule

@njit(cache=True)
def play():
    return rule() * 10
{guard_call}
"""


def _run(root: Path) -> int:
    env = dict(
        os.environ, PYTHONPATH=f"{root}{os.pathsep}{REPO}", NUMBA_CACHE_DIR=str(root / "nbcache")
    )
    out = subprocess.run(
        [sys.executable, "-c", "from kern.caller import play; print(play())"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return int(out.stdout.strip())


def _write_callee(root: Path, value: int) -> None:
    (root / "kern" / "callee.py").write_text(textwrap.dedent(CALLEE.format(value=value)))


def _write(root: Path, value: int, guarded: bool) -> None:
    pkg = root / "kern"
    pkg.mkdir(exist_ok=True)
    (pkg / "__init__.py").write_text("")
    _write_callee(root, value)
    (pkg / "caller.py").write_text(
        textwrap.dedent(
            CALLER.format(
                guard_import="from envs.core.cache import guard_cache" if guarded else "",
                guard_call="guard_cache(globals())" if guarded else "",
            )
        )
    )


@pytest.mark.parametrize("guarded", [True, False])
def test_changed_sibling_file_is_seen_through_the_cache(tmp_path: Path, guarded: bool) -> None:
    _write(tmp_path, 1, guarded)
    assert _run(tmp_path) == 10
    assert _run(tmp_path) == 10  # from the cache
    _write_callee(tmp_path, 2)  # only the callee's file changes
    # Guarded: the new rule. Unguarded (the control): Numba reuses the caller's stale code.
    assert _run(tmp_path) == (20 if guarded else 10)
