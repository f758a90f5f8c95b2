"""Fused self-play (``selfplay``) against the step-by-step path, from the same keys.

``VirusFightBatch.selfplay`` runs many random decisions per game in one kernel call;
``random_actions`` + ``step(auto_reset=True)`` does one decision per call. Both draw every
action (and the VF-12 tie-break) from the game's own key and re-initialise a finished
game right after the decision that ended it, so from equal states they must leave
identical arrays, finish the same games and give seat 0 the same reward sum (VF-16,
VF-17), for 2, 3 and 4 players.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs.virus_fight.batch import VFState, VirusFightBatch
from tests.states import assert_same_state


def _stepwise(game: VirusFightBatch, st: VFState, steps: int) -> np.ndarray:
    """(B, 2) [games finished, seat-0 reward sum], as ``selfplay`` reports them."""
    stats = np.zeros((st.batch_size, 2), np.float64)
    for _ in range(steps):
        actions = game.random_actions(st)
        assert (actions >= 0).all()  # auto-reset: no game is over at a decision
        rew, done = game.step(st, actions, auto_reset=True)
        stats[:, 0] += done
        stats[:, 1] += rew[:, 0]
    return stats


@pytest.mark.parametrize(
    ("players", "size", "max_rounds", "batch", "steps"),
    [
        (2, 5, 100, 1, 3),
        (2, 5, 4, 16, 400),
        (3, 6, 6, 8, 300),
        (4, 7, 3, 6, 300),
        (2, 8, 100, 4, 200),
    ],
)
def test_selfplay_equals_random_actions_plus_step(
    players: int, size: int, max_rounds: int, batch: int, steps: int
) -> None:
    """Same keys -> same games, eliminations (VF-15), adjudications (VF-17) and resets."""
    game = VirusFightBatch(players, size, max_rounds)
    fused = game.init(batch, seed=players * 100 + batch)
    ref = game.copy(fused)
    stats = game.selfplay(fused, steps)
    expect = _stepwise(game, ref, steps)
    assert_same_state(fused, ref)
    np.testing.assert_array_equal(stats, expect)
    if steps >= 300:
        assert stats[:, 0].sum() >= batch  # many games finished and were reset


def test_selfplay_calls_compose() -> None:
    """selfplay(a) then selfplay(b) is selfplay(a + b): the state carries over exactly and
    the same games finish."""
    game = VirusFightBatch(3, 6, 5)
    one = game.init(10, seed=9)
    chunks = game.copy(one)
    total = game.selfplay(one, 250)
    parts = np.sum([game.selfplay(chunks, k) for k in (1, 49, 100, 100)], axis=0)
    assert_same_state(one, chunks)
    np.testing.assert_array_equal(total[:, 0], parts[:, 0])


def test_selfplay_reward_sum_does_not_depend_on_call_boundaries() -> None:
    """With 3+ players seat 0 can be out (-1, VF-16) before the game ends; its reward must
    count once whether or not a call boundary falls between the two."""
    game = VirusFightBatch(3, 6, 5)
    one = game.init(10, seed=9)
    chunks = game.copy(one)
    total = game.selfplay(one, 250)
    parts = np.sum([game.selfplay(chunks, k) for k in (1, 49, 100, 100)], axis=0)
    np.testing.assert_array_equal(total, parts)


def test_round_limit_one_adjudicates_every_game() -> None:
    """max_rounds=1: every game ends when its first round ends (VF-17) or earlier (VF-16)."""
    game = VirusFightBatch(2, 5, 1)
    st = game.init(12, seed=4)
    stats = game.selfplay(st, 200)
    assert (stats[:, 0] > 0).all()
    assert (np.abs(stats[:, 1]) <= stats[:, 0]).all()  # at most one reward per finished game
    assert (st.info[:, 4] <= 1).all()  # I_ROUND never passes the limit
