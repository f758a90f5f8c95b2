"""Moon Shot's batch facade (envs/moon_shot/batch.py): the batch-game protocol, continuous.

Also pins the physics and game-flow results bit for bit (MS-5..MS-17): the digests were
recorded before ``physics`` was split into a package and the turn loop moved into the
facade, and every consumer (AEC, Parallel, ladder, VecEnvs) was checked against them.
They are exact float64 results of this code on x86-64 Linux; a change of them means the
physics or the game flow changed (or the platform's libm rounds differently).
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from envs.moon_shot import game, physics
from envs.moon_shot.batch import MoonShotBatch, MoonShotConfig, run_shots

SHOTS_DIGEST = "946098f612369a9dec67e27e6493c43a8b0cc9df48e9cab1fcd579aa8c5c360a"
GAMES_DIGEST = "8be0a661455141ce67cf13f655d463a176f869bf57dc3e5c009b17284db4d8a1"


def _digest(*arrays: np.ndarray) -> str:
    h = hashlib.sha256()
    for arr in arrays:
        h.update(np.ascontiguousarray(arr).tobytes())
    return h.hexdigest()


def test_physics_fingerprint_500_random_shots() -> None:
    """MS-5..MS-10: final poses etc. of 500 random shots, as before the physics split."""
    rng = np.random.default_rng(20261201)
    a = rng.uniform(-1, 1, (500, 4))
    s = rng.integers(0, 2**63, 500, dtype=np.uint64)
    r = physics.simulate(a, s)
    got = _digest(
        r.poses, r.toppled, r.in_tube, r.fully_in_tube, r.substeps, r.sim_time, r.launch, r.struck
    )
    assert got == SHOTS_DIGEST


def test_game_fingerprint_scored_games() -> None:
    """MS-14..MS-17: 24 three-player games to their end, as the old turn loop played them."""
    g = MoonShotBatch(num_players=3, max_rounds=5)
    st = g.init(24, seed=11)
    rng = np.random.default_rng(7)
    while not st.done.all():
        g.step(st, rng.uniform(-1, 1, (24, 4)))
    got = _digest(st.scores, st.last_landing, st.turn, st.rewards, st.outcome)
    assert got == GAMES_DIGEST


def test_facade_shape_and_config() -> None:
    g = MoonShotBatch(num_players=4, noise=0.5)
    assert g.num_players == 4 and g.obs_shape == (18,)
    assert g.config == MoonShotConfig(num_players=4, noise=0.5)
    assert MoonShotBatch(g.config, max_rounds=3).config.max_rounds == 3
    assert g.action_space().shape == (4,) and g.observation_space().shape == g.obs_shape
    with pytest.raises(ValueError, match="MoonShotConfig"):
        MoonShotBatch("2 players")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="batch_size"):
        g.init(-1, 0)


def test_init_seeds_each_game_from_seed_and_index() -> None:
    """A game's key depends on (seed, i) only: a prefix of a bigger batch is the same."""
    g = MoonShotBatch()
    a, b = g.init(3, seed=5), g.init(8, seed=5)
    assert np.array_equal(a.key, b.key[:3])
    assert not np.array_equal(a.key, g.init(3, seed=6).key)
    assert g.current_player(a).tolist() == [0, 0, 0] and not g.terminated(a).any()


def test_step_is_the_aec_turn_and_independent_of_batch_position() -> None:
    """MS-14: one shot per game, seat order; a game's course does not depend on the batch."""
    g = MoonShotBatch(num_players=2, max_rounds=3)
    big = g.init(6, seed=2)
    one = g.take(big, np.array([4]))
    rng = np.random.default_rng(0)
    for _ in range(6):
        acts = rng.uniform(-1, 1, (6, 4))
        g.step(big, acts)
        g.step(one, acts[4:5])
    sub = g.take(big, np.array([4]))
    for name in ("scores", "last_landing", "turn", "round", "seat", "done", "rewards", "key"):
        assert np.array_equal(getattr(sub, name), getattr(one, name)), name
    assert big.done.all()  # 3 rounds of 2 seats


def test_step_rewards_only_in_the_ending_step_and_done_stays() -> None:
    """MS-17: the final rewards come once, in the step that ends the game."""
    g = MoonShotBatch(num_players=2, max_rounds=1)
    st = g.init(5, seed=0)
    acts = np.zeros((5, 4))
    r1, d1 = g.step(st, acts)
    r2, d2 = g.step(st, acts)
    assert r1.dtype == np.float32 and r1.shape == (5, 2)
    assert np.array_equal(r1[~d1], np.zeros_like(r1[~d1]))
    assert d2.all()  # one round of two seats: over after two shots
    ended2 = d2 & ~d1
    assert np.array_equal(r2[ended2], st.rewards[ended2].astype(np.float32))
    r3, d3 = g.step(st, acts)  # finished games are left alone
    assert d3.all() and not r3.any()
    assert (g.current_player(st) == -1).all()


def test_auto_reset_restarts_with_a_key_of_its_own() -> None:
    g = MoonShotBatch(num_players=2, max_rounds=1)
    st = g.init(4, seed=3)
    keys = st.key.copy()
    g.step(st, np.zeros((4, 4)))
    rew, done = g.step(st, np.zeros((4, 4)), auto_reset=True)
    assert done.all() and rew.any()
    assert not st.done.any() and (st.turn == 0).all() and (st.scores == 0).all()
    assert len(set(st.key.tolist()) | set(keys.tolist())) == 8  # new, distinct keys


