"""Measure an agent against an opponent, seat-rotated: ``python -m agents.measure``.

``python -m agents.measure GAME AGENT [--opponent random] [--games N] [--players P]
[--seed S]`` plays N games with AGENT in every seat in turn (N / P games per seat, the
other seats held by copies of the opponent) and prints the win / draw / loss rates of
AGENT with a 95 % Wilson interval. The figures in docs/agents.md come from it. After each
seat's games it prints the running counts to stderr (a series against a search opponent
can run for an hour; ``--quiet`` drops these lines). ``--first-game K`` starts each seat
at game K of its series, so ``--games 20 --first-game 0`` and ``--games 20 --first-game
10`` together play the games of ``--games 40`` when both agents choose per game (the
searches and ``az-policy``; ``random`` and ``heuristic`` draw from one stream over the
batch): a series of many hours splits into runs. ``--seat S`` plays only seat S's share
of them (1 .. P, as the running counts number the seats): the same games as that seat's
part of the full command, for a series whose other seats were played before.

``--decision-time K`` instead times AGENT's ``act`` at batch size 1 on K positions
(reached by 0-39 seeded random moves, one warm-up call first) and prints the median and
mean milliseconds per move: the decision time of docs/results.md.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable, Sequence

import numpy as np

from agents.registry import make_agent
from envs import registry
from envs.core import cli_text
from envs.core.match import make_runner


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95 % Wilson score interval of a proportion k / n."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return c - h, c + h


def games_per_seat(games: int, seats: int) -> int:
    """``games / seats``; ``ValueError`` unless ``games`` is a positive multiple of ``seats``.

    Why an error: each seat plays the same number of games, and a rest would be dropped
    from the series without a word (``--games 5`` with 2 seats played 4 before 0.5.15).
    """
    if games < seats or games % seats:
        down, up = max(seats, games - games % seats), games - games % seats + seats
        raise ValueError(
            f"--games must be a positive multiple of the {seats} seats (each seat plays"
            f" games / {seats}), got {games}: use {down}" + (f" or {up}" if up != down else "")
        )
    return games // seats


def check_seats(seats: Sequence[int] | None, num_players: int) -> list[int]:
    """The seats to play, in order: all when ``None``; ``ValueError`` for an empty list, a
    repeated seat or one outside ``0 .. num_players - 1``."""
    if seats is None:
        return list(range(num_players))
    chosen = [int(s) for s in seats]
    if not chosen or len(set(chosen)) != len(chosen):
        raise ValueError(f"seats must be distinct and at least one, got {list(seats)}")
    bad = [s for s in chosen if not 0 <= s < num_players]
    if bad:
        raise ValueError(
            f"seats {bad} out of range: a {num_players}-player game has seats 0..{num_players - 1}"
            f" (--seat 1..{num_players})"
        )
    return sorted(chosen)


def measure(
    game: str,
    agent: str,
    opponent: str = "random",
    games: int = 100,
    players: int | None = None,
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
    first_game: int = 0,
    seats: Sequence[int] | None = None,
) -> dict[str, float]:
    """Win/draw/loss counts of ``agent`` against ``opponent`` over seat-rotated games;
    ``progress`` (optional) gets one line of running counts after each seat's games.

    ``games`` must be a multiple of the seat count P (else ``ValueError``); each seat
    plays games ``first_game .. first_game + games / P - 1`` of its seeded series. Why: a
    game's key depends on its index, and the searches' (``mcts``, ``az``,
    ``openspiel-mcts``) and ``az-policy``'s choices only on the game itself, so for them a
    long series splits into runs that together play exactly the games of one run
    (``games=20, first_game=0`` and ``games=20, first_game=10`` are the games of
    ``games=40``). ``random`` and ``heuristic`` draw from one random stream over the
    games they are asked about: split runs start from the same positions, not the same
    games. ``seats`` (0-based, default all) plays only those seats' shares, the same games
    they play in the full run: ``games`` still counts all seats' games, so the result
    holds ``games / P`` games per seat named."""
    if first_game < 0:
        raise ValueError(f"first_game must be >= 0, got {first_game}")
    runner = make_runner(game, players)
    p = runner.num_players
    per_seat = games_per_seat(games, p)
    chosen = check_seats(seats, p)
    wins = draws = losses = 0
    for seat in chosen:
        agents = [make_agent(game, opponent, seed + 1000 + s) for s in range(p)]
        agents[seat] = make_agent(game, agent, seed + seat)
        out = runner.play(agents, seed + 7919 * seat, np.arange(per_seat) + first_game)
        r = np.array([o.rewards[seat] for o in out])
        wins += int((r > 0).sum())
        draws += int((r == 0).sum())
        losses += int((r < 0).sum())
        if progress is not None:
            progress(
                f"seat {seat + 1}/{p} done: {wins} wins, {draws} draws, {losses} losses"
                f" of {wins + draws + losses} games"
            )
    n = wins + draws + losses
    lo, hi = wilson(wins, n)
    return {
        "games": n,
        "wins": wins,
        "draws": draws,
        "losses": losses,
        "win_rate": wins / n,
        "lo": lo,
        "hi": hi,
    }


def decision_time(
    game: str, agent: str, positions: int = 30, players: int | None = None, seed: int = 0
) -> dict[str, float]:
    """Milliseconds per ``act`` call of ``agent`` at batch size 1 (module docstring)."""
    from envs.core.agent import ActContext

    if positions < 1:
        raise ValueError(f"--decision-time needs >= 1 position, got {positions}")
    facade = registry.make_batch(game, players)
    me = make_agent(game, agent, seed)
    rng = np.random.default_rng(seed)
    times: list[float] = []
    for k in range(positions + 1):  # the first call warms up (compiles, loads weights)
        state = facade.init(1, seed + k)
        for _ in range(int(rng.integers(0, 40))):
            nxt = facade.take(state, np.array([0]))
            _, done = facade.step(nxt, facade.random_actions(nxt))
            if bool(np.asarray(done)[0]):
                break
            state = nxt
        seats = np.asarray(facade.current_player(state), np.int64)
        obs = facade.observe(state, seats)
        mask = np.asarray(facade.legal_mask(state), bool)
        ctx = ActContext(game=facade, state=state, seats=seats) if me.needs_context else None
        t = time.perf_counter()
        me.act(obs, mask, ctx)
        if k:
            times.append(1000.0 * (time.perf_counter() - t))
    return {
        "positions": positions,
        "median_ms": float(np.median(times)),
        "mean_ms": float(np.mean(times)),
    }


def main(argv: list[str] | None = None) -> int:
    parser = cli_text.ArgumentParser(prog="python -m agents.measure", description=__doc__)
    parser.add_argument("game", choices=registry.names())
    parser.add_argument("agent")
    parser.add_argument("--opponent", default=None, help="default: random")
    parser.add_argument("--games", type=int, default=None, help="default: 100")
    parser.add_argument("--players", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--first-game",
        type=int,
        default=None,
        metavar="K",
        help="each seat starts at game K of its series (split a long series into runs)",
    )
    parser.add_argument(
        "--seat",
        type=int,
        action="append",
        default=None,
        metavar="S",
        help="play only seat S's games (1..P; repeat for several): a series in parts",
    )
    parser.add_argument(
        "--decision-time", type=int, default=0, metavar="K", help="time act() at B = 1 instead"
    )
    parser.add_argument(
        "--quiet", action="store_true", help="no running counts on stderr after each seat"
    )
    args = parser.parse_args(argv)
    seats = None if args.seat is None else [s - 1 for s in args.seat]
    series_options = {
        "--opponent": args.opponent,
        "--games": args.games,
        "--first-game": args.first_game,
        "--seat": args.seat,
    }
    if args.decision_time:  # timing plays no series: a series option would be silently unused
        given = [name for name, value in series_options.items() if value is not None]
        if given:
            verb = "has" if len(given) == 1 else "have"
            parser.error(f"{', '.join(given)} {verb} no effect with --decision-time")
        d = decision_time(args.game, args.agent, args.decision_time, args.players, args.seed)
        print(
            f"{args.game} players={args.players or 'default'} {args.agent}: "
            f"{d['median_ms']:.2f} ms per move (median; mean {d['mean_ms']:.2f}) at batch "
            f"size 1 over {d['positions']} positions"
        )
        return 0
    args.opponent = "random" if args.opponent is None else args.opponent
    args.games = 100 if args.games is None else args.games
    args.first_game = 0 if args.first_game is None else args.first_game
    try:  # a bad --games or --seat is a usage error, reported before any game is played
        p = make_runner(args.game, args.players).num_players
        games_per_seat(args.games, p)
        check_seats(seats, p)
    except ValueError as e:
        parser.error(str(e))
    t = time.perf_counter()

    def running(line: str) -> None:
        print(f"{line} [{time.perf_counter() - t:.0f} s]", file=sys.stderr, flush=True)

    r = measure(
        args.game,
        args.agent,
        args.opponent,
        args.games,
        args.players,
        args.seed,
        progress=None if args.quiet else running,
        first_game=args.first_game,
        seats=seats,
    )
    print(
        f"{args.game} players={args.players or 'default'} {args.agent} vs {args.opponent}:"
        f" {r['wins']}/{r['games']} wins ({100 * r['win_rate']:.1f} %, 95 % CI"
        f" {100 * r['lo']:.1f}-{100 * r['hi']:.1f}), {r['draws']} draws, {r['losses']} losses"
        f" [{time.perf_counter() - t:.0f} s]"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
