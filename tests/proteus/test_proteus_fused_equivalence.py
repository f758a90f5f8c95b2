"""Fused self-play (``random_step``) against the step-by-step path, from the same keys.

``ProteusBatch.random_step`` keeps each game's words in registers and runs many random
turns in one kernel call; ``random_actions`` + ``step(auto_reset=True)`` does one turn per
call. Both draw every action from the game's own key with the same sampler, so from equal
states they must give identical arrays (board words, turn counters, PR-17 histories, status,
RNG keys) and the same number of finished games. The one correspondence to respect: the
fused path re-initialises a finished game at the start of its next turn, the step path
right after the turn that ended it. So the step path's last turn runs without auto-reset,
and chunked fused calls are compared with one fused call.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs.proteus import kernel as K
from envs.proteus.batch import ProteusBatch
from tests.states import assert_same_state


def _stepwise(game: ProteusBatch, st: K.KernelState, n_steps: int) -> int:
    """n_steps random turns per game, one call each; games finished (as random_step counts)."""
    finished = 0
    for i in range(n_steps):
        actions = game.random_actions(st)
        assert (actions >= 0).all()  # auto-reset: no game is ever over at a turn's start
        _, done = game.step(st, actions, auto_reset=i < n_steps - 1)
        finished += int(done.sum())
    return finished


def _mixed_limits(st: K.KernelState, seed: int) -> None:
    """Short PR-17 turn limits in a third of the games: many turn-limit draws and resets."""
    rng = np.random.default_rng(seed)
    short = rng.random(st.batch_size) < 0.35
    st.max_turns[short] = rng.integers(1, 30, size=int(short.sum()))


@pytest.mark.parametrize(("batch", "n_steps"), [(1, 1), (7, 500), (96, 300)])
def test_random_step_equals_random_actions_plus_step(batch: int, n_steps: int) -> None:
    """Same keys -> same games: PR-8 resets, PR-16 wins and PR-17 draws land on the same turn."""
    game = ProteusBatch(max_turns=200)
    fused = game.init(batch, seed=batch + n_steps)
    _mixed_limits(fused, batch)
    ref = fused.copy()
    n_fused = game.random_step(fused, n_steps)
    n_ref = _stepwise(game, ref, n_steps)
    assert_same_state(fused, ref)
    assert n_fused == n_ref
    if n_steps >= 300:
        assert n_fused >= batch  # the comparison covered many finished (and reset) games
        assert (fused.turn > 0).any() and (fused.turn <= fused.max_turns).all()


def test_turn_counter_restarts_on_auto_reset() -> None:
    """PR-17 counts the turns of the current game only: after a reset the counter starts at 0.

    With every game limited to 5 turns, 400 fused turns finish exactly 80 games each (no
    win fits in 5 placement turns: a goal needs three own pieces on the board, PR-15).
    """
    game = ProteusBatch(max_turns=5)
    st = game.init(16, seed=3)
    finished = game.random_step(st, 400)
    assert finished == 16 * 80
    ref = game.init(16, seed=3)
    assert finished == _stepwise(game, ref, 400)
    assert (st.turn <= 5).all()


def test_turn_limit_one_finishes_every_turn() -> None:
    """max_turns=1: every turn ends a game by PR-17 (no placement can win), 1 per game per turn."""
    game = ProteusBatch(max_turns=1)
    st = game.init(8, seed=5)
    assert game.random_step(st, 25) == 8 * 25
    assert (st.status == 4).all() and (st.turn == 1).all()


def test_fused_calls_compose() -> None:
    """random_step(a) then random_step(b) is random_step(a + b): a finished game left by one
    call is re-initialised by the next (the state carries over exactly)."""
    game = ProteusBatch(max_turns=200)
    one = game.init(24, seed=11)
    _mixed_limits(one, 11)
    chunks = one.copy()
    total = game.random_step(one, 240)
    parts = sum(game.random_step(chunks, k) for k in (1, 2, 37, 100, 100))
    assert_same_state(one, chunks)
    assert total == parts


@pytest.mark.slow
def test_random_step_equals_step_path_multithreaded() -> None:
    """The prange kernels (batch >= PARALLEL_MIN_BATCH) give the same games as the serial ones."""
    game = ProteusBatch(max_turns=60)
    fused = game.init(K.PARALLEL_MIN_BATCH + 3, seed=2)
    ref = fused.copy()
    assert game.random_step(fused, 150) == _stepwise(game, ref, 150)
    assert_same_state(fused, ref)
