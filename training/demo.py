"""``arena demo``: the project's main job in one command.

1. trains a policy briefly by self-play (``arena train``; Proteus by default),
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

DEFAULTS = {
    # game: (training steps, ladder entrants besides the policy, games per pair)
    "proteus": (300_000, ["random", "heuristic", "mcts:16"], 24),
    "virus_fight": (100_000, ["random", "heuristic", "mcts:16"], 24),
    "moon_shot": (20_000, ["random", "aim"], 24),
}


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="arena demo",
        description="Train briefly, run a small ladder, print the table, write the plots.",
    )
    p.add_argument("--game", default="proteus", choices=sorted(DEFAULTS), help="(proteus)")
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
        choices=["planes", "lookahead"],
        default=None,
        help="the policy's input (arena train --obs); Proteus: lookahead, others: planes",
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
    steps, entrants, gpp = DEFAULTS[args.game]
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

    from training.ladder import print_table, run_ladder
    from training.train import TrainConfig, _clear_run, print_summary, set_threads, train

    train_dir = out / "train"
    if args.minutes < 0:
        parser.error(f"--minutes must be >= 0, got {args.minutes}")
    obs = args.obs or ("lookahead" if args.game == "proteus" else "planes")
    if obs == "lookahead" and args.game != "proteus":
        parser.error(f"--obs lookahead exists for proteus only, not {args.game}")
    cfg = TrainConfig(
        game=args.game,
        steps=steps,
        seed=args.seed,
        out=str(train_dir),
        time_limit=args.minutes,
        obs=obs,
    )
    if args.game == "moon_shot":
        # the ladder plays 2-player Moon Shot: train against opponents in that game
        cfg.players, cfg.algo, cfg.net, cfg.n_envs, cfg.n_steps = 2, "ppo", "64,64", 16, 32
        cfg.batch_size, cfg.n_epochs, cfg.ent_coef = 256, 10, 0.0
        cfg.opponents, cfg.snapshot_every, cfg.checkpoint_every = "self:0.5,random:0.5", 5000, 10**9
    else:
        cfg.n_envs, cfg.n_steps, cfg.batch_size = 64, 64, 1024
        cfg.snapshot_every, cfg.checkpoint_every = 25_000, 10**9
        # self-play and random only: the heuristic's search would eat the short budget
        cfg.opponents = "self:0.7,random:0.3"
    _clear_run(train_dir)
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
    runner = None
    if args.game != "moon_shot":
        from training.games import make_batch_game
        from training.ladder import TurnBasedRunner

        runner = TurnBasedRunner(make_batch_game(args.game, 2), config="players=2")
    ladder = run_ladder(
        args.game,
        factories,
        runner=runner,
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
