"""Measure a trained policy: seat-swapped win rates against baselines.

``python -m training.evaluate GAME --model DIR [--opponents random,heuristic] [--games N]``

N games per opponent, half with the policy in seat 0 and half in seat 1 on the same game
seeds (the game's runner, ``envs.core.match.make_runner``, plays them in batch); a win is a
positive final reward. A game whose registry entry names an ``evaluate`` function may
measure a policy its own way (e.g. the mean return of a solo policy). This is what
docs/results.md reports.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from envs import registry
from envs.core import cli_text
from envs.core.match import make_runner

__getattr__ = registry.deprecated_attrs(__name__)


@dataclass
class VersusResult:
    opponent: str
    games: int
    wins: int
    draws: int
    losses: int
    seconds: float

    @property
    def win_rate(self) -> float:
        return self.wins / self.games

    def line(self) -> str:
        """One line with Wilson 95 % intervals (training/ladder_stats.py) on every rate."""
        from training.ladder_stats import wilson

        def rate(k: int) -> str:
            lo, hi = wilson(k, self.games)
            return f"{100 * k / self.games:5.1f}% [{100 * lo:4.1f}, {100 * hi:4.1f}]"

        return (
            f"vs {self.opponent:12s} {self.games:5d} games: win {rate(self.wins)}  "
            f"draw {rate(self.draws)}  loss {rate(self.losses)}  ({self.seconds:.0f} s)"
        )


def versus(
    game: str,
    policy: Any,
    opponent_name: str,
    games: int = 1000,
    seed: int = 12345,
    players: int = 2,
    record: str | None = None,
) -> VersusResult:
    """``games`` seat-swapped games of ``policy`` against registry agent ``opponent_name``;
    ``record``: append their game records (JSON lines, envs/core/records.py) to this file."""
    from agents.registry import make_agent
    from envs.core.records import now, write_records
    from training.ladder_records import records_from_outcomes
    from training.ratings import ranks_from_results

    runner = make_runner(game, players)
    half = games // 2
    idx = np.arange(half, dtype=np.int64)
    wins = draws = losses = 0
    t0 = time.perf_counter()
    for seat in range(2):
        others = [make_agent(game, opponent_name, seed=seed + 7 * k + seat) for k in range(players)]
        seated = [policy if s == seat else others[s] for s in range(players)]
        started = now()
        outcomes = runner.play(seated, seed, idx)
        if record:
            names = [getattr(a, "name", "policy") if s == seat else opponent_name
                     for s, a in enumerate(seated)]  # fmt: skip
            ranks = [ranks_from_results(o.rewards.tolist(), o.finish.tolist()) for o in outcomes]
            recs = records_from_outcomes(
                runner, game, names, seed, idx.tolist(), outcomes, ranks, started, "evaluate"
            )
            write_records(record, recs)
        for o in outcomes:
            r = float(o.rewards[seat])
            wins += r > 0
            draws += r == 0
            losses += r < 0
    return VersusResult(opponent_name, 2 * half, wins, draws, losses, time.perf_counter() - t0)


def main(argv: list[str] | None = None) -> int:
    p = cli_text.ArgumentParser(prog="python -m training.evaluate", description=__doc__)
    p.add_argument("game", choices=registry.names())
    p.add_argument("--model", required=True, help="run directory or model zip")
    p.add_argument("--opponents", default="random,heuristic")
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--seed", type=int, default=12345)
    p.add_argument("--stochastic", action="store_true", help="sample instead of argmax")
    p.add_argument(
        "--record",
        default="runs/records/evaluate_{game}.jsonl",
        metavar="FILE",
        help="append every game's record here ('' for none); watch one with arena replay FILE ID",
    )
    args = p.parse_args(argv)

    from agents.policy import PolicyAgent
    from training.train import set_threads

    set_threads(1)
    agent = PolicyAgent.load(
        args.model, game=args.game, seed=args.seed, deterministic=not args.stochastic
    )
    agent.name = "policy"
    own = registry.get(args.game).evaluate
    if own is not None:
        code = registry.load(own)(agent, args)
        if code is not None:  # the game evaluated the policy its own way
            return int(code)
    for name in [n.strip() for n in args.opponents.split(",") if n.strip()]:
        print(
            versus(
                args.game,
                agent,
                name,
                args.games,
                args.seed,
                args.players,
                args.record.format(game=args.game) or None,
            ).line(),
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
