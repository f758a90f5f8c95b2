"""Virus Fight — PettingZoo AEC environment (``envs.virus_fight_v0``).

Jorge Arroyo's Icehouse game: each player writes a tiny program of MOVE, WRITE, JUMP and
ERASE instructions on their home edge, then executes the instruction under their marker
each turn, changing the shared memory and trying to leave the others with nowhere to
step. Rules (VF-1..VF-18) with the
encoding in ``docs/virus_fight.md``.

=====================  =====================================================================
Import                 ``from envs import virus_fight_v0``; ``virus_fight_v0.env()``
Agents                 ``player_0`` .. ``player_{P-1}`` (P = ``num_players``, 2..4)
Parameters             ``num_players=2``, ``board_size=None`` (5/6/7 for 2/3/4 players,
                       VF-4; 5..8 allowed), ``max_rounds=100`` (VF-17), ``render_mode``
Action space           ``Discrete(N^2 + 14N + 1)``, N = board_size^2 (976 on 5x5)
Observation space      ``Dict(observation=Box(0, P, (17 + 15P, n, n), float32),
                       action_mask=Box(0, 1, (A,), int8))``
Rewards                +1 last player standing; -1 at elimination (VF-16); round limit or
                       third repetition: adjudicated +1 / 0 (shared top) / -1 (VF-17)
=====================  =====================================================================

Actions (``N = n*n``, cell = row*n + col, row 0 at the top)::

    p*N + cell                put instruction p = 3*kind + size-1 (setup, WRITE)  W2@c1
    12N + from*N + to         MOVE an instruction                                c1-d2
    12N + N^2 + cell          ERASE target (empty or unprotected)                xc2
    13N + N^2 + cell          marker to a square (setup end, JUMP, marker step)  *c2
    14N + N^2                 pass (decline MOVE/WRITE; only action w/o choice)  pass

Turns (VF-18): a turn is the effect decision then, unless it was a JUMP, the marker-step
decision, both by the same agent. Eliminations that need no decision (JUMP without
target, no marker step) happen inside the step that leads to them; the eliminated agent
gets -1 and leaves ``agents`` (PettingZoo dead-step semantics).

Setup (VF-9..VF-11): seats write in seat order, one instruction per step, each new one
next to the run along the home segment (1..min(5, segment) instructions), then ``*sq``
puts the marker and ends the program. The setup is hidden: until every program is
complete an observation shows only the observer's own program, marker and supply.

Observation planes from the observer's point of view (``j`` = relative seat, 0 = self,
then the others in seat order after it):

==================  =========================================================
planes              content
==================  =========================================================
0..11               instruction (kind, size) on each square (kinds M, W, J, E)
12..12+P-1          marker of relative seat j
next 12P            supply counts of relative seat j (constant planes)
next P              relative seat j still in
next P              relative seat j is the round's first player
next 3              phase: setup, effect, marker step
next 1              round / max_rounds
next 1              occurrences of this round's start position / 3 (VF-17)
==================  =========================================================

Position text: ``to_text()`` / ``reset(options={"position": text})`` (see
``envs/virus_fight/position.py``), carrying the round, first player and repetition history.

Version history: v0 — first release.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core.fast_wrappers import make_fast_env
from envs.core.turn_based import TurnBasedEnv
from envs.virus_fight import kernel as K
from envs.virus_fight import notation, position, render
from envs.virus_fight.batch import VirusFightBatch
from envs.virus_fight.constants import I_ALIVE, I_CUR, I_HLEN, I_PHASE, I_RES, PH_OVER

# The per-move hooks read these names from ``constants`` itself: ``K.<name>`` of a name
# kernel.py only re-exports runs its module ``__getattr__`` (a loop over modules) per read.


class raw_env(TurnBasedEnv):  # noqa: N801 - PettingZoo naming
    """Virus Fight AEC env over a batch of one kernel state."""

    metadata = {
        "name": "virus_fight_v0",
        "render_modes": ["ansi", "rgb_array", "human"],
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        num_players: int = 2,
        board_size: int | None = None,
        max_rounds: int = 100,
        render_mode: str | None = None,
    ) -> None:
        if isinstance(num_players, bool) or not isinstance(num_players, (int, np.integer)):
            raise ValueError(f"num_players must be an int 2..4 (VF-1), got {num_players!r}")
        if board_size is not None and (
            isinstance(board_size, bool) or not isinstance(board_size, (int, np.integer))
        ):
            raise ValueError(f"board_size must be an int 5..8 (VF-4), got {board_size!r}")
        max_rounds = position.check_max_rounds(max_rounds)  # ValueError naming the problem
        self.game = VirusFightBatch(int(num_players), board_size, max_rounds)
        self.num_players = self.game.num_players
        self.board_size = self.game.board_size
        self.max_rounds = self.game.max_rounds
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self.num_actions = self.game.num_actions
        self.obs_shape = self.game.obs_shape
        self.obs_high = float(self.num_players)
        self._st = self.game.init(1, 0)
        self._mask: np.ndarray | None = None
        self._rew = np.zeros((1, self.num_players), np.float32)
        self._obs = np.zeros(self.obs_shape, np.float32)
        self._seats = np.arange(self.num_players)
        self._status_key: tuple[bool, int] | None = None
        self._status: tuple[np.ndarray, np.ndarray] = (np.zeros(0, bool), np.zeros(0))
        super().__init__(render_mode=render_mode)

    # ------------------------------------------------------------------ hooks
    def _reset_state(self, rng: np.random.Generator, options: dict[str, Any] | None) -> None:
        key = int(rng.integers(0, 2**63 - 1))
        text = (options or {}).get("position")
        if text is not None:
            # raises before anything changes; the key comes from the seed unless given
            st = position.from_text(self.game, text, int(self.game.init(1, key).rng[0]))
        else:
            st = self.game.init(1, key)
        self._st = st
        self._mask = None
        self._status_key = None

    def _current_seat(self) -> int:
        return self._st.info.item(0, I_CUR)  # item(): a Python int in one call

    def _legal_mask(self) -> np.ndarray:
        if self._mask is None:  # once per position, a fresh array (never written again)
            st = self._st
            row = np.zeros(self.num_actions, np.bool_)
            K.legal_mask_one(
                st.bb, st.cells, st.marker, st.supply, st.info, self.game.seg, self.game.cfg, row
            )
            self._mask = row.view(np.int8)
        return self._mask

    def _apply(self, action: int) -> None:
        st = self._st
        self._mask = None
        # room for a VF-17 round-start record: reserve's own test for one game, asked here
        # so that a move with room left (all but one in HIST_START) costs no numpy pass
        if st.info.item(0, I_HLEN) >= st.hist.shape[1] and st.hist.shape[1] <= self.max_rounds:
            self.game.reserve(st, 1)  # grows st.hist
        K.step_one(
            st.bb,
            st.cells,
            st.marker,
            st.supply,
            st.info,
            st.rng,
            st.hist,
            self.game.seg,
            self.game.cfg,
            action,
            self._rew,
        )

    def _seat_status(self) -> tuple[np.ndarray, np.ndarray]:
        info = self._st.info
        key = (info.item(0, I_PHASE) == PH_OVER, info.item(0, I_ALIVE))
        if key != self._status_key:  # changes only at eliminations and at the end
            done = ((key[1] >> self._seats) & 1 == 0) | key[0]
            final = info[0, I_RES : I_RES + self.num_players].astype(np.float32)
            self._status = (done, final)
            self._status_key = key
        return self._status

    def _observe_seat(self, seat: int) -> np.ndarray:
        st = self._st
        out = np.empty(self.obs_shape, np.float32)
        K.observe_one(st.bb, st.cells, st.marker, st.supply, st.info, self.game.cfg, seat, out)
        return out

    def action_to_str(self, action: int) -> str:
        return notation.action_to_str(action, self.board_size)  # ValueError unless an int id

    def str_to_action(self, text: str) -> int:
        return notation.str_to_action(text, self.board_size)

    def to_text(self) -> str:
        return position.to_text(self.game, self._st)

    def _render_ansi(self) -> str:
        return render.ansi(self.game, self._st)

    def _render_rgb(self) -> np.ndarray:
        return render.rgb(self.game, self._st)

    # ------------------------------------------------------------------ extras
    @property
    def state_arrays(self) -> Any:
        """The batch-of-one kernel state (read it, do not write it)."""
        return self._st

    def phase(self) -> str:
        """``setup``, ``effect``, ``step`` or ``over``."""
        return position.PHASE_NAMES[int(self._st.info[0, I_PHASE])]


# ---------------------------------------------------------------------------- env()
# PettingZoo classic's wrapper stack with direct attribute reads (envs/core/fast_wrappers.py).
env = make_fast_env(raw_env)
