"""Dense learner codes, the step's in-kernel action check, and the kernel's old import path.

* The learner observation is uint8 planes or, with ``learner_buffers(dense=True)``, one
  uint8 code row per game (``observe.py``): ``decode`` gives ``observe``'s planes from
  either (the round plane within 1/255), during the hidden setup (VF-11) too; a code row
  is 58 bytes on 2p 5x5 instead of 1,175 for uint8 planes.
* ``step`` checks every running game's action inside the kernel before it applies any:
  the check agrees with the legal mask, and a bad action leaves the batch as it was, even
  when the step first had to grow the VF-17 history. An int64 id outside
  ``[-1, num_actions)`` is refused there too, in a finished game as well (such arrays skip
  the numpy range pass).
* ``kernel.X`` still reaches every name of the sibling kernel modules.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs.virus_fight import kernel as K
from envs.virus_fight import legal
from envs.virus_fight.batch import HIST_START, VirusFightBatch
from envs.virus_fight.observe import code_length, decode


def _same(a, b) -> bool:
    return all(
        x.shape == y.shape and np.array_equal(x, y)
        for x, y in zip(a.arrays(), b.arrays(), strict=True)
    )


@pytest.mark.parametrize("dense", [True, False])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_codes_decode_to_the_observed_planes(players: int, dense: bool) -> None:
    g = VirusFightBatch(players)
    st = g.init(24, seed=40 + players)
    out = g.learner_buffers(24, dense=dense)
    rows = (24, code_length(g.board_size, players))
    assert out.obs.shape == (rows if dense else (24, *g.obs_shape))
    setup_seen = play_seen = False
    for _ in range(120):
        g.learner_view(st, out)
        seats = np.maximum(g.current_player(st), 0)
        planes = g.observe(st, seats)
        got = g.decode(out.obs)
        assert got.dtype == np.float32 and got.shape == planes.shape
        rnd = planes.shape[1] - 2
        np.testing.assert_array_equal(np.delete(got, rnd, 1), np.delete(planes, rnd, 1))
        assert np.abs(got[:, rnd] - planes[:, rnd]).max() <= 1 / 255 + 1e-7
        setup_seen |= bool((st.info[:, K.I_PHASE] == K.PH_SETUP).any())  # VF-11 hidden
        play_seen |= bool((st.info[:, K.I_PHASE] == K.PH_EFFECT).any())
        g.step(st, g.random_actions(st), auto_reset=True)
    assert setup_seen and play_seen


def _planes_of_code(code: np.ndarray, n: int, players: int) -> np.ndarray:
    """The uint8 planes (C, n * n) of one code row, built plane by plane from the layout
    ``observe.py`` documents (an oracle apart from the kernel's branch-free ``_expand``)."""
    N, P = n * n, players
    out = np.zeros((17 + 15 * P, N), np.uint8)
    for c in range(N):
        if code[c]:
            out[code[c] - 1, c] = 1  # planes 0-11: the piece (kind, size) on the cell
    for j in range(P):
        if code[N + j]:
            out[12 + j, code[N + j] - 1] = 1  # each seat's marker
    for k in range(14 * P):
        out[12 + P + k, :] = code[N + P + k]  # supplies, alive, first
    phase = code[N + 15 * P]
    if phase < 3:
        out[12 + 15 * P + phase, :] = 1
    out[15 + 15 * P, :] = code[N + 15 * P + 1]  # round code
    out[16 + 15 * P, :] = code[N + 15 * P + 2]  # repetition code
    return out


@pytest.mark.parametrize("players", [2, 3, 4])
def test_learner_planes_are_the_code_rows_expanded(players: int) -> None:
    """The learner step's uint8 planes equal the dense code rows of the same step expanded
    plane by plane (the setup's hidden programs, play and resets included)."""
    g = VirusFightBatch(players)
    a, b = g.init(16, seed=7 + players), g.init(16, seed=7 + players)
    planes, codes = g.learner_buffers(16), g.learner_buffers(16, dense=True)
    n = g.board_size
    for step in range(150):
        actions = g.random_actions(a)
        g.random_actions(b)
        g.learner_step(a, actions, planes)
        g.learner_step(b, actions, codes)
        for i in range(16):
            want = _planes_of_code(codes.obs[i], n, players)
            got = planes.obs[i].reshape(want.shape)
            np.testing.assert_array_equal(got, want, err_msg=f"step {step}, game {i}")


def test_code_bytes_and_bad_rows() -> None:
    g = VirusFightBatch(2)
    assert g.code_shape == (58,)  # 25 cells + 15 * 2 seats + 3, against 47 * 25 planes
    out = g.learner_buffers(4, dense=True)
    assert out.bytes_per_step() == 58 + 976 + 2 * 4 + 1 + 8
    assert g.learner_buffers(4).bytes_per_step() == 47 * 25 + 976 + 2 * 4 + 1 + 8
    assert decode(np.zeros((3, 58), np.uint8), 2).shape == (3, 47, 5, 5)
    with pytest.raises(ValueError, match="uint8"):
        decode(np.zeros((3, 58), np.float32), 2)
    with pytest.raises(ValueError, match="not codes of 2 players"):
        decode(np.zeros((3, 57), np.uint8), 2)


@pytest.mark.parametrize("players", [2, 4])
def test_kernel_check_agrees_with_the_mask(players: int) -> None:
    """VF-10..VF-15: an action is accepted exactly where the legal mask has it."""
    g = VirusFightBatch(players)
    st = g.init(32, seed=7)
    rng = np.random.default_rng(players)
    bad = np.zeros(32, np.bool_)
    for _ in range(80):
        mask = g.legal_mask(st)
        acts = rng.integers(0, g.num_actions, 32)
        running = ~g.terminated(st)
        nbad = legal._illegal_games(*st.arrays()[:5], g.seg, g.cfg, acts, bad)
        want = running & ~mask[np.arange(32), acts]
        np.testing.assert_array_equal(bad, want)
        assert nbad == int(want.sum())
        g.step(st, g.random_actions(st), auto_reset=True)


@pytest.mark.parametrize(("players", "board"), [(2, 5), (3, 6), (4, 7), (2, 8)])
def test_the_per_group_check_agrees_with_the_whole_legal_set_on_every_id(
    players: int, board: int
) -> None:
    """``legal._action_legal`` (only the action's own group, VF-10..VF-15) against the mask
    built from the whole legal set: every action id of every game of random self-play,
    setup, WRITE, MOVE, JUMP, ERASE, marker steps and finished games included."""
    g = VirusFightBatch(players, board_size=board, max_rounds=20)
    st = g.init(48, seed=board)
    bad = np.zeros((g.num_actions, 48), np.bool_)
    acts = np.zeros(48, np.int64)
    seen_phases: set[int] = set()
    seen_kinds: set[int] = set()
    for _ in range(150):
        arrays = st.arrays()[:5]
        for a in range(g.num_actions):
            acts.fill(a)
            legal._illegal_games(*arrays, g.seg, g.cfg, acts, bad[a])
        accepted = ~bad.T & ~g.terminated(st)[:, None]
        np.testing.assert_array_equal(accepted, g.legal_mask(st))
        seen_phases |= set(st.info[:, K.I_PHASE].tolist())
        for b in np.flatnonzero(st.info[:, K.I_PHASE] == K.PH_EFFECT):
            seen_kinds.add(int(st.cells[b, st.marker[b, st.info[b, K.I_CUR]]]) // 3)
        g.step(st, g.random_actions(st), auto_reset=True)
    assert seen_phases >= {K.PH_SETUP, K.PH_EFFECT, K.PH_STEP}
    assert seen_kinds == {K.MOVE, K.WRITE, K.JUMP, K.ERASE}


def test_a_bad_action_leaves_the_grown_history_as_it_was() -> None:
    g = VirusFightBatch(2, max_rounds=4 * HIST_START)
    st = g.init(6, seed=3)
    g.selfplay(st, 20)
    st.info[:, K.I_HLEN] = st.hist.shape[1]  # full: the next step must grow it (VF-17)
    before = g.copy(st)
    actions = g.random_actions(g.copy(st))
    mask = g.legal_mask(st)
    actions[4] = int(np.flatnonzero(~mask[4])[0])
    with pytest.raises(ValueError, match=r"1 action\(s\) not legal.*game 4: "):
        g.step(st, actions)
    assert _same(st, before)
    g.step(st, g.random_actions(st), validate=False)  # a legal step grows it
    assert st.hist.shape[1] > before.hist.shape[1]


@pytest.mark.parametrize("bad", [-2, 976, 2**63 - 1, -(2**63)])
def test_an_int64_id_out_of_range_is_refused_in_a_finished_game_too(bad: int) -> None:
    # int64 actions skip the numpy range pass: the kernel's check has the range test
    g = VirusFightBatch(2)
    st = g.init(4, seed=0)
    while not g.terminated(st).any():
        g.step(st, g.random_actions(st))
    over = int(np.flatnonzero(g.terminated(st))[0])
    actions = g.random_actions(st)
    actions[over] = bad
    before = g.copy(st)
    with pytest.raises(ValueError, match=rf"outside \[-1, 976\).*game {over}: "):
        g.step(st, actions)
    assert _same(st, before)


def test_validate_false_applies_what_it_is_given() -> None:
    g = VirusFightBatch(3)
    a, b = g.init(10, seed=5), g.init(10, seed=5)
    for _ in range(40):
        acts = g.random_actions(a)
        g.random_actions(b)
        ra, da = g.step(a, acts, auto_reset=True)
        rb, db = g.step(b, acts, auto_reset=True, validate=False)
        assert _same(a, b)
        np.testing.assert_array_equal(ra, rb)
        np.testing.assert_array_equal(da, db)


def test_kernel_names_of_the_sibling_modules() -> None:
    assert K.I_CUR == 1 and K.OCC == 12
    assert K._legal_of is legal._legal_of
    from envs.virus_fight.kernel import KIND_LETTERS, _step_targets  # noqa: F401

    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        K.no_such_name  # noqa: B018
