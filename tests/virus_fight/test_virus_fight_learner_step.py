"""The fused learner step, action validation, and the one legal-move enumeration (Virus Fight).

* ``learner_step`` = ``step(auto_reset=True)`` + ``legal_mask`` + ``observe`` of the seat
  to act, in one call; its compact uint8 observation decodes to ``observe``'s floats
  (the round plane within 1/255, every other plane exactly).
* Bad actions (NaN, fractions, wrong length, out of range, masked out) raise ValueError
  naming the games, and leave every game unchanged (a NaN used to crash the process).
* The mask, the n-th legal action, the random draw and the validation all come from one
  enumeration (``envs/virus_fight/legal.py``): they agree on every position (VF-10..VF-15).
* The random streams are pinned: same seed, same games as before the kernel split.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from envs.virus_fight import kernel as K
from envs.virus_fight.batch import VirusFightBatch
from envs.virus_fight.params import C_SEGLEN, VirusFightParams


def _same(a, b) -> bool:
    return all(np.array_equal(x, y) for x, y in zip(a.arrays(), b.arrays(), strict=True))


def test_random_streams_are_pinned() -> None:
    g = VirusFightBatch(2)
    st = g.init(100, seed=11)
    stats = g.selfplay(st, 300)
    m = hashlib.sha256()
    for a in (stats, *st.arrays()):
        m.update(np.ascontiguousarray(a).tobytes())
    assert m.hexdigest()[:16] == "29dc365adf5ef9b8"


def test_static_parameters_by_name() -> None:
    g = VirusFightBatch(3)
    assert g.params == VirusFightParams(6, 3, 100, 4, 4)
    assert int(g.cfg[C_SEGLEN]) == g.params.segment_length  # VF-9: n - 2 with 3-4 players


@pytest.mark.parametrize("players", [2, 3, 4])
def test_learner_step_is_step_mask_and_observation(players: int) -> None:
    g = VirusFightBatch(players)
    batch = 40
    st = g.init(batch, seed=players)
    ref = g.copy(st)
    out = g.learner_buffers(batch)
    g.learner_view(st, out)
    np.testing.assert_array_equal(out.mask, g.legal_mask(st))
    ends = 0
    rep = obs_round = -1
    for _ in range(300):
        actions = g.random_actions(st)
        g.random_actions(ref)  # keep the keys in step
        g.learner_step(st, actions, out)
        rewards, done = g.step(ref, actions, auto_reset=True)
        ends += int(done.sum())
        assert _same(st, ref)
        np.testing.assert_array_equal(out.rewards, rewards)
        np.testing.assert_array_equal(out.done, done)
        np.testing.assert_array_equal(out.seat, g.current_player(st))
        np.testing.assert_array_equal(out.mask, g.legal_mask(st))
        planes = g.observe(st, out.seat)
        decoded = g.decode(out.obs)
        assert out.obs.dtype == np.uint8
        obs_round = planes.shape[1] - 2
        rep = planes.shape[1] - 1
        np.testing.assert_array_equal(
            np.delete(decoded, obs_round, 1), np.delete(planes, obs_round, 1)
        )
        assert np.abs(decoded[:, obs_round] - planes[:, obs_round]).max() <= 1 / 255 + 1e-7
    assert ends > 0 and rep > 0
    assert out.bytes_per_step() < (g.obs_shape[0] * g.board_size**2 * 4 + g.num_actions) / 2


BAD_ACTIONS = {
    "nan": lambda a: np.where(np.arange(len(a)) == 2, np.nan, a.astype(np.float64)),
    "fraction": lambda a: a + 0.25,
    "negative": lambda a: np.where(np.arange(len(a)) == 1, -7, a),
    "too large": lambda a: np.where(np.arange(len(a)) == 0, 10**6, a),
    "wrong length": lambda a: a[:1],
    "complex": lambda a: a.astype(np.complex128),
}


@pytest.mark.parametrize("kind", sorted(BAD_ACTIONS))
@pytest.mark.parametrize("path", ["step", "learner_step"])
def test_bad_actions_raise_and_change_nothing(kind: str, path: str) -> None:
    g = VirusFightBatch(2)
    st = g.init(8, seed=1)
    g.selfplay(st, 25)
    before = g.copy(st)
    actions = BAD_ACTIONS[kind](g.random_actions(g.copy(st)))
    with pytest.raises(ValueError, match="virus_fight"):
        if path == "step":
            g.step(st, actions)
        else:
            g.learner_step(st, actions, g.learner_buffers(8))
    assert _same(st, before)


@pytest.mark.parametrize("path", ["step", "learner_step"])
def test_masked_out_actions_are_named(path: str) -> None:
    g = VirusFightBatch(3)
    st = g.init(6, seed=4)
    g.selfplay(st, 30)
    mask = g.legal_mask(st)
    actions = g.random_actions(g.copy(st))
    actions[[0, 5]] = [int(np.flatnonzero(~mask[b])[0]) for b in (0, 5)]
    before = g.copy(st)
    with pytest.raises(ValueError, match=r"2 action\(s\) not legal.*game 0: .*game 5: "):
        if path == "step":
            g.step(st, actions)
        else:
            g.learner_step(st, actions, g.learner_buffers(6))
    assert _same(st, before)


def test_one_enumeration_gives_mask_nth_draw_and_check() -> None:
    """VF-10..VF-15: every derived form of the legal set agrees, on many positions."""
    g = VirusFightBatch(2)
    st = g.init(40, seed=21)
    args = (st.bb, st.cells, st.marker, st.supply, st.info, g.seg, g.cfg)
    for _ in range(150):
        mask = g.legal_mask(st)
        for b in range(st.batch_size):
            if st.info[b, K.I_PHASE] == K.PH_OVER:
                continue
            n, _ = K._nth_legal(b, *args, -1)
            listed = [K._nth_legal(b, *args, r)[1] for r in range(n)]
            assert listed == list(np.flatnonzero(mask[b]))  # canonical order = ascending id
            for a in np.flatnonzero(mask[b]):
                assert K._legal_of(b, *args, a)
            for a in np.flatnonzero(~mask[b])[::7]:
                assert not K._legal_of(b, *args, a)
        g.step(st, g.random_actions(st), auto_reset=True)
