"""Moon Shot agents: actions always in the MS-5 box, calibrated aim beats random, the
planner plans with its own noise seeds only."""

from __future__ import annotations

import numpy as np
import pytest

from agents.base import ActContext, Agent
from agents.random_agent import RandomAgent
from agents.registry import make_agent
from envs.moon_shot import game
from envs.moon_shot.agents import (
    CalibratedAimAgent,
    PlannerAgent,
    calibration_table,
    state_values,
)
from envs.moon_shot.runner import MoonShotRunner


class BoxRecorder(Agent):
    """Checks every answer is a finite (B, 4) action in [-1, 1]^4 (MS-5)."""

    def __init__(self, inner: Agent) -> None:
        self.inner, self.name, self.needs_context = inner, inner.name, inner.needs_context
        self.shots = 0

    def act(self, obs, mask, context=None):  # type: ignore[no-untyped-def]
        assert mask is None
        a = self.inner.act(obs, mask, context)
        assert a.shape == (len(obs), 4) and np.all(np.isfinite(a)) and np.all(np.abs(a) <= 1)
        self.shots += len(obs)
        return a


def small_planner(seed: int = 0) -> PlannerAgent:
    return PlannerAgent(seed=seed, iterations=1, population=6, samples=3)


def test_state_values_follow_ms14_ms15() -> None:
    pts = np.array([0, 2, 0, 1])
    col = np.array([False, True, False, False])
    crk = np.array([False, False, True, False])
    # we have 3, the others at most 4 and at least 1
    v = state_values(pts, col, crk, np.array(3.0), np.array(4.0), np.array(1.0))
    assert v.tolist() == [0.0, 1.0, -1.0, 0.25]  # colony to 5 >= 4 wins; crack: 3 > 1 loses
    v = state_values(pts, col, crk, np.array(1.0), np.array(4.0), np.array(1.0))
    assert v.tolist() == [0.0, -1.0, 1.0, 0.25]  # colony to 3 < 4 loses; crack at a tie wins


@pytest.mark.parametrize("players", [2, 3])
def test_moon_shot_agents_always_answer_inside_the_action_box(players: int) -> None:
    runner = MoonShotRunner(players)
    kinds = [RandomAgent, lambda seed: CalibratedAimAgent(seed=seed), small_planner]
    agents = [BoxRecorder(kinds[s % 3](s)) for s in range(players)]  # type: ignore[operator]
    out = runner.play(agents, 3, np.arange(24))
    assert all(a.shots > 0 for a in agents)
    for o in out:
        assert np.all(np.isin(o.rewards, (-1.0, 0.0, 1.0)))
        assert o.length >= 1


def test_runner_is_seeded_and_independent_of_the_batch() -> None:
    runner = MoonShotRunner(2)
    a = runner.play([RandomAgent(1), RandomAgent(2)], 11, np.arange(12))
    b = runner.play([RandomAgent(1), RandomAgent(2)], 11, np.arange(12))
    assert [o.rewards.tolist() for o in a] == [o.rewards.tolist() for o in b]
    # game 5 played alone faces the same shot noise (its key and turn) as in the batch:
    # with the same deterministic agent on both sides it ends the same way
    aim = [CalibratedAimAgent(), CalibratedAimAgent()]
    batch = runner.play(aim, 11, np.arange(8))
    alone = runner.play(aim, 11, np.array([5]))[0]
    assert alone.rewards.tolist() == batch[5].rewards.tolist()
    assert alone.length == batch[5].length
    assert len({o.length for o in batch}) > 1  # the games do differ by their noise


@pytest.mark.slow
def test_calibrated_aim_beats_random_at_least_80_percent() -> None:
    runner = MoonShotRunner(2)
    wins = 0
    for seat in (0, 1):
        agents: list[Agent] = [RandomAgent(5), RandomAgent(6)]
        agents[seat] = CalibratedAimAgent()
        out = runner.play(agents, 17 + seat, np.arange(50))
        wins += sum(o.rewards[seat] > 0 for o in out)
    assert wins / 100 >= 0.8


def test_calibration_aims_down_the_tube_and_is_cached() -> None:
    runner = MoonShotRunner(2)
    t1 = calibration_table(runner.facade)
    assert calibration_table(runner.facade) is t1
    best = CalibratedAimAgent().best_action(runner.facade)
    assert best[0] == 0.0  # theta = 0: along the tube axis (MS-3)
    assert t1.aim_scores().max() > 1.0  # the calibrated shot scores (or colonises) mostly


def test_planner_never_reads_the_environment_seed() -> None:
    # two game states that differ only in the games' noise keys get the same shots
    runner = MoonShotRunner(2)
    st = game.new_games(3, 2, np.array([1, 2, 3], np.uint64))
    st.scores[:] = [[0, 0], [2, 1], [1, 3]]
    other = st.copy()
    other.key[:] = [99, 98, 97]
    seats = np.zeros(3, np.int64)
    obs = runner.facade.observe(st, seats)
    a = small_planner(4).act(obs, None, ActContext(runner.facade, st, seats))
    b = small_planner(4).act(obs, None, ActContext(runner.facade, other, seats))
    assert np.array_equal(a, b)


def test_registry_makes_moon_shot_agents() -> None:
    for name in ("random", "aim", "planner"):
        assert make_agent("moon_shot", name, 0).name == name
    with pytest.raises(ValueError, match="unknown agent"):
        make_agent("moon_shot", "mcts:10")


def test_old_module_paths_still_import() -> None:
    """The agents, runner and benchmarks moved into envs/moon_shot/; the old paths stay."""
    import importlib

    for old, new, name in (
        ("agents.moon_shot_agents", "envs.moon_shot.agents", "PlannerAgent"),
        ("training.ladder_moon_shot", "envs.moon_shot.runner", "MoonShotRunner"),
        ("benchmarks.moon_shot", "envs.moon_shot.bench", "run"),
        ("benchmarks.moon_shot_calibrate", "envs.moon_shot.calibrate", "main"),
    ):
        got = getattr(importlib.import_module(old), name)
        assert got is getattr(importlib.import_module(new), name), old
