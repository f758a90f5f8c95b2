"""Virus Fight AEC env: PettingZoo conformance, seeding, rendering, bad input, notation and
position round trips, batch facade, terminal play."""

from __future__ import annotations

import io
import sys

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from envs import virus_fight_v0
from envs.virus_fight import kernel as K
from envs.virus_fight.batch import VirusFightBatch
from envs.virus_fight.env import raw_env
from envs.virus_fight.notation import action_to_str, str_to_action
from envs.virus_fight.play import main as play_main
from tests.aec import random_moves
from tests.virus_fight.vf_positions import load

PLAYERS = [2, 3, 4]


def _random_game(env: raw_env, seed: int, max_steps: int = 10_000) -> list[int]:
    return random_moves(env, np.random.default_rng(seed), max_steps)


@pytest.mark.parametrize("players", PLAYERS)
def test_api(players: int) -> None:
    api_test(virus_fight_v0.env(num_players=players), num_cycles=300)
    api_test(virus_fight_v0.raw_env(num_players=players), num_cycles=300)


@pytest.mark.parametrize("players", PLAYERS)
def test_seed(players: int) -> None:
    seed_test(lambda **kw: virus_fight_v0.env(num_players=players, **kw), num_cycles=200)


@pytest.mark.parametrize("players", PLAYERS)
def test_render(players: int) -> None:
    render_test(lambda render_mode=None: virus_fight_v0.env(num_players=players,
                                                           render_mode=render_mode))  # fmt: skip


@pytest.mark.parametrize("players", PLAYERS)
def test_render_modes_content(players: int) -> None:
    e = raw_env(num_players=players, render_mode="rgb_array")
    e.reset(seed=1)
    _random_game(e, 1, max_steps=60)
    img = e.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
    assert img.shape[1] > e.board_size * 48  # the board plus the panel beside it
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 5  # pieces and colours drawn
    e2 = raw_env(num_players=players, render_mode="ansi")
    e2.reset(seed=1)
    txt = e2.render()
    assert "setup: player_0 to act" in txt and txt.count("\n") >= e2.board_size + players
    e3 = raw_env(num_players=players, render_mode="human")
    e3.reset(seed=1)
    e3.step(e3.legal_actions()[0])
    e3.close()


@pytest.mark.parametrize("players", PLAYERS)
def test_same_seed_same_game(players: int) -> None:
    runs = []
    for _ in range(2):
        e = raw_env(num_players=players)
        e.reset(seed=123)
        runs.append((_random_game(e, 7), e.to_text()))
    assert runs[0] == runs[1]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"num_players": 5}, "num_players"),
        ({"board_size": 9}, "board_size"),
        ({"max_rounds": 0}, "max_rounds"),
        ({"render_mode": "svg"}, "render_mode"),
    ],
)
def test_bad_parameters(kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        raw_env(**kwargs)


def test_bad_actions_leave_state_untouched() -> None:
    e = raw_env()
    e.reset(seed=0)
    e.step(e.str_to_action("M1@a1"))
    before = e.to_text()
    for bad in (-1, e.num_actions, 10**9, "M1@b1", 1.5, None, True, e.str_to_action("M2@c1")):
        with pytest.raises(ValueError):
            e.step(bad)  # type: ignore[arg-type]
        assert e.to_text() == before
        assert e.agent_selection == "player_0"
    # the wrapped env() ends the game with -1 for an illegal move (PettingZoo convention)
    w = virus_fight_v0.env()
    w.reset(seed=0)
    w.step(w.unwrapped.str_to_action("M1@a5"))
    assert w.rewards["player_0"] == -1


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "lacks"),
        ("players=2", "lacks"),
        ("nonsense", "key=value"),
        ("foo=1", "unknown"),
    ],
)
def test_malformed_position_fields(text: str, problem: str) -> None:
    e = raw_env()
    e.reset(seed=0)
    before = e.to_text()
    with pytest.raises(ValueError, match=problem):
        e.reset(options={"position": text})
    assert e.to_text() == before