def test_shoot_simulates_only_running_games_in_one_call(simulate_calls) -> None:
    calls = simulate_calls
    g = MoonShotBatch(num_players=2)
    st = g.init(5, seed=1)
    st.done[[1, 3]] = True
    before = g.take(st, np.array([1, 3]))
    shots = g.shoot(st, np.zeros((5, 4)))
    assert calls == [3] and len(shots.poses) == 3
    after = g.take(st, np.array([1, 3]))
    assert np.array_equal(before.turn, after.turn) and np.array_equal(before.key, after.key)
    with pytest.raises(ValueError, match="shape"):
        g.shoot(st, np.zeros((4, 4)))


def test_shoot_matches_run_shots_with_the_games_seeds() -> None:
    """MS-6: the noise of a shot comes from the game's key and shot number."""
    g = MoonShotBatch(num_players=2)
    st = g.init(3, seed=9)
    acts = np.random.default_rng(1).uniform(-1, 1, (3, 4))
    want = run_shots(acts, game.shot_seeds(st.key, st.turn), g.config)
    got = g.shoot(st, acts)
    assert np.array_equal(got.poses, want.poses)
    assert st.scores[:, 0].tolist() == want.score.points.tolist()


def test_shoot_realtime_scores_every_seat() -> None:
    """MS-18: all seats shoot at once, seeds from shot number turn * P + seat."""
    g = MoonShotBatch(num_players=3)
    st = g.init(2, seed=4)
    acts = np.random.default_rng(2).uniform(-1, 1, (2, 3, 4))
    counters = (st.turn[:, None] * 3 + np.arange(3)).reshape(-1)
    want = run_shots(acts.reshape(-1, 4), game.shot_seeds(np.repeat(st.key, 3), counters), g.config)
    shots = g.shoot_realtime(st, acts)
    assert np.array_equal(shots.poses, want.poses)
    assert st.scores.reshape(-1).tolist() == want.score.points.tolist()
    assert (st.round == 1).all() and (st.turn == 1).all()
    obs = g.observe_realtime(st)
    assert obs.shape == (2, 3, 16)
    for p in range(3):  # seat p's view: own points first, nobody waits (MS-18)
        assert obs[0, p, 0] == st.scores[0, p]
        assert obs[0, p, 2 * 3 + 2] == 0.0


def test_random_actions_in_range_and_per_game() -> None:
    g = MoonShotBatch()
    st = g.init(6, seed=0)
    a = g.random_actions(st)
    assert a.shape == (6, 4) and np.all(np.abs(a) <= 1.0)
    assert np.array_equal(a[2:3], g.random_actions(g.take(st, np.array([2]))))
    g.step(st, a)
    assert not np.array_equal(a, g.random_actions(st))  # a new turn, new draws
    assert g.legal_mask(st) is None  # continuous: nothing to mask (MS-5)


def test_copy_take_put_round_trip() -> None:
    g = MoonShotBatch(num_players=2)
    st = g.init(4, seed=1)
    c = g.copy(st)
    g.step(c, np.zeros((4, 4)))
    assert (st.turn == 0).all() and (c.turn == 1).all()
    g.put(st, np.array([0, 2]), g.take(c, np.array([0, 2])))
    assert st.turn.tolist() == [1, 0, 1, 0]


def test_old_names_are_aliases() -> None:
    """Nothing a user imports today disappears: the env module and the agents re-export."""
    from envs.moon_shot import batch, env
    from envs.moon_shot.agents import MoonShotFacade

    assert MoonShotFacade is MoonShotBatch
    for name in ("MoonShotConfig", "Shots", "run_shots", "observe", "observation_space"):
        assert getattr(env, name) is getattr(batch, name)


# ----------------------------------------------------------------------------- solo (MS-21)
def test_solo_facade_protocol_and_rewards() -> None:
    """MS-21: reward = the shot's points, a crack -(points so far); max_shots ends it."""
    from envs.moon_shot.batch import MoonShotSoloBatch
    from envs.moon_shot.solo import SoloConfig

    assert SoloConfig is MoonShotSoloBatch  # the old name stays
    g = MoonShotSoloBatch(max_shots=3)
    st = g.init(6, seed=2)
    assert g.obs_shape == (8,) and g.observe(st).shape == (6, 8)
    assert (g.current_player(st) == 0).all() and g.legal_mask(st) is None
    total = np.zeros(6)
    for _ in range(3):
        rew, done = g.step(st, g.random_actions(st))
        assert rew.shape == (6, 1) and rew.dtype == np.float32
        total += rew[:, 0]
    assert done.all() and (g.current_player(st) == -1).all()
    cracked = st.outcome == game.CRACK_END
    assert np.array_equal(total[~cracked], st.points[~cracked])
    assert (total[cracked] == 0).all()  # the crack takes back every point so far
    rew, done = g.step(st, np.zeros((6, 4)), auto_reset=True)
    assert done.all() and not rew.any() and not st.done.any() and (st.shots == 0).all()


def test_solo_facade_plays_like_the_solo_env() -> None:
    """The Gymnasium env drives the facade: same key, same actions, same rewards."""
    from envs.moon_shot.batch import MoonShotSoloBatch
    from envs.moon_shot.solo import MoonShotSoloEnv

    env = MoonShotSoloEnv(max_shots=4)
    env.reset(seed=5)
    g = MoonShotSoloBatch(max_shots=4)
    st = g.take(env.state, np.array([0]))
    acts = np.random.default_rng(3).uniform(-1, 1, (4, 4))
    for a in acts:
        if st.done[0]:
            break
        _, r_env, *_ = env.step(a.astype(np.float32))
        rew, _ = g.step(st, a[None].astype(np.float32))
        assert rew[0, 0] == r_env
    assert np.array_equal(g.observe(st), env.config.observe(env.state))
