"""Proteus throughput: batched kernel self-play, mask/observation encoding, AEC env().

``run(batch_sizes, seconds, threads)`` returns rows for ``benchmarks/throughput.py``;
``python -m envs.proteus.bench [--batch-sizes 1 1024 16384] [--seconds 2] [--threads 2]``
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

import random
import time
import warnings
from collections.abc import Callable
from typing import Any

import numba
import numpy as np

from envs.core import cli_text

CONFIG = "2p 3x3"


_LAST_CPU_RATE: list[float] = [0.0]


def _rate(fn: Callable[[], int], seconds: float) -> float:
    """Units per second of ``fn`` (which returns the units it did) over ~``seconds``.

    Also records units per CPU-second of this process (all threads) in ``_LAST_CPU_RATE``:
    on a busy machine wall-clock rates mostly measure the neighbours.
    """
    done = 0
    start = time.perf_counter()
    cpu = time.process_time()
    while True:
        done += fn()
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            _LAST_CPU_RATE[0] = done / max(time.process_time() - cpu, 1e-9)
            return done / elapsed


def _row(measure: str, batch: int, threads: int, rate: float, unit: str, compile_s) -> dict:
    return {
        "game": "proteus",
        "config": CONFIG,
        "measure": measure,
        "batch": batch,
        "threads": threads,
        "rate": float(rate),
        "unit": unit,
        "compile_s": compile_s,
        "cpu_rate": _LAST_CPU_RATE[0],
    }


def _aec_rate(make: Callable[[], Any], seconds: float, seed: int = 0) -> float:
    """Steps/s of an AEC env playing uniformly random legal moves (same harness for all)."""
    env = make()
    rng = random.Random(seed)
    env.reset(seed=seed)

    def burst() -> int:
        n = 0
        for _ in range(500):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[int(rng.random() * len(legal))])
            env.step(action)
            n += 1
            if not env.agents:
                env.reset()
        return n

    burst()  # warm up
    return _rate(burst, seconds)


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

        rows.append(_row(measure, batch, threads, _rate(burst, seconds), unit, compile_s))

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
    rows.append(_row("AEC env()", 1, 1, _aec_rate(proteus_v0.env, seconds), "steps/s", compile_s))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pettingzoo.classic import tictactoe_v3

        rows.append(
            _row(
                "peer tictactoe_v3 env()",
                1,
                1,
                _aec_rate(tictactoe_v3.env, seconds),
                "steps/s",
                None,
            )
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    p = cli_text.ArgumentParser(description="Proteus throughput rows")
    p.add_argument("--batch-sizes", type=int, nargs="+", default=[1, 1024, 16384])
    p.add_argument("--seconds", type=float, default=2.0)
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args(argv)
    for row in run(args.batch_sizes, args.seconds, args.threads):
        cs = "" if row["compile_s"] is None else f"  (first call {row['compile_s']:.2f}s)"
        print(
            f"{row['measure']:<40} batch {row['batch']:>6} threads {row['threads']}: "
            f"{row['rate']:>14,.0f} {row['unit']} (per CPU-second {row['cpu_rate']:>13,.0f}){cs}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
