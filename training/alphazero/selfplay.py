"""Search-guided self-play over the batched kernels, and the replay buffer it fills.

Why batched: every game of the batch is searched in one ``agents.search.search`` call per
move, so a search round evaluates the leaves of all games with one network call (the
callback of ``agents.az.net_evaluator``), and the move of every game is applied with one
fused ``learner_step`` (validate, apply, auto-reset, next compact observation and mask).

A position enters the replay buffer when its game ends: its compact observation, its
legal mask (bit-packed), the root's visit distribution (only the visited actions: a
search of N simulations visits at most N) and the final returns of every seat, ordered
from the position's mover on (the value head's order, ``agents.az.relative_values``).
Games in progress when a run stops are not kept (a resumed run starts fresh games).
A network trained with ``--obs lookahead`` also gets each position's per-action flags
stored (bit-packed). With ``--train-against`` a share of the games has a fixed agent in
one seat: its moves are played, not searched or stored.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents.az import (
    action_flags,
    gumbel_search,
    improved_policy,
    relative_values,
    root_visits,
    search_roots,
)
from agents.base import ActContext


def parse_against(spec: str, game: str) -> list[tuple[str, float]]:
    """``"heuristic:0.3,mcts:16:0.1"`` -> [(agent name, fraction of games)] for ``game``.

    ValueError naming the item: no fraction, a fraction outside (0, 1], a total over 1,
    ``self`` (that is the rest), or an agent ``game`` does not have.
    """
    from agents.registry import resolve

    items: list[tuple[str, float]] = []
    for raw in spec.split(","):
        raw = raw.strip()
        if not raw:
            continue
        name, _, frac = raw.rpartition(":")
        try:
            f = float(frac)
        except ValueError:
            raise ValueError(f"--train-against item {raw!r}: give NAME:FRACTION") from None
        if not name or not 0.0 < f <= 1.0:
            raise ValueError(f"--train-against item {raw!r}: give NAME:FRACTION in (0, 1]")
        if name == "self":
            raise ValueError("--train-against lists fixed agents; the rest is self-play")
        resolve(game, name)  # ValueError naming an unknown agent
        items.append((name, f))
    if sum(f for _, f in items) > 1.0 + 1e-9:
        raise ValueError(f"--train-against {spec!r}: the fractions add up to more than 1")
    return items


#: plies per game played by sampling from the visit counts (exploration); greedy after
TEMPERATURE_PLIES = 12
#: Dirichlet exploration noise on the root priors: weight and total concentration
NOISE_EPS = 0.25
NOISE_ALPHA_SUM = 10.0


class ReplayBuffer:
    """A ring of the last ``capacity`` positions (module docstring); saved whole in checkpoints."""

    def __init__(
        self,
        capacity: int,
        obs_shape: tuple[int, ...],
        num_actions: int,
        players: int,
        k: int,
        n_flags: int = 0,
    ) -> None:
        if capacity < 1:
            raise ValueError(f"replay buffer capacity must be >= 1, got {capacity}")
        self.capacity = int(capacity)
        self.num_actions = int(num_actions)
        self.n_flags = int(n_flags)
        self.obs = np.zeros((capacity, *obs_shape), np.uint8)
        self.maskbits = np.zeros((capacity, (num_actions + 7) // 8), np.uint8)
        # the network's per-action flags (0/1), bit-packed; zero columns without them
        self.flagbits = np.zeros((capacity, (self.n_flags * num_actions + 7) // 8), np.uint8)
        self.pidx = np.zeros((capacity, k), np.int16)
        self.pprob = np.zeros((capacity, k), np.float16)
        self.value = np.zeros((capacity, players), np.float32)
        self.size = 0
        self.head = 0
        self.added = 0  # positions ever added

    def add(
        self,
        obs: np.ndarray,
        maskbits: np.ndarray,
        pidx: np.ndarray,
        pprob: np.ndarray,
        value: np.ndarray,
        flagbits: np.ndarray | None = None,
    ) -> None:
        """Append a block of finished positions (oldest overwritten first)."""
        n = len(obs)
        if flagbits is None:
            flagbits = np.zeros((n, self.flagbits.shape[1]), np.uint8)
        self.added += n
        if n > self.capacity:  # only the newest fit
            obs, maskbits, pidx, pprob, value, flagbits = (
                a[-self.capacity :] for a in (obs, maskbits, pidx, pprob, value, flagbits)
            )
            n = self.capacity
        at = (self.head + np.arange(n)) % self.capacity
        self.obs[at], self.maskbits[at], self.pidx[at] = obs, maskbits, pidx
        self.pprob[at], self.value[at], self.flagbits[at] = pprob, value, flagbits
        self.head = int((self.head + n) % self.capacity)
        self.size = min(self.capacity, self.size + n)

    def sample(self, rng: np.random.Generator, n: int) -> dict[str, np.ndarray]:
        """A uniform minibatch: codes, legal mask, dense visit target, value target."""
        i = rng.integers(0, self.size, n)
        mask = np.unpackbits(self.maskbits[i], axis=1, count=self.num_actions).astype(bool)
        target = np.zeros((n, self.num_actions), np.float32)
        np.put_along_axis(
            target, self.pidx[i].astype(np.int64), self.pprob[i].astype(np.float32), 1
        )
        out = {"obs": self.obs[i], "mask": mask, "policy": target, "value": self.value[i]}
        if self.n_flags:
            bits = np.unpackbits(self.flagbits[i], axis=1, count=self.n_flags * self.num_actions)
            out["flags"] = bits.reshape(n, self.n_flags, self.num_actions).astype(np.float32)
        return out

    _FIELDS = ("obs", "maskbits", "pidx", "pprob", "value", "flagbits")

    def save(self, path: Path) -> None:
        """Everything to an ``.npz`` (the caller makes the write atomic)."""
        with open(path, "wb") as f:
            np.savez(
                f,
                **{k: getattr(self, k) for k in self._FIELDS},
                counters=np.array([self.size, self.head, self.added], np.int64),
            )

    def load(self, path: Path) -> None:
        """Restore a buffer saved by :meth:`save` (ValueError if its shapes differ)."""
        with np.load(path) as z:
            for k in self._FIELDS:
                if k == "flagbits" and k not in z and not self.n_flags:
                    continue  # a buffer saved before the flags existed
                if k not in z or z[k].shape != getattr(self, k).shape:
                    have = z[k].shape if k in z else "missing"
                    raise ValueError(
                        f"{path}: replay field {k} is {have}, expected "
                        f"{getattr(self, k).shape} (another --replay-size?)"
                    )
                setattr(self, k, z[k].copy())
            self.size, self.head, self.added = (int(x) for x in z["counters"])


@dataclass
class _Pending:
    """The positions of one game in progress."""

    obs: list[np.ndarray] = field(default_factory=list)
    maskbits: list[np.ndarray] = field(default_factory=list)
    pidx: list[np.ndarray] = field(default_factory=list)
    pprob: list[np.ndarray] = field(default_factory=list)
    seats: list[int] = field(default_factory=list)
    flagbits: list[np.ndarray] = field(default_factory=list)


class SelfPlay:
    """``n_games`` games played together by the network's search; :meth:`round` moves all once."""

    def __init__(
        self,
        game: Any,
        n_games: int,
        simulations: int,
        seed: int,
        buffer: ReplayBuffer,
        gumbel: bool = False,
        rollout_mix: float = 0.0,
        against: list[tuple[str, float]] | None = None,
    ) -> None:
        self.game = game
        #: weight of a random playout in each leaf's value (``SearchConfig.rollout_mix``)
        self.rollout_mix = float(rollout_mix)
        #: Gumbel root search and completed-Q policy targets instead of PUCT visit counts
        self.gumbel = bool(gumbel)
        self.n = int(n_games)
        self.simulations = int(simulations)
        self.buffer = buffer
        self.k = buffer.pidx.shape[1]
        self.state = game.init(self.n, seed)
        self.out = game.learner_buffers(self.n)
        game.learner_view(self.state, self.out)
        self.returns = np.zeros((self.n, int(game.num_players)), np.float64)
        self.ply = np.zeros(self.n, np.int64)
        self.pending = [_Pending() for _ in range(self.n)]
        self.games_done = 0
        self.outcomes: list[float] = []  # seat 0's return of finished games (diagnostics)
        # games against fixed agents: per game the opponent's index into ``self.agents``
        # (-1: self-play) and the seat it holds; drawn anew whenever a game starts
        self.against = list(against or [])
        self.agents = [self._make(name, k) for k, (name, _) in enumerate(self.against)]
        self.draw_rng = np.random.default_rng(np.random.SeedSequence([seed, 0xA9]))
        self.opp = np.full(self.n, -1, np.int64)
        self.opp_seat = np.full(self.n, -1, np.int64)
        self.against_games = np.zeros(len(self.against), np.int64)
        self.against_wins = np.zeros(len(self.against), np.int64)  # the network's wins
        for g in range(self.n):
            self._assign(g)

    def _make(self, name: str, k: int) -> Any:
        from agents.registry import make_agent

        return make_agent(self.game.name, name, 7919 * (k + 1))

    def _assign(self, g: int) -> None:
        """Draw who plays game ``g``: self-play, or a fixed agent in one seat."""
        self.opp[g] = self.opp_seat[g] = -1
        if not self.against:
            return
        u = self.draw_rng.random()
        for k, (_, frac) in enumerate(self.against):
            if u < frac:
                self.opp[g] = k
                self.opp_seat[g] = self.draw_rng.integers(0, int(self.game.num_players))
                return
            u -= frac

    def _noise(self, rng: np.random.Generator) -> Any:
        def add(priors: np.ndarray, mask: np.ndarray) -> np.ndarray:
            out = priors.copy()
            for j in range(len(priors)):
                legal = np.flatnonzero(mask[j])
                if len(legal) > 1:
                    d = rng.dirichlet(np.full(len(legal), NOISE_ALPHA_SUM / len(legal)))
                    out[j, legal] = (1 - NOISE_EPS) * priors[j, legal] + NOISE_EPS * d
            return out

        return add

    def round(self, net: Any, rng: np.random.Generator) -> int:
        """Play one move in every game (searched where the network moves); returns how many
        moves the network searched (the run's position counter)."""
        game, out = self.game, self.out
        seats = out.seat.copy()
        mask = out.mask.copy()
        codes = out.obs.copy()
        keys = rng.integers(0, 2**63, self.n, dtype=np.uint64)
        fixed = (self.opp >= 0) & (self.opp_seat == seats)  # a fixed agent moves there
        mine = np.flatnonzero(~fixed)
        actions = np.zeros(self.n, np.int64)
        for k, agent in enumerate(self.agents):
            idx = np.flatnonzero(fixed & (self.opp == k))
            if len(idx):
                sub = game.take(self.state, idx)
                ctx = ActContext(game=game, state=sub, seats=seats[idx])
                obs = game.observe(sub, seats[idx]) if agent.needs_observation else codes[idx]
                actions[idx] = agent.act(obs, mask[idx], ctx if agent.needs_context else None)
        if len(mine):
            self._search(net, rng, mine, seats, mask, codes, keys, actions)
        game.learner_step(self.state, actions, out, validate=bool(len(self.agents)))
        self.returns += out.rewards
        self.ply += 1
        for g in np.flatnonzero(out.done):
            self._finish(int(g))
        return len(mine)

    def _search(
        self,
        net: Any,
        rng: np.random.Generator,
        mine: np.ndarray,
        all_seats: np.ndarray,
        all_mask: np.ndarray,
        all_codes: np.ndarray,
        all_keys: np.ndarray,
        actions: np.ndarray,
    ) -> None:
        """Search games ``mine`` (the network's moves), store their positions, set their
        ``actions``."""
        game = self.game
        seats, mask, codes, keys = all_seats[mine], all_mask[mine], all_codes[mine], all_keys[mine]
        flags = action_flags(net, game, game.take(self.state, mine), seats)
        flagbits = None if flags is None else np.packbits(flags.reshape(len(mine), -1) > 0, axis=1)
        roots = search_roots(game, self.state, mine, seats, [int(k) for k in keys])
        if self.gumbel:  # the Gumbel noise explores: the sequential-halving winner is played
            visits, qsum, allowed, priors, rel = gumbel_search(
                game, roots, seats, net, self.simulations, keys
            )  # priors, rel: the roots as the search's first call evaluated them
            allowed &= mask
            none = ~allowed.any(axis=1)  # no searched root action: every legal move
            allowed[none] = mask[none]
            target = improved_policy(priors, rel[:, 0], visits, qsum, allowed)
            chosen = np.where(allowed, visits, -1.0).argmax(axis=1)
            visits = target  # what the policy learns
        else:
            visits = root_visits(
                game,
                roots,
                seats,
                net,
                self.simulations,
                keys,
                noise=self._noise(rng),
                rollout_mix=self.rollout_mix,
            )
            visits = np.where(mask, visits, 0.0)
            chosen = self._choose(visits, mask, rng, self.ply[mine])
        top = (
            np.argpartition(-visits, self.k - 1, axis=1)[:, : self.k]
            if self.k < visits.shape[1]
            else np.broadcast_to(np.arange(visits.shape[1]), visits.shape)
        )
        probs = np.take_along_axis(visits, top, 1)
        probs = probs / np.maximum(probs.sum(axis=1, keepdims=True), 1e-9)
        bits = np.packbits(mask, axis=1)
        multi = mask.sum(axis=1) > 1  # a forced move teaches nothing: not stored
        for j in np.flatnonzero(multi):
            p = self.pending[int(mine[j])]
            p.obs.append(codes[j])
            p.maskbits.append(bits[j])
            p.pidx.append(top[j].astype(np.int16))
            p.pprob.append(probs[j].astype(np.float16))
            p.seats.append(int(seats[j]))
            if flagbits is not None:
                p.flagbits.append(flagbits[j])
        actions[mine] = chosen

    def _choose(
        self, visits: np.ndarray, mask: np.ndarray, rng: np.random.Generator, ply: np.ndarray
    ) -> np.ndarray:
        """Sampled from the visits in a game's first plies, the most visited after."""
        greedy = visits.argmax(axis=1)
        actions = greedy.copy()
        for g in np.flatnonzero(ply < TEMPERATURE_PLIES):
            v = visits[g]
            s = v.sum()
            if s > 0:
                actions[g] = rng.choice(len(v), p=v / s)
        none = visits.max(axis=1) <= 0  # nothing visited (never expected): any legal move
        actions[none] = mask[none].argmax(axis=1)
        return actions

    def _finish(self, g: int) -> None:
        p = self.pending[g]
        n = len(p.obs)
        if n:
            seats = np.array(p.seats, np.int64)
            ret = np.repeat(self.returns[g][None, :], n, axis=0)
            self.buffer.add(
                np.stack(p.obs),
                np.stack(p.maskbits),
                np.stack(p.pidx),
                np.stack(p.pprob),
                relative_values(ret, seats).astype(np.float32),
                np.stack(p.flagbits) if p.flagbits else None,
            )
        self.outcomes.append(float(self.returns[g, 0]))
        k = int(self.opp[g])
        if k >= 0:  # the network's result against the fixed agent (diagnostics, the log)
            self.against_games[k] += 1
            me = [s for s in range(self.returns.shape[1]) if s != self.opp_seat[g]][0]
            self.against_wins[k] += int(self.returns[g, me] > 0)
        self._assign(g)
        self.pending[g] = _Pending()
        self.returns[g] = 0.0
        self.ply[g] = 0
        self.games_done += 1
