"""The opponent pool of self-play: frozen snapshots of the learner plus baseline agents.

Each game's non-learner seats are dealt an opponent from the pool when the game starts
(``OpponentPool.sample``). Snapshots are deep copies of the learner's policy taken every
so often and evaluated in batch under ``torch.no_grad`` (sampling from the masked
distribution, so the learner meets varied play); baselines are ordinary agents (random,
heuristic, ...). Sampling weights: each baseline has its own weight; the ``self`` weight is
shared by the most recent snapshots, half of it on the latest one (a small league in the
manner of RLlib's self-play example), so the learner keeps beating its older selves too.

Pool ids never change once given out (games in progress hold them), so an old snapshot
that drops out of the sampling window stays usable until its games finish.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.base import Agent
from agents.policy import PolicyAgent


class SnapshotAgent(PolicyAgent):
    """A frozen copy of the learner's SB3 policy; samples its masked distribution in batch.

    Draws come from the agent's own numpy generator (``reset(seed)``), so the env's seed
    decides the opponents' play too.
    """

    def __init__(self, policy: Any, name: str, seed: int | None = 0) -> None:
        frozen = copy.deepcopy(policy)
        frozen.optimizer = None  # a frozen copy never trains: drop Adam's moments
        for p in frozen.parameters():
            p.requires_grad_(False)
        super().__init__(frozen, deterministic=False, seed=seed, name=name)


@dataclass
class PoolEntry:
    """One opponent of the pool."""

    name: str
    agent: Agent
    kind: str  # "baseline" or "snapshot"
    weight: float = 0.0  # baselines only; snapshots share the pool's self weight


def parse_opponents(spec: str) -> list[tuple[str, float]]:
    """``"self:0.6,random:0.2,heuristic"`` -> [(name, weight)] (weight 1 when omitted).

    One colon separates name and weight (``mcts:16`` is ``mcts`` with weight 16, as
    before); with two or more the weight is after the last (``mcts:16:0.2``: 16 playouts,
    weight 0.2; ``policy:PATH:1``).

    Raises ValueError naming the bad item (unknown syntax, negative or zero total weight).
    """
    items: list[tuple[str, float]] = []
    for raw in spec.split(","):
        raw = raw.strip()
        if not raw:
            continue
        # NAME:WEIGHT; a parametrised name keeps its own colon: mcts:16:0.2
        name, _, w = raw.rpartition(":") if raw.count(":") >= 2 else raw.partition(":")
        name = name.strip()
        if not name:
            raise ValueError(f"opponent item {raw!r} has no name")
        try:
            weight = float(w) if w else 1.0
        except ValueError:
            raise ValueError(f"opponent item {raw!r}: weight {w!r} is not a number") from None
        if not np.isfinite(weight) or weight < 0:
            raise ValueError(f"opponent item {raw!r}: weight must be a finite number >= 0")
        if any(n == name for n, _ in items):
            raise ValueError(f"opponent {name!r} listed twice")
        items.append((name, weight))
    if not items or sum(w for _, w in items) <= 0:
        raise ValueError(f"opponents {spec!r}: need at least one opponent with weight > 0")
    return items


class OpponentPool:
    """Snapshots + baselines with sampling weights; ids are stable indices."""

    def __init__(
        self, self_weight: float = 0.0, max_snapshots: int = 8, latest_share: float = 0.5
    ) -> None:
        if max_snapshots < 1:
            raise ValueError("max_snapshots must be >= 1")
        self.entries: list[PoolEntry] = []
        self.self_weight = float(self_weight)
        self.max_snapshots = int(max_snapshots)
        self.latest_share = float(latest_share)
        self._probs: np.ndarray | None = None

    # ------------------------------------------------------------- building
    def add_baseline(self, name: str, agent: Agent, weight: float) -> int:
        self.entries.append(PoolEntry(name, agent, "baseline", float(weight)))
        self._probs = None
        return len(self.entries) - 1

    def add_snapshot(self, name: str, agent: Agent) -> int:
        self.entries.append(PoolEntry(name, agent, "snapshot"))
        self._probs = None
        return len(self.entries) - 1

    def snapshot_names(self) -> list[str]:
        return [e.name for e in self.entries if e.kind == "snapshot"]

    # ------------------------------------------------------------- sampling
    def probabilities(self) -> np.ndarray:
        """Sampling probability of each entry (recent snapshots share the self weight)."""
        if self._probs is not None:
            return self._probs
        w = np.array([e.weight if e.kind == "baseline" else 0.0 for e in self.entries])
        snaps = [i for i, e in enumerate(self.entries) if e.kind == "snapshot"]
        recent = snaps[-self.max_snapshots :]
        if recent and self.self_weight > 0:
            if len(recent) == 1:
                w[recent[0]] += self.self_weight
            else:
                w[recent[-1]] += self.self_weight * self.latest_share
                rest = self.self_weight * (1.0 - self.latest_share) / (len(recent) - 1)
                for i in recent[:-1]:
                    w[i] += rest
        total = w.sum()
        if total <= 0:
            raise ValueError("the opponent pool has nothing to sample (all weights zero)")
        self._probs = w / total
        return self._probs

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """(n,) pool ids drawn by weight from ``rng``."""
        p = self.probabilities()
        return rng.choice(len(p), size=n, p=p).astype(np.int64)

    def agent(self, pid: int) -> Agent:
        return self.entries[pid].agent

    def name(self, pid: int) -> str:
        return self.entries[pid].name

    def describe(self) -> str:
        p = self.probabilities()
        return ", ".join(f"{e.name} {q:.0%}" for e, q in zip(self.entries, p, strict=True) if q > 0)