def test_malformed_positions_named() -> None:
    e = raw_env()
    e.reset(seed=0)
    _random_game(e, 3, max_steps=40)
    good = e.to_text()
    f = dict(tok.split("=", 1) for tok in good.split())

    def with_(**kw: str) -> str:
        g = dict(f, **kw)
        return " ".join(f"{k}={v}" for k, v in g.items())

    cases = {
        "players": with_(players="3"),
        "size": with_(size="6"),
        "ranks": with_(board="5/5/5/5"),
        "unexpected character": with_(board="5/5/5/5/Q1Q1Q1Q1Q1"),
        "empty square|expected 2": with_(board="5/5/5/5/5"),
        "supply": with_(supply="1,1"),
        "alive": with_(alive="1"),
        "phase": with_(phase="middle"),
        "round": with_(round="x"),
        "hist": with_(hist="zz"),
    }
    for problem, text in cases.items():
        with pytest.raises(ValueError, match=problem):
            e.reset(options={"position": text})
        assert e.to_text() == good
    e.reset(options={"position": good})
    assert e.to_text() == good


@pytest.mark.parametrize("players", PLAYERS)
def test_position_round_trip_continues_exactly(players: int) -> None:
    """Saved at any point and restored, a game continues exactly (VF-17 history too)."""
    e = raw_env(num_players=players, max_rounds=30)
    e.reset(seed=players)
    rng = np.random.default_rng(players)
    while e.agents:
        agent = e.agent_selection
        if e.terminations[agent]:
            e.step(None)
            continue
        text = e.to_text()
        e2 = raw_env(num_players=players, max_rounds=30)
        e2.reset(seed=1, options={"position": text})
        assert e2.to_text() == text
        while e2.terminations[e2.agent_selection]:
            e2.step(None)  # seats already out leave first
        assert e2.agent_selection == agent
        assert e2.legal_moves() == e.legal_moves()
        for seat in range(players):
            assert np.array_equal(e2._observe_seat(seat), e._observe_seat(seat))
        a = int(rng.choice(e.legal_actions()))
        e2.step(a)
        e.step(a)
        assert e2.to_text() == e.to_text()
        assert e2.rewards == {k: v for k, v in e.rewards.items() if k in e2.rewards}


def test_notation_round_trip_all_actions() -> None:
    for n in (5, 6, 7, 8):
        for a in range(K.num_actions(n)):
            assert str_to_action(action_to_str(a, n), n) == a
    with pytest.raises(ValueError, match="off the 5x5"):
        str_to_action("f1-a1", 5)
    with pytest.raises(ValueError, match="out of range"):
        action_to_str(976, 5)


def test_observation_planes_perspective() -> None:
    e = load([". . . . J1", ". . . . .", ". . . . .", ". . . . .", "W1 M1 . . ."], ["a1", "e5"])
    o0 = e.observe("player_0")["observation"]
    o1 = e.observe("player_1")["observation"]
    assert o0[12, 4, 0] == 1 and o0[13, 0, 4] == 1  # own marker first
    assert o1[12, 0, 4] == 1 and o1[13, 4, 0] == 1
    assert e.observe("player_1")["action_mask"].sum() == 0  # not to act
    space = e.observation_space("player_0")["observation"]
    assert space.contains(o0) and space.contains(o1)


# ----------------------------------------------------------------------- batch facade
@pytest.mark.parametrize("players", PLAYERS)
def test_batch_seed_independent_of_batch_position(players: int) -> None:
    g = VirusFightBatch(players)
    big = g.init(16, seed=9)
    small = g.take(big, np.array([5]))
    for _ in range(300):
        a_big = g.random_actions(big)
        a_small = g.random_actions(small)
        assert a_big[5] == a_small[0]
        assert g.legal_mask(big)[np.arange(16), a_big].all()
        g.step(big, a_big, auto_reset=True)
        g.step(small, a_small, auto_reset=True)
        for x, y in zip(big.arrays(), small.arrays(), strict=True):
            assert np.array_equal(x[5], y[0])


def test_batch_protocol_and_rewards() -> None:
    from envs.core.batch import BatchGame

    g = VirusFightBatch(3)
    assert isinstance(g, BatchGame)
    st = g.init(64, seed=2)
    finished = 0
    for _ in range(2000):
        a = g.random_actions(st)
        rew, done = g.step(st, a, auto_reset=True)
        assert set(np.unique(rew)).issubset({-1.0, 0.0, 1.0})
        for i in np.flatnonzero(done):
            finished += 1
            assert rew[i].max() >= 0  # someone won or shared the top at the end
        assert (g.current_player(st) >= 0).all()
    assert finished > 0
    obs = g.observe(st, g.current_player(st))
    assert obs.shape == (64, *g.obs_shape) and obs.dtype == np.float32
    c = g.copy(st)
    g.step(c, g.random_actions(c))
    assert not all(np.array_equal(x, y) for x, y in zip(c.arrays(), st.arrays(), strict=True))


