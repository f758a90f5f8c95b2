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


def test_second_edit_and_undone_edit_are_seen_through_the_cache(tmp_path: Path) -> None:
    """Edits one after the other, and an edit undone (the file's bytes back to what an
    older cache was built from): each run sees the rule on disk. The guard used to leave
    its probe uncached after a flush, so the run after the first edit took any sources as
    the cached ones and ran the first edit's code (seen when a hand-planted mutant was
    undone and the tests kept failing)."""
    _write(tmp_path, 1, True)
    assert _run(tmp_path) == 10
    for value in (2, 3, 1, 1, 4):  # one run per edit: the next edit comes before a rerun
        _write_callee(tmp_path, value)
        assert _run(tmp_path) == 10 * value


def test_every_module_with_compiled_code_is_in_its_folders_stamp() -> None:
    """A kernel file whose compiled functions use a preset decorator (``@jit`` built from
    ``njit`` in another file) must still be hashed: else editing it leaves its callers'
    cached machine code running the old rule (seen with Virus Fight's legal.py)."""
    import importlib
    import pkgutil

    from numba.core.registry import CPUDispatcher

    import envs
    from envs.core.cache import stamped_files

    missing = []
    for info in pkgutil.walk_packages(envs.__path__, "envs."):
        if info.name.endswith("_v0") or ".openspiel" in info.name or info.name.endswith(".play"):
            continue
        try:
            module = importlib.import_module(info.name)
        except ImportError:  # an optional extra (pyspiel, pygame) not installed
            continue
        compiled = [
            v
            for v in vars(module).values()
            if isinstance(v, CPUDispatcher) and v.py_func.__module__ == info.name
        ]
        if not compiled or module.__file__ is None:
            continue
        path = Path(module.__file__).resolve()
        if path not in [p.resolve() for p in stamped_files(str(path.parent))]:
            missing.append(info.name)
    assert missing == []
