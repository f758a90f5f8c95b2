"""Proteus throughput: batched kernel self-play, mask/observation encoding, AEC env().

``run(batch_sizes, seconds, threads)`` returns rows for ``benchmarks/throughput.py``;
``python -m envs.proteus.bench [--batch 1 1024 16384] [--seconds 2] [--threads 2]``
prints them. Rows:

* kernel self-play: one step = every game of the batch applies one uniformly random legal
  action drawn by the kernel from the game's own key, auto-reset on. "1 step/call" calls
  the kernel once per batch step; "fused 16 steps/call" runs 16 batch steps in one call
  (each game keeps its state in cache: the way rollouts use it).
* legal mask / observation: encoding the (B, 226) mask or the (B, 3, 3, 35) planes.
* learner step: kernel random actions + the fused learner step (validate, apply,
  auto-reset, compact uint8 observation + mask of the seat to move, rewards, done), the
  step a learner sees (like Pgx's ``step``); ``bytes_per_step`` is what it writes per game.
* AEC env(): the wrapped PettingZoo env playing random legal moves from the mask, and
  PettingZoo's ``tictactoe_v3.env()`` measured by the same harness in the same run.

``compile_s`` is the time of the first call in this process (JIT compile, or loading
Numba's on-disk cache when it is warm). ``cpu_rate`` (extra key) is the rate per CPU-second
of this process, a fairer figure than wall-clock ``rate`` on a loaded machine.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable

import numba
import numpy as np

from envs.core import bench

CONFIG = "2p 3x3"


def _row(measure: str, batch: int, threads: int, rates: tuple[float, float], unit: str,
         compile_s: float | None) -> dict:  # fmt: skip
    return bench.row("proteus", CONFIG, measure, batch, threads, rates, unit, compile_s)


def run(batch_sizes: list[int], seconds: float, threads: int) -> list[dict]:
    """Benchmark rows (see the module docstring)."""
    from envs.core.batch import LearnerBuffers
    from envs.proteus import kernel as K

    max_threads = int(getattr(numba.config, "NUMBA_NUM_THREADS", 1))
    threads = max(1, min(int(threads), max_threads))
    numba.set_num_threads(threads)
    rows: list[dict] = []

    def timed(measure: str, batch: int, fn: Callable[[], object], units: int, unit: str) -> None:
        t0 = time.perf_counter()
        fn()  # first call: JIT compile or cache load
        compile_s = time.perf_counter() - t0

        def burst() -> int:
            fn()
            return units

        rows.append(_row(measure, batch, threads, bench.timed(burst, seconds), unit, compile_s))

    def per_batch(batch: int) -> None:
        st = K.new_state(batch, seed=0)
        mask = np.zeros((batch, K.NUM_ACTIONS), dtype=np.bool_)
        obs = np.zeros((batch, 3, 3, K.N_PLANES), dtype=np.float32)
        timed(
            "kernel self-play (1 step/call)", batch, lambda: K.random_step(st, 1), batch, "steps/s"
        )
        timed(
            "kernel self-play (fused 16 steps/call)",
            batch,
            lambda: K.random_step(st, 16),
            16 * batch,
            "steps/s",
        )
        seats = st.player.astype(np.int64)
        timed("legal mask", batch, lambda: K.legal_mask(st, mask), batch, "games/s")
        timed("observation", batch, lambda: K.observe(st, seats, obs), batch, "games/s")
        out = LearnerBuffers.allocate(batch, (3, 3, K.N_PLANES), K.NUM_ACTIONS, 2)
        timed(
            "learner step (random_actions + learner_step)",
            batch,
            lambda: K.learner_step(st, K.random_actions(st), out),
            batch,
            "steps/s",
        )
        rows[-1]["bytes_per_step"] = out.bytes_per_step()

    for batch in batch_sizes:
        per_batch(int(batch))
    from envs import proteus_v0

    t0 = time.perf_counter()
    proteus_v0.env().reset(seed=0)
    compile_s = time.perf_counter() - t0
    aec = bench.aec_rate(proteus_v0.env(), seconds)
    rows.append(_row("AEC env()", 1, 1, aec, "steps/s", compile_s))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pettingzoo.classic import tictactoe_v3

        peer = bench.aec_rate(tictactoe_v3.env(), seconds)
        rows.append(_row("peer tictactoe_v3 env()", 1, 1, peer, "steps/s", None))
    return rows


def main(argv: list[str] | None = None) -> int:
    """Print the rows (``envs.core.bench.main``: ``--batch``, ``--seconds``, ``--threads``)."""
    bench.main(run, "Proteus throughput rows", argv)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