def test_batch_over_games_stay_over() -> None:
    g = VirusFightBatch(2)
    st = g.init(8, seed=4)
    for _ in range(5000):
        if g.terminated(st).all():
            break
        a = g.random_actions(st)
        g.step(st, np.where(a < 0, 0, a))
    assert g.terminated(st).all()
    assert not g.legal_mask(st).any() and (g.current_player(st) == -1).all()
    rew, done = g.step(st, np.zeros(8, np.int64))
    assert done.all() and not rew.any()


def test_determinize_resamples_only_hidden_programs() -> None:
    g = VirusFightBatch(3)
    st = g.init(1, seed=0)
    acts = ["M1@b1", "W1@c1", "*b1", "J3@a4", "*a4"]  # seats 0, 1 done; seat 2 writes
    for a in acts:
        g.step(st, np.array([str_to_action(a, 6)]))
    rng = np.random.default_rng(0)
    obs = g.observe(st, np.array([2]))
    changed = False
    for _ in range(20):
        d = g.determinize(st, 2, rng)
        assert np.array_equal(g.observe(d, np.array([2])), obs)  # seat 2 sees no change
        assert np.array_equal(g.legal_mask(d), g.legal_mask(st))
        for s in (0, 1):  # each resampled program is a valid one
            seg = g.seg[s, :4]
            placed = [i for i, c in enumerate(seg) if d.cells[0, c] >= 0]
            assert placed == list(range(placed[0], placed[-1] + 1)) and len(placed) <= 4
            assert d.marker[0, s] in seg[placed]
            own = np.bincount(d.cells[0, seg[placed]], minlength=12) + d.supply[0, s]
            assert (own == 1).all()
        changed |= not np.array_equal(d.cells, st.cells)
        # play on: finishing the setup works from the determinized state
        g.step(d, g.random_actions(d))
    assert changed
    after = g.copy(st)
    for a in ["E1@b6", "*b6"]:
        g.step(after, np.array([str_to_action(a, 6)]))
    d = g.determinize(after, 0, rng)  # after setup: perfect information, a plain copy
    assert all(np.array_equal(x, y) for x, y in zip(d.arrays(), after.arrays(), strict=True))


# ----------------------------------------------------------------------- terminal play
def _run_play(monkeypatch: pytest.MonkeyPatch, argv: list[str], lines: str) -> tuple[int, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(lines))
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    code = play_main(argv)
    return code, out.getvalue()


def test_play_stdin_help_reprompt_and_quit(monkeypatch: pytest.MonkeyPatch) -> None:
    code, out = _run_play(
        monkeypatch, ["--players", "3", "--seats", "1", "--seed", "3"],
        "help\nnonsense\nM1@b1\nM1@a2\n*a2\nquit\n",
    )  # fmt: skip
    assert code == 0
    assert "legal: M1@a5" in out  # help lists seat 1's home squares
    assert "cannot read move 'nonsense'" in out
    assert "illegal: b1 is occupied (M1)" in out  # VF-9: a piece goes on an empty square
    assert "player_0 has written its program" in out
    assert "?" in out  # seat 0's program is hidden from seat 1 during setup


def test_play_whole_game_from_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    """A scripted person cycles through every notation form; illegal lines are re-prompted,
    so each decision takes the first legal line of the cycle, and the game ends."""
    squares = [f"{f}{r}" for r in range(1, 6) for f in "abcde"]
    cycle = ["pass"] + ["*" + q for q in squares] + ["x" + q for q in squares]
    cycle += [f"{k}{z}@{q}" for k in "MWJE" for z in "123" for q in squares]
    code, out = _run_play(
        monkeypatch, ["--seed", "5", "--max-rounds", "5"], "\n".join(cycle * 200) + "\n"
    )
    assert code == 0
    assert "game over: player_0" in out and "player_1 plays" in out


