"""The TurnBasedEnv template on two toy games: PettingZoo conformance and bookkeeping."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from tests.core.toy_games import HotPotato, TicTacToe, hot_potato_env, tictactoe_env


@pytest.mark.parametrize("factory", [tictactoe_env, hot_potato_env])
def test_api_and_seed(factory):
    api_test(factory(), num_cycles=200)
    seed_test(factory, num_cycles=200)


def test_render_modes():
    render_test(lambda render_mode=None: tictactoe_env(render_mode=render_mode))


def test_win_reward_reaches_loser_and_winner():
    env = TicTacToe()
    env.reset(options={"position": "xx.oo...."})
    env.step(env.str_to_action("c3"))  # x completes the top row
    assert env.terminations == {"x": True, "o": True}
    assert env.rewards == {"x": 1.0, "o": -1.0}
    # last() of the loser reports its own -1
    seen = {}
    for agent in env.agent_iter():
        _, reward, term, trunc, _ = env.last()
        seen[agent] = reward
        env.step(None)
    assert seen == {"x": 1.0, "o": -1.0}
    assert env.agents == []


def test_illegal_and_out_of_range_actions_leave_state_untouched():
    env = TicTacToe()
    env.reset(options={"position": "x........"})
    before = env.to_text()
    with pytest.raises(ValueError, match="illegal action 0 \\(a3\\)"):
        env.step(0)
    with pytest.raises(ValueError, match="out of range"):
        env.step(9)
    with pytest.raises(ValueError, match="integer"):
        env.step("a3")
    with pytest.raises(ValueError, match="malformed position"):
        env.reset(options={"position": "xx"})
    assert env.to_text() == before
    assert env.agent_selection == "o"


def test_env_wrapper_penalises_illegal_move():
    env = tictactoe_env()
    env.reset(seed=0)
    env.step(4)
    env.step(4)  # o plays an occupied square
    assert env.terminations["o"] and env.rewards["o"] == -1


def test_eliminated_agent_leaves_and_game_continues():
    env = HotPotato(pile=1)  # whoever moves first takes the last one
    env.reset(seed=3)
    first = env.agent_selection
    env.step(0)
    assert env.terminations[first] and env.rewards[first] == -1.0
    assert env.agent_selection == first  # dead agents step first (PettingZoo convention)
    env.step(None)
    assert first not in env.agents and len(env.agents) == 2
    second = env.agent_selection
    env.step(0)
    assert env.rewards[second] == -1.0
    winner = next(a for a in env.agents if a != second)
    assert env.rewards[winner] == 1.0 and all(env.terminations.values())


def test_same_seed_same_game():
    def play(seed):
        env = HotPotato()
        env.reset(seed=seed)
        rng = np.random.default_rng(0)
        trace = []
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
            trace.append((agent, reward, action))
            env.step(action)
        return trace

    assert play(7) == play(7)
    assert len({tuple(play(s)[0]) for s in range(20)}) > 1  # the seed matters
