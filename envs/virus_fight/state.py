"""The Virus Fight batch state (:class:`VFState`), in ``state.py`` as every board game's.

Why apart from the facade: the state class is the layer every Virus Fight module shares
(kernels' callers, the facade, positions, rendering); the arrays are described in
``envs/virus_fight/kernel.py``'s docstring and in ``docs/virus_fight.md``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class VFState:
    """A batch of Virus Fight games (see ``kernel`` for the meaning of each array)."""

    bb: np.ndarray  # (B, 14) uint64: 12 pieces, occupancy, a derived word (kernel)
    cells: np.ndarray  # (B, 64) int8
    marker: np.ndarray  # (B, 4) int8
    supply: np.ndarray  # (B, 4, 12) int8
    info: np.ndarray  # (B, NINFO) int32
    rng: np.ndarray  # (B,) uint64
    hist: np.ndarray  # (B, max_rounds + 1, 8) uint64

    @property
    def batch_size(self) -> int:
        return int(self.bb.shape[0])

    def arrays(self) -> tuple[np.ndarray, ...]:
        return (self.bb, self.cells, self.marker, self.supply, self.info, self.rng, self.hist)
