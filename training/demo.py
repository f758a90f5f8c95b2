"""``arena demo``: the project's main job in one command.

1. trains a policy briefly by self-play (``arena train``; the first registered game by
   default),
2. runs a small seat-swapped ladder (``training.ladder.run_ladder``): random, heuristic,
   a small MCTS and the freshly trained policy,
3. prints the ratings table and writes the plots (ratings with uncertainty, pairwise
   win rates) under ``--out``.

The default budget fits in about five minutes on a 2-core machine from a fresh install,
first Numba compile included. ``--steps`` and ``--games-per-pair`` trade time for
strength and rating precision.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from envs import registry
from envs.core import cli_text

#: the demo's training settings unless a game's ``demo["train"]`` says otherwise
#: (self-play and random only: a heuristic's search would eat the short budget)
TRAIN = {
    "n_envs": 64,
    "n_steps": 64,
    "batch_size": 1024,
    "snapshot_every": 25_000,
    "opponents": "self:0.7,random:0.3",
}


def defaults(game: str) -> tuple[int, list[str], int]:
    """(training steps, ladder entrants besides the policy, games per pair) of ``game``."""
    demo = registry.get(game).demo
    entrants = list(demo.get("agents", registry.get(game).ladder_agents))
    return int(demo.get("steps", 100_000)), entrants, int(demo.get("games_per_pair", 24))


def __getattr__(name: str) -> Any:
    """``DEFAULTS`` of old callers: every registered game's :func:`defaults`."""
    if name == "DEFAULTS":
        return {g: defaults(g) for g in registry.names()}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def build_parser() -> argparse.ArgumentParser:
    p = cli_text.ArgumentParser(
        prog="arena demo",
        description="Train briefly, run a small ladder, print the table, write the plots.",
    )
    games = registry.names()
    p.add_argument("--game", default=games[0], choices=games, help=f"({games[0]})")
    p.add_argument("--steps", type=int, default=None, help="training steps (per game default)")
    p.add_argument(
        "--minutes",
        type=float,
        default=2.5,
        help="training stops after this many minutes even before --steps (2.5; 0: no limit)",
    )
    p.add_argument("--out", default="runs/demo", help="output directory (runs/demo)")
    p.add_argument("--games-per-pair", type=int, default=None, help="ladder games per pair")
    p.add_argument(
        "--agents", default=None, help="comma-separated ladder entrants besides the policy"
    )
    p.add_argument(
        "--obs",
        default=None,
        help="the policy's input (arena train --obs); default: the game's demo setting "
        "(planes unless its registry entry says otherwise)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of training and ladder (0)")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    return p


def _available(game: str, names: list[str]) -> list[str]:
    """Entrants whose agent can be built now (a missing optional agent is skipped, said so)."""
    from agents import registry

    keep = []
    for name in names:
        try:
            registry.make_agent(game, name, seed=0)
        except (ImportError, AttributeError, ValueError) as exc:
            print(f"arena demo: skipping agent {name!r}: {exc}", file=sys.stderr)
            continue
        keep.append(name)
    return keep


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``arena demo``; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    steps, entrants, gpp = defaults(args.game)
    steps = args.steps if args.steps is not None else steps
    gpp = args.games_per_pair if args.games_per_pair is not None else gpp
    if args.agents is not None:
        entrants = [a.strip() for a in args.agents.split(",") if a.strip()]
    if steps < 1:
        parser.error(f"--steps must be >= 1, got {steps}")
    if gpp < 1:
        parser.error(f"--games-per-pair must be >= 1, got {gpp}")
    out = Path(args.out)
    t0 = time.perf_counter()

    from training.config import PLANES, TrainConfig, validate
    from training.ladder import print_table, run_ladder
    from training.run import clear_run, print_summary, set_threads, train

    train_dir = out / "train"
    if args.minutes < 0:
        parser.error(f"--minutes must be >= 0, got {args.minutes}")
    spec = registry.get(args.game)
    obs = args.obs or spec.demo.get("obs", PLANES)
    settings = {**TRAIN, **spec.demo.get("train", {}), "checkpoint_every": 10**9}
    cfg = TrainConfig(
        game=args.game,
        steps=steps,
        seed=args.seed,
        out=str(train_dir),
        time_limit=args.minutes,
        obs=obs,
        **settings,
    )
    try:
        validate(cfg)
    except ValueError as exc:
        parser.error(str(exc))
    clear_run(train_dir)
    limit = f" (at most {args.minutes:g} min)" if args.minutes > 0 else ""
    print(f"arena demo: [1/2] training {args.game} for {steps:,} steps{limit} -> {train_dir}")
    result = train(cfg, progress=not args.no_progress)
    print_summary(result, cfg)
    t_train = time.perf_counter() - t0

    names = _available(args.game, entrants)
    model_path = result.model_path

    def make_policy(seed: int) -> Any:
        from agents.policy import PolicyAgent

        return PolicyAgent.load(model_path, game=args.game, seed=seed)

    from agents.registry import resolve

    factories: dict[str, Any] = {name: resolve(args.game, name) for name in names}
    factories["policy"] = make_policy
    db = out / "ladder.sqlite"
    db.unlink(missing_ok=True)  # the policy is new: never reuse an old run's games
    print(
        f"arena demo: [2/2] ladder {', '.join(factories)}: {gpp} games per pair "
        f"(seat-swapped) -> {db}"
    )
    set_threads(1)
    ladder = run_ladder(
        args.game,
        factories,
        players=2,
        games_per_pair=gpp,
        db=db,
        out=out / "plots",
        seed=args.seed,
        progress=not args.no_progress,
    )
    print_table(ladder)
    for kind, path in ladder.plots.items():
        print(f"  {kind} plot: {path}")
    total = time.perf_counter() - t0
    print(
        f"arena demo: done in {total:.0f} s (training {t_train:.0f} s, "
        f"ladder {total - t_train:.0f} s, {ladder.games_played} games)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
