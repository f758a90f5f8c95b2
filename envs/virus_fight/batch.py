"""Batch facade of Virus Fight over the Numba kernels (``envs.core.batch.BatchGame``).

Batch consumers (training, MCTS, ladder, benchmarks) use this class and never the AEC
adapter. ``determinize`` supports search during the hidden setup (VF-11): it replaces
the programs an observer has not seen by random programs of the same rules.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from envs.core import loops
from envs.core.batch import LearnerBuffers, as_actions, raise_illegal
from envs.virus_fight import kernel as K
from envs.virus_fight.params import C_MAXPROG, C_SEGLEN, VirusFightParams
from envs.virus_fight.state import VFState

DEFAULT_BOARD = {2: 5, 3: 6, 4: 7}  # VF-4
#: VF-17 history slots a new game gets (capped at ``max_rounds + 1``); ``reserve`` grows a
#: state's history when a game gets near the end of it, so the memory of a reset does not
#: depend on ``max_rounds`` (``max_rounds=10**7`` once took 1.3 GB per reset)
HIST_START = 256
#: deprecated aliases: serial or parallel is chosen in ``envs.core.loops`` only
PARALLEL_MIN_BATCH = loops.PARALLEL_MIN_BATCH
STEP_PARALLEL_MIN_BATCH = loops.STEP_PARALLEL_MIN_BATCH


#: (serial, parallel) dispatchers of each batch loop the facade calls, looked up once
_KERNELS = {
    name: (getattr(K, name + "_serial"), getattr(K, name))
    for name in ("init", "legal_mask", "random_actions", "step", "selfplay", "observe",
                 "learner_step", "learner_view")
}  # fmt: skip


class VirusFightBatch:
    """Virus Fight for batch consumers; static parameters fixed at construction."""

    name = "virus_fight"

    def __init__(
        self, num_players: int = 2, board_size: int | None = None, max_rounds: int = 100
    ) -> None:
        if num_players not in (2, 3, 4):
            raise ValueError(f"num_players must be 2, 3 or 4 (VF-1), got {num_players!r}")
        if board_size is None:
            board_size = DEFAULT_BOARD[num_players]
        if not isinstance(board_size, (int, np.integer)) or not 5 <= board_size <= 8:
            raise ValueError(f"board_size must be an int in 5..8 (VF-4), got {board_size!r}")
        if (
            isinstance(max_rounds, (bool, np.bool_))
            or not isinstance(max_rounds, (int, np.integer))
            or not 1 <= max_rounds <= 2**31 - 2  # rounds are counted in int32
        ):
            raise ValueError(f"max_rounds must be an int in 1..2**31-2 (VF-17), got {max_rounds!r}")
        self.num_players = int(num_players)
        self.board_size = int(board_size)
        self.max_rounds = int(max_rounds)
        self.cfg, self.seg = K.make_geometry(self.board_size, self.num_players, self.max_rounds)
        #: the static parameters by name (the kernels read the same numbers from ``cfg``)
        self.params = VirusFightParams.from_cfg(self.cfg)
        #: float value of one compact observation code, per plane (``decode``)
        self.obs_scale = K.obs_scale(self.num_players)
        self._label = f"virus_fight ({self.num_players} players)"
        self.num_actions = K.num_actions(self.board_size)
        self.obs_shape = (K.obs_channels(self.num_players), self.board_size, self.board_size)
        #: one game's dense learner observation: a uint8 code row (``decode`` expands it
        #: into the ``obs_shape`` planes; ``envs/virus_fight/observe.py``)
        self.code_shape = (K.code_length(self.board_size, self.num_players),)
        #: per-thread scratch (a facade may serve several threads): learner codes, undo rows
        self._buffers: dict[tuple[int, str], Any] = {}

    def _buffer(self, name: str, shape: tuple[int, ...], dtype: type) -> np.ndarray:
        """This thread's scratch array ``name`` of ``shape`` (kept between calls: at
        B = 16384 a new one per call costs its page faults)."""
        key = (threading.get_ident(), name)
        buf = self._buffers.get(key)
        if buf is None or buf.shape != shape:
            buf = self._buffers[key] = np.zeros(shape, dtype)
        return buf

    def _check_rows(self, batch: int) -> tuple[np.ndarray, np.ndarray]:
        """This thread's (per-game flags, undo rows) for a validated step of ``batch`` games
        (one lookup: at B = 1 each costs a tenth of a microsecond)."""
        key = (threading.get_ident(), "check")
        pair = self._buffers.get(key)
        if pair is None or pair[0].shape[0] != batch:
            pair = (np.zeros(batch, np.uint8), np.zeros((batch, K.UNDO_WORDS), np.uint64))
            self._buffers[key] = pair
        return pair

    def _run(
        self, kernel: str, state: VFState, *args: Any, fields: int = 5, many_steps: bool = False
    ) -> Any:
        """``K.<kernel>`` on the first ``fields`` arrays of ``state``, then ``seg``, ``cfg``
        and ``args`` (every batch loop takes them in this order); serial or parallel as
        ``envs.core.loops`` chooses.

        Why the small-batch branch here: at B = 1 a call is a few microseconds and each
        Python layer (``run_loop``'s argument repacking, two ``getattr``) cost a tenth of
        it; below ``SINGLE_THREAD_MIN_BATCH`` ``loops.choose`` always says serial.
        """
        serial, parallel = _KERNELS[kernel]
        arrays = state.arrays()[:fields]
        batch = arrays[0].shape[0]
        if batch < loops.SINGLE_THREAD_MIN_BATCH:
            return serial(*arrays, self.seg, self.cfg, *args)
        return loops.run_loop(
            serial, parallel, batch, *arrays, self.seg, self.cfg, *args, many_steps=many_steps
        )

    # ------------------------------------------------------------------ protocol
    def empty(self, batch_size: int) -> VFState:
        """Zeroed arrays of the right shapes.

        ``hist`` has ``min(max_rounds + 1, HIST_START)`` slots per game (``reserve`` adds
        more when needed); it is filled explicitly so that its pages are mapped now rather
        than by page faults in the middle of self-play.
        """
        hist = np.empty((batch_size, min(self.max_rounds + 1, HIST_START), K.HW), np.uint64)
        hist.fill(0)
        return VFState(
            bb=np.zeros((batch_size, K.NBB), np.uint64),
            cells=np.full((batch_size, 64), -1, np.int8),
            marker=np.full((batch_size, 4), -1, np.int8),
            supply=np.zeros((batch_size, 4, 12), np.int8),
            info=np.zeros((batch_size, K.NINFO), np.int32),
            rng=np.zeros(batch_size, np.uint64),
            hist=hist,
        )

    def init(self, batch_size: int, seed: int) -> VFState:
        """New games at the start of setup; game i's key comes from (seed, i)."""
        st = self.empty(batch_size)
        self._run("init", st)
        st.rng[:] = K.seed_keys(np.uint64(seed & 0xFFFFFFFFFFFFFFFF), batch_size)
        return st

    def copy(self, state: VFState) -> VFState:
        return VFState(*(a.copy() for a in state.arrays()))

    def take(self, state: VFState, index: np.ndarray) -> VFState:
        idx = np.asarray(index, dtype=np.int64)
        return VFState(*(a[idx].copy() for a in state.arrays()))

    def current_player(self, state: VFState) -> np.ndarray:
        cur = state.info[:, K.I_CUR].astype(np.int64)
        cur[state.info[:, K.I_PHASE] == K.PH_OVER] = -1
        return cur

    def legal_mask(self, state: VFState) -> np.ndarray:
        out = np.zeros((state.batch_size, self.num_actions), dtype=np.bool_)
        self._run("legal_mask", state, out)
        return out

    def step(
        self,
        state: VFState,
        actions: np.ndarray,
        auto_reset: bool = False,
        validate: bool = True,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Apply one action per game (finished games ignore theirs, ``-1`` is fine there).

        With ``validate`` (default) a NaN, fraction, wrong length or illegal id raises
        ValueError naming the games and actions, and no game changes: the kernel checks
        each game's action as it applies it and puts every game back if one fails
        (``envs/virus_fight/undo.py``; one call). A (B,) int64 array goes to the kernel as
        it is (its range is checked there too: no numpy pass over it).
        """
        batch = state.bb.shape[0]
        plain = (
            isinstance(actions, np.ndarray)
            and actions.dtype == np.int64
            and actions.shape == (batch,)
            and actions.flags.c_contiguous
        )
        if plain:
            acts = actions
        elif validate:
            acts = as_actions(actions, batch, self.num_actions, self._label)
        else:  # the caller vouches for the ids; the length is still checked (memory safety)
            acts = np.ascontiguousarray(actions, dtype=np.int64)
            if acts.shape != (batch,):
                raise ValueError(
                    f"{self._label}: actions must have shape ({batch},), got {acts.shape}"
                )
        rew = np.zeros((batch, self.num_players), np.float32)
        done = np.zeros(batch, np.bool_)
        flags, undo = self._check_rows(batch)
        hist = state.hist
        self.reserve(state, 1)  # a decision starts at most one round (VF-17 record)
        nbad = self._run(
            "step", state, acts, bool(validate), bool(auto_reset), rew, done, flags, undo, fields=7
        )
        if nbad:
            state.hist = hist  # the batch as it was
            as_actions(acts, state.batch_size, self.num_actions, self._label)  # out of range?
            raise_illegal(self._label, flags & K.BAD, acts)
        return rew, done

    def check_legal(self, state: VFState, actions: np.ndarray) -> np.ndarray:
        """``actions`` as int64 if every running game's action is legal, else ValueError."""
        acts = as_actions(actions, state.batch_size, self.num_actions, self._label)
        bad = np.zeros(state.batch_size, np.bool_)
        if K.validate(*state.arrays()[:5], self.seg, self.cfg, acts, bad):
            raise_illegal(self._label, bad, acts)
        return acts

    # ------------------------------------------------------------------ learner step
    def learner_buffers(
        self, batch_size: int, dense: bool = False, mask_bits: bool = False
    ) -> LearnerBuffers:
        """Outputs of :meth:`learner_step` for ``batch_size`` games (allocate once, reuse).

        ``obs`` holds uint8 planes (``obs_shape``, ``codes * obs_scale`` per plane) or, with
        ``dense``, one code row per game (``code_shape``: 58 bytes on 2p 5x5 instead of
        1,175); :meth:`decode` turns either into ``observe``'s float planes. With
        ``mask_bits`` the legal mask is packed into ceil(num_actions / 64) uint64 words
        (128 bytes on 5x5 instead of 976; ``out.bool_mask`` or
        ``envs.core.batch.unpack_mask`` unpacks it).
        """
        shape = self.code_shape if dense else self.obs_shape
        return LearnerBuffers.allocate(
            batch_size, shape, self.num_actions, self.num_players, mask_bits=mask_bits
        )

    def _obs_rows(self, out: LearnerBuffers, batch: int) -> tuple[np.ndarray, np.ndarray, bool]:
        """(observation rows, code scratch, dense) of ``out`` for the learner kernels."""
        dense = out.obs.ndim == 2
        out.check(batch, self.code_shape if dense else self.obs_shape, self.num_actions)
        rows = out.obs.reshape(batch, -1)
        if dense:
            return rows, rows, True
        return rows, self._buffer("codes", (batch, *self.code_shape), np.uint8), False

    def learner_step(
        self, state: VFState, actions: np.ndarray, out: LearnerBuffers, validate: bool = True
    ) -> LearnerBuffers:
        """Validate, apply, auto-reset, then the next observation and mask of the seat to
        act, rewards and done flags into ``out``: one kernel call.

        ``rewards[g, s]`` is seat s's final reward when it is done in this step (its game
        ended or it was eliminated), else 0. With ``validate`` (default) an illegal action
        raises ValueError naming the games and actions, and no game changes;
        ``validate=False`` is for actions drawn from the mask.
        """
        acts = as_actions(actions, state.batch_size, self.num_actions, self._label)
        rows, codes, dense = self._obs_rows(out, state.batch_size)
        hist = state.hist
        self.reserve(state, 1)  # a decision starts at most one round (VF-17 record)
        mask, bits = out.kernel_masks()
        parts = (rows, mask, bits, out.rewards, out.done, out.seat, out.bad, codes, dense)
        if self._run(
            "learner_step", state, acts, bool(validate), *parts, fields=7, many_steps=True
        ):
            state.hist = hist  # the batch as it was
            raise_illegal(self._label, out.bad, acts)
        return out

    def learner_view(self, state: VFState, out: LearnerBuffers) -> LearnerBuffers:
        """The observation and mask of every game's seat to act (no step)."""
        rows, codes, dense = self._obs_rows(out, state.batch_size)
        mask, bits = out.kernel_masks()
        self._run("learner_view", state, rows, mask, bits, out.seat, codes, dense, many_steps=True)
        out.rewards[:] = 0.0
        out.done[:] = False
        return out

    def decode(self, codes: np.ndarray) -> np.ndarray:
        """float32 ``obs_shape`` planes of learner observations, uint8 planes or dense code
        rows (the consumer's side)."""
        return K.decode(codes, self.num_players)

    def random_actions(self, state: VFState) -> np.ndarray:
        out = np.empty(state.bb.shape[0], np.int64)
        self._run("random_actions", state, out, fields=6)
        return out

    def terminated(self, state: VFState) -> np.ndarray:
        return state.info[:, K.I_PHASE] == K.PH_OVER

    def observe(self, state: VFState, seats: np.ndarray) -> np.ndarray:
        out = np.empty((state.batch_size, *self.obs_shape), np.float32)
        self._run("observe", state, np.ascontiguousarray(seats, dtype=np.int64), out)
        return out

    # ------------------------------------------------------------------ extras
    def selfplay(self, state: VFState, steps: int) -> np.ndarray:
        """Random self-play with auto-reset for ``steps`` decisions per game, fused in one
        kernel call. Returns (B, 2) float64 [games finished, seat-0 reward sum]."""
        rew = np.zeros((state.batch_size, self.num_players), np.float32)
        stats = np.zeros((state.batch_size, 2), np.float64)
        left = int(steps)
        while left > 0:  # chunks whose round starts fit the history
            n = self._room(state, left)
            self._run("selfplay", state, n, rew, stats, fields=7, many_steps=True)
            left -= n
        return stats

    def reserve(self, state: VFState, rounds: int = 1) -> None:
        """Room in every game's VF-17 history for ``rounds`` more round starts.

        Why: a history of ``max_rounds + 1`` slots per game made memory per reset grow with
        ``max_rounds``; states start with ``HIST_START`` slots and grow (doubling, at most to
        ``max_rounds + 1``) before a call that could fill them. The facade's ``step``,
        ``learner_step`` and ``selfplay`` call it; so must a caller that runs the step
        kernels directly (the AEC env does).
        """
        cap = state.hist.shape[1]
        if cap > self.max_rounds:
            return  # max_rounds + 1 slots hold every round start of a game
        need = int(state.info[:, K.I_HLEN].max(initial=0)) + int(rounds)
        if need <= cap:
            return
        grown = np.zeros(
            (state.batch_size, min(self.max_rounds + 1, max(need, 2 * cap)), K.HW), np.uint64
        )
        grown[:, :cap] = state.hist
        state.hist = grown

    def _room(self, state: VFState, steps: int) -> int:
        """Decisions (at most ``steps``) whose round starts fit the history (grown if needed)."""
        if state.hist.shape[1] <= self.max_rounds:
            self.reserve(state, min(steps, max(HIST_START, state.hist.shape[1])))
        if state.hist.shape[1] > self.max_rounds:
            return steps
        free = state.hist.shape[1] - int(state.info[:, K.I_HLEN].max(initial=0))
        return max(1, min(steps, free))

    def results(self, state: VFState) -> np.ndarray:
        """(B, P) final reward of each seat (meaningful once that seat is done)."""
        return state.info[:, K.I_RES : K.I_RES + self.num_players].astype(np.float32)

    def seat_done(self, state: VFState) -> np.ndarray:
        """(B, P) bool: the seat is eliminated or the game is over."""
        alive = state.info[:, K.I_ALIVE][:, None] >> np.arange(self.num_players)[None, :] & 1
        return (alive == 0) | self.terminated(state)[:, None]

    def determinize(self, state: VFState, seat: int, rng: np.random.Generator) -> VFState:
        """A copy in which everything ``seat`` cannot see is resampled (for MCTS).

        Only the hidden setup (VF-11) hides anything: the programs (pieces, cells, marker)
        of the other seats that already wrote one, or are writing one now, are replaced by
        random programs that follow VF-9/VF-10 (random length, contiguous run inside the
        home segment, pieces drawn from that seat's full supply, and a marker for a
        completed program); their supplies follow. After setup the state is returned as a
        plain copy: the game then has perfect information.
        """
        out = self.copy(state)
        P = self.num_players
        seglen = int(self.cfg[C_SEGLEN])
        maxprog = int(self.cfg[C_MAXPROG])
        for g in range(out.batch_size):
            if out.info[g, K.I_PHASE] != K.PH_SETUP:
                continue
            cur = int(out.info[g, K.I_CUR])
            for s in range(P):
                if s == seat or s > cur:
                    continue
                complete = s < cur
                for i in range(seglen):  # wipe the hidden program
                    c = int(self.seg[s, i])
                    p = int(out.cells[g, c])
                    if p >= 0:
                        out.cells[g, c] = -1
                        out.bb[g, p] &= ~np.uint64(1 << c)
                        out.bb[g, K.OCC] &= ~np.uint64(1 << c)
                out.supply[g, s, :] = 1
                out.marker[g, s] = -1
                if complete:
                    length = int(rng.integers(1, maxprog + 1))
                else:  # the seat to act: a partial program (at least one piece placed)
                    length = int(rng.integers(1, maxprog + 1))
                start = int(rng.integers(0, seglen - length + 1))
                pieces = rng.choice(12, size=length, replace=False)
                for j in range(length):
                    c = int(self.seg[s, start + j])
                    p = int(pieces[j])
                    out.cells[g, c] = p
                    out.bb[g, p] |= np.uint64(1 << c)
                    out.bb[g, K.OCC] |= np.uint64(1 << c)
                    out.supply[g, s, p] -= 1
                if complete:
                    out.marker[g, s] = int(self.seg[s, start + int(rng.integers(0, length))])
                else:
                    out.info[g, K.I_NSET] = length
                    out.info[g, K.I_RLO] = start
                    out.info[g, K.I_RHI] = start + length - 1
        return out
