"""Measure a trained policy: seat-swapped win rates against baselines.

``python -m training.evaluate GAME --model DIR [--opponents random,heuristic] [--games N]``

N games per opponent, half with the policy in seat 0 and half in seat 1 on the same game
seeds (the game's runner, ``envs.core.match.make_runner``, plays them in batch); a win is a
positive final reward. A game whose registry entry names an ``evaluate`` function may
measure a policy its own way (e.g. the mean return of a solo policy). This is what
docs/results.md reports.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from envs import registry
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
        return (
            f"vs {self.opponent:12s} {self.games:5d} games: win {100 * self.win_rate:5.1f}%  "
            f"draw {100 * self.draws / self.games:5.1f}%  loss {100 * self.losses / self.games:5.1f}%"
            f"  ({self.seconds:.0f} s)"
        )


def versus(
    game: str,
    policy: Any,
    opponent_name: str,
    games: int = 1000,
    seed: int = 12345,
    players: int = 2,
) -> VersusResult:
    """``games`` seat-swapped games of ``policy`` against registry agent ``opponent_name``."""
    from agents.registry import make_agent

    runner = make_runner(game, players)
    half = games // 2
    idx = np.arange(half, dtype=np.int64)
    wins = draws = losses = 0
    t0 = time.perf_counter()
    for seat in range(2):
        others = [make_agent(game, opponent_name, seed=seed + 7 * k + seat) for k in range(players)]
        seated = [policy if s == seat else others[s] for s in range(players)]
        for o in runner.play(seated, seed, idx):
            r = float(o.rewards[seat])
            wins += r > 0
            draws += r == 0
            losses += r < 0
    return VersusResult(opponent_name, 2 * half, wins, draws, losses, time.perf_counter() - t0)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.evaluate", description=__doc__)
    p.add_argument("game", choices=registry.names())
    p.add_argument("--model", required=True, help="run directory or model zip")
    p.add_argument("--opponents", default="random,heuristic")
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--seed", type=int, default=12345)
    p.add_argument("--stochastic", action="store_true", help="sample instead of argmax")
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
            versus(args.game, agent, name, args.games, args.seed, args.players).line(), flush=True
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
