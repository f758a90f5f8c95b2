"""The Virus Fight batch state (:class:`VFState`), in ``state.py`` as every board game's.

Why apart from the facade: the state class is the layer every Virus Fight module shares
(kernels' callers, the facade, positions, rendering); the arrays are described in
``envs/virus_fight/kernel.py``'s docstring and in ``docs/virus_fight.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

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

    def __deepcopy__(self, memo: dict[int, Any]) -> VFState:
        """The arrays copied: all a state holds. Why: pyspiel clones a Python game state
        (``envs/virus_fight/openspiel.py``) by deep-copying its attributes, once per
        simulation of OpenSpiel's MCTSBot, and the generic path walks the dataclass."""
        return VFState(*(a.copy() for a in self.arrays()))
