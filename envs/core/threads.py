"""Safe thread pools by default: torch and Numba must not both spin on the same cores.

A process that drives the Numba kernels (whose parallel regions wake every Numba worker)
and a torch network (whose intra-op pool does the same) with both pools at their default
size makes each wait for the other's spinning threads. Measured on a 2-core machine
(MaskablePPO ``learn(2048)`` on ``SelfPlayVecEnv``, see ``docs/training.md``): 83.6 s with
both defaults against 11.9 s with torch limited to one thread. The small policy networks
here gain nothing from intra-op threads, so the objects that bring the two together (the
self-play VecEnvs, :class:`agents.policy.PolicyAgent`, ``agents.az.AZAgent`` when it loads
its network) call :func:`safe_threads`, which
limits torch to one thread when both pools have more.

Opting out: set the environment variable ``ARENA_KEEP_THREADS=1`` before the process
starts, or call :func:`keep_threads` (from then on :func:`safe_threads` changes nothing);
an explicit ``torch.set_num_threads(n)`` *after* the object is built is also kept.
``arena train`` sets both pools itself (``--threads``).

Start Numba's pool before setting torch's. With Numba's OpenMP threading layer, the pool's
start (the first ``numba.get_num_threads()``, ``set_num_threads`` or parallel kernel call)
sets the process's OpenMP thread count to the pool's size, and torch's intra-op pool (and
the MKL inside it) reads that same count: a torch count of one from ``OMP_NUM_THREADS=1``
became two at that start, and torch imported after it begins with two. Found in 0.5.19 in
``agents.measure``: the runner started the pool, ``AZAgent`` called :func:`safe_threads`
before its network's import (so it did nothing), and MKL ran the network's matrix products
on a second, spinning thread (40 % of a series run's CPU time). :func:`start_numba_pool`
starts the pool and puts torch's count back; the match runner, the rollouts,
:func:`safe_threads`, the batch facades' loop picker (``envs.core.loops``, from 64 games a
call; 0.5.20) and the physics simulations start it through it, ``AZAgent`` calls
:func:`safe_threads` after torch's import, and ``arena train`` starts Numba's pool before
it sets torch's count.
"""

from __future__ import annotations

import logging
import os
import sys

__all__ = ["OPT_OUT_VARIABLE", "keep_threads", "safe_threads", "start_numba_pool"]

#: environment variable that turns :func:`safe_threads` off (any value but "" and "0")
OPT_OUT_VARIABLE = "ARENA_KEEP_THREADS"

_log = logging.getLogger(__name__)
_kept = False
_pool_size = 0  # the pool's size once start_numba_pool has run (0: not yet)


def keep_threads(keep: bool = True) -> None:
    """Opt out of (``keep=True``) or back into :func:`safe_threads` for this process."""
    global _kept
    _kept = bool(keep)


def _opted_out() -> bool:
    return _kept or os.environ.get(OPT_OUT_VARIABLE, "") not in ("", "0")


def start_numba_pool() -> int:
    """Start Numba's thread pool (a no-op once started), keep torch's count; the pool's size.

    Why: the pool's start may raise torch's thread count (module docstring). The places
    that first touch the pool in a process that may also run a network (the match
    runner, the rollouts, :func:`safe_threads`, the batch loop picker, the physics
    simulations) start it here, and torch's count is put back if the start changed it.
    After the start it only returns the size it kept (a call on the batch hot path).
    Returns ``NUMBA_NUM_THREADS``, the threads the pool has, not
    ``numba.get_num_threads()``, the ones the calling block uses now (the runner plays
    small batches on one).
    """
    global _pool_size
    if _pool_size:  # later calls (every runner block, every batch call of 64+ games)
        return _pool_size
    import numba

    torch = sys.modules.get("torch")
    before = None if torch is None else torch.get_num_threads()
    numba.get_num_threads()  # starts the pool
    if torch is not None and torch.get_num_threads() != before:
        torch.set_num_threads(before)
    _pool_size = int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]
    return _pool_size


def safe_threads(who: str = "arena") -> bool:
    """Limit torch to one intra-op thread when torch and Numba would both use several.

    Does nothing when torch is not imported (a kernel-only process), when torch already
    has one thread or Numba's pool has one (``NUMBA_NUM_THREADS=1``; a block that runs
    Numba on one thread for now, like the match runner's, still counts as several), or
    after an opt-out (:func:`keep_threads`, ``ARENA_KEEP_THREADS``). With torch imported it
    first starts Numba's pool (:func:`start_numba_pool`). Returns whether it limited
    torch; ``who`` names the caller in the log line.
    """
    torch = sys.modules.get("torch")
    if torch is None:
        return False
    numba_threads = start_numba_pool()  # first: a later start would undo torch's setting
    if _opted_out() or torch.get_num_threads() <= 1 or numba_threads <= 1:
        return False
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    _log.info(
        "%s: torch limited to 1 thread (was %d) beside %d Numba threads; "
        "set %s=1 or call envs.core.threads.keep_threads() to keep both",
        who,
        before,
        numba_threads,
        OPT_OUT_VARIABLE,
    )
    return True
