"""Every Virus Fight batch operation gives the same games from its serial and its prange compile.

Why: ``envs.core.loops.run_loop`` picks the compile by batch size (serial below 64 games,
the prange compile above), so a difference would make a game's course depend on the batch
it sits in (DESIGN: "the same seed gives the same game, whatever the batch size"). It also
guards a Numba 0.68 hazard: inlined into a ``prange`` loop, writes to arrays unpacked from
a tuple are dropped while the serial compile is right. The facade is run twice on twin
states with ``run_loop`` forced to one compile, then to the other (the batches here are
small, so without forcing both would run the serial one). The states compared are
mid-game positions of setup and play (VF-9..VF-15) with finished games among them
(VF-15..VF-17), for 2, 3 and 4 players.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest

from envs.core import loops
from envs.virus_fight import kernel as K
from envs.virus_fight.batch import VFState, VirusFightBatch
from tests.states import assert_same_state

CASES = [(2, 5, 4, 5), (3, 6, 3, 70), (4, 7, 2, 9)]  # players, board, max_rounds, batch


@contextmanager
def _compile(parallel: bool) -> Iterator[None]:
    """Every ``run_loop`` call of the facade runs the prange compile (all threads) or the
    serial one, whatever the batch size."""
    real = loops.run_loop

    def forced(serial: Any, par: Any, batch: int, *args: Any, many_steps: bool = False,
               force: bool | None = None) -> Any:  # fmt: skip
        return real(serial, par, batch, *args, many_steps=many_steps, force=parallel)

    loops.run_loop = forced  # type: ignore[assignment]
    try:
        yield
    finally:
        loops.run_loop = real  # type: ignore[assignment]


def _both(fn: Any, game: VirusFightBatch, st: VFState, *args: Any) -> tuple[Any, Any, VFState]:
    """fn(game, state, *args) from the serial and the prange compile on twin states;
    asserts the states end equal; returns (serial result, parallel result, the state)."""
    twin = game.copy(st)
    with _compile(False):
        a = fn(game, st, *args)
    with _compile(True):
        b = fn(game, twin, *args)
    assert_same_state(st, twin)
    return a, b, st


def _equal(a: Any, b: Any) -> None:
    if isinstance(a, tuple):
        for x, y in zip(a, b, strict=True):
            np.testing.assert_array_equal(x, y)
    else:
        np.testing.assert_array_equal(a, b)


def _mid_game(game: VirusFightBatch, batch: int, seed: int) -> VFState:
    """Games in setup and play, some over (no auto-reset), all from the serial compile."""
    st = game.init(batch, seed=seed)
    with _compile(False):
        game.selfplay(st, 7 + seed)
        for _ in range(60):  # until about a third of the games are over
            if game.terminated(st).mean() > 0.3:
                break
            game.step(st, game.random_actions(st))
    return st


def _play(game: VirusFightBatch, st: VFState, steps: int, auto_reset: bool) -> np.ndarray:
    """``steps`` random decisions by random_actions + step; the stacked rewards and done."""
    out = []
    for _ in range(steps):
        rew, done = game.step(st, game.random_actions(st), auto_reset=auto_reset)
        out.append(np.concatenate([rew, done[:, None]], axis=1))
    return np.stack(out)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("seed", [1, 4])
def test_init_mask_random_observe(case: tuple[int, int, int, int], seed: int) -> None:
    """VF-9..VF-15 masks, random legal draws (keys advance alike), observation planes."""
    players, size, rounds, batch = case
    game = VirusFightBatch(players, size, rounds)
    a = game.init(batch, seed)
    with _compile(True):
        b = game.init(batch, seed)
    assert_same_state(a, b)  # new games (VF-9)
    st = _mid_game(game, batch, seed)
    assert game.terminated(st).any() and not game.terminated(st).all()
    _equal(*_both(VirusFightBatch.legal_mask, game, st)[:2])
    _equal(*_both(VirusFightBatch.random_actions, game, st)[:2])
    seats = np.arange(batch, dtype=np.int64) % players
    _equal(*_both(VirusFightBatch.observe, game, st, seats)[:2])
    counts = np.zeros(batch, np.int64)  # the prange-only count agrees with the mask
    K.num_legal(*st.arrays()[:5], game.seg, game.cfg, counts)
    np.testing.assert_array_equal(counts, game.legal_mask(st).sum(axis=1))


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("auto_reset", [False, True])
def test_step(case: tuple[int, int, int, int], auto_reset: bool) -> None:
    """VF-10..VF-17 transitions, with and without auto-reset, 30 decisions."""
    players, size, rounds, batch = case
    game = VirusFightBatch(players, size, rounds)
    st = _mid_game(game, batch, 2)
    acts = game.random_actions(game.copy(st))
    g = int(np.flatnonzero(~game.terminated(st))[0])
    acts[g] = int(np.flatnonzero(~game.legal_mask(st)[g])[0])  # masked out: no game changes
    before = game.copy(st)
    with _compile(True), pytest.raises(ValueError):
        game.step(st, acts, auto_reset=auto_reset)
    assert_same_state(st, before)
    _equal(*_both(_play, game, st, 30, auto_reset)[:2])


@pytest.mark.parametrize("case", CASES)
def test_fused_selfplay(case: tuple[int, int, int, int]) -> None:
    """Fused random self-play with resets (stats and every array)."""
    players, size, rounds, batch = case
    game = VirusFightBatch(players, size, rounds)
    st = _mid_game(game, batch, 3)
    _equal(*_both(VirusFightBatch.selfplay, game, st, 60)[:2])


def _learn(game: VirusFightBatch, st: VFState, dense: bool, bits: bool = False) -> np.ndarray:
    """learner_view then 25 learner steps on mask-drawn actions; every output, stacked
    (``bits``: the packed mask's words, as float64 of each 32-bit half)."""
    out = game.learner_buffers(st.batch_size, dense=dense, mask_bits=bits)
    rows = []

    def snap() -> None:
        rows.append(
            np.concatenate(
                [
                    out.obs.reshape(st.batch_size, -1).astype(np.float64),
                    out.mask.view(np.uint32).astype(np.float64)
                    if bits
                    else out.mask.astype(np.float64),
                    out.rewards.astype(np.float64),
                    out.done[:, None].astype(np.float64),
                    out.seat[:, None].astype(np.float64),
                ],
                axis=1,
            )
        )

    game.learner_view(st, out)
    snap()
    for _ in range(25):
        game.learner_step(st, game.random_actions(st), out)
        snap()
    return np.stack(rows)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("dense", [False, True])
def test_learner_step_both_layouts(case: tuple[int, int, int, int], dense: bool) -> None:
    """The fused learner step (validate, apply, auto-reset, observation, mask), planes and
    dense code rows."""
    players, size, rounds, batch = case
    game = VirusFightBatch(players, size, rounds)
    st = _mid_game(game, batch, 5)
    st.info[0, K.I_PHASE] = K.PH_OVER  # a game over before the step is reset by it
    _equal(*_both(_learn, game, st, dense)[:2])


@pytest.mark.parametrize("case", CASES)
def test_learner_step_packed_mask(case: tuple[int, int, int, int]) -> None:
    """The learner step with the packed mask (``mask_bits``) from both compiles."""
    players, size, rounds, batch = case
    game = VirusFightBatch(players, size, rounds)
    st = _mid_game(game, batch, 5)
    st.info[0, K.I_PHASE] = K.PH_OVER
    _equal(*_both(_learn, game, st, True, True)[:2])
