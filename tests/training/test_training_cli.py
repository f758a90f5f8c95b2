"""``arena train`` run for real with tiny budgets (CleanRL style): train, resume, errors, seeds."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.train_small import small_config
from training.train import TrainConfig, main, train

TTT = "tests.tictactoe:TicTacToe"
TINY = ["--n-envs", "8", "--n-steps", "16", "--batch-size", "64", "--n-epochs", "1", "--net", "32"]


def _md5(path: Path) -> str:
    return hashlib.md5(path.read_bytes()).hexdigest()


def _arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "training.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=Path(__file__).resolve().parents[2],
    )


@pytest.mark.slow  # two subprocesses importing torch: ~25 s alone, ~60 s on a busy machine
def test_arena_train_proteus_then_resume_continues_from_saved_step(tmp_path: Path) -> None:
    pytest.importorskip("envs.proteus.batch")
    out = tmp_path / "run"
    first = _arena(
        "train",
        "proteus",
        "--steps",
        "256",
        "--out",
        str(out),
        "--no-progress",
        "--snapshot-every",
        "128",
        "--opponents",
        "self:0.5,random:0.5",
        *TINY,
    )
    assert first.returncode == 0, first.stderr
    assert "learner steps/s" in first.stdout
    state = json.loads((out / "state.json").read_text())
    assert state["num_timesteps"] == 256
    assert (out / "checkpoints" / "step_256.zip").exists()
    assert any((out / "tb").rglob("events.out.tfevents*"))
    assert state["snapshots"][0] == "self@0" and len(state["snapshots"]) >= 2
    model_before = _md5(out / "model.zip")

    again = _arena(
        "train", "proteus", "--steps", "512", "--resume", "--out", str(out), "--no-progress"
    )
    assert again.returncode == 0, again.stderr
    assert "256 steps this run (total 512)" in again.stdout
    state = json.loads((out / "state.json").read_text())
    assert state["num_timesteps"] == 512
    assert _md5(out / "model.zip") != model_before
    with zipfile.ZipFile(out / "model.zip") as z:
        data = json.loads(z.read("data"))
    assert data["num_timesteps"] == 512
    # the pool survived the resume: snapshots from both parts are listed and on disk
    assert len(state["snapshots"]) >= 4
    assert all((out / "pool" / f"{n}.pt").exists() for n in state["snapshots"])
    assert {"checkpoints/step_256.zip", "checkpoints/step_512.zip"} <= set(state["checkpoints"])


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["chess"], "unknown game"),
        (["proteus", "--players", "3"], "--players 3"),
        (["proteus", "--steps", "0"], "--steps must be >= 1"),
        (["proteus", "--resume"], "no run to resume"),
        (["proteus", "--opponents", "random:x"], "not a number"),
        (["proteus", "--net", "a,b"], "layer sizes"),
        (["moon_shot", "--algo", "dqn"], "ppo or sac"),
        (["virus_fight", "--players", "5"], "2, 3, 4 players"),
        (["virus_fight", "--obs", "lookahead"], "lookahead exists for proteus only"),
    ],
)
def test_bad_arguments_exit_2_with_a_clear_message(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        main([*argv, "--out", str(tmp_path / "x")])
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_existing_run_needs_resume_or_overwrite_and_resume_keeps_structure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    assert main([TTT, "--steps", "128", "--out", str(out), "--no-progress", "-q", *TINY]) == 0
    with pytest.raises(SystemExit):
        main([TTT, "--steps", "128", "--out", str(out)])
    assert "already holds a run" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([TTT, "--steps", "256", "--resume", "--n-envs", "16", "--out", str(out)])
    assert "--n-envs 16 differs" in capsys.readouterr().err
    # already at the target: nothing to do, model untouched
    before = _md5(out / "model.zip")
    assert main([TTT, "--steps", "128", "--resume", "--out", str(out), "--no-progress"]) == 0
    assert _md5(out / "model.zip") == before


def _tiny_cfg(out: Path, seed: int) -> TrainConfig:
    return small_config(
        TTT, out, steps=256, n_epochs=2, seed=seed, opponents="self:0.5,random:0.5",
        snapshot_every=64,
    )  # fmt: skip


def _weights(path: Path) -> bytes:
    with zipfile.ZipFile(path) as z:
        return z.read("policy.pth")


def test_same_seed_same_training_different_seed_differs(tmp_path: Path) -> None:
    a = train(_tiny_cfg(tmp_path / "a", 3), progress=False, quiet=True)
    b = train(_tiny_cfg(tmp_path / "b", 3), progress=False, quiet=True)
    c = train(_tiny_cfg(tmp_path / "c", 4), progress=False, quiet=True)
    assert a.num_timesteps == b.num_timesteps == 256
    assert _weights(a.model_path) == _weights(b.model_path)
    assert _weights(a.model_path) != _weights(c.model_path)


def test_first_rollout_actions_reproducible_under_a_seed() -> None:
    from sb3_contrib import MaskablePPO

    from agents.random_agent import RandomAgent
    from tests.tictactoe import TicTacToe
    from training.opponents import OpponentPool
    from training.vec_env import SelfPlayVecEnv

    def first_actions(seed: int) -> list[list[int]]:
        pool = OpponentPool()
        pool.add_baseline("random", RandomAgent(0), 1.0)
        env = SelfPlayVecEnv(TicTacToe(), 4, pool)
        model = MaskablePPO("MlpPolicy", env, n_steps=8, seed=seed, device="cpu")
        obs = env.reset()
        seen = []
        for _ in range(8):
            act, _ = model.predict(obs, action_masks=env.action_masks())
            assert env.action_masks()[range(4), act].all()
            seen.append(act.tolist())
            obs, *_ = env.step(act)
        return seen

    assert first_actions(11) == first_actions(11)


def test_moon_shot_train_and_resume(tmp_path: Path) -> None:
    pytest.importorskip("envs.moon_shot.vector")
    out = tmp_path / "ms"
    small = ["--n-envs", "4", "--n-steps", "8", "--batch-size", "16", "--n-epochs", "1"]
    assert main(["moon_shot", "--steps", "32", "--out", str(out), "--no-progress", *small]) == 0
    first = _md5(out / "model.zip")
    assert main(["moon_shot", "--steps", "64", "--resume", "--out", str(out), "--no-progress"]) == 0
    state = json.loads((out / "state.json").read_text())
    assert state["num_timesteps"] == 64 and state["config"]["algo"] == "ppo"
    assert _md5(out / "model.zip") != first
