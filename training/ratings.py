"""OpenSkill ratings and summary statistics from stored ladder matches.

Ratings are always recomputed from the whole match log, in a fixed order (game index,
then seating key), so they do not depend on when or in which run a match was played: a
resumed ladder and a ladder run in one go over the same matches give the same table.
Each game is one PlackettLuce update with every seat a one-player team ranked by its
result (see :func:`ranks_from_results`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class MatchRecord:
    """One finished game of the ladder, as stored (one row of the ``matches`` table)."""

    seating: str  # "|"-joined agent names by seat: the key of the seating
    game_index: int  # index of the game within its seating (its seed is derived from it)
    agents: tuple[str, ...]  # agent name per seat
    rewards: tuple[float, ...]  # final reward per seat (+1 / 0 / -1)
    ranks: tuple[int, ...]  # 0 = best; equal ranks are ties


@dataclass(frozen=True)
class AgentRating:
    """One row of the ladder table."""

    name: str
    mu: float
    sigma: float
    ordinal: float  # mu - 3 sigma: the conservative estimate the table is sorted by
    games: int
    wins: int
    draws: int
    losses: int

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0


def ranks_from_results(rewards: Sequence[float], finish: Sequence[float]) -> tuple[int, ...]:
    """Rank seats by reward (higher first), ties broken by ``finish`` (later is better).

    ``finish`` is when a seat's game ended for it (the step of its elimination, or a
    score in a game of points); seats equal in both share a rank (competition
    ranking: 0, 1, 1, 3).
    """
    keys = [(-float(r), -float(f)) for r, f in zip(rewards, finish, strict=True)]
    return tuple(sum(1 for k2 in keys if k2 < k) for k in keys)


def ordered(records: Iterable[MatchRecord]) -> list[MatchRecord]:
    """The canonical rating order: game index, then seating key (interleaves pairings)."""
    return sorted(records, key=lambda m: (m.game_index, m.seating))


def compute_ratings(records: Iterable[MatchRecord], names: Sequence[str]) -> list[AgentRating]:
    """PlackettLuce ratings of ``names`` from ``records`` (in canonical order), best first."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {n: model.rating(name=n) for n in names}
    stats = {n: [0, 0, 0, 0] for n in names}  # games, wins, draws, losses
    for m in ordered(records):
        if any(a not in ratings for a in m.agents):
            continue
        # the same agent may sit in several seats (multi-player games with few agents):
        # every seat is its own team, and the agent takes the last seat's update.
        teams = [[ratings[a]] for a in m.agents]
        new = model.rate(teams, ranks=list(m.ranks))
        for a, team in zip(m.agents, new, strict=True):
            ratings[a] = team[0]
        for a, r in zip(m.agents, m.rewards, strict=True):
            s = stats[a]
            s[0] += 1
            s[1 if r > 0 else 2 if r == 0 else 3] += 1
    rows = [
        AgentRating(
            name=n,
            mu=float(ratings[n].mu),
            sigma=float(ratings[n].sigma),
            ordinal=float(ratings[n].mu - 3.0 * ratings[n].sigma),
            games=stats[n][0],
            wins=stats[n][1],
            draws=stats[n][2],
            losses=stats[n][3],
        )
        for n in names
    ]
    return sorted(rows, key=lambda r: (-r.ordinal, r.name))


def meetings(
    records: Iterable[MatchRecord], names: Sequence[str]
) -> Iterator[tuple[int, int, int, int]]:
    """(row, column, row's rank, column's rank) for every ordered pair of seats of every
    game between two different agents of ``names`` (games with an agent not in ``names``
    are skipped): what head-to-head tables count."""
    idx = {n: i for i, n in enumerate(names)}
    for m in records:
        if any(a not in idx for a in m.agents):
            continue
        for s1, a1 in enumerate(m.agents):
            for s2, a2 in enumerate(m.agents):
                if a1 != a2:
                    yield idx[a1], idx[a2], m.ranks[s1], m.ranks[s2]


def pairwise_win_rates(records: Iterable[MatchRecord], names: Sequence[str]) -> np.ndarray:
    """(K, K) score of row agent against column agent over the games both played.

    A game where row finished ahead of column counts 1, level 0.5, behind 0; NaN where two
    agents never met (and on the diagonal).
    """
    k = len(names)
    score = np.zeros((k, k))
    count = np.zeros((k, k))
    for i, j, r1, r2 in meetings(records, names):
        count[i, j] += 1
        score[i, j] += 1.0 if r1 < r2 else 0.5 if r1 == r2 else 0.0
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, score / np.maximum(count, 1), np.nan)
