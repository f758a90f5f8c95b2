"""``MCTSAgent`` (``mcts:N``): UCT on the batched array-tree search, random playouts in the kernel.

One tree per game of the batch the agent is asked about (times the determinizations,
below); all trees are searched in one compiled call (``agents/search``, ``docs/search.md``).
Each simulation walks the tree by UCT (every child once, in the order the game lists its
legal actions, then UCB1 on the mean return of the seat to move), adds one node and
values it by a uniformly random playout inside the kernel; N counts playouts. Values are per seat (max^n), so 2, 3 or 4
players work alike; a child that wins at once for its mover is always taken; root actions
after which another seat can win in one are dropped unless all are (``safety_check``).
The action played is the root action with most visits (ties: best mean return).

Hidden information (a hidden setup such as VF-11's programs): when the facade offers
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

import numpy as np

from agents.base import ActContext
from agents.mcts_python import PythonTreeMCTSAgent, safe_actions
from agents.rollout import concat
from agents.search.driver import SearchConfig, search, supports
from agents.search.roots import (
    UCTAgent,
    board_context,
    check_legal,
    decision_roots,
    open_decisions,
    position_key,
)

__all__ = ["MCTSAgent", "position_key", "safe_actions"]


class MCTSAgent(UCTAgent):
    """UCT with random playouts on the compiled array search; see the module docstring."""

    _fallback: PythonTreeMCTSAgent | None = None

    @property
    def config(self) -> SearchConfig:
        """The array search's settings from the agent's parameters."""
        return SearchConfig(
            mode="uct",
            c=self.c_uct,
            rollouts=self.rollouts_per_child,
            max_rollout_steps=self.max_rollout_steps,
            safety_check=self.safety_check,
        )

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if self._fallback is not None:
            self._fallback.reset(seed)

    def _python_tree(self) -> PythonTreeMCTSAgent:
        if self._fallback is None:
            self._fallback = PythonTreeMCTSAgent(*self.params())
        return self._fallback

    def act(
        self, obs: np.ndarray, mask: np.ndarray | None, context: ActContext | None = None
    ) -> np.ndarray:
        game, state, mask, seats = board_context("MCTSAgent", mask, context)
        if not supports(game):
            return self._python_tree().act(obs, mask, context)
        out, todo = open_decisions(mask)
        # what the seat sees decides the hidden-setup samples; a position without
        # hidden parts is keyed by the whole game state (module docstring)
        roots, own, keys, budgets = decision_roots(
            game, state, obs, mask, seats, todo, self.seed, self.determinizations, self.simulations
        )
        if roots:
            res = search(
                game,
                concat(game, roots),
                seats[own],
                budgets,
                keys,
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
        return check_legal("MCTSAgent", mask, out)
