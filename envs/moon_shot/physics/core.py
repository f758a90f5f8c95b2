"""What every physics module shares: the piece state layout and the cache stamp.

A piece's state row is ``[x, y, heading, vx, vy, omega]`` (indices ``SX .. SOM``), the
batch state of one shot is ``(3, 6)`` (small, medium, large; MS-4).

Why a stamp: Numba's on-disk cache (``cache=True``) keys a function by its own file only,
yet a kernel here inlines code from its sibling modules (friction into stepping, contacts
into stepping, all into batching) and from ``geometry``, ``params`` and ``envs/core/rng``.
Editing one file would leave the others' cached machine code stale. Every module compiles
a probe returning :data:`STAMP` (a hash of all those sources, frozen into the machine code
at compile time); :func:`drop_stale` compares it on import and drops that module's caches
when the sources changed since they were written. It also covers the packed parameter
layout of ``params`` (which ``params.drop_stale_caches`` checks for ``geometry``).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

# State layout of one piece: x, y, heading, vx, vy, omega.
SX, SY, SPHI, SVX, SVY, SOM = range(6)

DEG = math.pi / 180.0


def _source_stamp() -> int:
    """A 56-bit hash of the sources the compiled physics depends on (0 if unreadable)."""
    here = Path(__file__).resolve().parent
    game = here.parent
    paths = sorted(here.rglob("*.py")) + [
        game / "geometry.py",
        game / "params.py",
        game.parent / "core" / "rng.py",
    ]
    h = hashlib.blake2b(digest_size=7)
    try:
        for path in paths:
            h.update(path.read_bytes())
    except OSError:  # sources not shipped: rely on Numba's own per-file check
        return 0
    return int.from_bytes(h.digest(), "little")


#: Hash of the physics sources (see the module docstring); a plain int, frozen by Numba.
STAMP = _source_stamp()


def drop_stale(module_globals: dict[str, Any], probe: Callable[[], int]) -> None:
    """Drop the cached compiles of a module whose ``probe`` (an njit function returning
    :data:`STAMP`) was compiled from other sources than the current ones."""
    from numba.core.registry import CPUDispatcher

    if probe() == STAMP:
        return
    own = module_globals["__name__"]
    for obj in list(module_globals.values()):
        if isinstance(obj, CPUDispatcher) and obj.py_func.__module__ == own:
            cache = getattr(obj, "_cache", None)
            if cache is not None:
                cache.flush()
            obj.overloads.clear()
