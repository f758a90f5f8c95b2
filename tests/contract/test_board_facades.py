"""The board facades' fused learner step and action checks, one test per property.

* ``learner_step`` = ``step(auto_reset=True)`` + ``legal_mask`` + ``observe`` of the seat
  to move, in one call, from the same keys: equal states, rewards, done flags, seats and
  masks every step; its compact uint8 observation decodes to ``observe``'s floats exactly,
  but for the one plane the codes round (within 1/255): Proteus plane 33 (turn /
  max_turns), Virus Fight the round plane.
* Bad actions (NaN, fractions, wrong length, out of range, huge unsigned, strings,
  complex, masked out) raise ValueError naming the game and the games at fault, and
  leave every game unchanged (issue #11: "batch facades take anything"; a Virus Fight NaN
  used to crash the process).

Each case was a test of its game's own file (``tests/<game>/test_*_learner_step.py`` and
``test_*_fused_equivalence.py``); the game-specific tests stay there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from envs.proteus.batch import ProteusBatch
from envs.virus_fight.batch import VirusFightBatch
from tests.states import assert_same_state, same_state

#: (axis, index) of the one observation plane the compact codes round to 1/255
LOSSY_PLANE = {"proteus": (-1, 33), "virus_fight": (1, -2)}


def _mixed_limits(st: Any, seed: int) -> None:
    """Short PR-17 turn limits in a third of the Proteus games: many draws and resets."""
    rng = np.random.default_rng(seed)
    short = rng.random(st.batch_size) < 0.35
    st.max_turns[short] = rng.integers(1, 30, size=int(short.sum()))


@dataclass(frozen=True)
class Run:
    """One learner-step comparison: facade, batch, seed, steps, finished games at least."""

    make: Callable[[], Any]
    batch: int
    seed: int
    steps: int
    min_finished: int = 1
    prepare: Callable[[Any, int], None] | None = None


RUNS = {
    "proteus-1": Run(ProteusBatch, 1, 3, 250),
    "proteus-70": Run(ProteusBatch, 70, 3, 250),
    "proteus-mixed-5": Run(lambda: ProteusBatch(max_turns=200), 5, 21, 300, 5, _mixed_limits),
    "proteus-mixed-80": Run(lambda: ProteusBatch(max_turns=200), 80, 21, 300, 80, _mixed_limits),
    "virus_fight-2p": Run(lambda: VirusFightBatch(2), 40, 2, 300),
    "virus_fight-3p": Run(lambda: VirusFightBatch(3), 40, 3, 300),
    "virus_fight-4p": Run(lambda: VirusFightBatch(4), 40, 4, 300),
    "virus_fight-2p-5-4": Run(lambda: VirusFightBatch(2, 5, 4), 6, 31, 250),  # VF-17 endings
    "virus_fight-3p-6-3": Run(lambda: VirusFightBatch(3, 6, 3), 6, 31, 250),
}


@pytest.mark.parametrize("run", list(RUNS.values()), ids=list(RUNS))
def test_learner_step_is_step_mask_and_observation(run: Run) -> None:
    g = run.make()
    st = g.init(run.batch, seed=run.seed)
    if run.prepare is not None:
        run.prepare(st, run.seed)
    ref = g.copy(st)
    out = g.learner_buffers(run.batch)
    g.learner_view(st, out)
    np.testing.assert_array_equal(out.mask, g.legal_mask(st))
    axis, plane = LOSSY_PLANE[g.name]
    finished = 0
    for _ in range(run.steps):
        actions = g.random_actions(ref)
        np.testing.assert_array_equal(g.random_actions(st), actions)  # same keys
        g.learner_step(st, actions, out)
        rewards, done = g.step(ref, actions, auto_reset=True)
        finished += int(done.sum())
        assert_same_state(st, ref)
        np.testing.assert_array_equal(out.rewards, rewards)
        np.testing.assert_array_equal(out.done, done)
        np.testing.assert_array_equal(out.seat, g.current_player(st))
        np.testing.assert_array_equal(out.mask, g.legal_mask(st))
        planes = g.observe(st, out.seat)
        decoded = g.decode(out.obs)
        assert out.obs.dtype == np.uint8
        np.testing.assert_array_equal(
            np.delete(decoded, plane, axis), np.delete(planes, plane, axis)
        )
        lossy = np.take(decoded, plane, axis) - np.take(planes, plane, axis)
        assert np.abs(lossy).max() <= 1 / 255 + 1e-7
    assert finished >= run.min_finished  # auto-reset was exercised
    assert out.bytes_per_step() < (np.prod(g.obs_shape) * 4 + g.num_actions) / 2


PACKED = ["proteus-70", "proteus-mixed-80", "virus_fight-2p", "virus_fight-3p",
          "virus_fight-4p", "virus_fight-3p-6-3"]  # fmt: skip


@pytest.mark.parametrize("dense", [False, True], ids=["planes", "dense"])
@pytest.mark.parametrize("name", PACKED)
def test_packed_mask_is_the_bool_mask(name: str, dense: bool) -> None:
    """``learner_buffers(..., mask_bits=True)``: the same steps, observations and rewards,
    and a mask whose words unpack (action a = bit a % 64 of word a // 64) to the bool mask,
    with no bit set past the last action (issue 14: the mask was most of a step's bytes)."""
    from envs.core.batch import mask_words, unpack_mask

    run = RUNS[name]
    g = run.make()
    st = g.init(run.batch, seed=run.seed)
    if run.prepare is not None:
        run.prepare(st, run.seed)
    ref = g.copy(st)
    n = g.num_actions
    packed = g.learner_buffers(run.batch, dense=dense, mask_bits=True)
    plain = g.learner_buffers(run.batch, dense=dense)
    assert packed.mask.dtype == np.uint64 and packed.mask.shape == (run.batch, mask_words(n))
    assert packed.mask_bits and not plain.mask_bits
    assert plain.bytes_per_step() - packed.bytes_per_step() == n - 8 * mask_words(n)
    g.learner_view(st, packed)
    g.learner_view(ref, plain)
    for step in range(run.steps):
        np.testing.assert_array_equal(unpack_mask(packed.mask, n), plain.mask, err_msg=f"{step}")
        np.testing.assert_array_equal(packed.bool_mask(n), g.legal_mask(st))
        if n % 64:
            assert not (packed.mask[:, -1] >> np.uint64(n % 64)).any()  # no bit past the end
        for part in ("obs", "rewards", "done", "seat"):
            np.testing.assert_array_equal(getattr(packed, part), getattr(plain, part))
        actions = g.random_actions(ref)
        g.random_actions(st)
        g.learner_step(st, actions, packed)
        g.learner_step(ref, actions, plain)
        assert_same_state(st, ref)


def test_packed_masks_of_the_wrong_shape_are_refused() -> None:
    from envs.core.batch import unpack_mask

    g = ProteusBatch()
    st = g.init(4, seed=0)
    out = g.learner_buffers(4, mask_bits=True)
    out.mask = np.zeros((4, 3), np.uint64)  # one word short
    with pytest.raises(ValueError, match="'mask' is uint64\\(4, 3\\), expected .*uint64\\(4, 4\\)"):
        g.learner_step(st, g.random_actions(g.copy(st)), out)
    with pytest.raises(ValueError, match="packed mask of 226 actions has shape \\(B, 4\\)"):
        unpack_mask(np.zeros((4, 3), np.uint64), 226)
    with pytest.raises(ValueError, match="batch_size must be an integer >= 0"):
        g.learner_buffers(-1, mask_bits=True)


# ----------------------------------------------------------------------------- bad actions
def _advance(g: Any, st: Any, steps: int) -> None:
    """The game's fused random self-play (the positions the old per-game tests used)."""
    if isinstance(g, ProteusBatch):
        g.random_step(st, steps)
    else:
        g.selfplay(st, steps)


def _at(i: int, value: Any) -> Callable[[np.ndarray, int], np.ndarray]:
    return lambda a, n: np.where(np.arange(len(a)) == i, value, a)


#: kind -> (legal actions, num_actions) -> bad actions
BAD_ACTIONS: dict[str, Callable[[np.ndarray, int], np.ndarray]] = {
    "nan": lambda a, n: np.where(np.arange(len(a)) == 2, np.nan, a.astype(np.float64)),
    "half": lambda a, n: a + 0.5,
    "quarter": lambda a, n: a + 0.25,
    "negative -5": _at(1, -5),
    "negative -7": _at(1, -7),
    "num_actions": lambda a, n: np.where(np.arange(len(a)) == 0, n, a),  # one past the end
    "huge": _at(0, 10**6),
    "huge uint": lambda a, n: a.astype(np.uint64) + np.uint64(2**63),
    "wrong length": lambda a, n: a[:1],
    "strings": lambda a, n: a.astype(str),
    "complex": lambda a, n: a.astype(np.complex128),
}
FACADES: dict[str, Callable[[], Any]] = {
    "proteus": ProteusBatch,
    "virus_fight-2p": lambda: VirusFightBatch(2),
}


def _call(g: Any, path: str, st: Any, actions: Any) -> None:
    if path == "step":
        g.step(st, actions)
    else:
        g.learner_step(st, actions, g.learner_buffers(st.batch_size))


@pytest.mark.parametrize("kind", sorted(BAD_ACTIONS))
@pytest.mark.parametrize("path", ["step", "learner_step"])
@pytest.mark.parametrize("facade", list(FACADES))
def test_bad_actions_raise_and_change_nothing(facade: str, path: str, kind: str) -> None:
    g = FACADES[facade]()
    st = g.init(8, seed=1)
    _advance(g, st, 30 if g.name == "proteus" else 25)
    before = g.copy(st)
    actions = BAD_ACTIONS[kind](g.random_actions(g.copy(st)), g.num_actions)
    with pytest.raises(ValueError, match=g.name):
        _call(g, path, st, actions)
    assert same_state(st, before)


#: facade, seed, fused steps, the games given a masked-out action
MASKED: dict[str, tuple[Callable[[], Any], int, int, tuple[int, int]]] = {
    "proteus": (ProteusBatch, 4, 40, (1, 4)),
    "virus_fight-3p": (lambda: VirusFightBatch(3), 4, 30, (0, 5)),
}


@pytest.mark.parametrize("path", ["step", "learner_step"])
@pytest.mark.parametrize("facade", list(MASKED))
def test_masked_out_actions_are_named(facade: str, path: str) -> None:
    make, seed, steps, games = MASKED[facade]
    g = make()
    st = g.init(6, seed=seed)
    _advance(g, st, steps)
    mask = g.legal_mask(st)
    actions = g.random_actions(g.copy(st))
    actions[list(games)] = [int(np.flatnonzero(~mask[b])[0]) for b in games]
    before = g.copy(st)
    a, b = games
    with pytest.raises(ValueError, match=rf"2 action\(s\) not legal.*game {a}: .*game {b}: "):
        _call(g, path, st, actions)
    assert same_state(st, before)
    g.step(st, g.random_actions(g.copy(st)))  # legal actions still pass
