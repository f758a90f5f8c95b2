"""What the action check of the batch facades costs, validated beside unvalidated, one run.

Every registered turn-based game with a batch facade: random legal actions
(``random_actions``, not timed) then ``step(validate=True)`` against ``validate=False``,
and the same for the fused ``learner_step``. The two variants alternate (A, B, B, A, ...)
inside one process on the same batch, so a change of the machine's load slows both; the
rates are steps per CPU-second of the process (``time.process_time``: all of Numba's
threads, which one-step calls use from ``envs.core.loops.STEP_PARALLEL_MIN_BATCH``), or
per wall-clock second with ``--clock wall`` (what a caller waits on a quiet machine), the
cost is ``1 - validated / unvalidated`` of the medians. "one step" times
``random_actions`` + ``step``, what ``arena bench``'s one-step self-play row times (the
issue's "one-step throughput"); "step only" times the ``step`` call alone.

    python -m benchmarks.validation                                  # every game, B = 1024 16384
    python -m benchmarks.validation --games GAME --batch 16384 --pairs 40 --json F
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numba
import numpy as np

from benchmarks import print_table, write_report
from envs import registry
from envs.core.loops import choose


def _facades() -> list[tuple[str, int, Any]]:
    """(game, players, facade) of every turn-based game with a batch facade."""
    out = []
    for spec in registry.specs():
        if spec.batch is None or spec.continuous:
            continue
        for players in spec.players:
            out.append((spec.name, players, registry.make_batch(spec.name, players)))
    return out


def measure(
    game: Any,
    batch: int,
    pairs: int,
    steps: int,
    seed: int,
    clock: str = "cpu",
    warm: int = 400,
) -> dict[str, list[float]]:
    """Per-round rates (steps per CPU- or wall-clock second) of each measure and variant.

    ``warm`` random plies first: the batch's games all start together, and until enough of
    them have ended and restarted (auto-reset) the mix of phases drifts from round to round
    (with 30 plies the unvalidated rate varied by a quarter between rounds, more than the
    cost measured); after a few hundred the mix is steady."""
    now = time.process_time if clock == "cpu" else time.perf_counter
    state = game.init(batch, seed)
    for _ in range(warm):  # past the opening, into a steady mix of phases
        game.step(state, game.random_actions(state), auto_reset=True, validate=False)
    out = game.learner_buffers(batch)
    game.learner_view(state, out)
    rates: dict[str, list[float]] = {}

    def one(kind: str, validate: bool) -> None:
        timed_draw = step_only = 0.0
        for _ in range(steps):
            t0 = now()
            actions = game.random_actions(state)
            t1 = now()
            if kind == "learner":
                game.learner_step(state, actions, out, validate=validate)
            else:
                game.step(state, actions, auto_reset=True, validate=validate)
            t2 = now()
            timed_draw += t2 - t0
            step_only += t2 - t1
        tag = "on" if validate else "off"
        if kind == "learner":
            rates.setdefault(f"learner step|{tag}", []).append(steps * batch / timed_draw)
        else:
            rates.setdefault(f"one step|{tag}", []).append(steps * batch / timed_draw)
            rates.setdefault(f"step only|{tag}", []).append(steps * batch / step_only)

    for kind in ("step", "learner"):
        one(kind, True)  # compile and warm both
        one(kind, False)
    rates.clear()
    for i in range(pairs):
        for kind in ("step", "learner"):
            for validate in (True, False) if i % 2 == 0 else (False, True):
                one(kind, validate)
    return rates


def rows_of(
    name: str, players: int, batch: int, rates: dict[str, list[float]], clock: str = "cpu"
) -> list[dict]:
    """Table rows: per measure the two medians, the cost, and the per-pair costs' median."""
    rows = []
    for measure in ("one step", "step only", "learner step"):
        on, off = rates[f"{measure}|on"], rates[f"{measure}|off"]
        pair_cost = float(np.median([1 - a / b for a, b in zip(on, off, strict=True)]))
        rows.append(
            {
                "game": name,
                "config": f"{players}p",
                "measure": measure,
                "batch": batch,
                "threads": numba.get_num_threads() if choose(batch) == "parallel" else 1,
                "validated": float(np.median(on)),
                "unvalidated": float(np.median(off)),
                "cost": 1 - float(np.median(on)) / float(np.median(off)),
                "cost_pair_median": pair_cost,
                "rounds": len(on),
                "rate": float(np.median(on)),
                "unit": "steps/CPU-s" if clock == "cpu" else "steps/s",
            }
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    """Print the table (cost in the config column's neighbour) and write the JSON."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.validation", description=__doc__)
    parser.add_argument("--games", nargs="*", default=None, help="registered names (default all)")
    parser.add_argument("--batch", type=int, nargs="+", default=[1024, 16384])
    parser.add_argument("--pairs", type=int, default=20, help="alternating pairs per measure")
    parser.add_argument("--steps", type=int, default=4, help="steps per timed round")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--warm", type=int, default=400, help="random plies before timing")
    parser.add_argument(
        "--clock",
        choices=("cpu", "wall"),
        default="cpu",
        help="rates per CPU-second (default) or per wall-clock second",
    )
    parser.add_argument("--json", type=Path, default=Path("results/validation.json"))
    args = parser.parse_args(argv)
    started = time.time()
    rows: list[dict] = []
    for name, players, game in _facades():
        if args.games and name not in args.games:
            continue
        for batch in args.batch:
            rates = measure(game, batch, args.pairs, args.steps, args.seed, args.clock, args.warm)
            rows.extend(rows_of(name, players, batch, rates, args.clock))
    table = [
        {
            **r,
            "measure": f"{r['measure']} (cost {r['cost']:+.1%}, pairs {r['cost_pair_median']:+.1%})",
        }
        for r in rows
    ]
    print_table(table)
    write_report(
        args.json,
        rows,
        started,
        {"pairs": args.pairs, "steps": args.steps, "clock": args.clock, "warm": args.warm},
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
