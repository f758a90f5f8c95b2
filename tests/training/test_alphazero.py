"""``arena train GAME --algo alphazero`` (issue #12 item 2): the pieces, a tiny run, resume.

The run is one atomic unit per save (network, optimizer, RNG, replay buffer, counters:
``training/alphazero/loop.py``), like the SB3 path: a resumed run continues from the
committed step, and a SIGKILL at any moment leaves a whole unit behind.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from agents.az import (  # noqa: E402
    absolute_values,
    improved_policy,
    load_weights,
    net_for,
    relative_values,
)
from envs import registry  # noqa: E402
from training.alphazero.selfplay import ReplayBuffer, SelfPlay  # noqa: E402
from training.config import TrainConfig, validate  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
#: a board game whose entry trains alphazero (the test names no game)
GAME = next(s.name for s in registry.specs() if "alphazero" in s.algos)
TINY = {
    "algo": "alphazero",
    "n_envs": 8,
    "simulations": 4,
    "batch_size": 16,
    "n_epochs": 2,
    "net": "32",
    "replay_size": 512,
    "checkpoint_every": 32,
    "opponents": "random:1",
}


def _cfg(out: Path, **kw: object) -> TrainConfig:
    return TrainConfig(game=GAME, out=str(out), **{**TINY, **kw})  # type: ignore[arg-type]


def test_values_round_trip_between_mover_order_and_seats() -> None:
    rel = np.array([[1.0, -1.0, 0.5], [0.2, 0.3, 0.4]])
    seats = np.array([2, 1])
    ab = absolute_values(rel, seats)
    assert ab[0].tolist() == [-1.0, 0.5, 1.0]  # mover seat 2 gets index 0
    np.testing.assert_array_equal(relative_values(ab, seats), rel)


def test_network_reads_codes_and_planes_alike() -> None:
    """The uint8 codes decoded inside the network equal the facade's float planes (up to
    the codes' quantization of a fraction such as the turn count: 1/255)."""
    import torch

    game = registry.make_batch(GAME)
    net = net_for(game, [16])
    state = game.init(6, seed=3)
    for _ in range(5):
        game.step(state, game.random_actions(state), auto_reset=True)
    out = game.learner_view(state, game.learner_buffers(6))
    planes = game.observe(state, out.seat)
    a, va = net(torch.from_numpy(out.obs))
    b, vb = net(torch.from_numpy(planes))
    np.testing.assert_allclose(game.decode(out.obs), planes, atol=1 / 255 + 1e-6)
    torch.testing.assert_close(a, b, atol=1e-3, rtol=0)
    torch.testing.assert_close(va, vb, atol=1e-3, rtol=0)


def test_replay_buffer_ring_sample_and_save(tmp_path: Path) -> None:
    buf = ReplayBuffer(5, (2,), 10, 2, 3)
    obs = np.arange(14, dtype=np.uint8).reshape(7, 2)
    mask = np.zeros((7, 10), bool)
    mask[:, [1, 4]] = True
    pidx = np.tile(np.array([1, 4, 0], np.int16), (7, 1))
    pprob = np.tile(np.array([0.25, 0.75, 0.0], np.float16), (7, 1))
    buf.add(obs, np.packbits(mask, axis=1), pidx, pprob, np.ones((7, 2), np.float32))
    assert buf.size == 5 and buf.added == 7
    assert set(buf.obs[:, 0].tolist()) == {4, 6, 8, 10, 12}  # the 5 newest
    b = buf.sample(np.random.default_rng(0), 4)
    assert b["mask"][:, [1, 4]].all() and b["mask"].sum() == 8
    np.testing.assert_allclose(b["policy"][:, 4], 0.75)
    buf.save(tmp_path / "b.npz")
    other = ReplayBuffer(5, (2,), 10, 2, 3)
    other.load(tmp_path / "b.npz")
    np.testing.assert_array_equal(other.obs, buf.obs)
    assert (other.size, other.head, other.added) == (buf.size, buf.head, buf.added)
    with pytest.raises(ValueError, match="replay field"):
        ReplayBuffer(6, (2,), 10, 2, 3).load(tmp_path / "b.npz")


