"""``openspiel-mcts:N``: OpenSpiel's own ``MCTSBot`` (random rollouts) as a ladder agent.

Why: an outside anchor for the ladder. Our MCTS and any trained agent can be ranked
against a search that this project did not write: OpenSpiel's Python ``MCTSBot`` with
``RandomRolloutEvaluator``, on our games registered with pyspiel (``envs/<game>/openspiel.py``;
``docs/openspiel.md``). Each decision builds the pyspiel state of the game from the batch
state (the same kernel arrays, so the same rules) and asks a fresh bot for ``N``
simulations, UCT constant 2 (OpenSpiel's examples), one rollout per leaf, solver on.

Hidden information (Virus Fight's setup, VF-11): ``MCTSBot`` searches a perfect-
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
from agents.mcts import _digest, position_key


def pyspiel_game(facade: Any) -> Any:
    """The registered pyspiel game with the same parameters as the batch facade."""
    import pyspiel

    import envs.openspiel as eo

    name = facade.name
    if name == "proteus":
        params: dict[str, Any] = {"max_turns": int(facade.max_turns)}
    elif name == "virus_fight":
        params = {
            "players": int(facade.num_players),
            "board_size": int(facade.board_size),
            "max_rounds": int(facade.max_rounds),
        }
    else:
        raise ValueError(f"openspiel-mcts plays proteus and virus_fight, not {name!r}")
    return pyspiel.load_game(eo.short_name(name), params)


def pyspiel_state(game: Any, facade: Any, one: Any) -> Any:
    """A pyspiel state of ``game`` holding the batch-of-one facade state ``one``."""
    state = game.new_initial_state()
    state._st = facade.copy(one)
    if facade.name == "virus_fight":
        from envs.virus_fight import kernel as K

        if int(one.info[0, K.I_PHASE]) != K.PH_SETUP:
            state._after_reveal()  # the programs are public from here on (VF-11)
    return state


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

        if context is None or mask is None:
            raise ValueError("OpenSpielMCTSAgent needs the mask and an ActContext (game, state)")
        facade, state = context.game, context.state
        game = self._game(facade)
        mask = np.asarray(mask, bool)
        out = np.zeros(len(mask), np.int64)
        for i in range(len(mask)):
            legal = np.flatnonzero(mask[i])
            if len(legal) == 0:
                raise ValueError(f"no legal action in game {i}")
            out[i] = legal[0]
            if len(legal) == 1:
                continue
            seat = int(context.seats[i])
            one = facade.take(state, np.array([i]))
            det = getattr(facade, "determinize", None)
            if det is not None:
                key = _digest(self.seed, [np.asarray(obs[i]), mask[i], np.array([seat])])
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
        if not mask[np.arange(len(mask)), out].all():
            raise AssertionError("OpenSpielMCTSAgent produced an illegal action")  # a bug
        return out
