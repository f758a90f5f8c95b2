"""Uniform random agents: the floor of every ladder and the opponent the others must beat."""

from __future__ import annotations

import numpy as np

from agents.base import ActContext, Agent


def sample_legal(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row of a (B, A) mask, from ``rng``.

    Rows without any legal action are a caller error (a finished game was asked to act).
    """
    mask = np.asarray(mask, bool)
    if mask.ndim != 2:
        raise ValueError(f"mask must be (B, num_actions), got shape {mask.shape}")
    empty = ~mask.any(axis=1)
    if empty.any():
        raise ValueError(f"no legal action in game(s) {np.flatnonzero(empty)[:5].tolist()}")
    scores = rng.random(mask.shape)
    scores[~mask] = -1.0
    return scores.argmax(axis=1).astype(np.int64)


class RandomAgent(Agent):
    """Uniform over the legal actions (board games) or over [-1, 1]^k (continuous actions).

    Seeded from its own generator only; ``reset(seed)`` restarts the stream so a ladder
    pairing is reproducible.
    """

    name = "random"
    needs_observation = False  # the mask alone (board games); len(obs) for continuous ones

    def __init__(self, seed: int | None = 0, continuous_dim: int = 4) -> None:
        self.continuous_dim = continuous_dim
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(
        self, obs: np.ndarray, mask: np.ndarray | None, context: ActContext | None = None
    ) -> np.ndarray:
        if mask is None:  # continuous action box
            n = len(obs)
            return self.rng.uniform(-1.0, 1.0, (n, self.continuous_dim)).astype(np.float32)
        return sample_legal(self.rng, mask)
