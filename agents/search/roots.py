"""What every tree-search agent does around its search: the games that need one, their keys,
the root samples of a hidden setup, and the parameters of the UCT agents.

Why one module: ``mcts:N`` (array trees), the Python-tree agent it falls back to and the
OpenSpiel ``MCTSBot`` agent all answer ``act`` the same way around the search itself: a
game with one legal move is answered without searching, a seat must not read what it has
not seen (``determinize``), the random draws of game i depend only on the seed and game i,
and the answer must be legal. Written once here, the three cannot drift apart.
"""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Any

import numpy as np

from envs.core.agent import Agent
from envs.core.plies import board_context

__all__ = [
    "UCTAgent",
    "board_context",
    "check_legal",
    "decision_roots",
    "digest",
    "open_decisions",
    "position_key",
    "root_samples",
    "same_state",
    "view_key",
]


def digest(seed: int, parts: list[np.ndarray]) -> int:
    """A 64-bit key from ``seed`` and the bytes of ``parts`` (blake2b, platform independent)."""
    h = hashlib.blake2b(digest_size=8)
    h.update(int(seed).to_bytes(8, "little", signed=True))
    for a in parts:
        h.update(np.ascontiguousarray(a).tobytes())
    return int.from_bytes(h.digest(), "little")


def state_arrays(state: Any) -> list[np.ndarray]:
    """The arrays of a dataclass batch state (its ``arrays()`` where it has one)."""
    if hasattr(state, "arrays"):
        return list(state.arrays())
    return [getattr(state, f.name) for f in dataclasses.fields(state)]


def position_key(game: Any, state: Any, index: int, seed: int) -> int:
    """A 64-bit key from ``seed`` and the arrays of game ``index`` of ``state`` only.

    For positions without hidden information: the whole state (position, history, the
    game's own RNG key, so that two games of a batch are searched with different draws).
    """
    return digest(seed, state_arrays(game.take(state, np.array([index]))))


def view_key(seed: int, obs: np.ndarray, mask: np.ndarray, seat: int) -> int:
    """A 64-bit key from what ``seat`` sees of one game (its observation and legal mask):
    the seed of the hidden-setup samples, which must not depend on what it cannot see."""
    return digest(seed, [np.asarray(obs), np.asarray(mask), np.array([seat])])


def same_state(a: Any, b: Any) -> bool:
    """Whether two batch states (dataclasses of arrays) hold identical arrays."""
    fields = getattr(a, "__dataclass_fields__", None)
    if fields is None:
        return False
    return all(np.array_equal(getattr(a, f), getattr(b, f)) for f in fields)


def open_decisions(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(out, todo)``: each game's first legal action (the answer where it is the only
    one), and the games with a choice, which need a search."""
    out = mask.argmax(axis=1).astype(np.int64)
    return out, np.flatnonzero(mask.sum(axis=1) > 1)


def check_legal(who: str, mask: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``out`` after checking that every action is legal (an illegal one is a bug)."""
    if not mask[np.arange(len(mask)), out].all():
        raise AssertionError(f"{who} produced an illegal action")  # never expected
    return out


def root_samples(
    game: Any, root: Any, seat: int, rng: np.random.Generator, count: int
) -> list[Any]:
    """The root position(s) to search from, as ``seat`` may know them.

    With ``game.determinize`` (a hidden setup) ``count`` samples of what the seat has not
    seen; if two samples come out identical nothing is hidden and one root is enough.
    """
    det = getattr(game, "determinize", None)
    if det is None:
        return [root]
    samples = [det(root, seat, rng) for _ in range(max(2, count))]
    if same_state(samples[0], samples[1]):  # nothing hidden: perfect information
        return samples[:1]
    return samples[:count]


def decision_roots(
    game: Any,
    state: Any,
    obs: np.ndarray,
    mask: np.ndarray,
    seats: np.ndarray,
    todo: np.ndarray,
    seed: int,
    count: int,
    simulations: int,
) -> tuple[list[Any], np.ndarray, np.ndarray, np.ndarray]:
    """The search roots of the open decisions ``todo``: (roots, the game each belongs to,
    each root's 64-bit key, each root's budget).

    Per game, ``count`` samples of a hidden setup drawn from what the seat sees
    (:func:`root_samples`), or the position itself where nothing is hidden; a game's
    samples share its ``simulations`` (at least one each). Keys: during a
    hidden setup what the seat sees (:func:`view_key`), otherwise the whole game state
    (:func:`position_key`: it holds the game's own RNG key, so the games of a batch are
    searched with different draws even from the same position), plus the sample's index.
    """
    roots: list[Any] = []
    owner: list[int] = []
    keys: list[int] = []
    hidden = getattr(game, "determinize", None) is not None
    for i in todo:
        seat = int(seats[i])
        one = game.take(state, np.array([i]))
        samples = [one]
        if hidden:  # a Generator costs more than a small search's setup: only when used
            key = view_key(seed, obs[i], mask[i], seat)
            samples = root_samples(game, one, seat, np.random.default_rng(key), count)
        if len(samples) == 1:
            key = position_key(game, one, 0, seed)  # game i's key, from the row taken
        for j, r in enumerate(samples):
            roots.append(r)
            owner.append(int(i))
            keys.append((key + 0x9E3779B97F4A7C15 * (j + 1)) & 0xFFFFFFFFFFFFFFFF)
    own = np.array(owner, np.int64)
    per_game = np.bincount(own, minlength=len(mask))
    budgets = np.maximum(1, int(simulations) // per_game[own])
    return roots, own, np.array(keys, np.uint64), budgets


class UCTAgent(Agent):
    """The parameters both UCT agents (``mcts:N`` and its Python-tree fallback) take.

    ``simulations`` playouts per decision (shared by a hidden setup's ``determinizations``
    samples), UCB1 constant ``c_uct``, ``rollouts_per_child`` playouts per new leaf, an
    optional playout cut-off, and the root ``safety_check`` (drop moves that let another
    seat win in one, unless all do).
    """

    needs_context = True

    def __init__(
        self,
        simulations: int = 200,
        c_uct: float = 1.4,
        rollouts_per_child: int = 1,
        max_rollout_steps: int | None = None,
        determinizations: int = 4,
        safety_check: bool = True,
        seed: int | None = 0,
    ) -> None:
        if simulations < 1:
            raise ValueError(f"simulations must be >= 1, got {simulations}")
        if rollouts_per_child < 1:
            raise ValueError(f"rollouts_per_child must be >= 1, got {rollouts_per_child}")
        self.simulations = simulations
        self.c_uct = c_uct
        self.rollouts_per_child = rollouts_per_child
        self.max_rollout_steps = max_rollout_steps
        self.determinizations = max(1, determinizations)
        self.safety_check = safety_check
        self.name = f"mcts:{simulations}"
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """Restart the agent's random stream from ``seed`` (None: 0)."""
        self.seed = 0 if seed is None else int(seed)

    def params(self) -> tuple[Any, ...]:
        """The constructor's arguments, in order (to build a twin with the same ones)."""
        return (
            self.simulations,
            self.c_uct,
            self.rollouts_per_child,
            self.max_rollout_steps,
            self.determinizations,
            self.safety_check,
            self.seed,
        )
