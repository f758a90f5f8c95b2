"""``MCTSAgent`` (``mcts:N``): UCT on the batched array-tree search, random playouts in the kernel.

One tree per game of the batch the agent is asked about (times the determinizations,
below); all trees are searched in one compiled call (``agents/search``, ``docs/search.md``).
Each simulation walks the tree by UCT (every child once, in the order the game lists its
legal actions, then UCB1 on the mean return of the seat to move), adds one node and
values it by a uniformly random playout inside the kernel; N counts playouts. Values are per seat (max^n), so 2, 3 or 4
players work alike; a child that wins at once for its mover is always taken; root actions
after which another seat can win in one are dropped unless all are (``safety_check``).
The action played is the root action with most visits (ties: best mean return).

Hidden information (Virus Fight's setup, VF-11): when the facade offers
``determinize(state, seat, rng)``, the root is resampled from the acting seat's point of
view (``determinizations`` samples share the budget; their root visit counts are summed),
so the search never reads programs that seat has not seen. If two samples come out
identical the position has no hidden part and one tree gets the whole budget.

Determinism: the random draws for game i depend only on the agent's seed and game i's own
state (position, history and the game's RNG key; during a hidden setup only what the
seat observes), never on the batch around it: the same seed plays the same moves
whatever the batch size. A facade without compiled search
functions (``envs/<game>/search_api.py``) is searched by the previous Python-tree agent
(``agents.mcts_python``), with the same parameters.
"""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Any

import numpy as np

from agents.base import ActContext, Agent
from agents.mcts_python import PythonTreeMCTSAgent, _same_state, safe_actions
from agents.rollout import concat
from agents.search.driver import SearchConfig, search, supports

__all__ = ["MCTSAgent", "safe_actions"]


def _digest(seed: int, parts: list[np.ndarray]) -> int:
    h = hashlib.blake2b(digest_size=8)
    h.update(int(seed).to_bytes(8, "little", signed=True))
    for a in parts:
        h.update(np.ascontiguousarray(a).tobytes())
    return int.from_bytes(h.digest(), "little")


def position_key(game: Any, state: Any, index: int, seed: int) -> int:
    """A 64-bit key from ``seed`` and the arrays of game ``index`` of ``state`` only.

    For positions without hidden information: the whole state (position, history, the
    game's own RNG key, so that two games of a batch are searched with different draws).
    """
    one = game.take(state, np.array([index]))
    if hasattr(one, "arrays"):
        arrays = list(one.arrays())
    else:
        arrays = [getattr(one, f.name) for f in dataclasses.fields(one)]
    return _digest(seed, arrays)


class MCTSAgent(Agent):
    """UCT with random playouts on the compiled array search; see the module docstring."""

    needs_context = True

    def __init__(
        self,
        simulations: int = 200,
        c_uct: float = 1.4,
        rollouts_per_child: int = 1,
        max_rollout_steps: int | None = None,
        determinizations: int = 4,
        safety_check: bool = True,
        seed: int | None = 0,
    ) -> None:
        if simulations < 1:
            raise ValueError(f"simulations must be >= 1, got {simulations}")
        if rollouts_per_child < 1:
            raise ValueError(f"rollouts_per_child must be >= 1, got {rollouts_per_child}")
        self.simulations = simulations
        self.c_uct = c_uct
        self.rollouts_per_child = rollouts_per_child
        self.max_rollout_steps = max_rollout_steps
        self.determinizations = max(1, determinizations)
        self.safety_check = safety_check
        self.name = f"mcts:{simulations}"
        self.seed = 0 if seed is None else int(seed)
        self._fallback: PythonTreeMCTSAgent | None = None
        self.config = SearchConfig(
            mode="uct",
            c=c_uct,
            rollouts=rollouts_per_child,
            max_rollout_steps=max_rollout_steps,
            safety_check=safety_check,
        )

    def reset(self, seed: int | None = None) -> None:
        self.seed = 0 if seed is None else int(seed)
        if self._fallback is not None:
            self._fallback.reset(seed)

    def _python_tree(self) -> PythonTreeMCTSAgent:
        if self._fallback is None:
            self._fallback = PythonTreeMCTSAgent(
                self.simulations,
                self.c_uct,
                self.rollouts_per_child,
                self.max_rollout_steps,
                self.determinizations,
                self.safety_check,
                self.seed,
            )
        return self._fallback

    def act(
        self, obs: np.ndarray, mask: np.ndarray | None, context: ActContext | None = None
    ) -> np.ndarray:
        if context is None:
            raise ValueError("MCTSAgent needs an ActContext with the game facade and state")
        if mask is None:
            raise ValueError("MCTSAgent plays the turn-based games only (mask required)")
        game, state = context.game, context.state
        if not supports(game):
            return self._python_tree().act(obs, mask, context)
        mask = np.asarray(mask, bool)
        out = np.zeros(len(mask), np.int64)
        roots: list[Any] = []
        owner: list[int] = []
        seats: list[int] = []
        keys: list[int] = []
        for i in range(len(mask)):
            legal = np.flatnonzero(mask[i])
            if len(legal) == 0:
                raise ValueError(f"no legal action in game {i}")
            out[i] = legal[0]
            if len(legal) == 1:
                continue
            seat = int(context.seats[i])
            # what the seat sees decides the hidden-setup samples; a position without
            # hidden parts is keyed by the whole game state (module docstring)
            key = _digest(self.seed, [np.asarray(obs[i]), mask[i], np.array([seat])])
            one = game.take(state, np.array([i]))
            samples = self._root_states(game, one, seat, np.random.default_rng(key))
            if len(samples) == 1:
                key = position_key(game, state, i, self.seed)
            for j, r in enumerate(samples):
                roots.append(r)
                owner.append(i)
                seats.append(seat)
                keys.append((key + 0x9E3779B97F4A7C15 * (j + 1)) & 0xFFFFFFFFFFFFFFFF)
        if roots:
            own = np.array(owner)
            per_game = np.bincount(own, minlength=len(mask))
            budgets = np.maximum(1, self.simulations // per_game[own])
            res = search(
                game,
                concat(game, roots),
                np.array(seats),
                budgets,
                np.array(keys, np.uint64),
                self.config,
            )
            for i in np.unique(own):
                rows = own == i
                visits = res.visits[rows].sum(axis=0)
                q = res.qsum[rows].sum(axis=0) / np.maximum(visits, 1)
                # only the real position's legal moves: with a tiny budget split over
                # hidden-setup samples no child may have been visited at all
                visits = np.where(mask[i], visits, -1)
                best = np.flatnonzero(visits == visits.max())
                out[i] = best[np.argmax(q[best])]
        if not mask[np.arange(len(mask)), out].all():
            raise AssertionError("MCTSAgent produced an illegal action")  # a bug, never expected
        return out

    def _root_states(self, game: Any, root: Any, seat: int, rng: np.random.Generator) -> list[Any]:
        """The root position(s) to search from, as ``seat`` may know them."""
        det = getattr(game, "determinize", None)
        if det is None:
            return [root]
        samples = [det(root, seat, rng) for _ in range(max(2, self.determinizations))]
        if _same_state(samples[0], samples[1]):  # nothing hidden: perfect information
            return samples[:1]
        return samples[: self.determinizations]
