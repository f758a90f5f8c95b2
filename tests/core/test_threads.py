"""Safe threads by default (issue #11 item 2): torch and Numba not both spinning on the cores.

The VecEnvs and PolicyAgent limit torch to one thread when torch and Numba both have
several; ``ARENA_KEEP_THREADS`` / ``keep_threads()`` opt out; ``arena train`` keeps its own
``--threads`` choice.
"""

from __future__ import annotations

import numba
import pytest

torch = pytest.importorskip("torch")

from envs.core import threads  # noqa: E402


@pytest.fixture
def two_pools(monkeypatch):
    """Torch at 2 threads, Numba reporting 2; restored afterwards."""
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    monkeypatch.setattr(numba, "get_num_threads", lambda: 2)
    monkeypatch.setattr(numba.config, "NUMBA_NUM_THREADS", 2)
    monkeypatch.setattr(threads, "_pool_size", 0)  # the pool's size is read again, patched
    monkeypatch.delenv(threads.OPT_OUT_VARIABLE, raising=False)
    threads.keep_threads(False)
    yield
    threads.keep_threads(False)
    torch.set_num_threads(before)


def test_limits_torch_when_both_pools_have_several(two_pools):
    assert threads.safe_threads("test") is True
    assert torch.get_num_threads() == 1
    assert threads.safe_threads("test") is False  # already one: nothing to do


def test_opt_out_by_environment_variable(two_pools, monkeypatch):
    monkeypatch.setenv(threads.OPT_OUT_VARIABLE, "1")
    assert threads.safe_threads("test") is False
    assert torch.get_num_threads() == 2


def test_opt_out_by_call(two_pools):
    threads.keep_threads()
    assert threads.safe_threads("test") is False
    assert torch.get_num_threads() == 2


def test_one_numba_thread_leaves_torch(two_pools, monkeypatch):
    monkeypatch.setattr(numba, "get_num_threads", lambda: 1)
    monkeypatch.setattr(numba.config, "NUMBA_NUM_THREADS", 1)
    assert threads.safe_threads("test") is False
    assert torch.get_num_threads() == 2


def test_selfplay_vecenv_and_policy_agent_limit_torch(two_pools):
    pytest.importorskip("sb3_contrib")
    from agents.random_agent import RandomAgent
    from training.games import make_batch_game
    from training.opponents import OpponentPool
    from training.vec_env import SelfPlayVecEnv

    pool = OpponentPool()
    pool.add_baseline("random", RandomAgent(seed=0), 1.0)
    SelfPlayVecEnv(make_batch_game("proteus", 2), 4, pool, seed=0)
    assert torch.get_num_threads() == 1  # the 12x clash of the issue, avoided by default
    torch.set_num_threads(2)
    import gymnasium as gym
    import numpy as np
    from stable_baselines3.common.policies import ActorCriticPolicy

    from agents.policy import PolicyAgent

    space = gym.spaces.Box(-1, 1, (3,), np.float32)
    policy = ActorCriticPolicy(space, gym.spaces.Discrete(2), lambda _: 0.0)
    PolicyAgent(policy)
    assert torch.get_num_threads() == 1


def test_az_agent_limits_torch_when_it_loads_its_network(two_pools):
    """``az`` / ``az-policy`` in ``agents.measure`` or the ladder: the network beside the
    Numba search gets one torch thread (the records were measured so)."""
    import numpy as np

    from agents.registry import make_agent
    from envs import registry
    from envs.core.agent import ActContext

    game = registry.make_batch("proteus", 2)
    state = game.init(1, seed=0)
    seats = np.asarray(game.current_player(state), np.int64)
    agent = make_agent("proteus", "az-policy", 0)
    assert torch.get_num_threads() == 2  # nothing loaded yet
    agent.act(game.observe(state, seats), game.legal_mask(state), ActContext(game, state, seats))
    assert torch.get_num_threads() == 1


def test_train_keeps_its_threads_choice(two_pools):
    from training.run import set_threads

    set_threads(2)  # arena train --threads 2
    assert threads.safe_threads("test") is False
    assert torch.get_num_threads() == 2


