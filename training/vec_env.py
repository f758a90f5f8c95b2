"""An SB3 ``VecEnv`` over a batch-game facade: the learner's side of self-play.

One :class:`SelfPlayVecEnv` holds ``num_envs`` games in a single batch state of a
:class:`envs.core.batch.BatchGame` and drives them with a handful of batched kernel calls
per ``step`` (no Python loop over games). The learner owns one seat per game; the seat
rotates every time a game restarts, so it learns every side. Opponents act *inside*
``step_wait``: after the learner's move, every game where another seat is to act is
advanced by the opponent assigned to that (game, seat) until it is the learner's turn
again or the learner's episode is over. So the learner only ever sees its own turns and
always its *own* reward, including the -1 of a game the opponent ends by winning
(the trap of PettingZoo's old Connect Four tutorial, which returned the opponent's).

Contract (as ``DummyVecEnv``): auto-reset in ``step_wait``; a finished episode's last
observation in ``infos[i]["terminal_observation"]``; ``infos[i]["TimeLimit.truncated"]``
(always False: every game ending is a termination, rules PR-17, VF-17, MS-16);
``reset_infos``; ``seed(s)`` takes effect at the next ``reset()``. Masks for sb3-contrib's
MaskablePPO: ``action_masks()`` and ``env_method("action_masks")`` (what
``sb3_contrib.common.maskable.utils.get_action_masks`` calls) give the legal moves of the
learner's seat. An episode also ends when the learner is eliminated (in a game of 3 or
more seats with eliminations, e.g. VF-15/VF-16): the rest of that game does not concern it.

Reproducibility: everything random comes from one ``numpy.random.Generator`` seeded at
``reset`` (new game seeds, opponent draws) and the games' own keys, plus torch's RNG for
sampled snapshot moves (seeded by the algorithm). Same seed, same rollout.
"""

from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvStepReturn

from agents.base import ActContext
from envs.core.batch import has_learner_step
from training.opponents import OpponentPool

_MAX_OPPONENT_ROUNDS = 10_000  # guards against a facade that never hands the turn back


def put(state: Any, index: np.ndarray, sub: Any) -> None:
    """Scatter the games of batch ``sub`` back into games ``index`` of ``state`` (in place).

    The inverse of ``game.take`` for any state that is a dataclass (or plain object) of
    numpy arrays. The batch axis of each array is found from the shapes (the axis where
    ``state`` has B entries and ``sub`` has ``len(index)``, all other axes equal), so an
    entry-major array, (H, B), works as well as (B, ...) ones.
    """
    index = np.asarray(index, np.int64)
    names = _field_names(state)
    batch = None
    for name in names:
        dst, src = getattr(state, name), getattr(sub, name)
        if not isinstance(dst, np.ndarray) or dst.ndim == 0:
            continue
        if batch is None:
            batch = dst.shape[0]  # the first field is batch-major by the protocol
        axis = _batch_axis(dst.shape, tuple(np.shape(src)), batch, len(index))
        if axis is None:
            raise ValueError(
                f"cannot scatter field {name!r}: shapes {dst.shape} and {np.shape(src)} "
                f"have no common batch axis of sizes {batch} / {len(index)}"
            )
        where: list[Any] = [slice(None)] * dst.ndim
        where[axis] = index
        dst[tuple(where)] = src


def _field_names(state: Any) -> tuple[str, ...]:
    if dataclasses.is_dataclass(state) and not isinstance(state, type):
        return _dataclass_fields(type(state))
    return tuple(vars(state))


