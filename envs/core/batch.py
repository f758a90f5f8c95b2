"""The batch-game protocol: one Python facade per turn-based game over its Numba kernels.

Batch consumers (training VecEnvs, MCTS rollouts, the ladder, benchmarks) talk to a game
through this facade and never through the AEC adapter (the PettingZoo wrapper stack costs
about 4x on tiny games). State is a small dataclass of numpy arrays with a leading batch
axis; every method is a thin call into ``@njit`` kernels. Seeds: each game keeps its
own RNG key derived from ``(seed, i)``, so a game's course never depends on the batch
size, its position in the batch or the thread count.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

State = Any  # a game-specific dataclass of numpy arrays with a leading batch axis


@runtime_checkable
class BatchGame(Protocol):
    """What every turn-based game offers to batch consumers.

    Rewards follow the AEC env: a seat receives its final reward (+1 / -1 / 0) in the
    step that ends its game or eliminates it, and 0 otherwise.
    """

    name: str
    num_players: int
    num_actions: int
    obs_shape: tuple[int, ...]

    def init(self, batch_size: int, seed: int) -> State:
        """New games; game i is seeded from (seed, i)."""

    def copy(self, state: State) -> State:
        """Deep copy (for search)."""

    def take(self, state: State, index: np.ndarray) -> State:
        """Gather games ``index`` into a new batch (e.g. repeat one game N times)."""

    def current_player(self, state: State) -> np.ndarray:
        """(B,) int seat to act; -1 where the game is over."""

    def legal_mask(self, state: State) -> np.ndarray:
        """(B, num_actions) bool legal actions of the seat to act (all False when over)."""

    def step(
        self, state: State, actions: np.ndarray, auto_reset: bool = False
    ) -> tuple[np.ndarray, np.ndarray]:
        """Apply one action per game in place. Returns (rewards (B, P) float32, done (B,) bool).

        Actions must be legal (consumers use ``legal_mask``). With ``auto_reset`` a game
        that ended is re-initialised from its own RNG after its rewards are recorded.
        """

    def random_actions(self, state: State) -> np.ndarray:
        """(B,) uniformly random legal actions drawn from each game's own RNG key."""

    def terminated(self, state: State) -> np.ndarray:
        """(B,) bool: game over."""

    def observe(self, state: State, seats: np.ndarray) -> np.ndarray:
        """(B, *obs_shape) float32 planes from each given seat's point of view."""


# ----------------------------------------------------------------------------- learner step


@dataclass
class LearnerBuffers:
    """Caller-owned outputs of a fused learner step, allocated once and reused every step.

    ``obs`` holds compact codes (uint8; the facade's ``decode`` or ``obs_scale`` turns
    them into the float planes of ``observe``) and ``mask`` the legal actions, both for
    the seat to move (``seat``) after the step and the auto-reset; ``rewards`` and
    ``done`` are the step's. ``bad`` is the validation's scratch row. A continuous-action
    facade has no mask (``mask`` is None there) and may keep float observations.

    ``mask`` is a (B, num_actions) bool row per game, or with ``mask_bits`` the same set
    packed into (B, ceil(num_actions / 64)) uint64 words, action ``a`` at bit ``a % 64``
    of word ``a // 64`` (about an eighth of the bool row's bytes). :func:`unpack_mask`
    gives the bool rows back; a torch learner can unpack on its own device. Why: the bool
    row was most of a step's bytes, and writing a word costs less than eight bools
    (``docs/benchmarks.md``, "The learner step without branches").
    """

    obs: np.ndarray
    mask: np.ndarray  # None in a continuous-action facade's buffers
    rewards: np.ndarray
    done: np.ndarray
    seat: np.ndarray
    bad: np.ndarray

    @classmethod
    def allocate(
        cls,
        batch: int,
        obs_shape: tuple[int, ...],
        num_actions: int,
        num_players: int,
        mask_bits: bool = False,
    ) -> LearnerBuffers:
        """Zeroed buffers for ``batch`` games (``mask_bits``: the packed mask, see above)."""
        if int(batch) != batch or batch < 0:
            raise ValueError(f"batch_size must be an integer >= 0, got {batch!r}")
        mask = (
            np.zeros((batch, mask_words(num_actions)), np.uint64)
            if mask_bits
            else np.zeros((batch, num_actions), np.bool_)
        )
        return cls(
            obs=np.zeros((batch, *obs_shape), np.uint8),
            mask=mask,
            rewards=np.zeros((batch, num_players), np.float32),
            done=np.zeros(batch, np.bool_),
            seat=np.zeros(batch, np.int64),
            bad=np.zeros(batch, np.bool_),
        )

    @property
    def batch_size(self) -> int:
        return int(self.done.shape[0])

    @property
    def mask_bits(self) -> bool:
        """Whether ``mask`` holds packed words (``allocate(..., mask_bits=True)``)."""
        return self.mask is not None and self.mask.dtype == np.uint64

    def bool_mask(self, num_actions: int) -> np.ndarray:
        """The mask as (B, num_actions) bool rows (a view when it already is one)."""
        if self.mask_bits:
            return unpack_mask(self.mask, num_actions)
        return self.mask

    def kernel_masks(self) -> tuple[np.ndarray, np.ndarray]:
        """(bool rows, packed rows) for a board game's learner kernels: the mask in its own
        form and an empty (B, 0) stand-in for the other, so that one compile serves both."""
        if self.mask_bits:
            return _no_rows(self.batch_size, np.bool_), self.mask
        return self.mask, _no_rows(self.batch_size, np.uint64)

    def bytes_per_step(self) -> int:
        """Bytes one step writes per game: observation, mask, rewards, done, seat."""
        parts = (self.obs, self.mask, self.rewards, self.done, self.seat)
        return sum(a.nbytes for a in parts if a is not None) // max(self.batch_size, 1)

    def check(self, batch: int, obs_shape: tuple[int, ...], num_actions: int) -> None:
        """ValueError unless these buffers fit a batch of ``batch`` games of this game."""
        want = {
            "obs": ((batch, *obs_shape), np.uint8),
            "mask": (
                ((batch, mask_words(num_actions)), np.uint64)
                if self.mask_bits
                else ((batch, num_actions), np.bool_)
            ),
            "done": ((batch,), np.bool_),
            "seat": ((batch,), np.int64),
            "bad": ((batch,), np.bool_),
        }
        for name, (shape, dtype) in want.items():
            a = getattr(self, name)
            if a.shape != shape or a.dtype != dtype or not a.flags.c_contiguous:
                raise ValueError(
                    f"learner buffer {name!r} is {a.dtype}{a.shape}, expected a contiguous "
                    f"{np.dtype(dtype)}{shape}: allocate with the facade's learner_buffers()"
                )
        r = self.rewards
        if r.shape[0] != batch or r.dtype != np.float32 or not r.flags.c_contiguous:
            raise ValueError(f"learner buffer 'rewards' is {r.dtype}{r.shape}, expected float32")


