"""Batch facade of Virus Fight over the Numba kernels (``envs.core.batch.BatchGame``).

Batch consumers (training, MCTS, ladder, benchmarks) use this class and never the AEC
adapter. ``determinize`` supports search during the hidden setup (VF-11): it replaces
the programs an observer has not seen by random programs of the same rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numba
import numpy as np

from envs.virus_fight import kernel as K

DEFAULT_BOARD = {2: 5, 3: 6, 4: 7}  # VF-4
#: VF-17 history slots a new game gets (capped at ``max_rounds + 1``); ``reserve`` grows a
#: state's history when a game gets near the end of it, so the memory of a reset does not
#: depend on ``max_rounds`` (``max_rounds=10**7`` once took 1.3 GB per reset)
HIST_START = 256
#: ``selfplay`` (many steps per call) uses the multi-threaded kernel (prange) for batches
#: at least this large, the serial twin below it
PARALLEL_MIN_BATCH = 4096
#: the one-step calls (step, random_actions, legal_mask, observe, init) go multi-threaded
#: only from this size: each call is a few milliseconds of work, and on a shared 2-core
#: machine the thread-pool launch and barrier cost more than they save (measured: serial
#: 1.0-1.5 M steps/s against 0.5 M for prange at batch 16384 under load). Lower it on a
#: machine with idle cores.
STEP_PARALLEL_MIN_BATCH = 1 << 17


def _pick(batch: int, parallel: Any, serial: Any, fused: bool = False) -> Any:
    threshold = PARALLEL_MIN_BATCH if fused else STEP_PARALLEL_MIN_BATCH
    if batch < threshold or numba.get_num_threads() == 1:
        return serial
    return parallel


@dataclass
class VFState:
    """A batch of Virus Fight games (see ``kernel`` for the meaning of each array)."""

    bb: np.ndarray  # (B, 13) uint64
    cells: np.ndarray  # (B, 64) int8
    marker: np.ndarray  # (B, 4) int8
    supply: np.ndarray  # (B, 4, 12) int8
    info: np.ndarray  # (B, NINFO) int32
    rng: np.ndarray  # (B,) uint64
    hist: np.ndarray  # (B, max_rounds + 1, 8) uint64

    @property
    def batch_size(self) -> int:
        return int(self.bb.shape[0])

    def arrays(self) -> tuple[np.ndarray, ...]:
        return (self.bb, self.cells, self.marker, self.supply, self.info, self.rng, self.hist)


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
        self.num_actions = K.num_actions(self.board_size)
        self.obs_shape = (K.obs_channels(self.num_players), self.board_size, self.board_size)

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
            bb=np.zeros((batch_size, 13), np.uint64),
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
        init = _pick(batch_size, K.init, K.init_serial)
        init(st.bb, st.cells, st.marker, st.supply, st.info, self.cfg)
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
        _pick(state.batch_size, K.legal_mask, K.legal_mask_serial)(
            state.bb, state.cells, state.marker, state.supply, state.info, self.seg, self.cfg, out
        )
        return out

    def step(
        self, state: VFState, actions: np.ndarray, auto_reset: bool = False
    ) -> tuple[np.ndarray, np.ndarray]:
        acts = np.ascontiguousarray(actions, dtype=np.int64)
        rew = np.zeros((state.batch_size, self.num_players), np.float32)
        done = np.zeros(state.batch_size, np.bool_)
        self.reserve(state, 1)  # a decision starts at most one round (VF-17 record)
        _pick(state.batch_size, K.step, K.step_serial)(
            state.bb,
            state.cells,
            state.marker,
            state.supply,
            state.info,
            state.rng,
            state.hist,
            self.seg,
            self.cfg,
            acts,
            bool(auto_reset),
            rew,
            done,
        )
        return rew, done

    def random_actions(self, state: VFState) -> np.ndarray:
        out = np.empty(state.batch_size, np.int64)
        _pick(state.batch_size, K.random_actions, K.random_actions_serial)(
            state.bb,
            state.cells,
            state.marker,
            state.supply,
            state.info,
            state.rng,
            self.seg,
            self.cfg,
            out,
        )
        return out

    def terminated(self, state: VFState) -> np.ndarray:
        return state.info[:, K.I_PHASE] == K.PH_OVER

    def observe(self, state: VFState, seats: np.ndarray) -> np.ndarray:
        out = np.empty((state.batch_size, *self.obs_shape), np.float32)
        _pick(state.batch_size, K.observe, K.observe_serial)(
            state.bb,
            state.cells,
            state.marker,
            state.supply,
            state.info,
            self.cfg,
            np.ascontiguousarray(seats, dtype=np.int64),
            out,
        )
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
            _pick(state.batch_size, K.selfplay, K.selfplay_serial, fused=True)(
                state.bb,
                state.cells,
                state.marker,
                state.supply,
                state.info,
                state.rng,
                state.hist,
                self.seg,
                self.cfg,
                n,
                rew,
                stats,
            )
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
        seglen = int(self.cfg[4])
        maxprog = int(self.cfg[5])
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