@functools.cache
def _dataclass_fields(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


@functools.lru_cache(maxsize=4096)  # put runs every step with a handful of shapes
def _batch_axis(full: tuple[int, ...], part: tuple[int, ...], b: int, k: int) -> int | None:
    if len(full) != len(part):
        return None
    axes = [
        ax
        for ax in range(len(full))
        if full[ax] == b
        and part[ax] == k
        and all(full[j] == part[j] for j in range(len(full)) if j != ax)
    ]
    return axes[0] if axes else None


def _check_learner_actions(legal: np.ndarray, actions: np.ndarray) -> None:
    """ValueError naming the first game whose learner action is outside ``legal``."""
    inside = (actions >= 0) & (actions < legal.shape[1])
    ok = inside & legal[np.arange(len(actions)), np.where(inside, actions, 0)]
    if not ok.all():
        bad = int(np.flatnonzero(~ok)[0])
        raise ValueError(
            f"illegal action {actions[bad]} for the learner in game {bad}; "
            "use the action masks (MaskablePPO) so the learner never picks one"
        )


def _seed_from(rng: np.random.Generator) -> int:
    return int(rng.integers(0, 2**62))


class BatchVecEnv(VecEnv):
    """A VecEnv whose sub-envs are one batch object: attribute and method calls go to it.

    Shared by every kernel-backed VecEnv here (board-game self-play, continuous-action
    solo and versus): there are no per-env wrappers, so ``get_attr``/``env_method`` answer once and
    repeat the answer per index, and nothing is ever wrapped or rendered per env.
    """

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        value = getattr(self, attr_name)  # AttributeError as has_attr expects
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self, attr_name, value)

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: VecEnvIndices = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in self._get_indices(indices)]

    def env_is_wrapped(
        self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None
    ) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None for _ in range(self.num_envs)]


