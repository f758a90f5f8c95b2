"""Array trees for ``T`` searches advanced together, and the tree operations in Numba.

Why arrays: one tree per game (times the determinizations of a hidden setup) lives in a
row of a few numpy arrays, as in DeepMind's mctx, so selection, expansion and backup of
all trees are compiled loops and the evaluation of all leaves is one batched call.

Nodes (``(T, M)`` arrays, ``M`` = simulations + 1): visit count ``n``, value sums per
seat ``w`` (the returns each seat received from this node on), the rewards per seat of
the step that led here ``r``, ``parent``, the seat to move ``player`` (-1: the game is
over), the node's edges ``edge0`` / ``nedge`` (``nedge`` = -1 until it is expanded) and
``win`` (an edge whose child ends the game won by the mover, taken whenever the node is
visited again). Edges (``(T, E)`` arrays): ``action``, ``prior``, ``child`` (-1 until the
child is created). Edges are created when their node is expanded, one per legal action;
``E`` grows on demand (:meth:`Trees.grow`), so games with thousands of actions (the larger
boards) cost only what they use.

The game state is kept only at the roots: a simulation copies its root into a scratch
slot and replays the actions of its path there (a game step costs well under a
microsecond, the path is a few steps long), which keeps memory at three state slots per
tree whatever the budget (a state with a long repetition history holds several kB).

Values are per seat: at each node the seat to move picks by its own value (max^n), so
2, 3 and 4 players work alike. Selection rules (``mode``): 0 = UCT (every child once, in
the order the game lists its legal actions, then UCB1), 1 = PUCT with priors (unvisited children have value 0).
"""

from __future__ import annotations

import types
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
from numba import njit

UCT = 0
PUCT = 1

#: Compile options of the functions a simulation calls (the tree operations below, the
#: per-simulation loops of ``driver.py``, the games' ``search_api.py``): without Numba's
#: reference counts. Why: a compiled function that calls another counts a reference to
#: every array of its tuple arguments on entry and drops it on exit, two atomic
#: operations per array (the trees are 16 arrays, a game state up to 13), and these were
#: half the CPU samples of a search's tree loop (docs/search.md). Such a function must not
#: allocate an array; the loops that do (the driver's entry points) keep the runtime.
NO_REFCOUNT: dict[str, Any] = {"cache": True, "_nrt": False}


@dataclass
class Trees:
    """The arrays of ``T`` trees (module docstring); tuple order is :meth:`arrays`."""

    n: np.ndarray  # (T, M) int32
    w: np.ndarray  # (T, M, P) float64
    r: np.ndarray  # (T, M, P) float64
    parent: np.ndarray  # (T, M) int32
    player: np.ndarray  # (T, M) int32
    edge0: np.ndarray  # (T, M) int32
    nedge: np.ndarray  # (T, M) int32
    win: np.ndarray  # (T, M) int32
    action: np.ndarray  # (T, E) int32
    prior: np.ndarray  # (T, E) float32
    child: np.ndarray  # (T, E) int32
    count: np.ndarray  # (T, 2) int32: nodes, edges in use
    sims: np.ndarray  # (T,) int32 simulations done
    budget: np.ndarray  # (T,) int32 simulations to do
    key: np.ndarray  # (T,) uint64 each tree's splitmix64 key (playouts, Gumbel noise)
    draw: np.ndarray  # (T, P) float64 the returns a drawn ending backs up (contempt)

    @classmethod
    def allocate(
        cls,
        budgets: np.ndarray,
        players: int,
        root_player: np.ndarray,
        edges: int,
        keys: np.ndarray,
        draw: np.ndarray | None = None,
    ) -> Trees:
        """Empty trees (only the root node, not yet expanded) for the given budgets;
        ``draw`` (T, P): what a drawn ending is worth to each seat (zeros by default)."""
        t = len(budgets)
        m = int(np.max(budgets)) + 2
        tr = cls(
            n=np.zeros((t, m), np.int32),
            w=np.zeros((t, m, players), np.float64),
            r=np.zeros((t, m, players), np.float64),
            parent=np.full((t, m), -1, np.int32),
            player=np.full((t, m), -1, np.int32),
            edge0=np.zeros((t, m), np.int32),
            nedge=np.full((t, m), -1, np.int32),
            win=np.full((t, m), -1, np.int32),
            action=np.zeros((t, edges), np.int32),
            prior=np.zeros((t, edges), np.float32),
            child=np.full((t, edges), -1, np.int32),
            count=np.zeros((t, 2), np.int32),
            sims=np.zeros(t, np.int32),
            budget=np.asarray(budgets, np.int32).copy(),
            key=np.asarray(keys, np.uint64).copy(),
            draw=np.zeros((t, players)) if draw is None else np.asarray(draw, np.float64).copy(),
        )
        tr.count[:, 0] = 1
        tr.player[:, 0] = root_player
        return tr

    def arrays(self) -> tuple[np.ndarray, ...]:
        """The arrays in the order the compiled functions take them."""
        return tuple(getattr(self, f.name) for f in fields(self))

    def grow(self, min_free: int) -> None:
        """Double the edge capacity until every tree has ``min_free`` free edges."""
        cap = self.action.shape[1]
        need = int(self.count[:, 1].max()) + min_free
        new = cap
        while new < need:
            new *= 2
        if new == cap:
            return
        t = self.action.shape[0]
        for name, fill in (("action", 0), ("prior", 0), ("child", -1)):
            old = getattr(self, name)
            arr = np.full((t, new), fill, old.dtype)
            arr[:, :cap] = old
            setattr(self, name, arr)


