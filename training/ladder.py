"""The agent ladder: seat-swapped round robins, OpenSkill ratings, an SQLite match log.

``arena ladder GAME [--agents A B ...] [--games-per-pair N] [--players P] [--db PATH]
[--out DIR] [--seed S]``; Python: :func:`run_ladder`. See docs/ladder.md.

How matches are made. Agents are registry names (``agents/registry.py``). A *combination*
is a set of agents that meet: every pair for 2-player games; every P-subset for P-player
games when there are at least P agents, else every multiset of P agents with at least two
different ones. Each combination is played in all its cyclic *seatings* (for two
players: A-B and B-A, seat-swapped), ``--games-per-pair`` N games per combination split
evenly over its seatings. Game i of every seating of a combination starts from the same
seed (derived from the ladder seed, the game, its configuration and the combination), so
seat-swapped games mirror each other; it is played by its own agents, seeded from that,
the seating, the seat and i, so a game never depends on which others were played with it
(a ladder extended in steps equals one run at once).

Storage. Every game is one row of the append-only ``matches`` table keyed by (game,
config, seating, game index). A rerun plays only the missing rows, so a ladder resumes
after an interruption and a new entrant plays only its own combinations; concurrent
runs on one database each store what the other has not (see :class:`MatchDB`). Ratings are
recomputed from the stored rows of the agents in the current run (see training/ratings.py),
in a fixed order, so the table does not depend on how the rows were accumulated.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import sqlite3
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import Agent
from envs import registry
from envs.core import cli_text
from envs.core.match import (
    GameOutcome,
    IllegalActionError,
    Runner,
    TurnBasedRunner,
    make_runner,
)
from envs.core.records import now
from training.ladder_records import (
    ensure_schema,
    insert_records,
    match_from_row,
    records_from_outcomes,
)
from training.ladder_stats import HeadToHead, head_to_head, ladder_stats
from training.ratings import (
    AgentRating,
    MatchRecord,
    compute_ratings,
    pairwise_win_rates,
    ranks_from_results,
)

Factory = Callable[[int], Agent]

# the match protocol lives in envs/core/match.py; these names stay importable from here
__all__ = [
    "GameOutcome",
    "IllegalActionError",
    "LadderResult",
    "MatchDB",
    "Runner",
    "TurnBasedRunner",
    "make_runner",
    "run_ladder",
]


# -- planning ------------------------------------------------------------------------------


def _derive_seed(*parts: object) -> int:
    h = hashlib.blake2b("|".join(str(x) for x in parts).encode(), digest_size=8)
    return int.from_bytes(h.digest(), "little") >> 1


def plan_combinations(names: Sequence[str], players: int) -> list[tuple[str, ...]]:
    """The agent combinations that meet (see the module docstring)."""
    names = list(dict.fromkeys(names))
    if len(names) < 2:
        raise ValueError("a ladder needs at least two different agents")
    if len(names) >= players:
        return [tuple(c) for c in itertools.combinations(names, players)]
    return [
        tuple(c) for c in itertools.combinations_with_replacement(names, players) if len(set(c)) > 1
    ]


def seatings_of(combo: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The distinct cyclic rotations of a combination (A-B and B-A for a pair)."""
    out: list[tuple[str, ...]] = []
    for r in range(len(combo)):
        s = combo[r:] + combo[:r]
        if s not in out:
            out.append(s)
    return out


# -- storage -------------------------------------------------------------------------------

_SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    game TEXT NOT NULL,
    config TEXT NOT NULL,
    seating TEXT NOT NULL,
    game_index INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    agents TEXT NOT NULL,
    rewards TEXT NOT NULL,
    ranks TEXT NOT NULL,
    length INTEGER NOT NULL,
    PRIMARY KEY (game, config, seating, game_index)
)
"""


class MatchDB:
    """Append-only SQLite log of ladder games, safe for concurrent writers.

    Several ``arena ladder`` processes may share one database: each waits for the others'
    write locks (``timeout``), and a game another process stored meanwhile is kept as it
    is (``INSERT OR IGNORE``: its seed and agents' seeds depend only on the combination,
    the game index and the run seed, so both played the same game). A path that is not
    writable or not an SQLite database is a one-line ``ValueError`` naming ``--db``.
    """

    def __init__(self, path: str | Path, timeout: float = 120.0) -> None:
        from envs.core.cli_text import check_output_file

        self.path = check_output_file(path, "--db")
        try:
            self.conn = sqlite3.connect(str(self.path), timeout=timeout)
            self.conn.execute(_SCHEMA)
            self.conn.commit()
            ensure_schema(self.conn)  # version 2: game records (training/ladder_records.py)
        except sqlite3.DatabaseError as exc:
            raise ValueError(f"--db {path}: not a writable SQLite database ({exc})") from None

    def close(self) -> None:
        self.conn.close()

    def stored_indices(self, game: str, config: str, seating: str) -> set[int]:
        rows = self.conn.execute(
            "SELECT game_index FROM matches WHERE game=? AND config=? AND seating=?",
            (game, config, seating),
        )
        return {int(r[0]) for r in rows}

    def insert(self, game: str, config: str, rows: Sequence[tuple[Any, ...]]) -> None:
        """Insert finished games (one transaction: a seating's batch is stored whole)."""
        with self.conn:
            self.conn.executemany(
                "INSERT OR IGNORE INTO matches (game, config, seating, game_index, seed, agents,"
                " rewards,"
                " ranks, length) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(game, config, *r) for r in rows],
            )

    def records(self, game: str, config: str) -> list[MatchRecord]:
        rows = self.conn.execute(
            "SELECT seating, game_index, agents, rewards, ranks FROM matches"
            " WHERE game=? AND config=? ORDER BY game_index, seating",
            (game, config),
        )
        return [match_from_row(*row) for row in rows]

    def count(self, game: str | None = None) -> int:
        if game is None:
            return int(self.conn.execute("SELECT COUNT(*) FROM matches").fetchone()[0])
        q = "SELECT COUNT(*) FROM matches WHERE game=?"
        return int(self.conn.execute(q, (game,)).fetchone()[0])


# -- the ladder ----------------------------------------------------------------------------


@dataclass
class LadderResult:
    """What a ladder run produced (the demo prints ``table`` and shows the plots)."""

    game: str
    config: str
    names: list[str]
    ratings: list[AgentRating]
    win_matrix: np.ndarray  # (K, K) row's score against column, in ``names`` order
    games_played: int  # games played by this run
    games_stored: int  # games of these agents in the database after this run
    #: the head-to-head counts behind ``win_matrix`` (same order): the heatmap's cells
    h2h: HeadToHead
    plots: dict[str, Path] = field(default_factory=dict)

    def table(self) -> str:
        """The leaderboard as plain text (also what ``rich`` prints)."""
        lines = [
            f"{'agent':24s} {'mu':>7s} {'sigma':>6s} {'ordinal':>8s} {'win%':>6s} {'games':>6s}"
        ]
        for r in self.ratings:
            lines.append(
                f"{r.name:24s} {r.mu:7.2f} {r.sigma:6.2f} {r.ordinal:8.2f}"
                f" {100 * r.win_rate:6.1f} {r.games:6d}"
            )
        return "\n".join(lines)


def run_ladder(
    game: str,
    agents: Sequence[str] | Mapping[str, Factory] | None = None,
    games_per_pair: int = 20,
    players: int | None = None,
    db: str | Path = "runs/ladder/ladder.sqlite",
    out: str | Path | None = "runs/ladder",
    seed: int = 0,
    runner: Runner | None = None,
    progress: bool = False,
) -> LadderResult:
    """Play the missing games of the round robin, store them, rate everyone, plot.

    ``agents`` is a list of registry names for ``game`` or a mapping name -> factory (for
    agents outside the registry, e.g. in tests); ``runner`` overrides the game's runner
    (tests use a tiny tic-tac-toe). ``out=None`` skips the plots.
    """
    from agents.registry import default_agents, resolve

    if games_per_pair < 1:
        raise ValueError(f"games_per_pair must be >= 1, got {games_per_pair}")
    if agents is None:
        agents = default_agents(game)
    if isinstance(agents, Mapping):
        factories = dict(agents)
    else:
        factories = {name: resolve(game, name) for name in agents}
    names = list(factories)
    if runner is None:
        runner = make_runner(game, players)
    elif players is not None and players != runner.num_players:
        raise ValueError(f"runner plays {runner.num_players} players, asked for {players}")
    p = runner.num_players
    config = runner.config
    if out is not None:  # before the first game: an unwritable --out fails now, not after
        from envs.core.cli_text import check_output_dir

        check_output_dir(out, "--out")
    store = MatchDB(db)
    played = 0
    try:
        combos = plan_combinations(names, p)
        work = []
        for combo in combos:
            base = _derive_seed(seed, game, config, *sorted(combo))
            seats = seatings_of(combo)
            for r, seating in enumerate(seats):
                n_r = games_per_pair // len(seats) + (1 if r < games_per_pair % len(seats) else 0)
                key = "|".join(seating)
                have = store.stored_indices(game, config, key)
                missing = np.array([i for i in range(n_r) if i not in have], np.int64)
                if len(missing):
                    work.append((seating, key, base, missing))
        bar = _progress(progress, sum(len(w[3]) for w in work))
        for seating, key, base, missing in work:
            started = now()
            outcomes = _play_games(runner, factories, seating, key, base, missing)
            rows = []
            for i, o in zip(missing.tolist(), outcomes, strict=True):
                ranks = ranks_from_results(o.rewards.tolist(), o.finish.tolist())
                rows.append(
                    (
                        key,
                        i,
                        base,
                        json.dumps(list(seating)),
                        json.dumps([float(x) for x in o.rewards]),
                        json.dumps(list(ranks)),
                        o.length,
                    )
                )
            recs = records_from_outcomes(
                runner, game, seating, base, missing.tolist(), outcomes,
                [json.loads(r[5]) for r in rows], started,
            )  # fmt: skip
            with store.conn:  # records first: a rerun replaces those whose rows are missing
                insert_records(store.conn, config, [(key, r) for r in recs])
            store.insert(game, config, rows)
            played += len(rows)
            if bar is not None:
                bar.update(len(rows))
        if bar is not None:
            bar.close()
        records = [m for m in store.records(game, config) if set(m.agents) <= set(names)]
    finally:
        store.close()
    # rank order agrees with head to head (training/ladder_stats.py), not mu - 3 sigma
    ranked = ladder_stats(records, names).names if records else names
    by_name = {r.name: r for r in compute_ratings(records, names)}
    result = LadderResult(
        game=game,
        config=config,
        names=ranked,
        ratings=[by_name[n] for n in ranked],
        win_matrix=pairwise_win_rates(records, ranked),
        games_played=played,
        games_stored=len(records),
        h2h=head_to_head(records, ranked),
    )
    if out is not None:
        result.plots = write_plots(result, Path(out))
    return result


def _play_games(
    runner: Runner,
    factories: Mapping[str, Factory],
    seating: tuple[str, ...],
    key: str,
    base: int,
    missing: np.ndarray,
) -> list[GameOutcome]:
    """Games ``missing`` of one seating, each with its own agents seeded from (combination,
    seating, seat, game index): an agent's randomness never depends on which other games
    shared its batch, so a ladder extended in steps plays the games one run plays at once.
    The game's start is already batch-independent (game ``i`` of the series ``base``)."""
    outcomes: list[GameOutcome] = []
    for i in missing.tolist():
        seat_agents = []
        for s, name in enumerate(seating):
            agent = factories[name](_derive_seed(base, key, s, int(i)))
            agent.name = name
            seat_agents.append(agent)
        outcomes.extend(runner.play(seat_agents, base, np.array([i], np.int64)))
    return outcomes


def _progress(enabled: bool, total: int) -> Any:
    from envs.core.cli_text import stdout_is_terminal

    if not enabled or total == 0 or not stdout_is_terminal():  # no \r bars in logs
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit="game", desc="ladder")


