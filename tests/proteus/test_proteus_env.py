"""The PettingZoo env, the batch facade, position text and bad input (Proteus)."""

from __future__ import annotations

import subprocess
import sys
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import envs.proteus_v0 as proteus_v0
from envs.core.batch import BatchGame
from envs.proteus import kernel as K
from envs.proteus.batch import ProteusBatch, state_from_text, text_of
from envs.proteus.constants import A_PASS, NUM_ACTIONS

M1 = "Mo+:bo,Ts,Gt/Ms:ws,Tt+:bt,Go+:wo/Mt:wt,To:bs,Gs b 40/200"


# ----------------------------------------------------------------------------- PettingZoo tests


def test_pettingzoo_api_test() -> None:
    from pettingzoo.test import api_test

    api_test(proteus_v0.env(), num_cycles=300, verbose_progress=False)
    api_test(proteus_v0.raw_env(), num_cycles=300, verbose_progress=False)


def test_pettingzoo_seed_test() -> None:
    from pettingzoo.test import seed_test

    seed_test(proteus_v0.env, num_cycles=300)


def test_pettingzoo_render_test(monkeypatch: pytest.MonkeyPatch) -> None:
    from pettingzoo.test import render_test

    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    render_test(proteus_v0.env)


def test_import_and_creation_without_warnings_torch_or_pygame() -> None:
    code = (
        "import warnings, sys\n"
        "warnings.simplefilter('error')\n"
        "import envs.proteus_v0 as p\n"
        "e = p.env(); e.reset(seed=1); r = p.raw_env(render_mode='ansi'); r.reset()\n"
        "assert 'torch' not in sys.modules and 'pygame' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_render_modes() -> None:
    e = proteus_v0.raw_env(render_mode="rgb_array")
    e.reset(options={"position": M1})
    frame = e.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    # the three tile colours appear (brown, turquoise, gold) and both piece colours
    colours = {tuple(c) for c in frame.reshape(-1, 3)[::7]}
    assert (139, 90, 43) in colours and (64, 200, 190) in colours and (230, 180, 30) in colours
    assert (15, 15, 15) in colours and (245, 245, 245) in colours
    a = proteus_v0.raw_env(render_mode="ansi")
    a.reset(options={"position": M1})
    text = a.render()
    assert "Mo*" in text and "Bo" in text and "Wt" in text and "black to move" in text
    with pytest.raises(ValueError, match="render_mode"):
        proteus_v0.raw_env(render_mode="bogus")


def test_human_render_headless(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    e = proteus_v0.raw_env(render_mode="human")
    e.reset()
    e.step(0)
    e.close()


# ----------------------------------------------------------------------------- observation


def test_observation_is_from_the_observers_point_of_view() -> None:
    e = proteus_v0.raw_env()
    e.reset(options={"position": M1})
    ob = e.observe("black")
    ow = e.observe("white")
    # black's circle on a3 (row 0, col 0): own plane for black, opponent plane for white
    assert ob["observation"][0, 0, 10] == 1.0 and ow["observation"][0, 0, 13] == 1.0
    assert ob["observation"][0, 0, 32] == 1.0 and ow["observation"][0, 0, 32] == 0.0
    assert ob["action_mask"].sum() > 0 and ow["action_mask"].sum() == 0
    assert ob["observation"].dtype == np.float32 and ob["observation"].shape == (3, 3, 35)
    space: Any = e.observation_space("black")
    assert space["observation"].contains(ob["observation"])


# ----------------------------------------------------------------------------- bad input


def test_illegal_and_malformed_actions_raise_and_leave_state() -> None:
    e = proteus_v0.raw_env()
    e.reset(options={"position": M1})
    before = e.to_text()
    for bad in (-1, NUM_ACTIONS, 10**9):
        with pytest.raises(ValueError, match="out of range"):
            e.step(bad)
    with pytest.raises(ValueError, match="illegal action"):
        e.step(e.str_to_action("a3-c1"))  # KING cannot go there
    with pytest.raises(ValueError, match="illegal action"):
        e.step(A_PASS)
    bad_actions: list[Any] = ["b2", 1.5, None, "Mo@b2"]
    for bad in bad_actions:
        with pytest.raises(ValueError):
            e.step(bad if not isinstance(bad, str) else e.str_to_action(bad))
    assert e.to_text() == before and e.agent_selection == "black"


@pytest.mark.parametrize(
    "bad, why",
    [
        ("", "bad move"),
        ("Xo@b2", "bad placement"),
        ("Mo@d2", "bad square"),
        ("Mo@b4", "bad square"),
        ("q@b2", "bad placement"),
        ("b2-", "bad square"),
        ("a1<>a1", "must differ"),
        ("a1<>z9", "bad square"),
        ("PASS", "bad move"),
        ("b2c3", "bad move"),
    ],
)
def test_bad_notation(bad: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        proteus_v0.str_to_action(bad)


@pytest.mark.parametrize(
    "bad, why",
    [
        ("", "at least 3 fields"),
        (".,.,./.,.,. b 0/200", "3 ranks"),
        (".,.,./.,.,./.,. b 0/200", "3 squares"),
        (".,.,./.,Xx,./.,.,. b 0/200", "bad square"),
        ("Mo,Mo,./.,.,./.,.,. w 2/200", "tile Mo appears twice"),
        ("Mo:bo,Ms:bo,./.,.,./.,.,. w 4/200", "piece bo appears twice"),
        (".,.,./.,.,./.,.,. x 0/200", "mover"),
        (".,.,./.,.,./.,.,. b zero/200", "turn counter"),
        (".,.,./.,.,./.,.,. b 0/0", "max_turns"),
        (".,.,./.,.,./.,.,. b 5/5", "reached max_turns"),
        (".,.,./.,.,./.,.,. b 0/200 h=xyz", "hexadecimal"),
        (".,.,./.,.,./.,.,. b 0/200 h=1234", "last history entry"),
        (".,.,./.,.,./.,.,. b 0/200 result=maybe", "result"),
        (".,.,./.,.,./.,.,. b 0/200 foo=1", "unknown field"),
        ("Mo:bo,Ts,Gt/Ms:ws,Tt+:bt,Go+:wo/Mt:wt,To:bs,Gs b 40/200", "PR-10"),
    ],
)
def test_malformed_position_raises_and_keeps_game(bad: str, why: str) -> None:
    e = proteus_v0.raw_env()
    e.reset(options={"position": M1})
    before = e.to_text()
    with pytest.raises(ValueError, match=why):
        e.reset(options={"position": bad})
    assert e.to_text() == before


def test_unsupported_parameters() -> None:
    bad_values: list[Any] = [0, -3, 2.5, "200", True]
    for bad in bad_values:
        with pytest.raises(ValueError, match="max_turns"):
            proteus_v0.raw_env(max_turns=bad)
        with pytest.raises(ValueError, match="max_turns"):
            ProteusBatch(max_turns=bad)


def test_wrapped_env_illegal_move_loses() -> None:
    e = proteus_v0.env()
    e.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e.step(A_PASS)  # illegal at the start
    assert e.terminations["black"] and e.rewards["black"] == -1


# ----------------------------------------------------------------------------- position text


def _random_game_texts(seed: int, max_turns: int = 200) -> list[str]:
    e = proteus_v0.raw_env(max_turns=max_turns)
    e.reset()
    rng = np.random.default_rng(seed)
    texts = [e.to_text()]
    while not all(e.terminations.values()):
        e.step(int(rng.choice(e.legal_actions())))
        texts.append(e.to_text())
    return texts


def test_position_text_round_trip_every_step() -> None:
    for seed in range(8):
        for text in _random_game_texts(seed, max_turns=60):
            assert text_of(state_from_text(text)) == text


def test_restored_game_continues_exactly() -> None:
    rng = np.random.default_rng(5)
    for seed in range(6):
        e = proteus_v0.raw_env(max_turns=50)
        e.reset(seed=seed)
        moves = []
        while not all(e.terminations.values()):
            a = int(rng.choice(e.legal_actions()))
            moves.append(a)
            e.step(a)
        final = e.to_text()
        cut = len(moves) // 2
        e2 = proteus_v0.raw_env(max_turns=50)
        e2.reset()
        for a in moves[:cut]:
            e2.step(a)
        e3 = proteus_v0.raw_env()
        e3.reset(options={"position": e2.to_text()})
        for a in moves[cut:]:
            e3.step(a)
        assert e3.to_text() == final and all(e3.terminations.values())


# ----------------------------------------------------------------------------- properties


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), max_turns=st.integers(1, 120))
def test_invariants_over_random_games(seed: int, max_turns: int) -> None:
    e = proteus_v0.raw_env(max_turns=max_turns)
    e.reset()
    rng = np.random.default_rng(seed)
    s = e._state
    while True:
        tiles = [int(t) for t in s.tile_at[0] if t >= 0]
        pieces = [int(p) for p in s.piece_at[0] if p >= 0]
        assert len(set(tiles)) == len(tiles)  # 9 tiles: on board (distinct) + pool
        assert len(set(pieces)) == len(pieces)  # 6 pieces: on board (distinct) + in hand
        assert all(s.tile_at[0, sq] >= 0 for sq in range(9) if s.piece_at[0, sq] >= 0)
        for c in range(3):  # at most one face-up tile per colour, and it is on the board
            if s.active[0, c] >= 0:
                assert 3 * c + int(s.active[0, c]) in tiles
        if len(tiles) == 9 and len(pieces) == 6:
            assert (s.active[0] >= 0).all()  # PR-10: exactly one per colour when moving
        agent = e.agent_selection
        mask = e.observe(agent)["action_mask"]
        if all(e.terminations.values()):
            assert mask.sum() == 0
            break
        assert mask.sum() > 0
        e.step(int(rng.choice(np.flatnonzero(mask))))


# ----------------------------------------------------------------------------- batch facade


def test_batch_facade_protocol_and_auto_reset() -> None:
    game = ProteusBatch()
    assert isinstance(game, BatchGame)
    state = game.init(64, seed=3)
    finished = 0
    for _ in range(400):
        mask = game.legal_mask(state)
        acts = game.random_actions(state)
        assert mask[np.arange(64), acts].all()
        rewards, done = game.step(state, acts, auto_reset=True)
        finished += int(done.sum())
        assert (rewards[done].sum(axis=1) == 0).all()
        assert (rewards[~done] == 0).all()
        assert not game.terminated(state).any()
    assert finished > 0
    obs = game.observe(state, game.current_player(state))
    assert obs.shape == (64, 3, 3, 35)


def test_batch_without_auto_reset_keeps_finished_games() -> None:
    game = ProteusBatch(max_turns=5)
    state = game.init(8, seed=0)
    for _ in range(5):
        game.step(state, game.random_actions(state))
    assert game.terminated(state).all()
    assert (game.current_player(state) == -1).all()
    assert not game.legal_mask(state).any()
    rewards, done = game.step(state, np.zeros(8, dtype=np.int64))
    assert done.all() and (rewards == 0).all()


def test_same_seed_same_games_whatever_batch_size_or_threads() -> None:
    import numba

    def run(batch: int, parallel: bool) -> np.ndarray:
        s = K.new_state(batch, seed=11)
        for _ in range(60):
            K.random_step(s, 1, parallel=parallel)
        return np.concatenate([s.tile_at, s.piece_at, s.active, s.turn[:, None]], axis=1)

    small = run(4, False)
    big = run(300, True)
    assert (big[:4] == small).all()
    old = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        assert (run(300, True) == big).all()
    finally:
        numba.set_num_threads(old)


def test_copy_and_take() -> None:
    game = ProteusBatch()
    state = game.init(4, seed=1)
    for _ in range(6):
        game.step(state, game.random_actions(state))
    clone = game.copy(state)
    game.step(clone, game.random_actions(clone))
    assert not np.array_equal(clone.turn, state.turn)
    rep = game.take(state, np.array([2, 2, 2]))
    assert all(text_of(rep, i) == text_of(state, 2) for i in range(3))


@pytest.mark.slow
def test_kernel_random_actions_are_uniform() -> None:
    """Chi-square check of the fused sampler on one fixed position (PR rules untouched)."""
    s = state_from_text(M1)
    mask = K.legal_mask(s)[0]
    legal = np.flatnonzero(mask)
    batch = s.take(np.zeros(20000, dtype=np.int64))
    batch.rng[:] = K.seed_keys(7, 20000)
    acts = K.random_actions(batch)
    counts = np.array([(acts == a).sum() for a in legal])
    assert counts.sum() == 20000
    expected = 20000 / len(legal)
    chi2 = ((counts - expected) ** 2 / expected).sum()
    assert chi2 < 45.0, (chi2, counts)  # df = 13, p ~ 1e-5


def test_parallel_and_serial_kernels_agree() -> None:
    """prange loops give the same results as the serial loops (no races, same RNG use)."""
    a = K.new_state(300, seed=4)
    for _ in range(40):
        K.random_step(a, 1, parallel=False)
    b = a.copy()
    for _ in range(30):
        ma = K.legal_mask(a, parallel=False)
        mb = K.legal_mask(b, parallel=True)
        assert (ma == mb).all()
        ra = K.random_actions(a, parallel=False)
        rb = K.random_actions(b, parallel=True)
        assert (ra == rb).all()
        seats = a.player.astype(np.int64)
        assert (K.observe(a, seats, parallel=False) == K.observe(b, seats, parallel=True)).all()
        wa, da = K.step(a, ra, auto_reset=True, parallel=False)
        wb, db = K.step(b, rb, auto_reset=True, parallel=True)
        assert (wa == wb).all() and (da == db).all()
    for x, y in zip(a.arrays(), b.arrays(), strict=True):
        assert (x == y).all()


def test_take_any_index_and_leading_batch_axis() -> None:
    """Every state array has the batch axis first; take works for any game index."""
    game = ProteusBatch(max_turns=10)
    state = game.init(500, seed=2)
    for _ in range(5):
        game.step(state, game.random_actions(state))
    for arr in state.arrays():
        assert arr.shape[0] == 500
    sub = game.take(state, np.array([499, 250, 3]))
    assert [text_of(sub, i) for i in range(3)] == [text_of(state, i) for i in (499, 250, 3)]
