"""Proteus as the OpenSpiel Python game ``python_proteus``.

=========================  ===============================================================
short name                 ``python_proteus``; parameter ``max_turns`` (PR-17, default 200)
dynamics                   sequential, deterministic (no chance node)
information                perfect (PR-3 [decision])
utility                    zero-sum; terminal rewards +1 / -1, 0 for both on a PR-17 draw
actions                    the kernel's 226 ids (``envs.proteus.constants``), named in the
                           rules' notation by ``action_to_string`` (``Mo@b2``, ``s@b2``,
                           ``b2-c3``, ``a1<>c3``, ``pass``)
observation tensor         the kernel's (3, 3, 35) planes from the player's point of view
observation string         the one-line position text (loadable by the AEC env)
information state string   the action history (perfect information, perfect recall)
=========================  ===============================================================

Every transition is the Proteus Numba kernel through the batch facade at batch size 1
(its serial path), so OpenSpiel's MCTS and AlphaZero search the same rules as the AEC env.
OpenSpiel's ``MCTSBot`` asks a state for its player to act several times per step of
its random playouts, so the state keeps that answer (``_sync`` after each change of its
arrays) instead of recomputing it from the arrays, and a clone copies the arrays only
(``KernelState.__deepcopy__``).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.observation import IIGObserverForPublicInfoGame

from envs.openspiel.common import board_game_type, merged_params
from envs.proteus.batch import ProteusBatch, text_of
from envs.proteus.constants import DEFAULT_MAX_TURNS, NUM_ACTIONS
from envs.proteus.notation import action_to_str

SHORT_NAME = "python_proteus"
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)
_PARAMS = {"max_turns": DEFAULT_MAX_TURNS}

GAME_TYPE = board_game_type(
    SHORT_NAME,
    "Proteus (Tabletop Arena kernels)",
    chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    players=(2, 2),
    params=_PARAMS,
)


@functools.cache
def facade_for(max_turns: int) -> ProteusBatch:
    """One shared facade per turn limit (states hold only their arrays)."""
    return ProteusBatch(max_turns=max_turns)


class ProteusGame(pyspiel.Game):
    """``python_proteus``: the turn limit and the factory of states."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        merged = merged_params(SHORT_NAME, _PARAMS, params)
        self.max_turns = int(merged["max_turns"])
        facade_for(self.max_turns)  # validates max_turns
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=0,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=self.max_turns,
        )
        super().__init__(GAME_TYPE, info, merged)

    def new_initial_state(self) -> ProteusState:
        return ProteusState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> Any:
        if iig_obs_type is None or (iig_obs_type.public_info and not iig_obs_type.perfect_recall):
            return ProteusObserver(params)
        return IIGObserverForPublicInfoGame(iig_obs_type, params)


class ProteusState(pyspiel.State):
    """A game in progress: the kernel arrays of one game."""

    def __init__(self, game: ProteusGame) -> None:
        super().__init__(game)
        # from the parameters, not a Python attribute: a game unpickled in another
        # process (AlphaZero's actors) is rebuilt from its parameters only
        self._max_turns = int(game.get_parameters()["max_turns"])
        self._st = facade_for(self._max_turns).init(1, 0)
        self._returns = [0.0, 0.0]
        self._sync()

    @property
    def facade(self) -> ProteusBatch:
        return facade_for(self._max_turns)

    def _sync(self) -> None:
        """Recompute the cached player to act after ``_st`` changed (the facade's
        ``current_player``, or TERMINAL once the game is over)."""
        st = self._st
        self._cur = _TERMINAL if st.status[0] != 0 else int(st.player[0])

    def current_player(self) -> int:
        return self._cur

    def _legal_actions(self, player: int) -> list[int]:
        return np.flatnonzero(self.facade.legal_mask(self._st)[0]).tolist()  # type: ignore[no-any-return]

    def _apply_action(self, action: int) -> None:
        rewards, done = self.facade.step(self._st, np.array([action], np.int64))
        self._sync()
        if done[0]:
            self._returns = [float(rewards[0, 0]), float(rewards[0, 1])]

    def _action_to_string(self, player: int, action: int) -> str:
        return action_to_str(int(action))

    def is_terminal(self) -> bool:
        return self._cur == _TERMINAL

    def returns(self) -> list[float]:
        return list(self._returns)

    def position_text(self) -> str:
        """The AEC env's one-line position text of this state."""
        return text_of(self._st)

    def __str__(self) -> str:
        return self.position_text()


def game_of(facade: ProteusBatch) -> ProteusGame:
    """The registered pyspiel game with the facade's turn limit (``openspiel-mcts:N``)."""
    return pyspiel.load_game(SHORT_NAME, {"max_turns": int(facade.max_turns)})  # type: ignore[no-any-return]


def state_of(game: ProteusGame, facade: ProteusBatch, one: Any) -> ProteusState:
    """A pyspiel state of ``game`` holding the batch-of-one facade state ``one``."""
    state = game.new_initial_state()
    state._st = facade.copy(one)
    state._sync()
    return state


class ProteusObserver:
    """PyObserver over the kernel's observation planes; the string is the position text."""

    def __init__(self, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters not supported; got {params}")
        shape = facade_for(DEFAULT_MAX_TURNS).obs_shape
        self.tensor = np.zeros(int(np.prod(shape)), np.float32)
        self.dict = {"observation": self.tensor.reshape(shape)}

    def set_from(self, state: ProteusState, player: int) -> None:
        planes = state.facade.observe(state._st, np.array([player], np.int64))
        self.dict["observation"][...] = planes[0]

    def string_from(self, state: ProteusState, player: int) -> str:
        return f"p{player} {state.position_text()}"


pyspiel.register_game(GAME_TYPE, ProteusGame)
