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


def test_step_observe_last_before_reset_say_so():
    env = TicTacToe()
    for call in (lambda: env.step(0), lambda: env.observe("x"), lambda: env.last()):
        with pytest.raises(RuntimeError, match=r"before reset\(\)"):
            call()
    assert env.legal_actions() == []


def test_step_after_the_game_says_it_is_over():
    env = TicTacToe()
    env.reset(options={"position": "xx.oo...."})
    env.step(env.str_to_action("c3"))
    for _ in env.agent_iter():
        env.step(None)
    assert env.agents == []
    with pytest.raises(RuntimeError, match="game is over"):
        env.step(0)
    with pytest.raises(RuntimeError, match="game is over"):
        env.last()
    env.reset(seed=1)  # and a new game starts normally
    env.step(4)


def test_unknown_agent_and_bad_seed_are_value_errors():
    env = TicTacToe()
    env.reset(seed=np.int64(3))  # numpy integer seeds are seeds
    with pytest.raises(ValueError, match="unknown agent 'z'"):
        env.observe("z")
    for seed in (1.5, "3", -1, True):
        with pytest.raises(ValueError, match="seed"):
            env.reset(seed=seed)


class _DrawsFirst(HotPotato):
    """Draws from the RNG before it rejects a position (as a careless game might)."""

    def _reset_state(self, rng, options):
        super()._reset_state(rng, None)
        if (options or {}).get("position") is not None:
            raise ValueError("malformed position")


def test_rejected_position_uses_no_randomness():
    a, b = _DrawsFirst(), _DrawsFirst()
    a.reset(seed=5)
    b.reset(seed=5)
    with pytest.raises(ValueError):
        a.reset(options={"position": "not a position"})
    a.reset()
    b.reset()
    assert a.agent_selection == b.agent_selection and a.to_text() == b.to_text()
    assert a._np_random.bit_generator.state == b._np_random.bit_generator.state


def test_pickle_keeps_buffer_views():
    import pickle

    env = TicTacToe()
    env.reset(seed=0)
    env._buf = np.zeros(4, dtype=np.bool_)
    env._view = env._buf.view(np.int8)[1:]
    copy = pickle.loads(pickle.dumps(env))
    copy._buf[2] = True
    assert copy._view[1] == 1 and np.shares_memory(copy._view, copy._buf)
    assert copy.to_text() == env.to_text() and copy.agent_selection == env.agent_selection


def test_deads_step_first_is_pettingzoo_s():
    # the template's loop must pick what PettingZoo's list-building original picks
    import copy
    import itertools

    from pettingzoo import AECEnv

    env = HotPotato()
    env.reset(seed=1)
    for dead in itertools.product([False, True], repeat=3):
        for selected in env.possible_agents:
            ours, theirs = copy.deepcopy(env), copy.deepcopy(env)
            for e in (ours, theirs):
                e.terminations = dict(zip(e.agents, dead, strict=True))
                e.agent_selection = selected
                e._skip_agent_selection = None
            assert ours._deads_step_first() == AECEnv._deads_step_first(theirs)
            assert ours.agent_selection == theirs.agent_selection
            assert ours._skip_agent_selection == theirs._skip_agent_selection
