"""Proteus batch facade (``envs.core.batch.BatchGame``) over the Numba kernels.

Batch consumers (training, MCTS, ladder, benchmarks) use this class, never the AEC env.
Also converts single games to and from the one-line position text.
"""

from __future__ import annotations

import numpy as np

from envs.core.batch import LearnerBuffers
from envs.proteus import kernel as K
from envs.proteus.constants import DEFAULT_MAX_TURNS, NUM_ACTIONS
from envs.proteus.notation import check_max_turns, format_position, parse_position

OBS_SHAPE = (3, 3, K.N_PLANES)


class ProteusBatch:
    """Proteus for batch consumers: all methods are thin calls into ``kernel``.

    ``max_turns`` is the PR-17 turn limit of the games this facade creates.
    """

    name = "proteus"
    num_players = 2
    num_actions = NUM_ACTIONS
    obs_shape: tuple[int, ...] = OBS_SHAPE
    #: one dense learner observation (``learner_buffers(B, dense=True)``)
    code_shape: tuple[int, ...] = (K.DENSE_BYTES,)

    def __init__(self, max_turns: int = DEFAULT_MAX_TURNS) -> None:
        self.max_turns = check_max_turns(max_turns)  # 1..2**31-1, ValueError otherwise

    def init(self, batch_size: int, seed: int) -> K.KernelState:
        """New games; game i's RNG key comes from (seed, i) only."""
        return K.new_state(batch_size, seed=seed, max_turns=self.max_turns)

    def copy(self, state: K.KernelState) -> K.KernelState:
        return state.copy()

    def take(self, state: K.KernelState, index: np.ndarray) -> K.KernelState:
        return state.take(np.asarray(index))

    def current_player(self, state: K.KernelState) -> np.ndarray:
        return np.where(state.status == 0, state.player, -1).astype(np.int64)

    def legal_mask(self, state: K.KernelState) -> np.ndarray:
        return K.legal_mask(state)

    #: apply one action per game, checked unless ``validate=False`` (finished games ignore
    #: theirs, ``-1`` is fine there): the kernel's own ``step``, no second signature
    step = staticmethod(K.step)

    def random_actions(self, state: K.KernelState) -> np.ndarray:
        return K.random_actions(state)

    def terminated(self, state: K.KernelState) -> np.ndarray:
        return state.status != 0

    def observe(self, state: K.KernelState, seats: np.ndarray) -> np.ndarray:
        return K.observe(state, seats)

    # ------------------------------------------------------------------ learner step
    def learner_buffers(
        self, batch_size: int, dense: bool = False, mask_bits: bool = False
    ) -> LearnerBuffers:
        """Outputs of :meth:`learner_step` for ``batch_size`` games (allocate once, reuse).

        ``dense=True``: 24-byte observation codes instead of the 315-byte compact planes
        (``envs/proteus/observe.py``), for a learner bound by the bytes a step writes;
        :meth:`decode` turns either into the float planes. ``mask_bits=True``: the legal
        mask packed into 4 uint64 words (32 bytes instead of 226; ``out.bool_mask`` or
        ``envs.core.batch.unpack_mask`` unpacks it).
        """
        shape = self.code_shape if dense else OBS_SHAPE
        return LearnerBuffers.allocate(
            batch_size, shape, NUM_ACTIONS, self.num_players, mask_bits=mask_bits
        )

    def learner_step(
        self,
        state: K.KernelState,
        actions: np.ndarray,
        out: LearnerBuffers,
        validate: bool = True,
    ) -> LearnerBuffers:
        """Validate, apply, auto-reset, then the next compact observation and mask of the
        seat to move, rewards and done flags into ``out``: one kernel call."""
        return K.learner_step(state, actions, out, validate)

    def learner_view(self, state: K.KernelState, out: LearnerBuffers) -> LearnerBuffers:
        """The compact observation and mask of every game's seat to move (no step)."""
        K.learner_view(state, out)
        return out

    #: float value of one compact observation code, per plane (``decode``)
    obs_scale = K.OBS_SCALE

    def decode(self, codes: np.ndarray) -> np.ndarray:
        """float32 planes of compact or dense observations (the consumer's side)."""
        if np.ndim(codes) >= 1 and np.shape(codes)[-1] == K.DENSE_BYTES:
            return K.decode_dense(codes)
        return K.decode(codes)

    # ------------------------------------------------------------------ extras
    def random_step(self, state: K.KernelState, n_steps: int = 1) -> int:
        """Fused self-play: n_steps random legal actions per game, auto-reset on."""
        return K.random_step(state, n_steps)

    def from_text(self, text: str) -> K.KernelState:
        """A batch of one game loaded from a position text."""
        return state_from_text(text)

    def to_text(self, state: K.KernelState, index: int = 0) -> str:
        return text_of(state, index)


def state_from_text(text: str) -> K.KernelState:
    """Parse a position text into a new batch-of-one state; ValueError naming the problem."""
    pos = parse_position(text)
    return K.from_board(
        pos.tile_at,
        pos.piece_at,
        pos.active,
        pos.player,
        pos.turn,
        pos.max_turns,
        pos.status,
        pos.history,
    )


def text_of(state: K.KernelState, index: int = 0) -> str:
    """The position text of game ``index`` (loadable with :func:`state_from_text`)."""
    b = int(index)
    n = int(state.hist_len[b])
    return format_position(
        state.tile_at[b],
        state.piece_at[b],
        state.active[b],
        int(state.player[b]),
        int(state.turn[b]),
        int(state.max_turns[b]),
        [int(k) for k in state.hist[b, :n]],
        int(state.status[b]),
    )
