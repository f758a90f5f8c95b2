"""Virus Fight as the OpenSpiel Python game ``python_virus_fight``.

=========================  ===============================================================
short name                 ``python_virus_fight``; parameters ``players`` (2-4, VF-1),
                           ``board_size`` (5-8, 0 = the VF-4 default for ``players``),
                           ``max_rounds`` (VF-17, default 100)
dynamics                   sequential
chance                     explicit stochastic: one chance node, the VF-12 tie-break
information                imperfect (the hidden program writing of VF-11)
utility                    general-sum (zero-sum with 2 players); terminal rewards
                           +1 / -1 / 0 as in the AEC env (VF-16, VF-17)
actions                    the kernel's encoding (``envs.virus_fight.kernel``), notation
                           via ``action_to_string`` (``W2@c1``, ``c1-d2``, ``xc2``, ``*c2``,
                           ``pass``); chance action ``s`` = seat ``s`` starts round 1
observation tensor         the kernel's planes from the player's point of view
information state string   perfect recall: own setup actions, then (once every program is
                           revealed) the revealed board and every later public action
=========================  ===============================================================

Every transition is the Virus Fight Numba kernel at batch size 1 (the AEC env's serial
``*_one`` twins). The kernel draws the VF-12 tie-break from its per-game RNG key; here that
draw becomes a chance node: when the last program is completed and several seats tie,
the state waits for a chance outcome (uniform over the tied seats), and the kernel is then
stepped with an RNG key chosen so that its own draw picks that seat. The tied set itself
is read from the kernel (the distinct first players it produces under keys that force
each draw index), so VF-12 is not written a second time here.

Speed: OpenSpiel's Python ``MCTSBot`` asks for the player to act, the legal actions and a
step hundreds of thousands of times a move and clones once per simulation, so the state
caches the player to act, the states of one configuration share a mask row and a reward row
(step them from one thread at a time, as OpenSpiel's Python bots do) and a clone copies
arrays only (``VFState.__deepcopy__``).

``resample_from_infostate`` (used by IS-MCTS) redraws the programs a player has not seen
with the batch facade's ``determinize`` and replays them as setup actions on a fresh
state, so the sampled world has a consistent history and the same information state.
"""

from __future__ import annotations

import copy
import functools
from typing import Any

import numpy as np
import pyspiel

from envs.openspiel.common import board_game_type, merged_params
from envs.virus_fight import kernel as K
from envs.virus_fight import notation
from envs.virus_fight.batch import DEFAULT_BOARD, VFState, VirusFightBatch

SHORT_NAME = "python_virus_fight"
_PARAMS = {"players": 2, "board_size": 0, "max_rounds": 100}
# Why module constants and bound kernels: OpenSpiel's MCTSBot calls ``current_player``,
# ``legal_actions`` and ``apply_action`` hundreds of thousands of times a move (random
# rollouts), and each ``K.X`` is a PEP 562 lookup over the kernel's sibling modules.
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)
_CHANCE = int(pyspiel.PlayerId.CHANCE)
_I_PHASE, _I_CUR, _I_HLEN = K.I_PHASE, K.I_CUR, K.I_HLEN
_PH_OVER, _PH_SETUP = K.PH_OVER, K.PH_SETUP
_step_one = K.step_one
_legal_mask_one = K.legal_mask_one


def _game_type(utility: Any) -> pyspiel.GameType:
    return board_game_type(
        SHORT_NAME,
        "Virus Fight (Tabletop Arena kernels)",
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=utility,
        players=(2, 4),
        params=_PARAMS,
    )


#: registered type: general-sum (3-4 players: one +1, the rest -1, or shared 0s)
GAME_TYPE = _game_type(pyspiel.GameType.Utility.GENERAL_SUM)
#: a 2-player game is zero-sum (+1/-1, or 0/0 on a shared adjudication)
GAME_TYPE_2P = _game_type(pyspiel.GameType.Utility.ZERO_SUM)


@functools.cache
def facade_for(players: int, board_size: int, max_rounds: int) -> VirusFightBatch:
    """One shared facade per configuration (states hold only their arrays)."""
    return VirusFightBatch(num_players=players, board_size=board_size, max_rounds=max_rounds)


