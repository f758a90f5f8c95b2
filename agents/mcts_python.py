"""The previous ``MCTSAgent``: UCT over a tree of Python objects, playouts batched on the kernels.

Kept under its own name for two reasons: it plays any ``BatchGame`` facade, also one
without the compiled search functions (``envs/<game>/search_api.py``; the tests' tic-tac-toe),
so ``agents.mcts.MCTSAgent`` falls back to it there; and ``benchmarks/search.py`` measures
the array search against it. What it does:

One tree per game of the batch the agent is asked about (times the number of
determinizations, below). All trees advance together: each iteration selects one leaf
per tree by UCT, expands *all* children of every selected leaf with one ``game.step``
call on the gathered states, and plays ``rollouts_per_child`` random playouts from every
new child, all trees' playouts as one batch (``agents.rollout.random_playout``). The
simulation budget per move counts playouts. Values are per seat: at each node the seat to
move picks the child best for *that* seat (UCB1 on its mean return), so 2, 3 or 4 players
work alike. The action played is the root child with most visits (ties: best mean).

Hidden information (a hidden setup such as VF-11's programs): when the facade offers
``determinize(state, seat, rng)``, the root is resampled from the acting seat's point of
view (``determinizations`` samples share the budget; their root visit counts are summed),
so the search never reads programs that seat has not seen. If two samples come out
identical the position has no hidden part and one tree gets the whole budget.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from agents.base import ActContext
from agents.rollout import concat, random_playout
from agents.search.roots import (
    UCTAgent,
    board_context,
    check_legal,
    open_decisions,
    root_samples,
    same_state,
)

#: the old private name (``agents.mcts`` imported it)
_same_state = same_state


class _Node:
    __slots__ = (
        "_state",
        "_src",
        "player",
        "actions",
        "children",
        "n",
        "w",
        "reward_in",
        "parent",
        "win_child",
        "allowed",
    )

    def __init__(
        self,
        state: Any,
        src: tuple[Any, int] | None,
        player: int,
        reward_in: np.ndarray,
        parent: _Node | None,
    ) -> None:
        self._state = state  # batch-of-1 state, or None until first needed
        self._src = src  # (children batch, index) to take the state from lazily
        self.player = player  # seat to move; -1 when the game is over
        self.actions: np.ndarray | None = None  # legal actions once expanded
        self.children: list[_Node] = []
        self.n = 0
        self.w = np.zeros_like(reward_in)  # summed returns per seat (from this node on)
        self.reward_in = reward_in  # rewards per seat of the step that led here
        self.parent = parent
        self.win_child: _Node | None = None  # a child that ends the game won by ``player``
        self.allowed: np.ndarray | None = None  # root only: actions left after the safety check

    def state(self, game: Any) -> Any:
        if self._state is None:
            assert self._src is not None
            batch, j = self._src
            self._state = game.take(batch, np.array([j]))
            self._src = None
        return self._state


def safe_actions(game: Any, state: Any, seat: int) -> np.ndarray:
    """(A,) legal actions of the single game ``state`` after which the next mover (another
    seat) cannot win at once; all legal actions if every one of them allows that.

    The root's anti-decisive filter: one batched step over every (action, reply) pair.
    """
    legal = np.asarray(game.legal_mask(state), bool)[0]
    acts = np.flatnonzero(legal)
    kids = game.take(state, np.zeros(len(acts), np.int64))
    game.step(kids, acts.astype(np.int64))
    movers = np.asarray(game.current_player(kids), np.int64)
    threat = np.flatnonzero((movers >= 0) & (movers != seat))
    if len(threat) == 0:
        return legal
    sub = game.take(kids, threat)
    k2, a2 = np.nonzero(np.asarray(game.legal_mask(sub), bool))
    grand = game.take(sub, k2)
    r2, d2 = game.step(grand, a2.astype(np.int64))
    wins = np.asarray(d2, bool) & (np.asarray(r2)[np.arange(len(k2)), movers[threat][k2]] > 0)
    losing = np.zeros(len(acts), bool)
    losing[threat[np.unique(k2[wins])]] = True
    if losing.all():
        return legal
    out = np.zeros_like(legal)
    out[acts[~losing]] = True
    return out


class PythonTreeMCTSAgent(UCTAgent):
    """UCT with batched random playouts over a Python tree; see the module docstring."""

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.rng = np.random.default_rng(seed)

    def act(
        self, obs: np.ndarray, mask: np.ndarray | None, context: ActContext | None = None
    ) -> np.ndarray:
        game, state, mask, seats = board_context("PythonTreeMCTSAgent", mask, context)
        out, todo = open_decisions(mask)
        roots: list[_Node] = []
        owner: list[int] = []
        for i in todo:
            seat = int(seats[i])
            one = game.take(state, np.array([i]))
            for r in root_samples(game, one, seat, self.rng, self.determinizations):
                root = _Node(r, None, seat, np.zeros(game.num_players), None)
                if self.safety_check:
                    root.allowed = safe_actions(game, r, seat)
                roots.append(root)
                owner.append(i)
        if roots:
            per_game = np.bincount(np.array(owner), minlength=len(mask))
            budgets = [max(1, self.simulations // int(per_game[i])) for i in owner]
            self._search(game, roots, budgets)
            for i in np.unique(owner):
                visits: dict[int, list[float]] = {}
                for root, o in zip(roots, owner, strict=True):
                    if o != i:
                        continue
                    assert root.actions is not None
                    p = root.player
                    for a, ch in zip(root.actions.tolist(), root.children, strict=True):
                        v = visits.setdefault(a, [0.0, 0.0])
                        v[0] += ch.n
                        v[1] += ch.w[p] + ch.n * ch.reward_in[p]
                out[i] = max(
                    visits, key=lambda a: (visits[a][0], visits[a][1] / max(visits[a][0], 1))
                )
        return check_legal("PythonTreeMCTSAgent", mask, out)

    # -- search -------------------------------------------------------------------------
    def _search(self, game: Any, roots: list[_Node], budgets: list[int]) -> None:
        used = [0] * len(roots)
        while True:
            leaves: list[tuple[int, _Node]] = []
            for t, root in enumerate(roots):
                if used[t] >= budgets[t]:
                    continue
                node = root
                while node.actions is not None and node.player >= 0:
                    node = self._select(node)
                if node.player < 0:  # terminal: a zero-value visit
                    self._backup(node, np.zeros_like(node.w), 1)
                    used[t] += 1
                else:
                    leaves.append((t, node))
            if not leaves:
                if all(u >= b for u, b in zip(used, budgets, strict=True)):
                    return
                continue
            counts = self._expand(game, [node for _, node in leaves])
            for (t, _), c in zip(leaves, counts, strict=True):
                used[t] += c

    def _select(self, node: _Node) -> _Node:
        if node.win_child is not None:  # decisive move: the mover always takes a win in one
            return node.win_child
        p = node.player
        log_n = math.log(max(node.n, 1))
        best, best_score = node.children[0], -math.inf
        for ch in node.children:
            if ch.n == 0:
                return ch
            q = ch.w[p] / ch.n + ch.reward_in[p]
            score = q + self.c_uct * math.sqrt(log_n / ch.n)
            if score > best_score:
                best, best_score = ch, score
        return best

    def _expand(self, game: Any, leaves: list[_Node]) -> list[int]:
        """Expand every leaf, roll out all new children in one batch, back up; playouts each."""
        states = concat(game, [leaf.state(game) for leaf in leaves])
        mask = np.asarray(game.legal_mask(states), bool)
        for k, leaf in enumerate(leaves):
            if leaf.allowed is not None:
                mask[k] &= leaf.allowed
        rows, actions = np.nonzero(mask)  # row-major: each leaf's actions in order
        children = game.take(states, rows)
        rewards, _ = game.step(children, actions.astype(np.int64))
        rewards = np.asarray(rewards, np.float64)
        players = np.asarray(game.current_player(children), np.int64)
        r = self.rollouts_per_child
        sims = game.take(children, np.repeat(np.arange(len(rows)), r))
        returns = random_playout(game, sims, self.rng, self.max_rollout_steps)
        returns = returns.astype(np.float64).reshape(len(rows), r, -1).sum(axis=1)
        counts = []
        for k, leaf in enumerate(leaves):
            idx = np.flatnonzero(rows == k)
            leaf.actions = actions[idx]
            leaf.children = []
            total = np.zeros(game.num_players)
            for j in idx:
                ch = _Node(None, (children, int(j)), int(players[j]), rewards[j], leaf)
                ch.n = r
                ch.w = returns[j].copy()
                leaf.children.append(ch)
                if leaf.win_child is None and ch.player < 0 and rewards[j][leaf.player] > 0:
                    leaf.win_child = ch
                total += returns[j] + r * rewards[j]
            self._backup(leaf, total, len(idx) * r)
            counts.append(len(idx) * r)
        return counts

    @staticmethod
    def _backup(node: _Node, total: np.ndarray, count: int) -> None:
        """Add ``count`` returns summing to ``total`` (relative to ``node``) up the path."""
        cur: _Node | None = node
        total = total.copy()
        while cur is not None:
            cur.n += count
            cur.w += total
            total += count * cur.reward_in
            cur = cur.parent