# A fresh process per case: Numba's pool starts once per process. ``OMP_NUM_THREADS=1``
# gives torch one thread from the start (the case safe_threads used to leave alone),
# without it torch starts with one per core. Each case: (its setup, Numba's count after it).
_RUNNER = (
    "import torch\n"
    "from envs.core.match import numba_threads\n"
    "from envs.core.threads import safe_threads\n"
    "with numba_threads(1):\n"
    "    safe_threads('test')"
)
# agents.measure's order: the runner starts Numba's pool, then az imports torch as it loads
# its network on its first move (before 0.5.19 its safe_threads ran before that import and
# did nothing: torch kept the two threads Numba's start had given it).
_AZ = """
import sys
import numpy as np
from agents.registry import make_agent
from envs import registry
from envs.core.agent import ActContext
from envs.core.match import numba_threads
game = registry.make_batch("proteus", 2)
state = game.init(1, seed=0)
seats = np.asarray(game.current_player(state), np.int64)
agent = make_agent("proteus", "az-policy", 0)
assert "torch" not in sys.modules, "the case needs torch imported by the agent"
with numba_threads(1):
    agent.act(game.observe(state, seats), game.legal_mask(state), ActContext(game, state, seats))
"""
# A user's script: torch set to one thread, then the first touch of the pool is a batch
# call of 64+ games (the batch facade's loop picker) or a Moon Shot simulation (0.5.20).
# Torch's count is read once before the start, as a log line or safe_threads would: with
# this torch build, a count set and never read before the start kept its value.
_TORCH_ONE = """
import torch
torch.set_num_threads(1)
assert torch.get_num_threads() == 1  # asked once before: the case that changed
"""
_SCRIPT_BATCH = (
    _TORCH_ONE
    + """
from envs import registry
game = registry.make_batch("proteus", 2)
game.legal_mask(game.init(64, seed=0))
"""
)
_SCRIPT_SHOTS = (
    _TORCH_ONE
    + """
import numpy as np
from envs.moon_shot.physics.api import simulate
simulate(np.zeros((1, 4)), np.zeros(1, np.uint64))
"""
)
_SCRIPT_SCENE = (
    _TORCH_ONE
    + """
import numpy as np
from envs.moon_shot.physics.api import simulate_states
simulate_states(np.zeros((1, 3, 6)), np.array([[True, False, False]]))
"""
)
_FRESH = {
    "safe_threads": (
        "import torch; from envs.core.threads import safe_threads; safe_threads('t')",
        "2",
    ),
    "arena train --threads 1": ("from training.run_io import set_threads; set_threads(1)", "1"),
    "runner, then a network": (_RUNNER, "2"),
    "runner, then az's first move": (_AZ, "2"),
    "a script's batch call of 64 games": (_SCRIPT_BATCH, "2"),
    "a script's Moon Shot shot": (_SCRIPT_SHOTS, "2"),
    "a script's Moon Shot scene": (_SCRIPT_SCENE, "2"),
}


@pytest.mark.parametrize("omp", ["1", None])
@pytest.mark.parametrize("setup", sorted(_FRESH))
def test_torch_count_survives_numbas_pool_start(setup, omp):
    """Numba's OpenMP pool, when it starts, sets the process's OpenMP thread count to its
    size, and torch reads the same count (envs/core/threads.py): a torch count of one,
    set before, became two when the match runner first asked Numba for its size; torch
    imported after that start began with two."""
    import os
    import subprocess
    import sys

    code = (
        f"{_FRESH[setup][0]}\n"
        "import numba, torch\n"
        "numba.get_num_threads()  # what envs/core/match.py's runner asks first\n"
        "print(torch.get_num_threads(), numba.get_num_threads(), numba.threading_layer())\n"
    )
    env = {**os.environ, "NUMBA_NUM_THREADS": "2"}
    env.pop("ARENA_KEEP_THREADS", None)
    env.pop("OMP_NUM_THREADS", None)
    if omp is not None:
        env["OMP_NUM_THREADS"] = omp
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    torch_threads, numba_threads, layer = out.stdout.split()
    assert (torch_threads, numba_threads) == ("1", _FRESH[setup][1]), f"threading layer {layer}"