@functools.cache
def _kernel_args(config: tuple[int, int, int]) -> tuple[Any, ...]:
    """(facade, seg, cfg, mask row, reward row, max_rounds) of a configuration: scratch
    arrays shared by its states (one thread steps them; the kernels overwrite both)."""
    fac = facade_for(*config)
    row = np.zeros(fac.num_actions, np.bool_)
    rew = np.zeros((1, fac.num_players), np.float32)
    return fac, fac.seg, fac.cfg, row, rew, int(fac.max_rounds)


@functools.cache
def _new_game(config: tuple[int, int, int]) -> VFState:
    """The kernel state of a new game (seed 0) of a configuration; copied, never changed."""
    return facade_for(*config).init(1, 0)


@functools.cache
def forcing_key(m: int, j: int) -> int:
    """An RNG key under which the kernel's VF-12 draw among ``m`` tied seats picks index j."""
    for key in range(1 << 20):
        if int(K._rand(np.array([key], np.uint64), 0, m)) == j:
            return key
    raise RuntimeError(f"no RNG key forces draw {j} of {m}")  # pragma: no cover


def game_config(game: pyspiel.Game) -> tuple[int, int, int]:
    """(players, board_size, max_rounds) from the game's parameters (a game unpickled in
    another process is rebuilt from its parameters, without Python attributes)."""
    params = game.get_parameters()
    return int(params["players"]), int(params["board_size"]), int(params["max_rounds"])


