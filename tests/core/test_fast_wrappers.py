"""envs.core.fast_wrappers: the fast env() stack behaves as PettingZoo classic's own stack."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test

from envs.core.fast_wrappers import make_fast_env
from envs.core.turn_based import make_env
from tests.core.toy_games import HotPotato, TicTacToe


def _trace(factory, seed: int) -> list:
    """(agent, reward, terminated, truncated) after every move of a random game, illegal moves included."""
    env = factory()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    trace = []
    for agent in env.agent_iter(max_iter=200):
        obs, reward, term, trunc, _ = env.last()
        trace.append((agent, reward, term, trunc))
        if term or trunc:
            action = None
        else:
            legal = np.flatnonzero(obs["action_mask"])
            illegal = np.flatnonzero(obs["action_mask"] == 0)
            # now and then an illegal (in-range) move, which ends the game with -1
            pool = illegal if len(illegal) and rng.random() < 0.05 else legal
            action = int(rng.choice(pool))
        env.step(action)
    return trace


@pytest.mark.parametrize("raw", [TicTacToe, HotPotato])
def test_same_games_as_the_plain_stack(raw) -> None:
    for seed in range(20):
        assert _trace(make_fast_env(raw), seed) == _trace(make_env(raw), seed)


@pytest.mark.parametrize("raw", [TicTacToe, HotPotato])
def test_passes_pettingzoo_api_test(raw) -> None:
    api_test(make_fast_env(raw)(), num_cycles=50)


def test_guarded_attributes_before_reset_and_action_checks() -> None:
    env = make_fast_env(TicTacToe)()
    for name in ("agents", "rewards", "agent_selection", "num_agents"):
        with pytest.raises(AttributeError, match="cannot be accessed before reset"):
            getattr(env, name)
    env.reset(seed=0)
    env.step(np.int64(4))  # numpy integers take the wrapper's own check, and pass it
    with pytest.raises(AssertionError, match="action is not in action space"):
        env.step(9)
    with pytest.raises(AssertionError, match="action is not in action space"):
        env.step(-1)
