"""Measure a trained policy: seat-swapped win rates against baselines, or Moon Shot returns.

``python -m training.evaluate GAME --model DIR [--opponents random,heuristic] [--games N]``

Board games (and a Moon Shot policy trained against opponents, ``--players 2``): N games
per opponent, half with the policy in seat 0 and half in seat 1 on the same game seeds (the ladder's runner, ``training.ladder.TurnBasedRunner``, plays
them in batch); a win is a positive final reward. Moon Shot: mean solo return (MS-21)
of a solo policy and of uniformly random shots over N episodes each. This is what
docs/results.md reports.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from typing import Any

import numpy as np


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
    from training.ladder import make_runner

    runner = make_runner(game, None if game == "proteus" else players)
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


def moon_shot_returns(
    agent: Any, episodes: int = 1000, seed: int = 12345, n_envs: int = 100
) -> np.ndarray:
    """Solo returns (MS-21) of ``agent`` over ``episodes`` episodes (batched physics)."""
    from training.moon_shot import MoonShotSoloVecEnv

    env = MoonShotSoloVecEnv(n_envs, seed=seed)
    obs: Any = env.reset()
    ret = np.zeros(n_envs)
    out: list[float] = []
    while len(out) < episodes:
        obs, rew, done, _ = env.step(agent.act(obs, None))
        ret += rew
        for i in np.flatnonzero(done):
            out.append(float(ret[i]))
            ret[i] = 0.0
    return np.asarray(out[:episodes])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.evaluate", description=__doc__)
    p.add_argument("game", choices=["proteus", "virus_fight", "moon_shot"])
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
    if args.game == "moon_shot" and agent.obs_shape != (8,):
        # a policy trained in the turn game (obs 2P + 10): play it there against opponents
        args.players = (agent.obs_shape[0] - 10) // 2
    elif args.game == "moon_shot":
        from agents.random_agent import RandomAgent

        t0 = time.perf_counter()
        mine = moon_shot_returns(agent, args.games, args.seed)
        rand = moon_shot_returns(RandomAgent(seed=args.seed), args.games, args.seed)
        print(
            f"moon_shot solo, {args.games} episodes each: policy mean return {mine.mean():.2f} "
            f"(± {mine.std(ddof=1) / np.sqrt(len(mine)):.2f}), random {rand.mean():.2f} "
            f"(± {rand.std(ddof=1) / np.sqrt(len(rand)):.2f}); ratio "
            f"{mine.mean() / rand.mean():.1f}x  ({time.perf_counter() - t0:.0f} s)"
        )
        return 0
    for name in [n.strip() for n in args.opponents.split(",") if n.strip()]:
        print(
            versus(args.game, agent, name, args.games, args.seed, args.players).line(), flush=True
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
