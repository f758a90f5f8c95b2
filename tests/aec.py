"""Driving a board game's AEC env in tests: random legal walks, moves by notation.

Why here: the env tests, the edge tests and the parser fuzzer's seeds all walk games the
same way (a finished seat steps ``None``, the others a uniformly random legal action), and
the rule tests of both board games play moves by their notation.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np


def random_walk(env: Any, rng: np.random.Generator, max_steps: int) -> Iterator[int | None]:
    """Up to ``max_steps`` steps (a dead seat's ``None`` counts), yielding each step's action
    after it is applied; stops when no agent is left."""
    for _ in range(max_steps):
        if not env.agents:
            return
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            yield None
            continue
        action = int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"])))
        env.step(action)
        yield action


def random_moves(env: Any, rng: np.random.Generator, max_steps: int) -> list[int]:
    """The actions of :func:`random_walk` (dead steps left out)."""
    return [a for a in random_walk(env, rng, max_steps) if a is not None]


def legal_moves(env: Any) -> set[str]:
    """The legal moves of the seat to act, in notation."""
    return set(env.legal_moves())


def play(env: Any, *moves: str) -> None:
    """Play moves given in notation, in order."""
    for m in moves:
        env.step(env.str_to_action(m))
