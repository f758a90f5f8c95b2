"""``openspiel-mcts:N``: OpenSpiel's own ``MCTSBot`` (random rollouts) as a ladder agent.

Why: an outside anchor for the ladder. Our MCTS and any trained agent can be ranked
against a search that this project did not write: OpenSpiel's Python ``MCTSBot`` with
``RandomRolloutEvaluator``, on our games registered with pyspiel (``envs/<game>/openspiel.py``;
``docs/openspiel.md``). Each decision builds the pyspiel state of the game from the batch
state (the same kernel arrays, so the same rules) and asks a fresh bot for ``N``
simulations, UCT constant 2 (OpenSpiel's examples), one rollout per leaf, solver on.

Hidden information (a hidden setup such as VF-11's programs): ``MCTSBot`` searches a perfect-
information state, so it is handed one ``determinize``-d sample of the position as the
seat to move may know it (determinized MCTS), never the hidden programs themselves.

Determinism: the bot's random state is seeded from the agent's seed and the game's own
position (as ``MCTSAgent`` does), so the same seed plays the same moves whatever the batch.
Needs the ``openspiel`` extra.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import ActContext, Agent
from agents.search.roots import (
    board_context,
    check_legal,
    open_decisions,
    position_key,
    view_key,
)


def _module(facade: Any) -> Any:
    """The OpenSpiel module of the facade's game (``envs/<game>/openspiel.py``), which turns
    the facade into its pyspiel game (``game_of``) and a batch-of-one state into a pyspiel
    state (``state_of``)."""
    import envs.openspiel as eo

    module = eo.GAMES.get(facade.name)
    if module is None or not hasattr(module, "game_of") or not hasattr(module, "state_of"):
        ours = ", ".join(n for n, m in eo.GAMES.items() if hasattr(m, "game_of"))
        raise ValueError(
            f"openspiel-mcts plays the games whose OpenSpiel module has game_of and"
            f" state_of ({ours}), not {facade.name!r}"
        )
    return module


def pyspiel_game(facade: Any) -> Any:
    """The registered pyspiel game with the same parameters as the batch facade."""
    return _module(facade).game_of(facade)


def pyspiel_state(game: Any, facade: Any, one: Any) -> Any:
    """A pyspiel state of ``game`` holding the batch-of-one facade state ``one``."""
    return _module(facade).state_of(game, facade, one)


class OpenSpielMCTSAgent(Agent):
    """OpenSpiel's ``MCTSBot`` + ``RandomRolloutEvaluator``; see the module docstring."""

    needs_context = True

    def __init__(self, simulations: int = 1000, uct_c: float = 2.0, seed: int | None = 0) -> None:
        if simulations < 1:
            raise ValueError(f"simulations must be >= 1, got {simulations}")
        self.simulations = int(simulations)
        self.uct_c = float(uct_c)
        self.seed = 0 if seed is None else int(seed)
        self.name = f"openspiel-mcts:{simulations}"
        self._games: dict[int, Any] = {}

    def reset(self, seed: int | None = None) -> None:
        self.seed = 0 if seed is None else int(seed)

    def _game(self, facade: Any) -> Any:
        if id(facade) not in self._games:
            self._games[id(facade)] = pyspiel_game(facade)
        return self._games[id(facade)]

    def act(
        self, obs: np.ndarray, mask: np.ndarray | None, context: ActContext | None = None
    ) -> np.ndarray:
        from open_spiel.python.algorithms import mcts

        facade, state, mask, seats = board_context("OpenSpielMCTSAgent", mask, context)
        game = self._game(facade)
        out, todo = open_decisions(mask)
        for i in todo:
            seat = int(seats[i])
            one = facade.take(state, np.array([i]))
            det = getattr(facade, "determinize", None)
            if det is not None:
                key = view_key(self.seed, obs[i], mask[i], seat)
                one = det(one, seat, np.random.default_rng(key))
            else:
                key = position_key(facade, state, i, self.seed)
            rs = np.random.RandomState(key % (2**32))
            bot = mcts.MCTSBot(
                game,
                self.uct_c,
                self.simulations,
                mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs),
                random_state=rs,
            )
            out[i] = int(bot.step(pyspiel_state(game, facade, one)))
        return check_legal("OpenSpielMCTSAgent", mask, out)