def specialize(fn: Callable[..., Any], suffix: str, refcount: bool = True, **bindings: Any) -> Any:
    """An njit (``cache=True``) twin of ``fn`` whose global names ``bindings`` are rebound.

    Why: Numba cannot cache a function that takes another compiled function as an
    argument (each dispatcher is a new type), so each game gets its own compiled copy of
    the search loops, with the game's step, legal-move and playout functions bound as
    globals. The twin gets its own qualified name, hence its own on-disk cache entry.
    ``refcount=False`` compiles it with :data:`NO_REFCOUNT` (it must not allocate).
    """
    glb = dict(fn.__globals__)
    glb.update(bindings)
    twin = types.FunctionType(
        fn.__code__, glb, f"{fn.__name__}__{suffix}", fn.__defaults__, fn.__closure__
    )
    twin.__qualname__ = f"{fn.__qualname__}__{suffix}"
    twin.__module__ = fn.__module__
    twin.__doc__ = fn.__doc__
    return njit(**({"cache": True} if refcount else NO_REFCOUNT))(twin)


# ----------------------------------------------------------------------------- tree ops


@njit(**NO_REFCOUNT)
def select_edge(TR, t, node, mode, c):
    """The edge the seat to move at ``node`` follows (UCT or PUCT, module docstring)."""
    n, w, r, parent, player, edge0, nedge, win, action, prior, child = TR[:11]
    if win[t, node] >= 0:  # a win in one: the mover always takes it
        return win[t, node]
    p = player[t, node]
    e0 = edge0[t, node]
    k = nedge[t, node]
    best = e0
    best_score = -np.inf
    if mode == UCT:
        log_n = np.log(max(n[t, node], 1))
        for e in range(e0, e0 + k):
            ch = child[t, e]
            if ch < 0 or n[t, ch] == 0:
                return e
            q = w[t, ch, p] / n[t, ch] + r[t, ch, p]
            score = q + c * np.sqrt(log_n / n[t, ch])
            if score > best_score:
                best, best_score = e, score
        return best
    sq = np.sqrt(max(n[t, node], 1))
    for e in range(e0, e0 + k):
        ch = child[t, e]
        q = 0.0
        nc = 0
        if ch >= 0 and n[t, ch] > 0:
            nc = n[t, ch]
            q = w[t, ch, p] / nc + r[t, ch, p]
        score = q + c * prior[t, e] * sq / (1 + nc)
        if score > best_score:
            best, best_score = e, score
    return best


