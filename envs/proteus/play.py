"""Play Proteus in the terminal against an agent: ``arena play proteus [--opponent NAME]``.

``--opponent`` takes any registry agent of the game (``random``, ``heuristic``, ``mcts:N``,
``policy:PATH``, ...; default ``random``).

Type moves in the rules' notation (``Mo@b2``, ``s@b2``, ``b2-c3``, ``a1<>c3``, ``pass``);
``help`` lists the legal moves, ``board`` shows the position again, ``text`` prints the
position text, ``quit`` leaves. Illegal or malformed input is re-prompted with the reason (an illegal move says why: the
kind of move not legal in this phase, an occupied square, no movable piece of yours...).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import numpy as np

from envs.core import cli_text
from envs.core.play_help import Opponent, typed_move
from envs.core.records import now, save_play_record
from envs.proteus.batch import ProteusBatch
from envs.proteus.constants import DEFAULT_MAX_TURNS
from envs.proteus.env import ProteusEnv

HELP = (
    "moves: Mo@b2 (put a tile: M/T/G + o/s/t), s@b2 (put your piece), b2-c3 (move), "
    "a1<>c3 (exchange), pass; commands: help, board, text, quit"
)


def _parser() -> argparse.ArgumentParser:
    p = cli_text.ArgumentParser(prog="arena play proteus", description=__doc__.splitlines()[0])
    p.add_argument(
        "--seat", choices=["black", "white", "random"], default="black", help="your side"
    )
    p.add_argument("--seed", type=int, default=None, help="seed of the opponent")
    p.add_argument(
        "--opponent", default="random", metavar="AGENT",
        help="any registry agent: random, heuristic, mcts:N, policy:PATH, ... (random)",
    )  # fmt: skip
    p.add_argument("--max-turns", type=int, default=DEFAULT_MAX_TURNS, help="PR-17 turn limit")
    p.add_argument("--position", default=None, help="start from this position text")
    p.add_argument(
        "--record", default="runs/records/play_proteus.jsonl", metavar="FILE",
        help="append the finished game's record here ('' for none)",
    )  # fmt: skip
    return p


def main(argv: list[str] | None = None) -> int:
    """Run one game; returns 0 when the game ends or the player quits (EOF quits too)."""
    args = _parser().parse_args(argv)
    rng = np.random.default_rng(args.seed)
    seat = args.seat if args.seat != "random" else str(rng.choice(["black", "white"]))
    try:
        env = ProteusEnv(render_mode="ansi", max_turns=args.max_turns)
        env.reset(seed=args.seed, options={"position": args.position})
        opponent = Opponent("proteus", args.opponent, args.seed)
    except (ValueError, ImportError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    facade = ProteusBatch(args.max_turns)
    print(f"You play {seat} against {opponent.name}. {HELP}")
    print(env.render())
    started, start, moves = now(), env.to_text() if args.position else "", []
    while not all(env.terminations.values()):
        agent = env.agent_selection
        if agent != seat:
            action = opponent.act(facade, env._state, env.possible_agents.index(agent))
            print(f"{agent} plays {env.action_to_str(action)}")
            moves.append((env.possible_agents.index(agent), action))
            env.step(action)
            print(env.render())
            continue
        try:
            line = input(f"{seat} to move> ").strip()
        except EOFError:
            print("\nbye")
            return 0
        if not line:
            continue
        if line == "quit":
            print("bye")
            return 0
        if line == "help":
            print("legal moves: " + " ".join(env.legal_moves()))
            continue
        if line == "board":
            print(env.render())
            continue
        if line == "text":
            print(env.to_text())
            continue
        typed = typed_move(env, line, cell=_cells(env))
        if typed is None:
            continue
        env.step(typed)
        moves.append((env.possible_agents.index(agent), typed))
        print(env.render())
    outcome = env.state_status
    mine = env.rewards.get(seat, 0.0)
    verdict = "you win" if mine > 0 else "you lose" if mine < 0 else "draw"
    names = ["you" if a == seat else opponent.name for a in env.possible_agents]
    config = {"players": 2, "max_turns": args.max_turns}
    note = save_play_record(args.record, "proteus", config, names, moves, start, started)
    if note:
        print(note)
    print(f"game over: {outcome} ({verdict})")
    return 0


def _cells(env: ProteusEnv) -> Any:
    """square -> what stands on it (None: empty), from the position text's board field."""
    rows = env.to_text().split(" ", 1)[0].split("/")  # rank 3 first, files a..c

    def cell(square: str) -> str | None:
        f, r = ord(square[0]) - ord("a"), int(square[1:])
        if not (0 <= f < 3 and 1 <= r <= len(rows)):
            return None
        token = rows[len(rows) - r].split(",")[f]
        return None if token == "." else token

    return cell


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
