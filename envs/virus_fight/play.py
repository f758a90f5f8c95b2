"""``arena play virus_fight``: a person plays Virus Fight in the terminal against agents.

``--opponent`` takes any registry agent of the game for the other seats (``random``,
``heuristic``, ``mcts:N``, ...; default ``random``); an illegal move says why.

Type moves in the rules file's notation (``W2@c1``, ``c1-d2``, ``xc2``, ``*c2``, ``pass``);
``help`` lists the legal moves, ``board`` shows the position, ``quit`` ends the game.
During the hidden setup (VF-11) the other players' programs are shown as ``?``.
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import Any

from envs.core import cli_text
from envs.core.play_help import Opponent, typed_move
from envs.core.records import facade_config, now, save_play_record
from envs.virus_fight import render
from envs.virus_fight.env import raw_env

HELP = (
    "moves: W2@c1 put an instruction, c1-d2 MOVE, xc2 ERASE, *c2 marker, pass; "
    "commands: help (legal moves), board, quit"
)


def _parse_seats(text: str, players: int) -> list[int]:
    try:
        seats = sorted({int(x) for x in text.split(",") if x.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--seats must be seat numbers like 0,2: {text!r}"
        ) from None
    if not seats or any(not 0 <= s < players for s in seats):
        raise argparse.ArgumentTypeError(f"--seats must name seats 0..{players - 1}: {text!r}")
    return seats


def main(argv: list[str] | None = None) -> int:
    """Run one game in the terminal; returns the exit status."""
    parser = cli_text.ArgumentParser(prog="arena play virus_fight", description=__doc__)
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument("--board-size", type=int, default=None, help="5..8 (default per VF-4)")
    parser.add_argument("--seats", default="0", help="seats you play, e.g. 0 or 0,2")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument(
        "--opponent", default="random", metavar="AGENT",
        help="any registry agent for the other seats: random, heuristic, mcts:N, ... (random)",
    )  # fmt: skip
    parser.add_argument("--max-rounds", type=int, default=100)
    parser.add_argument(
        "--record", default="runs/records/play_virus_fight.jsonl", metavar="FILE",
        help="append the finished game's record here ('' for none)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    try:
        seats = _parse_seats(args.seats, args.players)
        env = raw_env(
            num_players=args.players, board_size=args.board_size, max_rounds=args.max_rounds
        )
        opponent = Opponent("virus_fight", args.opponent, args.seed)
    except (ValueError, ImportError, argparse.ArgumentTypeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    env.reset(seed=args.seed)
    print(f"Virus Fight, {args.players} players; you are {', '.join(f'player_{s}' for s in seats)}")
    print(HELP)
    started, moves, key = now(), [], int(env.state_arrays.rng[0])
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            if env.rewards.get(agent, 0) < 0 and not all(env.terminations.values()):
                print(f"{agent} is eliminated")
            env.step(None)
            continue
        seat = env.possible_agents.index(agent)
        if seat in seats:
            print(render.ansi(env.game, env.state_arrays, viewer=seat))
            while True:
                print(f"{agent}> ", end="", flush=True)
                line = sys.stdin.readline()
                if not line:
                    print("\nend of input")
                    return 1
                text = line.strip()
                if text in ("quit", "exit"):
                    return 0
                if text in ("help", "?"):
                    print("legal: " + " ".join(env.legal_moves()))
                    continue
                if text == "board":
                    print(render.ansi(env.game, env.state_arrays, viewer=seat))
                    continue
                action = typed_move(env, text, env.phase(), _cells(env))
                if action is not None:
                    break
            moves.append((seat, action))
            env.step(action)
        else:
            action = opponent.act(env.game, env.state_arrays, seat)
            move = env.action_to_str(action)
            hidden = env.phase() == "setup"
            moves.append((seat, action))
            env.step(action)
            if not hidden:
                print(f"{agent} plays {move}")
            elif move.startswith("*"):  # VF-11: not even the program's size is shown
                print(f"{agent} has written its program (hidden until all are done)")
    print(render.ansi(env.game, env.state_arrays))
    names = ["you" if s in seats else opponent.name for s in range(args.players)]
    note = save_play_record(
        args.record, "virus_fight", facade_config(env.game), names, moves, f"key={key}", started
    )
    if note:
        print(note)
    return 0


def _cells(env: Any) -> Any:
    """square -> what stands on it (None: empty), from the position text's ``board=``
    field (top rank first, digits count empty squares); None if it cannot be read."""
    fields = dict(f.split("=", 1) for f in env.to_text().split() if "=" in f)
    rows = []
    for row in fields.get("board", "").split("/"):
        cells: list[str | None] = []
        for tok in re.findall(r"[A-Z][0-9]|[0-9]", row):
            cells.extend([None] * int(tok) if tok.isdigit() else [tok])
        rows.append(cells)
    if not rows or any(len(r) != len(rows) for r in rows):
        return None

    def cell(square: str) -> str | None:
        f, r = ord(square[0]) - ord("a"), int(square[1:])
        return rows[len(rows) - r][f] if 0 <= f < len(rows) and 1 <= r <= len(rows) else None

    return cell


if __name__ == "__main__":
    raise SystemExit(main())
