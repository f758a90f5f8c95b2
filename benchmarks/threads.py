"""Where the thread pool starts to pay: each batch call on one thread beside all threads.

``envs.core.loops`` runs a batch call on all of Numba's threads from
``PARALLEL_MIN_BATCH`` games (calls with much work per game: the fused learner step, fused
self-play) or ``STEP_PARALLEL_MIN_BATCH`` games (one-step calls), on one thread below.
This times each call of every turn-based facade both ways, in one process, the two modes
alternating (one thread first in even rounds, all threads first in odd ones), so a change
of the machine's load slows both: the thresholds are set for the call while it is timed
(one thread: above any batch; all threads: 1). Only the call is timed; its random legal
actions are drawn before it in the same mode, untimed (a draw on all threads before a
one-thread call would leave the pool's threads spinning into the call's CPU time). Rates are per wall-clock second (what a caller waits)
and per CPU-second of the process (``time.process_time``, all threads): a pool that halves
the wait costs about the same CPU time, one that waits on a busy core costs more.

    python -m benchmarks.threads                        # every game, B = 256 ... 4096
    python -m benchmarks.threads --games GAME --batch 512 1024 --rounds 9 --json F
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numba
import numpy as np

from benchmarks import print_table, write_report
from benchmarks.validation import _facades
from envs.core import loops

#: the calls timed, as (name, call(game, state, buffers, actions))
CALLS: tuple[tuple[str, Callable[[Any, Any, Any, np.ndarray], Any]], ...] = (
    ("learner step (dense)", lambda g, s, o, a: g.learner_step(s, a, o)),
    ("step", lambda g, s, o, a: g.step(s, a, auto_reset=True)),
    ("random_actions", lambda g, s, o, a: g.random_actions(s)),
    ("legal_mask", lambda g, s, o, a: g.legal_mask(s)),
)


def _set_mode(all_threads: bool) -> tuple[int, int]:
    """Thresholds that put every call of B >= 64 games on all threads or on one; returns
    the old pair to put back."""
    old = (loops.PARALLEL_MIN_BATCH, loops.STEP_PARALLEL_MIN_BATCH)
    value = 1 if all_threads else 1 << 62
    loops.PARALLEL_MIN_BATCH = loops.STEP_PARALLEL_MIN_BATCH = value
    return old


def measure(game: Any, batch: int, rounds: int, seconds: float, seed: int, warm: int) -> dict:
    """{(call, mode, clock): [rate per round]} for one facade and batch size."""
    state = game.init(batch, seed)
    for _ in range(warm):  # past the opening, into a steady mix of phases
        game.step(state, game.random_actions(state), auto_reset=True, validate=False)
    out = game.learner_buffers(batch, dense=True)
    rates: dict[tuple[str, str, str], list[float]] = {}

    def burst(call: Callable[..., Any], all_threads: bool) -> tuple[float, float]:
        wall = cpu = 0.0
        n = 0
        while wall < seconds:
            old = _set_mode(all_threads)
            try:
                actions = game.random_actions(state)  # in the same mode: no pool left spinning
                w0, c0 = time.perf_counter(), time.process_time()
                call(game, state, out, actions)
                wall += time.perf_counter() - w0
                cpu += time.process_time() - c0
            finally:
                loops.PARALLEL_MIN_BATCH, loops.STEP_PARALLEL_MIN_BATCH = old
            n += batch
        return n / wall, n / max(cpu, 1e-9)

    for name, call in CALLS:
        burst(call, True)  # compile and warm both
        burst(call, False)
        for r in range(rounds):
            for all_threads in (False, True) if r % 2 == 0 else (True, False):
                mode = "all" if all_threads else "one"
                w, c = burst(call, all_threads)
                rates.setdefault((name, mode, "wall"), []).append(w)
                rates.setdefault((name, mode, "cpu"), []).append(c)
    return rates


def rows_of(name: str, players: int, batch: int, rates: dict) -> list[dict]:
    """One row per call: medians of both modes, by wall clock and per CPU-second."""
    rows = []
    for call, _ in CALLS:
        med = {k: float(np.median(rates[(call, *k)])) for k in _KEYS}
        rows.append(
            {
                "game": name,
                "config": f"{players}p",
                "measure": call,
                "batch": batch,
                "threads": numba.get_num_threads(),
                "one_thread": med[("one", "wall")],
                "all_threads": med[("all", "wall")],
                "wall_ratio": med[("all", "wall")] / med[("one", "wall")],
                "cpu_ratio": med[("all", "cpu")] / med[("one", "cpu")],
                "rate": med[("all", "wall")],
                "unit": "steps/s",
                "rounds": len(rates[(call, "one", "wall")]),
            }
        )
    return rows


_KEYS = (("one", "wall"), ("all", "wall"), ("one", "cpu"), ("all", "cpu"))


def main(argv: list[str] | None = None) -> int:
    """Print the table and write the JSON."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.threads", description=__doc__)
    parser.add_argument("--games", nargs="*", default=None, help="registered names (default all)")
    parser.add_argument("--batch", type=int, nargs="+", default=[256, 512, 1024, 2048, 4096])
    parser.add_argument("--rounds", type=int, default=7, help="alternating rounds per call")
    parser.add_argument("--seconds", type=float, default=0.05, help="time per burst")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--warm", type=int, default=200, help="random plies before timing")
    parser.add_argument("--json", type=Path, default=Path("results/threads.json"))
    args = parser.parse_args(argv)
    if min(args.batch) < loops.SINGLE_THREAD_MIN_BATCH:
        parser.error(f"--batch below {loops.SINGLE_THREAD_MIN_BATCH} always runs serially")
    if numba.get_num_threads() < 2:
        parser.error("needs at least two Numba threads (NUMBA_NUM_THREADS)")
    started = time.time()
    rows: list[dict] = []
    for name, players, game in _facades():
        if args.games and name not in args.games:
            continue
        for batch in args.batch:
            rates = measure(game, batch, args.rounds, args.seconds, args.seed, args.warm)
            rows.extend(rows_of(name, players, batch, rates))
    table = [
        {
            **r,
            "measure": f"{r['measure']} (all/one wall {r['wall_ratio']:.2f}x, "
            f"CPU {r['cpu_ratio']:.2f}x)",
        }
        for r in rows
    ]
    print_table(table)
    write_report(args.json, rows, started, {"rounds": args.rounds, "seconds": args.seconds})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