@functools.lru_cache(maxsize=64)
def _no_rows(batch: int, dtype: type) -> np.ndarray:
    """A (batch, 0) array (no data, never written): kept, as a learner call at B = 1 (an
    AEC step) would otherwise allocate one per call."""
    return np.empty((batch, 0), dtype)


def mask_words(num_actions: int) -> int:
    """uint64 words of one packed mask row: ceil(num_actions / 64)."""
    return (int(num_actions) + 63) // 64


def unpack_mask(bits: np.ndarray, num_actions: int) -> np.ndarray:
    """(B, num_actions) bool rows of a packed mask (``LearnerBuffers`` with ``mask_bits``).

    Action ``a`` is bit ``a % 64`` of word ``a // 64`` (little-endian words, as numpy's
    ``unpackbits(..., bitorder="little")`` reads the bytes of a little-endian machine).
    """
    words = np.ascontiguousarray(bits, dtype=np.dtype("<u8"))
    if words.ndim != 2 or words.shape[1] != mask_words(num_actions):
        raise ValueError(
            f"a packed mask of {num_actions} actions has shape (B, {mask_words(num_actions)}), "
            f"got {np.shape(bits)}"
        )
    flat = np.unpackbits(words.view(np.uint8), axis=1, count=num_actions, bitorder="little")
    return flat.view(np.bool_)


def has_learner_step(game: Any) -> bool:
    """Whether ``game`` offers the fused learner step (``learner_buffers``, ``learner_step``,
    ``learner_view``, ``decode``) and so also ``step(..., validate=False)``.

    Why: consumers that already checked an action against a mask the kernel wrote skip
    the step's second check, and read the seat to act and its mask in one call. A facade
    opts out by setting these names to None (its observations differ from the planes).
    """
    names = ("learner_buffers", "learner_step", "learner_view", "decode")
    return all(callable(getattr(game, n, None)) for n in names)


def as_actions(actions: Any, batch: int, num_actions: int, game: str) -> np.ndarray:
    """``actions`` as a contiguous (batch,) int64 array, or ValueError naming what is wrong.

    Why: the kernels index tables with the action id, so a NaN, a fraction, a wrong
    length or an id outside ``[0, num_actions)`` must never reach them. Integer arrays
    pass without a copy when already int64; floats must hold whole numbers. Whether an
    id is legal in its game is the kernel's check (``-1`` passes here: finished games
    ignore their action).
    """
    a = np.asarray(actions)
    if a.ndim != 1 or a.shape[0] != batch:
        raise ValueError(
            f"{game}: actions must have shape ({batch},) for a batch of {batch} games, "
            f"got shape {a.shape}"
        )
    kind = a.dtype.kind
    if kind == "f":
        whole = np.isfinite(a) & (a == np.floor(a))
        if not whole.all():
            _raise_bad(game, np.flatnonzero(~whole), a, "not a whole number")
    elif kind not in "iu":
        raise ValueError(f"{game}: actions must be integers, got dtype {a.dtype}")
    # compare before converting: a huge uint64 or float must not wrap into range; -1 is
    # the "no action" of a finished game (what random_actions returns there)
    outside = (a < -1) | (a >= num_actions)
    if outside.any():
        _raise_bad(game, np.flatnonzero(outside), a, f"outside [-1, {num_actions})")
    return np.ascontiguousarray(a, dtype=np.int64)


def raise_illegal(game: str, bad: np.ndarray, actions: np.ndarray) -> None:
    """ValueError naming the games whose action is not legal there (batch unchanged)."""
    _raise_bad(game, np.flatnonzero(bad), actions, "not legal in that game's position")


def _raise_bad(game: str, idx: np.ndarray, actions: np.ndarray, why: str) -> None:
    shown = ", ".join(f"game {int(i)}: {np.asarray(actions)[int(i)].item()!r}" for i in idx[:8])
    more = f" and {len(idx) - 8} more" if len(idx) > 8 else ""
    raise ValueError(
        f"{game}: {len(idx)} action(s) {why} ({shown}{more}); no game was changed. "
        "Use the legal mask (or validate=False only for actions drawn from it)."
    )
