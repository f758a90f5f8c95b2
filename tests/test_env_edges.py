"""Edges of the board games' AEC envs (issue #11 items 5-7): call order, pickling, seeds.

Each reproduction of the issue is a test: step before reset (was ``AttributeError
'agent_selection'``), step after the game (was ``KeyError 'black'``), ``pickle.dumps(env())``
(failed), a rejected Virus Fight position used up an RNG draw, numpy integer seeds.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from envs import proteus_v0, virus_fight_v0
from tests.aec import random_moves

RAW: list[Callable[[], Any]] = [
    proteus_v0.raw_env,
    virus_fight_v0.raw_env,
    lambda: virus_fight_v0.raw_env(num_players=3),
]
WRAPPED: list[Callable[[], Any]] = [proteus_v0.env, virus_fight_v0.env]


def _finish(env: Any, rng: np.random.Generator) -> None:
    while env.agents:
        random_moves(env, rng, 1)


@pytest.mark.parametrize("make", RAW)
def test_raw_env_before_reset_says_so(make: Callable[[], Any]) -> None:
    env = make()
    with pytest.raises(RuntimeError, match=r"step\(\) before reset"):
        env.step(0)
    with pytest.raises(RuntimeError, match=r"observe\(\) before reset"):
        env.observe(env.possible_agents[0])
    with pytest.raises(RuntimeError, match=r"last\(\) before reset"):
        env.last()
    assert env.legal_actions() == []


@pytest.mark.parametrize("make", WRAPPED)
def test_wrapped_env_before_reset_keeps_pettingzoo_message(make: Callable[[], Any]) -> None:
    env = make()
    with pytest.raises(AssertionError, match="reset"):
        env.step(0)


@pytest.mark.parametrize("make", RAW)
def test_raw_env_after_the_game_says_it_is_over(make: Callable[[], Any]) -> None:
    env = make()
    env.reset(seed=4)
    _finish(env, np.random.default_rng(4))
    assert env.agents == []
    with pytest.raises(RuntimeError, match="game is over"):
        env.step(0)
    with pytest.raises(RuntimeError, match="game is over"):
        env.step(None)
    env.reset(seed=5)  # a new game starts normally
    assert env.agents == env.possible_agents


@pytest.mark.parametrize("make", RAW)
def test_dead_agent_step_takes_only_none(make: Callable[[], Any]) -> None:
    env = make()
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    while env.agents and not env.terminations[env.agent_selection]:
        random_moves(env, rng, 1)
    with pytest.raises(ValueError, match="only valid action is None"):
        env.step(0)


@pytest.mark.parametrize("make", RAW + WRAPPED)
def test_env_pickles_mid_game_and_continues_identically(make: Callable[[], Any]) -> None:
    fresh = pickle.loads(pickle.dumps(make()))  # before reset too
    fresh.reset(seed=0)
    env = make()
    env.reset(seed=2)
    random_moves(env, np.random.default_rng(2), 9)
    copy = pickle.loads(pickle.dumps(env))
    a, b = np.random.default_rng(3), np.random.default_rng(3)
    for _ in range(60):
        if not env.agents:
            break
        agent = env.agent_selection
        assert copy.agent_selection == agent
        oa, ob = env.observe(agent), copy.observe(agent)
        assert (oa["observation"] == ob["observation"]).all()
        assert (oa["action_mask"] == ob["action_mask"]).all()
        random_moves(env, a, 1)
        random_moves(copy, b, 1)
    assert env.unwrapped.to_text() == copy.unwrapped.to_text()
    assert env.rewards == copy.rewards


def test_rejected_virus_fight_position_uses_no_randomness() -> None:
    a, b = virus_fight_v0.raw_env(), virus_fight_v0.raw_env()
    a.reset(seed=11)
    b.reset(seed=11)
    for bad in ("players=2 nonsense", "", "players=2 size=5 board=5/5/5/5/5"):
        with pytest.raises(ValueError):
            a.reset(options={"position": bad})
    a.reset()
    b.reset()
    assert a.to_text() == b.to_text()  # the setup's RNG key (VF-12 tie-break) is the same


def test_rejected_proteus_position_leaves_the_game() -> None:
    env = proteus_v0.raw_env()
    env.reset(seed=3)
    env.step(env.legal_actions()[0])
    before = env.to_text()
    with pytest.raises(ValueError):
        env.reset(options={"position": ".,.,./.,.,./.,.,. b 5/200 result=black"})
    assert env.to_text() == before and env.agent_selection == "white"


@pytest.mark.parametrize("make", RAW)
def test_numpy_integer_seeds_seed_like_ints(make: Callable[[], Any]) -> None:
    a, b = make(), make()
    a.reset(seed=np.int64(3))
    b.reset(seed=3)
    assert a.to_text() == b.to_text()
    for bad in (1.5, "3", -1):
        with pytest.raises(ValueError, match="seed"):
            a.reset(seed=bad)
