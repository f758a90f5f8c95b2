"""Ladder statistics a reader can check: head-to-head counts with intervals, a ranking that
agrees with them, anchored ratings, alpha-Rank and Nash averaging.

Every statistic is computed from the stored games (``training.ratings.MatchRecord``), in a
fixed order, so a resumed ladder gives the same numbers as one played in one go.

* **Head to head.** For every ordered pair (A, B) the games where both sat, counted per
  pair of seats: A finished ahead (win), level (draw) or behind (loss) by the game's ranks.
  Win and draw rates carry Wilson 95 % score intervals; the *score* is (wins + draws/2) /
  games, and its interval is the Wilson interval of that proportion.
* **Anchored rating.** A Bradley-Terry model fitted to every pairwise result (a draw is
  half a win each way), by maximum likelihood with one virtual draw per pairing that met
  (so a perfect record stays finite), on the Elo scale (400 log10 of the odds) and shifted
  so the anchor agent (``random`` when it plays) is 0: two ladders with the same anchor
  compare. The +-95 % half-width comes from the observed Fisher information with the anchor
  fixed. Games with more than two seats count as every pair of their seats (an
  approximation: those pairs are not independent).
* **Rank.** The order that contradicts the fewest head-to-head results (A above B while
  B scored more than half against A), among those the one closest to the anchored
  rating's order (exact over all orders up to 16 agents, by dynamic programming over
  subsets). When the head-to-head results are transitive the rank agrees with every one.
  OpenSkill's mu, sigma and ordinal (mu - 3 sigma) stay in the table for reference; they
  do not rank, because the ordinal punishes an agent for having played fewer games (a
  larger sigma) and can put an agent above one that beats it.
* **alpha-Rank** (OpenSpiel ``egt.alpharank``, single population, infinite alpha) over the
  score matrix, and **Nash averaging** (Balduzzi et al. 2018): the maximum-entropy Nash
  equilibrium of the antisymmetric game ``score - score.T``, and each agent's payoff
  against it (OpenSpiel's ``nash_averaging`` when cvxpy is installed, else the same convex
  programme with SciPy).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from agents import measure
from training.ratings import MatchRecord, meetings, ordered

Z95 = 1.959963984540054
ELO = 400.0 / math.log(10.0)  # Elo points per natural-log unit of odds


def wilson(k: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion k / n (both ends in [0, 1]; (0, 1) if n = 0)."""
    if n < 0 or k < 0 or k > n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    lo, hi = measure.wilson(k, n, z)  # type: ignore[arg-type]  # the same formula
    return max(0.0, lo), min(1.0, hi)


@dataclass
class HeadToHead:
    """Pairwise counts of row agent against column agent, in ``names`` order."""

    names: list[str]
    wins: np.ndarray  # (K, K) int
    draws: np.ndarray
    losses: np.ndarray

    @property
    def games(self) -> np.ndarray:
        return self.wins + self.draws + self.losses

    def score(self) -> np.ndarray:
        """(K, K) (wins + draws/2) / games; NaN where the two never met (and diagonal)."""
        g = self.games
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(g > 0, (self.wins + 0.5 * self.draws) / np.maximum(g, 1), np.nan)

    def interval(self, i: int, j: int, what: str = "score") -> tuple[float, float]:
        """Wilson 95 % interval of row i's ``score``, ``win`` or ``draw`` rate against j."""
        n = int(self.games[i, j])
        k = {
            "score": self.wins[i, j] + 0.5 * self.draws[i, j],
            "win": self.wins[i, j],
            "draw": self.draws[i, j],
        }[what]
        return wilson(float(k), n)

    def reorder(self, order: Sequence[int]) -> HeadToHead:
        idx = np.asarray(order, np.int64)
        sub = np.ix_(idx, idx)
        return HeadToHead(
            [self.names[i] for i in idx], self.wins[sub], self.draws[sub], self.losses[sub]
        )


def head_to_head(records: Iterable[MatchRecord], names: Sequence[str]) -> HeadToHead:
    """Count every pair of seats of every game between two different agents of ``names``."""
    k = len(names)
    w, d, l_ = (np.zeros((k, k), np.int64) for _ in range(3))
    for i, j, r1, r2 in meetings(records, names):
        if r1 < r2:
            w[i, j] += 1
        elif r1 == r2:
            d[i, j] += 1
        else:
            l_[i, j] += 1
    return HeadToHead(list(names), w, d, l_)


