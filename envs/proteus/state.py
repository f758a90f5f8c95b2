"""The Proteus batch state (:class:`KernelState`) and building one from a board.

Why apart from the rules: the state class is the layer every Proteus module shares (the
kernels, the facade, the env, rendering), in the same file name as every game's state;
the arrays are described in ``envs/proteus/kernel.py``'s docstring and in
``docs/proteus.md``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from envs.core.cache import guard_cache
from envs.core.rng import mix64
from envs.proteus.constants import DEFAULT_MAX_TURNS
from envs.proteus.rules import _key
from envs.proteus.tables import EMPTY_PIECES, EMPTY_TSQ, HAND_ALL


@dataclass
class KernelState:
    """A batch of Proteus games (see the module docstring for the arrays)."""

    tiles: np.ndarray
    tsq: np.ndarray
    pieces: np.ndarray
    pat: np.ndarray
    bb: np.ndarray
    act: np.ndarray
    player: np.ndarray
    turn: np.ndarray
    max_turns: np.ndarray
    hist: np.ndarray
    hist_len: np.ndarray
    status: np.ndarray
    rng: np.ndarray

    # ``_S``: the tuple :meth:`arrays` built last, in a slot (not in ``vars(state)``, which
    # lists the arrays only); rebinding any field drops it
    __slots__ = ("_S", "__dict__")

    def __setattr__(self, name: str, value: object) -> None:
        # rebinding an array (``st.hist = grown``) must not leave a stale cached tuple
        object.__setattr__(self, name, value)
        object.__setattr__(self, "_S", None)

    @property
    def batch_size(self) -> int:
        return len(self.tiles)

    def arrays(self) -> tuple[np.ndarray, ...]:
        """The arrays in kernel argument order (one tuple, built once per binding).

        Why cached: every kernel call takes this tuple, and at B = 1 building it was a
        tenth of the call (issue 10); the arrays are changed in place, never rebound, by
        the kernels, so the same tuple stays valid until a field is assigned anew.
        """
        S = self._S  # type: ignore[attr-defined]  # the slot, set by __setattr__
        if S is None:
            S = self._build()
            object.__setattr__(self, "_S", S)
        return S

    def _build(self) -> tuple[np.ndarray, ...]:
        return (
            self.tiles,
            self.tsq,
            self.pieces,
            self.pat,
            self.bb,
            self.act,
            self.player,
            self.turn,
            self.max_turns,
            self.hist,
            self.hist_len,
            self.status,
            self.rng,
        )

    def copy(self) -> KernelState:
        return KernelState(*(a.copy() for a in self.arrays()))

    def __deepcopy__(self, memo: dict[int, object]) -> KernelState:
        """The arrays copied: all a state holds. Why: pyspiel clones a Python game state
        (``envs/proteus/openspiel.py``) by deep-copying its attributes, once per
        simulation of OpenSpiel's MCTSBot, and the generic path walks the dataclass."""
        return self.copy()

    def take(self, index: np.ndarray) -> KernelState:
        return KernelState(*(np.ascontiguousarray(a[index]) for a in self.arrays()))

    # read-only decoded views (for env, rendering, tests)
    @property
    def tile_at(self) -> np.ndarray:
        """(B, 9) int8 tile id per square, -1 = no tile."""
        out = (((self.tiles[:, None] >> (4 * np.arange(9))) & 15) - 1).astype(np.int8)
        out.setflags(write=False)
        return out

    @property
    def piece_at(self) -> np.ndarray:
        """(B, 9) int8 piece id (3*player + shape) per square, -1 = none."""
        out = (((self.pat[:, None] >> (4 * np.arange(9))) & 15) - 1).astype(np.int8)
        out.setflags(write=False)
        return out

    @property
    def active(self) -> np.ndarray:
        """(B, 3) int8 face-up shape per colour, -1 = none."""
        out = (((self.act[:, None] >> (2 * np.arange(3))) & 3) - 1).astype(np.int8)
        out.setflags(write=False)
        return out