@pytest.mark.parametrize("gumbel", [False, True])
def test_selfplay_fills_the_buffer_with_legal_targets(gumbel: bool) -> None:
    game = registry.make_batch(GAME)
    net = net_for(game, [16])
    net.eval()
    buf = ReplayBuffer(4096, tuple(game.obs_shape), game.num_actions, game.num_players, 4)
    actor = SelfPlay(game, 4, 4, 0, buf, gumbel=gumbel)
    rng = np.random.default_rng(0)
    rounds = 0
    while actor.games_done < 2 and rounds < 2000:
        actor.round(net, rng)
        rounds += 1
    assert actor.games_done >= 2 and buf.size > 0
    b = buf.sample(rng, 64)
    np.testing.assert_allclose(b["policy"].sum(axis=1), 1.0, atol=2e-3)
    assert not (b["policy"] > 0)[~b["mask"]].any()  # targets only on legal actions
    assert np.isin(b["value"], (-1.0, 0.0, 1.0)).all()  # final returns


@pytest.mark.parametrize("game_name", ["proteus", "virus_fight"])
def test_gumbel_search_hands_back_the_roots_first_evaluation(game_name: str) -> None:
    """The Gumbel target's priors and value come from the search's first network call (the
    roots), not a second forward pass: they equal ``policy_values`` of the real positions'
    codes and masks (Virus Fight's roots are determinized in its setup phase: the seat's
    own view stays the same), along random games in every phase."""
    from agents.az import gumbel_search, policy_values, search_roots

    game = registry.make_batch(game_name, 2)
    net = net_for(game, [16])
    net.eval()
    state = game.init(6, 3)
    out = game.learner_buffers(6)
    rng = np.random.default_rng(0)
    for ply in range(40):
        game.learner_view(state, out)
        live = np.flatnonzero(~np.asarray(game.terminated(state), bool))
        if len(live):
            keys = rng.integers(0, 2**63, len(live), dtype=np.uint64)
            seats = out.seat[live]
            roots = search_roots(game, state, live, seats, [int(k) for k in keys])
            _, _, _, priors, rel = gumbel_search(game, roots, seats, net, 4, keys)
            want_p, want_v = policy_values(net, out.obs[live], out.mask[live])
            np.testing.assert_allclose(priors, want_p, rtol=1e-6, atol=1e-7, err_msg=f"ply {ply}")
            np.testing.assert_allclose(rel, want_v, rtol=1e-6, atol=1e-7, err_msg=f"ply {ply}")
        game.step(state, game.random_actions(state), auto_reset=True)


def test_improved_policy_moves_mass_to_the_better_searched_action() -> None:
    """Gumbel MuZero's target: softmax(log prior + sigma(completed Q)) over the searched
    actions; an unvisited one is completed with the mixed value."""
    priors = np.array([[0.25, 0.25, 0.25, 0.25]])
    allowed = np.array([[True, True, True, False]])
    visits = np.array([[4.0, 4.0, 0.0, 0.0]])
    qsum = np.array([[4.0, -4.0, 0.0, 0.0]])  # action 0 wins, action 1 loses
    out = improved_policy(priors, np.array([0.0]), visits, qsum, allowed)
    np.testing.assert_allclose(out.sum(), 1.0)
    assert out[0, 3] == 0.0  # not searched (the root filter dropped it)
    assert out[0, 0] > out[0, 2] > out[0, 1]  # win > v_mix (0) > loss
    # no visits at all: the priors over the searched actions
    none = improved_policy(priors, np.array([0.0]), np.zeros((1, 4)), np.zeros((1, 4)), allowed)
    np.testing.assert_allclose(none[0], [1 / 3, 1 / 3, 1 / 3, 0.0])


def test_bad_settings_are_named() -> None:
    with pytest.raises(ValueError, match="--replay-size"):
        validate(_cfg(Path("x"), replay_size=0))
    with pytest.raises(ValueError, match="--simulations"):
        validate(_cfg(Path("x"), simulations=0))
    other = next(s for s in registry.specs() if "alphazero" not in s.algos)
    with pytest.raises(ValueError, match="--algo 'alphazero'"):
        validate(TrainConfig(game=other.name, algo="alphazero", players=other.default_players))