@dataclass
class AnchoredRatings:
    """Bradley-Terry ratings on the Elo scale, ``anchor`` = 0 (module docstring)."""

    names: list[str]
    anchor: str
    rating: np.ndarray  # (K,) Elo points above the anchor
    half95: np.ndarray  # (K,) +- 95 % half-width (0 for the anchor, inf if unconnected)


def anchored_ratings(
    h2h: HeadToHead, anchor: str | None = "random", iterations: int = 10000
) -> AnchoredRatings:
    """Fit the Bradley-Terry model (MM algorithm) and anchor it (module docstring).

    ``anchor`` None or absent from the ladder: the first agent in ``h2h.names`` is used
    (the report says which).
    """
    names = h2h.names
    k = len(names)
    a = names.index(anchor) if anchor in names else 0
    g = h2h.games.astype(np.float64)
    met = (g + g.T) > 0
    # pairwise games and wins, draws half each way, plus one virtual draw per pairing met
    n = g + g.T  # symmetric: both orders of a pair are the same games seen from each side
    n = n / 2.0 + met
    won = (h2h.wins + 0.5 * h2h.draws).astype(np.float64)
    won = (won + (h2h.losses + 0.5 * h2h.draws).T) / 2.0 + 0.5 * met
    w_tot = won.sum(axis=1)
    r = np.ones(k)
    for _ in range(iterations):
        with np.errstate(divide="ignore", invalid="ignore"):
            den = np.where(met, n / (r[:, None] + r[None, :]), 0.0).sum(axis=1)
            new = np.where(den > 0, w_tot / den, 1.0)
        new /= new[a]
        if np.max(np.abs(np.log(new) - np.log(r))) < 1e-12:
            r = new
            break
        r = new
    theta = np.log(r)
    p = r[:, None] / (r[:, None] + r[None, :])
    info = np.where(met, n * p * (1 - p), 0.0)
    lap = np.diag(info.sum(axis=1)) - info
    keep = [i for i in range(k) if i != a]
    half = np.zeros(k)
    if keep:
        sub = lap[np.ix_(keep, keep)]
        try:
            cov = np.linalg.inv(sub)
            half[keep] = Z95 * ELO * np.sqrt(np.maximum(np.diag(cov), 0.0))
        except np.linalg.LinAlgError:
            half[keep] = np.inf
    return AnchoredRatings(list(names), names[a], ELO * (theta - theta[a]), half)


def consistent_order(h2h: HeadToHead, rating: np.ndarray) -> list[int]:
    """Indices best first: fewest contradicted head-to-head results, then closest to
    ``rating``'s order (module docstring)."""
    k = len(h2h.names)
    s = h2h.score()
    by_rating = sorted(range(k), key=lambda i: (-rating[i], h2h.names[i]))
    if k > 16:
        return by_rating
    pos = {i: r for r, i in enumerate(by_rating)}
    big = k * k + 1
    # w[i, j]: cost of placing i above j
    w = np.zeros((k, k), np.int64)
    for i in range(k):
        for j in range(k):
            if i != j:
                lost = bool(np.isfinite(s[i, j]) and s[i, j] < 0.5)
                w[i, j] = big * lost + (pos[i] > pos[j])
    full = (1 << k) - 1
    inf = np.iinfo(np.int64).max
    dp = np.full(1 << k, inf, np.int64)
    choice = np.full(1 << k, -1, np.int64)
    dp[0] = 0
    for mask in range(full + 1):
        if dp[mask] == inf:
            continue
        rest = [i for i in range(k) if not mask >> i & 1]
        for j in rest:
            cost = dp[mask] + sum(int(w[j, i]) for i in rest if i != j)
            nm = mask | (1 << j)
            if cost < dp[nm] or (cost == dp[nm] and pos[j] < pos[int(choice[nm])]):
                dp[nm] = cost
                choice[nm] = j
    order = []
    mask = full
    while mask:
        j = int(choice[mask])
        order.append(j)
        mask &= ~(1 << j)
    return order[::-1]


def contradictions(h2h: HeadToHead, order: Sequence[int]) -> list[tuple[str, str, float]]:
    """(higher, lower, lower's score against higher) where the lower won the pairing."""
    s = h2h.score()
    out = []
    for a, i in enumerate(order):
        for j in order[a + 1 :]:
            if np.isfinite(s[j, i]) and s[j, i] > 0.5:
                out.append((h2h.names[i], h2h.names[j], float(s[j, i])))
    return out


def payoff_matrix(h2h: HeadToHead) -> np.ndarray:
    """Score matrix with 0.5 where two agents never met (and on the diagonal)."""
    s = h2h.score()
    return np.where(np.isfinite(s), s, 0.5)


