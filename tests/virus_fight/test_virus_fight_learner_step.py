"""Static parameters and the one legal-move enumeration (Virus Fight).

* The learner step against step + mask + observe (2, 3, 4 players), and the bad actions
  (NaN, fractions, wrong length, out of range, masked out) that raise ValueError with
  every game unchanged (a NaN used to crash the process), are tested for every board game
  in ``tests/contract/test_board_facades.py``.
* The mask, the n-th legal action, the random draw and the validation all come from one
  enumeration (``envs/virus_fight/legal.py``): they agree on every position (VF-10..VF-15).
* The random streams are pinned: same seed, same games as before the kernel split.
"""

from __future__ import annotations

import hashlib

import numpy as np

from envs.virus_fight import kernel as K
from envs.virus_fight.batch import VirusFightBatch
from envs.virus_fight.params import C_SEGLEN, VirusFightParams


def _active_blocks(g: VirusFightBatch, st) -> np.ndarray:  # type: ignore[no-untyped-def]
    """The derived word recomputed from the board by the kernel's own helper on a copy."""
    bb = st.bb.copy()
    bb[:, K.ACTIVE] = 0
    K.refresh_active(bb, st.marker, st.info, g.cfg)
    return bb[:, K.ACTIVE]


def test_random_streams_are_pinned() -> None:
    g = VirusFightBatch(2)
    st = g.init(100, seed=11)
    stats = g.selfplay(st, 300)
    m = hashlib.sha256()
    # bb without its derived ACTIVE word (0.5.4): the same digest proves the same games
    board = st.bb[:, : K.OCC + 1]
    for a in (stats, board, *st.arrays()[1:6]):
        m.update(np.ascontiguousarray(a).tobytes())
    assert np.array_equal(st.bb[:, K.ACTIVE], _active_blocks(g, st))
    hlen = st.info[:, K.I_HLEN]
    for b in range(st.batch_size):  # the VF-17 records in use; the slots after them are zero
        m.update(st.hist[b, : hlen[b]].tobytes())
        assert not st.hist[b, hlen[b] :].any()
    # the same games as before the undo rows (the same digest at d4f6d7a, before them)
    assert m.hexdigest()[:16] == "6ffd6728bb6792ec"


def test_static_parameters_by_name() -> None:
    g = VirusFightBatch(3)
    assert g.params == VirusFightParams(6, 3, 100, 4, 4)
    assert int(g.cfg[C_SEGLEN]) == g.params.segment_length  # VF-9: n - 2 with 3-4 players


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