class VirusFightGame(pyspiel.Game):
    """``python_virus_fight``: static configuration and the factory of states."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        merged = merged_params(SHORT_NAME, _PARAMS, params)
        players = int(merged["players"])
        if players not in (2, 3, 4):
            raise ValueError(f"players must be 2, 3 or 4 (VF-1), got {players}")
        board = int(merged["board_size"]) or DEFAULT_BOARD[players]
        max_rounds = int(merged["max_rounds"])
        self.config = (players, board, max_rounds)
        fac = facade_for(*self.config)  # validates board_size and max_rounds
        seglen = int(fac.cfg[4])
        setup_len = players * (min(K.MAX_PROGRAM, seglen) + 1)
        info = pyspiel.GameInfo(
            num_distinct_actions=fac.num_actions,
            max_chance_outcomes=players,
            num_players=players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0 if players == 2 else None,
            max_game_length=setup_len + 2 * players * max_rounds,
        )
        game_type = GAME_TYPE_2P if players == 2 else GAME_TYPE
        super().__init__(game_type, info, {**merged, "board_size": board})

    def new_initial_state(self) -> VirusFightState:
        return VirusFightState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> VirusFightObserver:
        return VirusFightObserver(self, iig_obs_type, params)


class VirusFightState(pyspiel.State):
    """A game in progress: the kernel arrays of one game plus what OpenSpiel needs."""

    def __init__(self, game: VirusFightGame) -> None:
        super().__init__(game)
        self._config = game_config(game)
        # a copy of one cached new game: pyspiel's clone builds a state through here
        # before it deep-copies the attributes, once per simulation of MCTSBot
        self._st: VFState = copy.deepcopy(_new_game(self._config))
        players = self._config[0]
        self._pending = -1  # the last setup action, waiting for the VF-12 chance outcome
        self._tied: list[int] = []
        self._own: list[list[int]] = [[] for _ in range(players)]  # setup actions per seat
        self._reveal = ""  # public board once every program is written
        # public events after the reveal, space-separated: a string, because pyspiel's
        # clone deep-copies every attribute and a list would be walked item by item
        self._public = ""
        self._cur = 0  # current_player(), kept by _sync after every change of _st
        self._sync()

    # ------------------------------------------------------------------ helpers
    @property
    def facade(self) -> VirusFightBatch:
        return facade_for(*self._config)

    def _kernel_step(self, st: VFState, action: int) -> None:
        fac, seg, cfg, _, rew, max_rounds = _kernel_args(self._config)
        cap = st.hist.shape[1]
        if cap <= max_rounds and st.info[0, _I_HLEN] + 1 > cap:
            fac.reserve(st, 1)  # room for a VF-17 round-start record (grows st.hist)
        _step_one(
            st.bb, st.cells, st.marker, st.supply, st.info, st.rng, st.hist,
            seg, cfg, int(action), rew,
        )  # fmt: skip

    def _phase(self) -> int:
        return int(self._st.info[0, _I_PHASE])

    def _sync(self) -> None:
        """Recompute the cached ``current_player`` after ``_st`` or ``_pending`` changed."""
        info = self._st.info
        if info[0, _I_PHASE] == _PH_OVER:
            self._cur = _TERMINAL
        elif self._pending >= 0:
            self._cur = _CHANCE
        else:
            self._cur = int(info[0, _I_CUR])

    def _is_final_setup_action(self, action: int) -> bool:
        o_mark, o_pass = K.action_offsets(self.facade.board_size)[3:]
        players = self._config[0]
        return (
            self._phase() == K.PH_SETUP
            and int(self._st.info[0, K.I_CUR]) == players - 1
            and o_mark <= action < o_pass
        )

    def _tied_seats(self, action: int) -> list[int]:
        """Seats tied under VF-12 after ``action`` completes the last program ([] if none).

        With m tied seats the kernel returns tied[j] for a key forcing draw j, so the keys
        forcing 0..m-1 give m distinct first players exactly when m seats are tied; fewer
        tied seats can never give m distinct ones. The largest such m is the tie size.
        """
        fac = self.facade
        for m in range(self._config[0], 1, -1):
            firsts = []
            for j in range(m):
                trial = fac.copy(self._st)
                trial.rng[0] = np.uint64(forcing_key(m, j))
                self._kernel_step(trial, action)
                firsts.append(int(trial.info[0, K.I_FIRST]))
            if len(set(firsts)) == m:
                return firsts
        return []

    def _after_reveal(self) -> None:
        st = self._st
        n = self.facade.board_size
        cells = st.cells[0, : n * n]
        board = "".join("." if p < 0 else notation.piece_to_str(int(p)) for p in cells)
        markers = ",".join(str(int(c)) for c in st.marker[0, : self._config[0]])
        self._reveal = f"{board}|{markers}"

    # ------------------------------------------------------------------ OpenSpiel API
    def current_player(self) -> int:
        return self._cur

    def _legal_actions(self, player: int) -> list[int]:
        _, seg, cfg, row, _, _ = _kernel_args(self._config)
        st = self._st
        _legal_mask_one(st.bb, st.cells, st.marker, st.supply, st.info, seg, cfg, row)
        return row.nonzero()[0].tolist()  # type: ignore[no-any-return]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        p = 1.0 / len(self._tied)
        return [(s, p) for s in self._tied]

    def _apply_action(self, action: int) -> None:
        self._apply(action)
        self._sync()

    def _apply(self, action: int) -> None:
        if self._pending >= 0:  # VF-12 tie-break outcome: seat ``action`` starts
            j = self._tied.index(action)
            self._st.rng[0] = np.uint64(forcing_key(len(self._tied), j))
            self._kernel_step(self._st, self._pending)
            assert int(self._st.info[0, K.I_FIRST]) == action
            self._pending, self._tied = -1, []
            self._after_reveal()
            self._public = f"first={action}"
            return
        player = int(self._st.info[0, _I_CUR])
        if self._phase() == _PH_SETUP:
            self._own[player].append(int(action))
            if self._is_final_setup_action(action):
                tied = self._tied_seats(action)
                if tied:
                    self._pending, self._tied = int(action), tied
                    return
                self._kernel_step(self._st, action)
                self._after_reveal()
                self._public = f"first={int(self._st.info[0, K.I_FIRST])}"
                return
            self._kernel_step(self._st, action)
            return
        event = f"{player}:{int(action)}"
        self._public = f"{self._public} {event}" if self._public else event
        self._kernel_step(self._st, action)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"first:seat{action}"
        return notation.action_to_str(int(action), self.facade.board_size)

    def is_terminal(self) -> bool:
        return self._cur == _TERMINAL

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self._config[0]
        return [float(x) for x in self.facade.results(self._st)[0]]

    def information_state_string_for(self, player: int) -> str:
        """Perfect-recall information of ``player`` (what the observer returns)."""
        own = ",".join(str(a) for a in self._own[player])
        text = f"p{player} setup:{own}"
        if self._reveal:
            text += f" reveal:{self._reveal} then:{self._public}"
        return text

    def resample_from_infostate(self, player: int, sampler: Any = None) -> VirusFightState:
        """A state drawn from ``player``'s information set (for IS-MCTS).

        After the reveal the game has perfect information and this is a clone. During
        setup the programs ``player`` has not seen are redrawn (``determinize``) and the
        whole setup is replayed on a fresh state: the other seats' programs as generated
        setup actions (left to right along the segment, then the marker), the player's own
        as played.
        """
        if self._reveal or self._pending >= 0:
            return self.clone()  # type: ignore[no-any-return]
        seed = None
        if sampler is not None:
            try:
                seed = int(sampler() * (1 << 53))
            except TypeError:
                seed = None
        rng = np.random.default_rng(seed)
        fac = self.facade
        world = fac.determinize(self._st, player, rng)
        cur = int(self._st.info[0, K.I_CUR])
        n_cells = fac.board_size * fac.board_size
        o_mark = K.action_offsets(fac.board_size)[3]
        game = self.get_game()
        out: VirusFightState = game.new_initial_state()
        for s in range(cur + 1):
            if s == player:
                actions = list(self._own[s])
            else:
                cells = [int(c) for c in fac.seg[s, : int(fac.cfg[4])]]
                actions = [
                    int(world.cells[0, c]) * n_cells + c for c in cells if world.cells[0, c] >= 0
                ]
                if s < cur:
                    actions.append(o_mark + int(world.marker[0, s]))
            for a in actions:
                out.apply_action(a)
        return out

    def __str__(self) -> str:
        fac = self.facade
        n = fac.board_size
        st = self._st
        marks = {int(c): s for s, c in enumerate(st.marker[0, : self._config[0]]) if c >= 0}
        lines = []
        for r in range(n):
            row = []
            for c in range(n):
                cell = r * n + c
                p = int(st.cells[0, cell])
                text = "." if p < 0 else notation.piece_to_str(p)
                text += f"*{marks[cell]}" if cell in marks else ""
                row.append(text.ljust(4))
            lines.append(f"{n - r} " + " ".join(row).rstrip())
        phase = ("setup", "effect", "step", "over")[self._phase()]
        lines.append(
            f"phase={phase} round={int(st.info[0, K.I_ROUND])} "
            f"first={int(st.info[0, K.I_FIRST])} to_act={self.current_player()}"
        )
        return "\n".join(lines)


def game_of(facade: VirusFightBatch) -> VirusFightGame:
    """The registered pyspiel game with the facade's configuration (``openspiel-mcts:N``)."""
    params = {
        "players": int(facade.num_players),
        "board_size": int(facade.board_size),
        "max_rounds": int(facade.max_rounds),
    }
    return pyspiel.load_game(SHORT_NAME, params)  # type: ignore[no-any-return]