@njit(**NO_REFCOUNT)
def add_child(TR, t, node, e, player_now, rew):
    """Create the child of edge ``e`` of ``node``: its seat to move and incoming rewards."""
    n, w, r, parent, player, edge0, nedge, win, action, prior, child, count = TR[:12]
    ch = count[t, 0]
    count[t, 0] += 1
    parent[t, ch] = node
    player[t, ch] = player_now
    for s in range(rew.shape[0]):
        r[t, ch, s] = rew[s]
    child[t, e] = ch
    mover = player[t, node]
    if player_now < 0 and win[t, node] < 0 and rew[mover] > 0:
        win[t, node] = e
    if player_now < 0:  # a drawn ending is worth what the tree's ``draw`` row says
        draw_returns(TR, t, r[t, ch])
    return ch


@njit(**NO_REFCOUNT)
def draw_returns(TR, t, ret):
    """If ``ret`` (P,) are the returns of a drawn ending (all zero), make them tree
    ``t``'s draw values (contempt: below zero for the root's seat), in place."""
    for s in range(ret.shape[0]):
        if ret[s] != 0.0:
            return
    for s in range(ret.shape[0]):
        ret[s] = TR[15][t, s]


@njit(**NO_REFCOUNT)
def add_edges(TR, t, node, acts, k, priors, allowed):
    """Expand ``node`` with edges for ``acts[:k]`` (``allowed`` (A,) bool filters them).

    ``priors`` is (A,) (renormalised over the kept actions) or empty for uniform ones.
    Returns the number of edges made (0 only if nothing was allowed: then all are kept).
    """
    edge0, nedge, action, prior, child, count = TR[5], TR[6], TR[8], TR[9], TR[10], TR[11]
    kept = 0
    if allowed.shape[0] > 0:
        for j in range(k):
            if allowed[acts[j]]:
                kept += 1
    use_allowed = allowed.shape[0] > 0 and kept > 0
    e0 = count[t, 1]
    m = 0
    total = 0.0
    for j in range(k):
        a = acts[j]
        if use_allowed and not allowed[a]:
            continue
        action[t, e0 + m] = a
        child[t, e0 + m] = -1
        pr = 1.0 if priors.shape[0] == 0 else max(float(priors[a]), 0.0)
        prior[t, e0 + m] = pr
        total += pr
        m += 1
    for j in range(m):
        prior[t, e0 + j] = prior[t, e0 + j] / total if total > 0 else 1.0 / m
    edge0[t, node] = e0
    nedge[t, node] = m
    count[t, 1] = e0 + m
    return m


@njit(**NO_REFCOUNT)
def backup(TR, t, node, value, count):
    """Add ``count`` visits whose returns (from ``node`` on) sum to ``value`` up the path."""
    n, w, r, parent = TR[0], TR[1], TR[2], TR[3]
    cur = node
    while cur >= 0:
        n[t, cur] += count
        cur = parent[t, cur]
    for s in range(value.shape[0]):  # one walk per seat: no scratch array to allocate
        total = value[s]
        cur = node
        while cur >= 0:
            w[t, cur, s] += total
            total += count * r[t, cur, s]
            cur = parent[t, cur]


@njit(**NO_REFCOUNT)
def root_stats(TR, num_actions, visits, qsum):
    """Per tree and root action: visits of the child, and the summed return of its seat."""
    n, w, r, parent, player, edge0, nedge, win, action, prior, child = TR[:11]
    for t in range(n.shape[0]):
        p = player[t, 0]
        for e in range(edge0[t, 0], edge0[t, 0] + max(nedge[t, 0], 0)):
            ch = child[t, e]
            a = action[t, e]
            if ch >= 0 and p >= 0:
                visits[t, a] += n[t, ch]
                qsum[t, a] += w[t, ch, p] + n[t, ch] * r[t, ch, p]
