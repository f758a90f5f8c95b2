"""The packed legal mask unpacked by torch, as docs/architecture.md shows it, equals
``envs.core.batch.unpack_mask`` (a learner can unpack on its own device)."""

from __future__ import annotations

import numpy as np
import pytest

from envs.core.batch import unpack_mask
from envs.proteus.batch import ProteusBatch
from envs.virus_fight.batch import VirusFightBatch

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("make", [ProteusBatch, lambda: VirusFightBatch(3)], ids=["proteus", "vf3"])
def test_torch_unpacking_of_the_packed_mask(make) -> None:
    g = make()
    st = g.init(32, seed=5)
    out = g.learner_buffers(32, dense=True, mask_bits=True)
    g.learner_view(st, out)
    for _ in range(40):
        g.learner_step(st, g.random_actions(st), out)
        bits = torch.from_numpy(out.mask.view(np.int64))
        mask = ((bits.unsqueeze(-1) >> torch.arange(64)) & 1).flatten(1)[:, : g.num_actions].bool()
        np.testing.assert_array_equal(mask.numpy(), unpack_mask(out.mask, g.num_actions))
        assert mask.sum(1).min().item() >= 1  # every running game has a legal action