def state_of(game: VirusFightGame, facade: VirusFightBatch, one: VFState) -> VirusFightState:
    """A pyspiel state of ``game`` holding the batch-of-one facade state ``one``."""
    state = game.new_initial_state()
    state._st = facade.copy(one)
    if int(one.info[0, K.I_PHASE]) != K.PH_SETUP:
        state._after_reveal()  # the programs are public from here on (VF-11)
    state._sync()
    return state


class VirusFightObserver:
    """PyObserver: the kernel's observation planes, or the perfect-recall string."""

    def __init__(self, game: VirusFightGame, iig_obs_type: Any, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters not supported; got {params}")
        self.perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        self._shape = facade_for(*game_config(game)).obs_shape
        if self.perfect_recall:
            self.tensor: np.ndarray | None = None
            self.dict: dict[str, np.ndarray] = {}
        else:
            self.tensor = np.zeros(int(np.prod(self._shape)), np.float32)
            self.dict = {"observation": self.tensor.reshape(self._shape)}

    def set_from(self, state: VirusFightState, player: int) -> None:
        if self.tensor is None:
            return
        st = state._st
        out = self.dict["observation"]
        K.observe_one(st.bb, st.cells, st.marker, st.supply, st.info, state.facade.cfg, player, out)

    def string_from(self, state: VirusFightState, player: int) -> str:
        if self.perfect_recall:
            return state.information_state_string_for(player)
        st = state._st
        planes = np.zeros(self._shape, np.float32)
        K.observe_one(
            st.bb, st.cells, st.marker, st.supply, st.info, state.facade.cfg, player, planes
        )
        n = planes.shape[-1]
        board = []
        for cell in range(n * n):
            r, c = divmod(cell, n)
            pieces = np.flatnonzero(planes[:12, r, c])
            marks = np.flatnonzero(planes[12 : 12 + state._config[0], r, c])
            text = notation.piece_to_str(int(pieces[0])) if len(pieces) else "."
            board.append(text + "".join(f"*{m}" for m in marks))
        scalars = planes[12 + state._config[0] :, 0, 0]
        return " ".join(board) + " | " + ",".join(f"{v:g}" for v in scalars)


pyspiel.register_game(GAME_TYPE, VirusFightGame)
