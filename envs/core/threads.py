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
"""

from __future__ import annotations

import logging
import os
import sys

__all__ = ["OPT_OUT_VARIABLE", "keep_threads", "safe_threads"]

#: environment variable that turns :func:`safe_threads` off (any value but "" and "0")
OPT_OUT_VARIABLE = "ARENA_KEEP_THREADS"

_log = logging.getLogger(__name__)
_kept = False


def keep_threads(keep: bool = True) -> None:
    """Opt out of (``keep=True``) or back into :func:`safe_threads` for this process."""
    global _kept
    _kept = bool(keep)


def _opted_out() -> bool:
    return _kept or os.environ.get(OPT_OUT_VARIABLE, "") not in ("", "0")


def safe_threads(who: str = "arena") -> bool:
    """Limit torch to one intra-op thread when torch and Numba would both use several.

    Does nothing when torch is not imported (a kernel-only process), when either pool
    already has one thread, or after an opt-out (:func:`keep_threads`,
    ``ARENA_KEEP_THREADS``). Returns whether it changed torch's setting; ``who`` names
    the caller in the log line.
    """
    if _opted_out():
        return False
    torch = sys.modules.get("torch")
    if torch is None:
        return False
    import numba

    if torch.get_num_threads() <= 1 or numba.get_num_threads() <= 1:
        return False
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    _log.info(
        "%s: torch limited to 1 thread (was %d) beside %d Numba threads; "
        "set %s=1 or call envs.core.threads.keep_threads() to keep both",
        who,
        before,
        numba.get_num_threads(),
        OPT_OUT_VARIABLE,
    )
    return True