def test_tiny_run_then_resume(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from training.alphazero import loop
    from training.run import train

    monkeypatch.setattr(loop, "EVAL_GAMES", 4)  # the curve's games: few in a test

    out = tmp_path / "run"
    first = train(_cfg(out, steps=48), progress=False, quiet=True)
    assert first.num_timesteps == 48 and not first.interrupted
    state = json.loads((out / "state.json").read_text())
    assert state["num_timesteps"] == 48 and state["algo"] == "alphazero"
    assert (out / state["model"]).exists() and (out / state["replay"]).exists()
    assert state["curve"] and "win_rate_vs_random" in state["curve"][-1]
    assert any("selfplay_positions_per_s" in line or "positions/s" in line for line in first.lines)
    net = load_weights(out / "model.pt")
    assert net.meta["hidden"] == [32]
    updates = state["updates"]
    # long enough for games to finish, fill the buffer and owe updates
    second = train(
        _cfg(out, steps=480, checkpoint_every=240), resume=True, progress=False, quiet=True
    )
    assert second.start_timesteps == 48 and second.num_timesteps == 480
    state2 = json.loads((out / "state.json").read_text())
    assert state2["updates"] > updates
    assert len(state2["curve"]) > len(state["curve"])  # the curve goes on
    # only the committed unit's model and buffer files are kept
    names = sorted(p.name for p in (out / "checkpoints").glob("step_*"))
    assert names == ["step_480.buffer.npz", "step_480.pt"]
    assert state2["games"] > 0
    assert (out / "tb").is_dir()


def _cli(out: Path, steps: int, resume: bool) -> subprocess.Popen[str]:
    cmd = [sys.executable, "-m", "training.cli", "train", GAME, "--steps", str(steps)]
    for k, v in TINY.items():
        cmd += ["--" + k.replace("_", "-"), str(v)]
    cmd += ["--out", str(out), "--no-progress", "--quiet", *(["--resume"] if resume else [])]
    return subprocess.Popen(
        cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


@pytest.mark.slow  # subprocesses importing torch and the search: a minute or more when busy
def test_sigkill_after_a_save_then_resume(tmp_path: Path) -> None:
    out = tmp_path / "run"
    proc = _cli(out, 100_000, resume=False)
    start = time.monotonic()
    while proc.poll() is None and time.monotonic() - start < 400:
        if (out / "state.json").exists():
            break
        time.sleep(0.05)
    time.sleep(0.3)
    assert proc.poll() is None, proc.communicate()[1]
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=60)
    state = json.loads((out / "state.json").read_text())
    step = int(state["num_timesteps"])
    assert (out / state["model"]).exists() and (out / state["replay"]).exists()
    final = _cli(out, step + 32, resume=True)
    so, err = final.communicate(timeout=600)
    assert final.returncode == 0, err
    after = json.loads((out / "state.json").read_text())
    assert after["num_timesteps"] == step + 32
    assert not list((out / "checkpoints").glob("*.tmp*"))


def test_flag_network_reads_the_lookahead_flags_and_round_trips(tmp_path: Path) -> None:
    """``--obs lookahead``: the network's second input is Proteus's per-action flags
    (envs/proteus/lookahead.py); each flag weight moves exactly the flagged actions'
    logits by FLAG_SCALE times it; the weights file keeps the variant."""
    import torch

    from agents.az import FLAG_SCALE, action_flags, save_weights
    from envs.proteus.lookahead import N_FLAGS, lookahead

    game = registry.make_batch("proteus")
    net = net_for(game, [16], "lookahead")
    assert net.meta["n_flags"] == N_FLAGS and net.meta["obs"] == "lookahead"
    state = game.init(5, seed=2)
    for _ in range(12):
        game.step(state, game.random_actions(state), auto_reset=True)
    out = game.learner_view(state, game.learner_buffers(5))
    flags = action_flags(net, game, state, out.seat)
    np.testing.assert_array_equal(flags, lookahead(state, out.seat))
    codes = torch.from_numpy(out.obs)
    with pytest.raises(ValueError, match="flags"):
        net(codes)
    base, _ = net(codes, torch.from_numpy(flags))
    with torch.no_grad():
        net.flag_weight[0] = 0.5
    moved, _ = net(codes, torch.from_numpy(flags))
    torch.testing.assert_close(moved - base, torch.from_numpy(FLAG_SCALE * 0.5 * flags[:, 0]))
    save_weights(net, tmp_path / "n.pt", half=False)
    again = load_weights(tmp_path / "n.pt")
    assert again.meta == net.meta
    torch.testing.assert_close(again(codes, torch.from_numpy(flags))[0], moved)
    assert action_flags(net_for(game, [16]), game, state, out.seat) is None  # plain network


def test_flags_are_refused_where_the_game_has_none() -> None:
    vf = registry.make_batch("virus_fight", 2)
    with pytest.raises(ValueError, match="lookahead"):
        net_for(vf, [16], "lookahead")
    with pytest.raises(ValueError, match="lookahead"):
        validate(TrainConfig(game="virus_fight", algo="alphazero", obs="lookahead"))
    validate(TrainConfig(game="proteus", algo="alphazero", obs="lookahead"))
    with pytest.raises(ValueError, match="--rollout-mix"):
        validate(TrainConfig(game="proteus", algo="alphazero", rollout_mix=1.5))


def test_replay_buffer_keeps_the_flags(tmp_path: Path) -> None:
    buf = ReplayBuffer(4, (2,), 10, 2, 2, n_flags=3)
    flags = np.zeros((3, 3, 10), bool)
    flags[0, 1, 7] = flags[1, 0, 2] = flags[2, 2, 9] = True
    obs = np.arange(6, dtype=np.uint8).reshape(3, 2)
    mask = np.ones((3, 10), bool)
    buf.add(obs, np.packbits(mask, axis=1), np.zeros((3, 2), np.int16),
            np.full((3, 2), 0.5, np.float16), np.zeros((3, 2), np.float32),
            np.packbits(flags.reshape(3, -1), axis=1))  # fmt: skip
    b = buf.sample(np.random.default_rng(1), 32)
    for row_obs, row_flags in zip(b["obs"], b["flags"], strict=True):
        np.testing.assert_array_equal(row_flags, flags[int(row_obs[0]) // 2])
    buf.save(tmp_path / "f.npz")
    other = ReplayBuffer(4, (2,), 10, 2, 2, n_flags=3)
    other.load(tmp_path / "f.npz")
    np.testing.assert_array_equal(other.flagbits, buf.flagbits)
    with pytest.raises(ValueError, match="flagbits"):
        ReplayBuffer(4, (2,), 10, 2, 2, n_flags=2).load(tmp_path / "f.npz")


def test_selfplay_stores_each_position_with_its_flags() -> None:
    """Self-play with a flag network and mixed leaf values stores each position's flags
    beside its codes: flags only on legal actions, immediate wins among them."""
    from envs.proteus.lookahead import WIN_NOW

    game = registry.make_batch("proteus")
    net = net_for(game, [16], "lookahead")
    net.eval()
    buf = ReplayBuffer(4096, tuple(game.obs_shape), game.num_actions, 2, 4, n_flags=4)
    actor = SelfPlay(game, 4, 4, 0, buf, rollout_mix=0.5)
    rng = np.random.default_rng(0)
    rounds = 0
    while actor.games_done < 2 and rounds < 2000:
        actor.round(net, rng)
        rounds += 1
    assert buf.size > 0
    b = buf.sample(rng, 256)
    assert b["flags"].shape == (256, 4, game.num_actions)
    assert not (b["flags"].max(axis=1) > 0)[~b["mask"]].any()  # flags only on legal actions
    assert b["flags"][:, WIN_NOW].any()  # some position had a win in one
    assert np.isin(b["value"], (-1.0, 0.0, 1.0)).all()


def test_train_against_items_are_checked_by_name() -> None:
    from training.alphazero.selfplay import parse_against

    assert parse_against("heuristic:0.3, mcts:16:0.2", "proteus") == [
        ("heuristic", 0.3),
        ("mcts:16", 0.2),
    ]
    for bad, msg in (
        ("heuristic", "NAME:FRACTION"),
        ("heuristic:1.5", "NAME:FRACTION"),
        ("self:0.2", "rest is self-play"),
        ("nobody:0.2", "nobody"),
        ("heuristic:0.6,random:0.5", "more than 1"),
    ):
        with pytest.raises(ValueError, match=msg):
            parse_against(bad, "proteus")
    with pytest.raises(ValueError, match="alphazero option"):
        validate(TrainConfig(game="proteus", train_against="heuristic:0.5"))
    validate(TrainConfig(game="proteus", algo="alphazero", train_against="heuristic:0.5"))


def test_selfplay_against_a_fixed_agent_stores_only_the_networks_moves() -> None:
    """``--train-against random:1``: every game has a ``random`` seat (drawn per game);
    the network searches and stores only its own moves, and the round counts those."""
    game = registry.make_batch(GAME)
    net = net_for(game, [16])
    net.eval()
    buf = ReplayBuffer(4096, tuple(game.obs_shape), game.num_actions, game.num_players, 4)
    actor = SelfPlay(game, 6, 4, 0, buf, against=[("random", 1.0)])
    rng = np.random.default_rng(0)
    assert (actor.opp == 0).all() and set(actor.opp_seat.tolist()) <= {0, 1}
    moved = rounds = 0
    while actor.games_done < 4 and rounds < 3000:
        mine = int((actor.opp_seat != actor.out.seat).sum())  # games where the network moves
        n = actor.round(net, rng)
        assert n == mine
        moved += n
        rounds += 1
        for g, p in enumerate(actor.pending):
            assert actor.opp_seat[g] not in p.seats  # the fixed agent's moves are not stored
    assert actor.games_done >= 4 and actor.against_games[0] == actor.games_done
    assert 0 < moved < rounds * 6  # the fixed agent made the other moves