class SelfPlayVecEnv(BatchVecEnv):
    """``num_envs`` games of ``game`` played by the learner against ``pool`` opponents.

    Args:
        game: a ``BatchGame`` facade (``envs.<game>.batch``).
        num_envs: games in the batch (the VecEnv's ``num_envs``).
        pool: where opponents come from (snapshots of the learner, baselines).
        seed: seeds the env's generator now; ``seed(s)`` re-seeds it at the next
            ``reset()``, which otherwise continues the current random stream.
    """

    def __init__(self, game: Any, num_envs: int, pool: OpponentPool, seed: int = 0) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs must be >= 1, got {num_envs}")
        from envs.core.threads import safe_threads

        safe_threads("SelfPlayVecEnv")  # torch beside the Numba kernels: one torch thread
        self.game = game
        self.pool = pool
        self.num_players = int(game.num_players)
        self.render_mode = None
        self._default_seed = int(seed)
        self.rng = np.random.default_rng(seed)
        observation_space = spaces.Box(-np.inf, np.inf, tuple(game.obs_shape), np.float32)
        action_space = spaces.Discrete(int(game.num_actions))
        super().__init__(num_envs, observation_space, action_space)
        self.state: Any = None
        self.learner_seat = np.arange(num_envs, dtype=np.int64) % self.num_players
        # opponent[i, s]: pool index that plays seat s of game i (-1 for the learner's seat)
        self.opponent = np.full((num_envs, self.num_players), -1, np.int64)
        self.ep_return = np.zeros(num_envs, np.float32)
        self.ep_len = np.zeros(num_envs, np.int64)
        self.opponent_decisions = 0  # game decisions taken by opponents (throughput)
        self.learner_decisions = 0
        self.env_seconds = 0.0  # wall time spent inside step_wait (throughput)
        self._actions: np.ndarray | None = None
        # facades with a fused learner step (envs.core.batch.LearnerBuffers): observation
        # and mask of the seat to move in one kernel call, the action check in the step
        self._fused = has_learner_step(game)
        self._view: Any = None
        self._view_fresh = False  # _view.mask is the learner's current mask

    # ---------------------------------------------------------------- helpers
    def _assign_opponents(self, idx: np.ndarray) -> None:
        n = len(idx)
        draws = self.pool.sample(n * self.num_players, self.rng).reshape(n, self.num_players)
        draws[np.arange(n), self.learner_seat[idx]] = -1
        self.opponent[idx] = draws

    def _new_games(self, idx: np.ndarray, rotate: bool) -> None:
        """Fresh games in rows ``idx`` (learner seat rotated), played up to the learner's turn."""
        pending = np.asarray(idx, np.int64)
        for _ in range(_MAX_OPPONENT_ROUNDS):
            if len(pending) == 0:
                return
            sub = self.game.init(len(pending), _seed_from(self.rng))
            put(self.state, pending, sub)
            if rotate:
                self.learner_seat[pending] = (self.learner_seat[pending] + 1) % self.num_players
            self._assign_opponents(pending)
            self.ep_return[pending] = 0.0
            self.ep_len[pending] = 0
            reward = np.zeros(self.num_envs, np.float32)
            ended = np.ones(self.num_envs, bool)
            ended[pending] = False
            self._play_opponents(reward, ended)
            # a game that ended before the learner ever moved is not an episode: redo it
            pending = pending[ended[pending]]
            rotate = False
        raise RuntimeError("games keep ending before the learner's first turn")

    def _play_opponents(self, reward: np.ndarray, ended: np.ndarray) -> None:
        """Let opponents move in every unfinished game until the learner is to act.

        Adds the learner's rewards of those moves to ``reward`` and marks in ``ended``
        games where the learner's episode is over (game over, or learner eliminated).
        """
        game = self.game
        for _ in range(_MAX_OPPONENT_ROUNDS):
            cp = game.current_player(self.state)
            active = ~ended & (cp >= 0) & (cp != self.learner_seat)
            if not active.any():
                return
            idx = np.flatnonzero(active)
            sub = game.take(self.state, idx)
            seats = cp[idx]
            who = self.opponent[idx, seats]
            movers = [(int(pid), self.pool.agent(int(pid))) for pid in np.unique(who)]
            if any(getattr(agent, "needs_observation", True) for _, agent in movers):
                obs = game.observe(sub, seats)
            else:  # e.g. random opponents only: they read the mask
                obs = np.empty((len(idx), 0), np.float32)
            mask = np.asarray(game.legal_mask(sub), bool)
            actions = np.zeros(len(idx), np.int64)
            for pid, agent in movers:
                sel = np.flatnonzero(who == pid)
                ctx = None
                if getattr(agent, "needs_context", False):
                    ctx = ActContext(game=game, state=game.take(sub, sel), seats=seats[sel])
                actions[sel] = agent.act(obs[sel], mask[sel], ctx)
            if not mask[np.arange(len(idx)), actions].all():
                bad = int(np.flatnonzero(~mask[np.arange(len(idx)), actions])[0])
                raise RuntimeError(
                    f"opponent {self.pool.name(int(who[bad]))} chose illegal action "
                    f"{actions[bad]} in game {idx[bad]}"
                )
            if self._fused:  # checked against the mask above
                rewards, done = game.step(sub, actions, validate=False)
            else:
                rewards, done = game.step(sub, actions)
            put(self.state, idx, sub)
            self.opponent_decisions += len(idx)
            mine = rewards[np.arange(len(idx)), self.learner_seat[idx]]
            reward[idx] += mine
            ended[idx] |= np.asarray(done, bool) | (mine != 0)
        raise RuntimeError("opponents never handed the turn back to the learner")

    # ---------------------------------------------------------------- VecEnv API
    def reset(self) -> np.ndarray:
        seed = self._seeds[0] if self._seeds and self._seeds[0] is not None else None
        if seed is not None:  # seed() was called: restart the streams; else continue them
            self._default_seed = int(seed)
            self.rng = np.random.default_rng(self._default_seed)
            for pid, entry in enumerate(self.pool.entries):  # opponents' own generators
                entry.agent.reset(
                    seed=int(np.random.SeedSequence([self._default_seed, pid]).generate_state(1)[0])
                )
        self.state = self.game.init(self.num_envs, _seed_from(self.rng))
        self.learner_seat = np.arange(self.num_envs, dtype=np.int64) % self.num_players
        self._new_games(np.arange(self.num_envs), rotate=False)
        self.reset_infos = [{"learner_seat": int(s)} for s in self.learner_seat]
        self._reset_seeds()
        self._reset_options()
        return self._obs()

    def _obs(self) -> np.ndarray:
        if self._fused:
            if self._view is None:
                self._view = self.game.learner_buffers(self.num_envs)
            self.game.learner_view(self.state, self._view)
            if (self._view.seat == self.learner_seat).all():  # the learner is to move
                self._view_fresh = True
                return self.game.decode(self._view.obs)
        return np.asarray(self.game.observe(self.state, self.learner_seat), np.float32)

    def action_masks(self, copy: bool = True) -> np.ndarray:
        """(num_envs, num_actions) bool: legal moves of the learner's seat in each game."""
        if self._view_fresh:  # written with the observation (same state, same seat)
            return self._view.mask.copy() if copy else self._view.mask
        return np.asarray(self.game.legal_mask(self.state), bool)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, np.int64).reshape(self.num_envs)

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("step_wait() called without step_async()")
        if self.state is None:
            raise RuntimeError("reset() must be called before step()")
        actions, self._actions = self._actions, None
        t0 = time.perf_counter()
        game = self.game
        b = np.arange(self.num_envs)
        if self._fused and not self._view_fresh:
            # a mask is not at hand: the facade's step checks every action (nothing
            # changes if one is bad)
            try:
                rewards, done = game.step(self.state, actions)
            except ValueError as exc:
                raise ValueError(
                    f"illegal action for the learner: {exc} Use the action masks "
                    "(MaskablePPO) so the learner never picks one"
                ) from None
        else:  # check against the mask of this state and seat, then step unchecked
            _check_learner_actions(self.action_masks(copy=False), actions)
            if self._fused:
                rewards, done = game.step(self.state, actions, validate=False)
            else:
                rewards, done = game.step(self.state, actions)
        self._view_fresh = False
        self.learner_decisions += self.num_envs
        reward = rewards[b, self.learner_seat].astype(np.float32)
        ended = np.asarray(done, bool) | (reward != 0)
        self._play_opponents(reward, ended)
        self.ep_return += reward
        self.ep_len += 1
        infos: list[dict[str, Any]] = [{"TimeLimit.truncated": False} for _ in b]
        finished = np.flatnonzero(ended)
        if len(finished):
            terminal = game.observe(game.take(self.state, finished), self.learner_seat[finished])
            for k, i in enumerate(finished):
                opp = [self.pool.name(int(p)) for p in self.opponent[i] if p >= 0]
                infos[i]["terminal_observation"] = np.asarray(terminal[k], np.float32)
                infos[i]["outcome"] = float(self.ep_return[i])
                infos[i]["learner_seat"] = int(self.learner_seat[i])
                infos[i]["opponents"] = opp
            self._new_games(finished, rotate=True)
            for i in finished:
                self.reset_infos[i] = {"learner_seat": int(self.learner_seat[i])}
        obs = self._obs()
        self.env_seconds += time.perf_counter() - t0
        return obs, reward, ended.copy(), infos

    def close(self) -> None:
        self.state = None

    # ------------------------------------------------------ attribute plumbing
    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: VecEnvIndices = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        if method_name == "action_masks":  # one mask row per sub-env (sb3-contrib's contract)
            masks = self.action_masks()
            return [masks[i] for i in self._get_indices(indices)]
        return super().env_method(method_name, *method_args, indices=indices, **method_kwargs)

    # ------------------------------------------------------ checkpoint support
    def rng_state(self) -> dict[str, Any]:
        """What ``set_rng_state`` needs to continue the same random stream after resume."""
        return {"bit_generator": self.rng.bit_generator.state, "seed": self._default_seed}

    def set_rng_state(self, data: dict[str, Any]) -> None:
        self._default_seed = int(data["seed"])
        self.rng = np.random.default_rng(self._default_seed)
        self.rng.bit_generator.state = data["bit_generator"]