def write_plots(result: LadderResult, out: Path) -> dict[str, Path]:
    """OpenSkill ratings with uncertainty bars and the head-to-head score heatmap (Wilson
    interval and game count per cell), as PNG files: the report's own plots
    (``training.ladder_report``), for this run's agents."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from training.ladder_report import plot_heatmap, plot_openskill

    out.mkdir(parents=True, exist_ok=True)
    stem = f"{result.game}_{result.config.replace('=', '').replace(',', '_')}"
    paths = {"ratings": out / f"{stem}_ratings.png", "winrate": out / f"{stem}_winrate.png"}

    fig, ax = plt.subplots(figsize=(max(4.0, 1.2 * len(result.ratings) + 2), 4))
    title = f"{result.game} ladder ({result.config}, {result.games_stored} games)"
    plot_openskill(ax, result.ratings, title)  # agents in rank order (head to head)
    fig.tight_layout()
    fig.savefig(paths["ratings"], dpi=100)
    plt.close(fig)
    plot_heatmap(
        result.h2h, f"{result.game}: score of row vs column, Wilson 95 %", paths["winrate"]
    )
    return paths


def print_table(result: LadderResult) -> None:
    """Print the leaderboard: rich in a terminal, a plain markdown table otherwise."""
    from envs.core.cli_text import markdown_table, stdout_is_terminal

    title = f"{result.game} ladder ({result.config}, {result.games_stored} games)"
    cols = ("rank", "agent", "mu", "sigma", "ordinal", "win rate", "draws", "games")
    rows = [
        [
            str(k),
            r.name,
            f"{r.mu:.2f}",
            f"{r.sigma:.2f}",
            f"{r.ordinal:.2f}",
            f"{100 * r.win_rate:.1f}%",
            str(r.draws),
            str(r.games),
        ]
        for k, r in enumerate(result.ratings, 1)
    ]
    if not stdout_is_terminal():
        print(f"{title}\n\n{markdown_table(cols, rows, set(cols) - {'agent'})}\n")
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title)
    for col in cols:
        table.add_column(col, justify="left" if col == "agent" else "right")
    for row in rows:
        table.add_row(*row)
    Console().print(table)


def main(argv: list[str] | None = None) -> int:
    """``arena ladder`` entry point (``arena ladder report DB``: training/ladder_report.py)."""
    from agents.registry import default_agents

    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["report"]:
        from training.ladder_report import main as report_main

        return report_main(argv[1:])

    parser = cli_text.ArgumentParser(
        prog="arena ladder",
        description="Seat-swapped round-robin ladder with OpenSkill (PlackettLuce) ratings."
        " 'arena ladder report DB' regenerates the statistics, plots and HTML report.",
    )
    parser.add_argument("game", choices=registry.names())
    parser.add_argument(
        "--agents",
        nargs="+",
        default=None,
        help="agent names (random, the game's own agents, mcts:N, policy:PATH); default: "
        + "; ".join(f"{g}: {' '.join(default_agents(g))}" for g in registry.names()),
    )
    parser.add_argument("--games-per-pair", type=int, default=20, metavar="N")
    parser.add_argument("--players", type=int, default=None, metavar="P")
    parser.add_argument("--db", default="runs/ladder/ladder.sqlite", metavar="PATH")
    parser.add_argument("--out", default="runs/ladder", metavar="DIR")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    try:
        result = run_ladder(
            args.game,
            args.agents,
            games_per_pair=args.games_per_pair,
            players=args.players,
            db=args.db,
            out=args.out,
            seed=args.seed,
            progress=not args.no_progress,
        )
    except (ValueError, IllegalActionError, OSError) as exc:
        print(f"arena ladder: error: {exc}", file=sys.stderr)
        return 2
    print_table(result)
    print(f"played {result.games_played} new games; {result.games_stored} stored for these agents")
    print("ranked by head to head; intervals, anchored ratings, alpha-Rank and replays:")
    print(f"  arena ladder report {args.db}")
    for kind, path in result.plots.items():
        print(f"{kind} plot: {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
