"""Keep Numba's on-disk cache honest when a kernel's code is spread over several files.

Why: ``@njit(cache=True)`` keys a cached compile by the file of the function itself, yet
a rule kernel compiles in the functions it calls from its sibling modules (``legal.py``
into ``kernel.py``, ``envs/core/rng.py`` into everything). Changing one file would leave
the callers' cached machine code running the old rule. So every kernel module calls
:func:`guard_cache` once, after its last ``@njit`` definition: a tiny compiled probe,
cached beside this file under the module's name, returns the hash of the game's kernel
sources as it was when the module's caches were written; when the hash of the sources on
disk differs, the module's cached compiles are dropped and rebuilt on first use.

The hash covers every ``.py`` file of the module's folder that defines compiled code,
plus ``envs/core/rng.py`` and ``envs/core/loops.py``; it costs a few file reads per
import. Sources that cannot be read (e.g. a zipped install) fall back to Numba's own
per-file check.
"""

from __future__ import annotations

import hashlib
import types
from functools import cache
from pathlib import Path
from typing import Any

from numba import njit

_CORE = Path(__file__).resolve().parent
_SHARED = (_CORE / "rng.py", _CORE / "loops.py")
#: A file holding one of these defines compiled code (``@jit`` / ``@jit_inline`` are a
#: kernel's own ``njit`` presets; every kernel module calls ``guard_cache``).
_MARKERS = (b"njit", b"serial_and_parallel", b"@jit", b"guard_cache")


def stamped_files(folder: str) -> list[Path]:
    """The files whose bytes :func:`source_stamp` hashes for ``folder``."""
    out = []
    for path in [*sorted(Path(folder).rglob("*.py")), *_SHARED]:
        data = path.read_bytes()
        if path in _SHARED or any(m in data for m in _MARKERS):
            out.append(path)
    return out


@cache
def source_stamp(folder: str) -> int:
    """56-bit hash of the compiled sources of ``folder`` (recursively) and the shared core."""
    h = hashlib.blake2b(digest_size=7)
    try:
        for path in stamped_files(folder):
            h.update(path.name.encode())
            h.update(path.read_bytes())
    except OSError:
        return 0
    return int.from_bytes(h.digest(), "little")


def _probe_template() -> int:
    return STAMP  # type: ignore[name-defined]  # noqa: F821 - each probe's own global


def _probe(module: str, stamp: int) -> Any:
    """A cached njit function returning ``stamp`` frozen at its compile (one per module)."""
    name = "probe_" + module.replace(".", "_")
    fn = types.FunctionType(_probe_template.__code__, {"STAMP": stamp}, name)
    fn.__qualname__ = name
    fn.__module__ = __name__
    return njit(cache=True)(fn)


def guard_cache(module_globals: dict[str, Any]) -> None:
    """Drop the cached compiles of the calling module if its kernel sources changed.

    Call at the end of a module that defines ``@njit(cache=True)`` functions.
    """
    from numba.core.registry import CPUDispatcher

    module = module_globals["__name__"]
    folder = str(Path(module_globals["__file__"]).resolve().parent)
    stamp = source_stamp(folder)
    if stamp == 0:
        return
    probe = _probe(module, stamp)
    if probe() == stamp:
        return
    for dispatcher in (probe, *module_globals.values()):
        if isinstance(dispatcher, CPUDispatcher) and (
            dispatcher is probe or dispatcher.py_func.__module__ == module
        ):
            cache_ = getattr(dispatcher, "_cache", None)
            if cache_ is not None:
                cache_.flush()
            dispatcher.overloads.clear()
    # Save the probe with the new stamp now, from a new dispatcher (the old one keeps its
    # loaded machine code in memory whatever its overloads say). Left empty, the next
    # process would compile it with whatever sources it finds and take them for the cached
    # ones: after a second edit, or an edit undone, the compiles cached by this process
    # would run stale.
    _probe(module, stamp)()
