"""The single-agent masked Gymnasium envs (issue #11 item 7; docs/single_agent.md)."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import envs  # noqa: F401  (registers the ids)
from agents.random_agent import RandomAgent
from agents.registry import agent_names
from agents.single_agent import MaskedSingleAgentEnv

DOC = Path(__file__).resolve().parents[1] / "docs" / "single_agent.md"
CASES = [
    ("Proteus-v0", {"opponent": "heuristic"}),
    ("VirusFight-v0", {"num_players": 3, "opponent": ["random", "heuristic"]}),
    ("VirusFight-v0", {"num_players": 4, "opponent": "random"}),
]


def _play(env: gymnasium.Env, seed: int, rng: np.random.Generator) -> tuple[list, dict]:
    obs, info = env.reset(seed=seed)
    trace = [obs.tobytes()]
    done = False
    while not done:
        mask = env.unwrapped.action_masks()
        assert (mask.astype(np.int8) == info["action_mask"]).all() and mask.any()
        obs, reward, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        assert not trunc and obs in env.observation_space
        trace.append((obs.tobytes(), reward))
        done = term
    return trace, info


@pytest.mark.parametrize("env_id, kwargs", CASES)
def test_gymnasium_and_sb3_env_checkers_pass(env_id: str, kwargs: dict) -> None:
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    env = gymnasium.make(env_id, **kwargs)
    check_env(env.unwrapped, skip_render_check=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SB3 remarks that the planes are not uint8 images
        sb3_check_env(env.unwrapped)
    assert env.unwrapped.action_masks().dtype == np.bool_


def test_make_proteus_with_heuristic_opponent_plays_whole_games() -> None:
    env = gymnasium.make("Proteus-v0", opponent="heuristic")
    rng = np.random.default_rng(0)
    seats = set()
    for seed in range(4):
        trace, info = _play(env, seed, rng)
        seats.add(info["seat"])
        assert trace[-1][1] in (-1.0, 0.0, 1.0)
    assert seats == {0, 1}  # the learner's seat is drawn per episode


@pytest.mark.parametrize("game, players", [("proteus", 2), ("virus_fight", 3)])
def test_learner_gets_its_own_final_reward_also_when_a_reply_ends_the_game(
    game: str, players: int
) -> None:
    env = MaskedSingleAgentEnv(game, num_players=players, opponent="random")
    rng = np.random.default_rng(1)
    ended_by_reply = {-1.0: 0, 0.0: 0, 1.0: 0}
    for seed in range(40):
        trace, info = _play(env, seed, rng)
        total = sum(r for _, r in trace[1:])
        final = float(trace[-1][1])
        assert total == final  # rewards only at the learner's end (PR-16/17, VF-16/17)
        state = env._state
        if game == "proteus":
            status = int(state.status[0])
            expect = {1: (1.0, -1.0), 2: (-1.0, 1.0)}.get(status, (0.0, 0.0))[info["seat"]]
        else:
            expect = float(env.game.results(state)[0, info["seat"]])
        assert final == expect
        if info["opponent_moves"] > 0:
            ended_by_reply[final] += 1
    assert ended_by_reply[-1.0] > 0  # losses delivered in the step of the opponent's reply


@pytest.mark.parametrize("game", ["proteus", "virus_fight"])
def test_every_registry_agent_can_be_the_opponent(game: str) -> None:
    names = agent_names(game)
    assert {"random", "heuristic", "mcts"} <= set(names)
    rng = np.random.default_rng(2)
    cheap = [n for n in names if n != "mcts"] + (["mcts:4"] if game == "proteus" else [])
    for name in cheap:
        env = MaskedSingleAgentEnv(game, opponent=name, seat=0)
        _play(env, 0, rng)


def test_mcts_opponent_in_virus_fight() -> None:
    """mcts:4 splits its budget over VF-11 hidden-setup samples (one simulation each, no
    child visited): it must still pick a legal move of the real position."""
    env = MaskedSingleAgentEnv("virus_fight", opponent="mcts:4", seat=0)
    _play(env, 0, np.random.default_rng(2))


def test_agent_objects_and_fixed_seat() -> None:
    env = MaskedSingleAgentEnv(
        "virus_fight", num_players=3, opponent=[RandomAgent(1), RandomAgent(2)], seat=2
    )
    obs, info = env.reset(seed=0)
    # seats 0 and 1 wrote their programs first: at least one piece and a marker each (VF-11)
    assert info["seat"] == 2 and info["opponent_moves"] >= 4
    one = RandomAgent(3)
    with pytest.raises(ValueError, match="separate Agent"):
        MaskedSingleAgentEnv("virus_fight", num_players=3, opponent=[one, one])


def test_same_seed_same_episode() -> None:
    env = gymnasium.make("VirusFight-v0", opponent="heuristic")
    a, _ = _play(env, 5, np.random.default_rng(9))
    b, _ = _play(env, 5, np.random.default_rng(9))
    assert a == b


def test_illegal_action_loses_or_raises() -> None:
    env = MaskedSingleAgentEnv("proteus", opponent="random", seat=0)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    obs, reward, term, trunc, info = env.step(illegal)
    assert (reward, term, trunc, info["illegal_action"]) == (-1.0, True, False, True)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    strict = MaskedSingleAgentEnv("proteus", opponent="random", illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(ValueError, match="illegal action"):
        strict.step(int(np.flatnonzero(~strict.action_masks())[0]))


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"game": "proteus", "opponent": "nobody"}, "unknown agent"),
        ({"game": "proteus", "opponent": ["random", "random"]}, "list of 1"),
        ({"game": "proteus", "num_players": 3}, "played by 2"),
        ({"game": "virus_fight", "num_players": 5}, "played by"),
        ({"game": "virus_fight", "seat": 2}, "seat must be"),
        ({"game": "proteus", "illegal_action": "ignore"}, "illegal_action"),
        ({"game": "proteus", "max_turns": 2**31}, "max_turns"),
        ({"game": "moon_shot"}, "Discrete"),
        ({"game": "chess"}, "unknown game"),
    ],
)
def test_bad_arguments_are_value_errors(kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        MaskedSingleAgentEnv(**kwargs)


def test_step_before_reset_and_bad_actions() -> None:
    env = MaskedSingleAgentEnv("proteus")
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    env.reset(seed=0)
    for bad in (1.5, None, "a3", 226, -1):
        with pytest.raises(ValueError):
            env.step(bad)
    env.step(np.int64(int(np.flatnonzero(env.action_masks())[0])))


def test_docs_maskable_ppo_example_runs_as_written() -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    example = next(b for b in blocks if "MaskablePPO" in b)
    small = re.sub(r"STEPS = [\d_]+", "STEPS = 256", example)
    small = small.replace("n_eval_episodes=20", "n_eval_episodes=2")
    assert small != example
    namespace: dict = {}
    exec(compile(small, str(DOC), "exec"), namespace)
    assert -1.0 <= namespace["mean"] <= 1.0
    assert namespace["env"].unwrapped.action_masks()[int(namespace["action"])]
    exec(compile(blocks[0], str(DOC), "exec"), {})  # the first example builds both envs