@njit(cache=True)
def _seed_keys(seed, batch_size, offset):
    base = mix64(seed)
    out = np.empty(batch_size, dtype=np.uint64)
    for i in range(batch_size):
        idx = np.uint64(offset + i) + np.uint64(0x632BE59BD9B4E019)
        out[i] = mix64(base ^ mix64(idx))
    return out


def seed_keys(seed: int, batch_size: int, offset: int = 0) -> np.ndarray:
    """RNG key of game i from (seed, i) only: independent of batch size and position."""
    return _seed_keys(np.uint64(int(seed) & 0xFFFFFFFFFFFFFFFF), int(batch_size), int(offset))


def _alloc(b: int, max_turns: int, history: int | None, seed: int) -> KernelState:
    if isinstance(max_turns, bool) or int(max_turns) < 1:
        raise ValueError(f"max_turns must be a positive integer, got {max_turns!r}")
    h = int(max_turns) + 1 if history is None else int(history)
    if h < int(max_turns) + 1:  # a full row could not record a later turn's position
        raise ValueError(
            f"history must hold at least max_turns + 1 = {int(max_turns) + 1} positions "
            f"(PR-17: the empty board and one per turn), got {history!r}"
        )
    z = np.zeros(b, dtype=np.int64)
    return KernelState(
        tiles=z.copy(),
        tsq=z.copy(),
        pieces=z.copy(),
        pat=z.copy(),
        bb=z.copy(),
        act=z.copy(),
        player=np.zeros(b, dtype=np.int8),
        turn=np.zeros(b, dtype=np.int32),
        max_turns=np.full(b, int(max_turns), dtype=np.int32),
        hist=np.zeros((b, h), dtype=np.uint64),
        hist_len=np.zeros(b, dtype=np.int32),
        status=np.zeros(b, dtype=np.int8),
        rng=seed_keys(seed, b),
    )


def from_board(
    tile_at: np.ndarray,
    piece_at: np.ndarray,
    active: np.ndarray,
    player: int,
    turn: int = 0,
    max_turns: int = DEFAULT_MAX_TURNS,
    status: int = 0,
    history: list[int] | None = None,
) -> KernelState:
    """A batch of one game from mailbox arrays (tile id / piece id per square, -1 = none).

    ``history`` is the PR-17 window of packed positions ending with this one; None means
    just this position. Validation is the caller's (``notation.parse_position``).
    """
    st = _alloc(1, max_turns, None, 0)
    tiles = tsq = pieces = pat = bb = act = 0
    tsq, pieces, bb = EMPTY_TSQ, EMPTY_PIECES, HAND_ALL
    for sq in range(9):
        t = int(tile_at[sq])
        if t < 0:
            continue
        tiles |= (t + 1) << (4 * sq)
        tsq = (tsq & ~(15 << (4 * t))) | (sq << (4 * t))
        bb |= (1 << sq) | (1 << (36 + t))
        pc = int(piece_at[sq])
        if pc >= 0:
            pat |= (pc + 1) << (4 * sq)
            pieces = (pieces & ~(15 << (4 * pc))) | (sq << (4 * pc))
            bb |= (1 << (9 + 9 * (pc // 3) + sq)) | (1 << (27 + t))
            bb &= ~(1 << (45 + pc))
    for c in range(3):
        if int(active[c]) >= 0:
            act |= (int(active[c]) + 1) << (2 * c)
    st.tiles[0], st.tsq[0], st.pieces[0], st.pat[0], st.bb[0], st.act[0] = (
        tiles, tsq, pieces, pat, bb, act,
    )  # fmt: skip
    st.player[0], st.turn[0], st.status[0] = player, turn, status
    key = key_of(st, 0)
    hist = [key] if history is None else list(history)
    if hist[-1] != key:
        raise ValueError(
            f"the last history entry {hist[-1]:016x} is not the current position "
            f"({key:016x}); the history must end with the position itself"
        )
    st.hist[0, : len(hist)] = np.array(hist, dtype=np.uint64)
    st.hist_len[0] = len(hist)
    return st


def key_of(st: KernelState, b: int) -> int:
    """The packed PR-17 position of game ``b``."""
    return int(_key(st.tiles, st.pieces, st.bb, st.act, st.player, b))


guard_cache(globals())  # recompile if a sibling kernel file changed (envs/core/cache.py)