def test_play_bad_arguments(monkeypatch: pytest.MonkeyPatch) -> None:
    code, _ = _run_play(monkeypatch, ["--players", "3", "--seats", "7"], "")
    assert code == 2
    code, _ = _run_play(monkeypatch, ["--board-size", "9"], "")
    assert code == 2


def test_random_action_is_the_canonical_draw() -> None:
    """The single-pass sampler draws exactly ``_nth_legal(count, rand(count))``: uniform."""
    g = VirusFightBatch(3)
    st = g.init(32, seed=11)
    for _ in range(300):
        for i in range(32):
            key = st.rng.copy()
            a = K._random_legal(i, st.bb, st.cells, st.marker, st.supply, st.info, key,
                                g.seg, g.cfg)  # fmt: skip
            key2 = st.rng.copy()
            cnt = K._nth_legal(i, st.bb, st.cells, st.marker, st.supply, st.info, g.seg, g.cfg,
                               -1)[0]  # fmt: skip
            b = K._nth_legal(i, st.bb, st.cells, st.marker, st.supply, st.info, g.seg, g.cfg,
                             K._rand(key2, i, cnt))[1]  # fmt: skip
            assert a == b and key[i] == key2[i]
        g.step(st, g.random_actions(st), auto_reset=True)


def test_serial_and_parallel_kernels_agree() -> None:
    import envs.core.loops as B

    g = VirusFightBatch(2)
    runs = []
    for threshold in (1, 10**9):  # parallel kernels, then serial ones
        old = (B.PARALLEL_MIN_BATCH, B.STEP_PARALLEL_MIN_BATCH, B.SINGLE_THREAD_MIN_BATCH)
        B.PARALLEL_MIN_BATCH = B.STEP_PARALLEL_MIN_BATCH = B.SINGLE_THREAD_MIN_BATCH = threshold
        try:
            st = g.init(300, seed=8)
            for _ in range(150):
                g.step(st, g.random_actions(st), auto_reset=True)
            stats = g.selfplay(st, 50)
            runs.append((st, stats, g.observe(st, np.zeros(300, np.int64)), g.legal_mask(st)))
        finally:
            B.PARALLEL_MIN_BATCH, B.STEP_PARALLEL_MIN_BATCH, B.SINGLE_THREAD_MIN_BATCH = old
    for x, y in zip(runs[0][0].arrays(), runs[1][0].arrays(), strict=True):
        assert np.array_equal(x, y)
    for x, y in zip(runs[0][1:], runs[1][1:], strict=True):
        assert np.array_equal(x, y)


def test_finished_position_loads_as_finished() -> None:
    e = raw_env()
    e.reset(seed=2)
    _random_game(e, 2)
    text = e.to_text()
    assert "phase=over" in text
    e2 = raw_env()
    e2.reset(options={"position": text})
    assert all(e2.terminations.values()) and e2.to_text() == text
    while e2.agents:
        e2.step(None)


def test_history_longer_than_rounds_started_is_rejected() -> None:
    e = raw_env(max_rounds=30)
    e.reset(seed=4)
    _random_game(e, 4, max_steps=40)
    f = dict(tok.split("=", 1) for tok in e.to_text().split())
    assert f["phase"] != "setup" and f["hist"] != "-"
    rec = f["hist"].split(",")[0]
    f["hist"] = ",".join([rec] * (int(f["round"]) + 1))
    with pytest.raises(ValueError, match="rounds started"):
        e.reset(options={"position": " ".join(f"{k}={v}" for k, v in f.items())})


def test_viewer_pictures_hide_other_programs_during_setup() -> None:
    """VF-11 in the terminal: seat 1's ansi and rgb pictures do not depend on seat 0's program."""
    from envs.virus_fight import render

    pics = []
    for prog in (["M1@b1", "*b1"], ["J3@c1", "E2@d1", "W1@e1", "*d1"]):
        e = raw_env(num_players=3)
        e.reset(seed=0)
        for m in prog:
            e.step(e.str_to_action(m))
        st = e.state_arrays
        pics.append((render.ansi(e.game, st, viewer=1), render.rgb(e.game, st, viewer=1)))
    assert pics[0][0] == pics[1][0]
    assert np.array_equal(pics[0][1], pics[1][1])
