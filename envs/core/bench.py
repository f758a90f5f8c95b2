"""What every game's ``envs/<game>/bench.py`` measures the same way: timed bursts, the AEC
env's random legal play, and the command line that prints a game's rows.

Why shared: the rows of ``arena bench`` are only comparable when every game times its
loops, plays its AEC env and prints its rows with one harness. A game's ``bench.py``
keeps only what it measures (its kernels, its peers).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from envs.core import cli_text

Rows = list[dict[str, Any]]


def timed(fn: Callable[[], int], seconds: float) -> tuple[float, float]:
    """(units per second, units per CPU-second of this process) of ``fn``, which returns
    the units it did, called until ``seconds`` have passed (at least once).

    The CPU-second rate counts all threads of the process: on a busy machine wall-clock
    rates mostly measure the neighbours.
    """
    n = 0
    t0, c0 = time.perf_counter(), time.process_time()
    while True:
        n += fn()
        wall = time.perf_counter() - t0
        if wall >= seconds:
            break
    cpu = max(time.process_time() - c0, 1e-9)
    return n / wall, n / cpu


def row(
    game: str,
    config: str,
    measure: str,
    batch: int,
    threads: int,
    rates: tuple[float, float],
    unit: str,
    compile_s: float | None,
) -> dict[str, Any]:
    """One row of ``arena bench``: ``rates`` is what :func:`timed` returns."""
    return {
        "game": game,
        "config": config,
        "measure": measure,
        "batch": batch,
        "threads": threads,
        "rate": float(rates[0]),
        "cpu_rate": float(rates[1]),
        "unit": unit,
        "compile_s": compile_s,
    }


def aec_rate(env: Any, seconds: float, seed: int = 0) -> tuple[float, float]:
    """(moves/s, moves per CPU-second) of a PettingZoo AEC env playing uniformly random
    legal moves from its masks, restarting finished games (the same loop for every env,
    ours and the peers')."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)

    def chunk() -> int:
        n = 0
        for _ in range(200):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                if not env.agents:
                    env.reset()
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            n += 1
        return n

    chunk()  # warm up: the first moves compile (or load) the batch-of-one kernels
    return timed(chunk, seconds)


def print_rows(rows: Rows) -> None:
    """One line per row: measure, batch, threads, rate (and per CPU-second), first call."""
    for r in rows:
        rate = "skipped" if r.get("rate") is None else f"{r['rate']:>14,.0f}"
        cpu = "" if r.get("cpu_rate") is None else f" (per CPU-second {r['cpu_rate']:,.0f})"
        first = "" if r.get("compile_s") is None else f"  (first call {r['compile_s']:.2f} s)"
        print(
            f"{r.get('config', ''):<12} {r['measure']:<40} batch {r['batch']:>6} "
            f"threads {r['threads']}: {rate} {r['unit']}{cpu}{first}"
        )


def main(
    run: Callable[[list[int], float, int], Rows],
    description: str,
    argv: list[str] | None = None,
    seconds: float = 2.0,
) -> Rows:
    """``python -m envs.<game>.bench``: parse ``--batch`` (alias ``--batch-sizes``),
    ``--seconds`` and ``--threads``, run the game's ``run`` and print its rows; returns them."""
    parser = cli_text.ArgumentParser(description=description)
    parser.add_argument(
        "--batch", "--batch-sizes", dest="batch", type=int, nargs="+", default=[1, 1024, 16384]
    )
    parser.add_argument("--seconds", type=float, default=seconds, help="time per measurement")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    if any(b < 1 for b in args.batch) or args.threads < 1:
        parser.error("--batch sizes and --threads must be positive")
    rows = run(args.batch, args.seconds, args.threads)
    print_rows(rows)
    return rows
