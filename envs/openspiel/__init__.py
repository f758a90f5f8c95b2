"""OpenSpiel interop: our games registered as pyspiel Python games.

``import envs.openspiel`` registers ``python_proteus`` and ``python_virus_fight`` with
pyspiel (requires the ``openspiel`` extra); then ``pyspiel.load_game("python_proteus")``
and ``pyspiel.load_game("python_virus_fight(players=3)")`` work, and OpenSpiel's
algorithms (MCTS, AlphaZero, IS-MCTS, ...) run on them. State transitions go through the
games' own Numba kernels at batch size 1 (no third copy of the rules). See
``docs/openspiel.md``. Importing ``envs`` does not import this package.
"""

from __future__ import annotations

from envs.openspiel import proteus, virus_fight

__all__ = ["proteus", "virus_fight"]
