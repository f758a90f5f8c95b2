"""Each real game's ``env()`` against PettingZoo's own wrapper stack, over random games.

``env()`` of Proteus and Virus Fight is the fast stack (``envs.core.fast_wrappers``), of
Moon Shot a clip + finite-check stack; the reference here is built from PettingZoo's own
wrappers, as classic envs are: ``TerminateIllegalWrapper(-1)`` ->
``AssertOutOfBoundsWrapper`` -> ``OrderEnforcingWrapper`` for the board games,
``ClipOutOfBoundsWrapper`` -> ``OrderEnforcingWrapper`` for Moon Shot. Both play the same
random games (now and then an illegal or an out-of-space action) and must give the same
observations, masks, rewards, terminations, truncations, agents and errors.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
import pytest
from pettingzoo.utils import wrappers

from envs import moon_shot_v0, proteus_v0, virus_fight_v0


def _classic_stack(raw_cls: Callable[..., Any]) -> Callable[..., Any]:
    def make(**kwargs: Any) -> Any:
        e = wrappers.TerminateIllegalWrapper(raw_cls(**kwargs), illegal_reward=-1)
        return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(e))

    return make


def _error(fn: Callable[[], Any]) -> tuple[str, str] | None:
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - the comparison is of the exception itself
        return type(exc).__name__, str(exc)
    return None


def _board_trace(make: Callable[..., Any], kwargs: dict, seed: int, max_iter: int) -> list:
    """Everything agents see over three random games of one env (illegal moves now and
    then: -1 and the game ends; out-of-space actions: an assertion, the state is kept)."""
    env = make(**kwargs)
    trace: list = [("before reset", _error(lambda: env.step(0)), _error(lambda: env.agents))]
    rng = np.random.default_rng(seed)
    n = int(env.action_space(env.possible_agents[0]).n)
    for game in range(3):
        env.reset(seed=10 * seed + game)
        for agent in env.agent_iter(max_iter=max_iter):
            obs, reward, term, trunc, _ = env.last()
            trace.append(
                (agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(),
                 float(reward), term, trunc, list(env.agents), dict(env.rewards))
            )  # fmt: skip
            if term or trunc:
                trace.append(("dead step", _error(lambda: env.step(0))))
                env.step(None)
                continue
            u = rng.random()
            if u < 0.01:
                bad = int(rng.choice([-1, n, n + 7]))
                trace.append(("out of space", bad, _error(partial(env.step, bad))))
                continue
            legal = np.flatnonzero(obs["action_mask"])
            illegal = np.flatnonzero(obs["action_mask"] == 0)
            pool = illegal if u < 0.015 and len(illegal) else legal
            env.step(int(rng.choice(pool)))
        trace.append(("end", list(env.agents), dict(env.rewards), dict(env._cumulative_rewards)))
    return trace


@pytest.mark.parametrize("seed", range(6))
def test_proteus_env_matches_pettingzoo_stack(seed: int) -> None:
    kw = {"max_turns": 60 if seed % 2 else 200}
    fast = _board_trace(proteus_v0.env, kw, seed, 400)
    plain = _board_trace(_classic_stack(proteus_v0.raw_env), kw, seed, 400)
    assert fast == plain
    assert len(fast) > 30


@pytest.mark.parametrize(("players", "seed"), [(2, 0), (2, 1), (3, 2), (4, 3), (3, 4)])
def test_virus_fight_env_matches_pettingzoo_stack(players: int, seed: int) -> None:
    kw = {"num_players": players, "max_rounds": 8}
    fast = _board_trace(virus_fight_v0.env, kw, seed, 600)
    plain = _board_trace(_classic_stack(virus_fight_v0.raw_env), kw, seed, 600)
    assert fast == plain
    assert len(fast) > 30


def _moon_trace(make: Callable[..., Any], seed: int) -> list:
    env = make(num_players=2, max_rounds=2)
    trace: list = [("before reset", _error(lambda: env.agents))]
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for agent in env.agent_iter(max_iter=20):
        obs, reward, term, trunc, _ = env.last()
        trace.append((agent, np.asarray(obs).tobytes(), float(reward), term, trunc,
                      list(env.agents)))  # fmt: skip
        if term or trunc:
            env.step(None)
            continue
        # float32 in [-1.5, 1.5]: out-of-box components are clipped by both stacks
        env.step(rng.uniform(-1.5, 1.5, size=4).astype(np.float32))
    trace.append(("end", dict(env.rewards), dict(env._cumulative_rewards)))
    return trace


def _moon_plain(**kwargs: Any) -> Any:
    e = wrappers.ClipOutOfBoundsWrapper(moon_shot_v0.raw_env(**kwargs))
    return wrappers.OrderEnforcingWrapper(e)


@pytest.mark.parametrize("seed", [0, 1])
def test_moon_shot_env_matches_pettingzoo_stack(seed: int) -> None:
    assert _moon_trace(moon_shot_v0.env, seed) == _moon_trace(_moon_plain, seed)


@pytest.mark.parametrize(
    ("make", "kwargs"),
    [(proteus_v0.raw_env, {}), (virus_fight_v0.raw_env, {"num_players": 3})],
)
def test_is_legal_hook_agrees_with_the_mask(make: Callable[..., Any], kwargs: dict) -> None:
    # the template checks a step's action with _is_legal (one entry, no mask copy); it must
    # say what the observed mask says for every action, in every position of a random game
    env = make(**kwargs)
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    positions = 0
    while env.agents and positions < 60:
        agent = env.agent_selection
        if env.terminations[agent]:
            env.step(None)
            continue
        mask = env.observe(agent)["action_mask"]
        assert [env._is_legal(a) for a in range(len(mask))] == [bool(m) for m in mask]
        env.step(int(rng.choice(np.flatnonzero(mask))))
        positions += 1
    assert positions > 10
