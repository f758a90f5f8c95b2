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


def _call_trace(factory, seed: int) -> list:
    """Random call orders a user may make: step without observing first, observing the
    other agents, an illegal or numpy action, last(observe=False); every result recorded."""
    env = factory()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    trace: list = []

    def record(what, fn):
        try:
            out = fn()
        except Exception as exc:  # noqa: BLE001 - the comparison is of the exception itself
            out = (type(exc).__name__, str(exc))
        if isinstance(out, dict):
            out = {k: v.tobytes() for k, v in out.items()}
        elif isinstance(out, tuple) and out and isinstance(out[0], dict):
            out = ({k: v.tobytes() for k, v in out[0].items()}, *out[1:])
        trace.append((what, out, list(env.agents), dict(env.rewards), dict(env.terminations)))

    n = int(env.action_space(env.possible_agents[0]).n)
    for _ in range(120):
        if not env.agents:
            env.reset(seed=int(rng.integers(1000)))
        agent = env.agent_selection
        u = rng.random()
        if u < 0.2:
            other = env.possible_agents[int(rng.integers(len(env.possible_agents)))]
            record("observe", lambda other=other: env.observe(other))
        elif u < 0.3:
            record("last no obs", lambda: env.last(observe=False))
        elif u < 0.5:
            record("last", env.last)
        elif env.terminations[agent] or env.truncations[agent]:
            record("dead step", lambda: env.step(None))
        else:
            mask = env.unwrapped.observe(agent)["action_mask"]
            legal, illegal = np.flatnonzero(mask), np.flatnonzero(mask == 0)
            pick = rng.random()
            if pick < 0.05 and len(illegal):
                action = int(rng.choice(illegal))
            elif pick < 0.1:
                action = np.int64(rng.choice(legal))
            elif pick < 0.12:
                action = n
            else:
                action = int(rng.choice(legal))
            record(f"step {action!r}", lambda action=action: env.step(action))
    return trace


@pytest.mark.parametrize("raw", [TicTacToe, HotPotato])
def test_short_paths_match_the_plain_stack_in_any_call_order(raw) -> None:
    # the short paths (last/observe/step of a legal int) must not change what happens when
    # a step comes without an observation, after another agent's, or with a numpy action
    for seed in range(15):
        assert _call_trace(make_fast_env(raw), seed) == _call_trace(make_env(raw), seed)