def alpha_rank(h2h: HeadToHead) -> np.ndarray:
    """alpha-Rank stationary mass per agent (OpenSpiel, single population, alpha -> inf)."""
    from open_spiel.python.egt import alpharank

    m = payoff_matrix(h2h)
    if len(m) < 2:
        return np.ones(len(m))
    pi = alpharank.compute([m], use_inf_alpha=True, inf_alpha_eps=0.01)[2]
    return np.asarray(pi, np.float64).reshape(-1)


def _maxent_nash_scipy(a: np.ndarray, eps: float = 1e-9) -> np.ndarray:
    from scipy.optimize import minimize

    k = len(a)

    def negent(x: np.ndarray) -> float:
        x = np.maximum(x, 1e-300)
        return float(np.sum(x * np.log(x)))

    def grad(x: np.ndarray) -> np.ndarray:
        return np.log(np.maximum(x, 1e-300)) + 1.0

    cons = [
        {"type": "eq", "fun": lambda x: np.sum(x) - 1.0, "jac": lambda x: np.ones(k)},
        {"type": "ineq", "fun": lambda x: -(a @ x), "jac": lambda x: -a},
    ]
    res = minimize(
        negent,
        np.full(k, 1.0 / k),
        jac=grad,
        bounds=[(eps, 1.0)] * k,
        constraints=cons,
        method="SLSQP",
        options={"maxiter": 500, "ftol": 1e-12},
    )
    x = np.maximum(res.x, 0.0)
    return x / x.sum()


@dataclass
class NashAverage:
    """Maximum-entropy Nash of the antisymmetric game and each agent's payoff against it."""

    mixture: np.ndarray  # (K,) probability per agent
    skill: np.ndarray  # (K,) payoff of each agent against the mixture (<= 0; 0 = in support)
    solver: str


def nash_average(h2h: HeadToHead) -> NashAverage:
    """Nash averaging (Balduzzi et al. 2018) over ``score - score.T`` (module docstring)."""
    m = payoff_matrix(h2h)
    a = m - m.T
    a = (a - a.T) / 2.0  # exactly antisymmetric
    try:
        from open_spiel.python.algorithms import nash_averaging

        p = np.asarray(nash_averaging._max_entropy_symmetric_nash(a), np.float64).reshape(-1)
        solver = "OpenSpiel nash_averaging (cvxpy)"
    except ImportError:
        p = _maxent_nash_scipy(a)
        solver = "maximum-entropy Nash with SciPy SLSQP (cvxpy not installed)"
    p = np.where(p < 1e-6, 0.0, p)
    p /= p.sum()
    return NashAverage(p, a @ p, solver)


@dataclass
class LadderStats:
    """Everything the report shows for one game and configuration, best first."""

    names: list[str]  # in rank order
    h2h: HeadToHead  # reordered by rank
    anchored: AnchoredRatings  # reordered by rank
    alpha: np.ndarray
    nash: NashAverage
    contradicted: list[tuple[str, str, float]]
    records: int


def ladder_stats(
    records: Iterable[MatchRecord], names: Sequence[str], anchor: str | None = "random"
) -> LadderStats:
    """All statistics of the module docstring, with agents in rank order."""
    recs = ordered(records)
    h = head_to_head(recs, names)
    ar = anchored_ratings(h, anchor)
    order = consistent_order(h, ar.rating)
    h = h.reorder(order)
    ar = AnchoredRatings(h.names, ar.anchor, ar.rating[order], ar.half95[order])
    return LadderStats(
        names=h.names,
        h2h=h,
        anchored=ar,
        alpha=alpha_rank(h),
        nash=nash_average(h),
        contradicted=contradictions(h, list(range(len(order)))),
        records=len(recs),
    )


def ratings_over_time(
    records: Sequence[MatchRecord],
    names: Sequence[str],
    anchor: str | None = "random",
    points: int = 20,
) -> tuple[np.ndarray, np.ndarray]:
    """Anchored ratings after the first n games, at ``points`` values of n (canonical order).

    Returns (n (T,), ratings (T, K) in ``names`` order; NaN before an agent's first game).
    """
    recs = ordered(records)
    if not recs:
        return np.zeros(0, np.int64), np.zeros((0, len(names)))
    ns = np.unique(np.linspace(1, len(recs), min(points, len(recs))).round().astype(np.int64))
    out = np.full((len(ns), len(names)), np.nan)
    for t, n in enumerate(ns):
        h = head_to_head(recs[:n], names)
        ar = anchored_ratings(h, anchor)
        played = h.games.sum(axis=1) > 0
        out[t, played] = ar.rating[played]
    return ns, out
