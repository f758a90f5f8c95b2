"""One ply of look-ahead over a batch facade, for the agents that search a move or two.

Why shared: the board games' heuristic agents and the tree-search agents answer ``act``
the same way around their search: check the mask and the context, play every legal
action of every game as one batch of children (``take`` + ``step``), read each child's
reward for the seat that moved, and pick per game the first action (in action order) of
best value, ties broken by a little noise from the agent's own generator. The rules stay
in the facade: wins, draws and the next seat are read from its rewards and flags.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from envs.core.agent import ActContext, Agent


def board_context(who: str, mask: np.ndarray | None, context: ActContext | None) -> Any:
    """``(game, state, mask as bool, seats as int64)`` of a turn-based ``act`` call.

    Raises ValueError naming ``who`` when the mask or the context is missing, or a game of
    the batch has no legal action (a finished game was asked to act).
    """
    if context is None or mask is None:
        raise ValueError(f"{who} needs the legal mask and an ActContext (game facade, state)")
    mask = np.asarray(mask, bool)
    if mask.ndim != 2:
        raise ValueError(f"{who}: mask must be (B, num_actions), got shape {mask.shape}")
    empty = np.flatnonzero(~mask.any(axis=1))
    if len(empty):
        raise ValueError(f"{who}: no legal action in game(s) {empty[:5].tolist()}")
    return context.game, context.state, mask, np.asarray(context.seats, np.int64)


@dataclass
class Ply:
    """Every legal action of every game played once: child k is ``actions[k]`` in game
    ``rows[k]``, played by ``seats[k]``; ``states`` holds the children after the step."""

    rows: np.ndarray  # (K,) int64 the game (row of the parent batch) of each child
    actions: np.ndarray  # (K,) int64
    seats: np.ndarray  # (K,) int64 the seat that played the action
    states: Any  # batch state of the K children
    reward: np.ndarray  # (K,) float64 the step's reward of that seat
    done: np.ndarray  # (K,) bool the child's game ended in this step


def expand(game: Any, state: Any, mask: np.ndarray, seats: np.ndarray) -> Ply:
    """The children of every game of ``state`` under its legal ``mask`` (one batched step)."""
    rows, actions = np.nonzero(np.asarray(mask, bool))
    mover = np.asarray(seats, np.int64)[rows]
    kids = game.take(state, rows)
    rewards, done = game.step(kids, actions.astype(np.int64))
    reward = np.asarray(rewards, np.float64)[np.arange(len(rows)), mover]
    return Ply(rows, actions.astype(np.int64), mover, kids, reward, np.asarray(done, bool))


def first_best(
    value: np.ndarray, ply: Ply, games: int, rng: np.random.Generator, noise: float
) -> np.ndarray:
    """(games,) int64: per game the first child (in action order) of best ``value`` after
    adding ``noise`` times a uniform draw per child (ties do not always fall the same way)."""
    value = value + noise * rng.random(len(value))
    best = np.full(games, -np.inf)
    np.maximum.at(best, ply.rows, value)
    choose = np.zeros(games, np.int64)
    hit = value >= best[ply.rows]
    choose[ply.rows[hit][::-1]] = ply.actions[hit][::-1]  # the last write is the first best
    return choose


class LookaheadAgent(Agent):
    """Base of the board games' heuristic agents: they search a ply or two with the facade
    (so they need the context) and break ties by ``noise`` from their own generator, which
    ``reset(seed)`` restarts (a ladder pairing is then reproducible)."""

    needs_context = True
    name = "heuristic"

    def __init__(self, seed: int | None = 0, noise: float = 1e-3) -> None:
        self.rng = np.random.default_rng(seed)
        self.noise = noise

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)
