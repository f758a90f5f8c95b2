"""Moon Shot's batch facade: the batch-game protocol of ``envs/core/batch.py``, continuous.

Every consumer of the turn game drives :class:`MoonShotBatch`: the AEC and Parallel envs
(a batch of one), the ladder runner, the SB3 VecEnvs, the benchmarks and the search
agents; solo practice (MS-21) is :class:`MoonShotSoloBatch`, driven by the Gymnasium
single and vector envs and the solo VecEnv. The turn loop (seeds, one batched physics call, scoring, MS-14..MS-19) is written
once, in :meth:`MoonShotBatch.shoot`; the realtime step (MS-18) in
:meth:`MoonShotBatch.shoot_realtime`. This module also holds what used to sit in the
PettingZoo adapter: the static configuration :class:`MoonShotConfig` (in
:mod:`envs.moon_shot.config`; gymnax's ``EnvParams``: named fields, apart from the dynamic :class:`~envs.moon_shot.state.GameState`),
shot execution :func:`run_shots`; the observation (:func:`observe`) is in
:mod:`envs.moon_shot.observe`, re-exported here. Rules:
docs/moon_shot.md.

Protocol differences from the board games: an action is a point of [-1, 1]^4 (MS-5), so
there is no legal mask (:meth:`MoonShotBatch.legal_mask` is None) and ``step`` takes
``(B, 4)`` float actions (checked: a NaN, an infinity or an entry outside [-1, 1] raises
ValueError naming the games, and no game changes). Both facades offer the board facades'
fused learner step with the same names and semantics (``learner_buffers``,
``learner_step``, ``learner_view``, ``decode``; ``envs.core.batch.LearnerBuffers``): the
shots, the auto-reset, then the observation of the seat to move, the rewards and done
flags in buffers the caller allocates once. The observation stays float32 (a few real
features: 4 (2P + 10) bytes a game, 32 solo) and ``mask`` is None. Randomness: shot noise comes from each game's key and shot
number only (``shot_seeds``); :meth:`~MoonShotBatch.random_actions` and the keys of
auto-reset games are other hashes of the same key, so a game's course never depends on the
batch size, its position in the batch or the thread count.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces
from numba import njit

from envs.core.batch import LearnerBuffers
from envs.core.rng import hash64, splitmix64
from envs.moon_shot import state as S
from envs.moon_shot.config import MoonShotConfig
from envs.moon_shot.observe import OBS_EXTRA, observation_layout, observation_space, observe
from envs.moon_shot.params import PhysicsParams
from envs.moon_shot.rules import realtime_step, solo_step, turn_step
from envs.moon_shot.scoring import KIND_NAMES, ShotScore, score_shots
from envs.moon_shot.state import GameState, SoloState, derive_keys

__all__ = [
    "ACTION_SIZE",
    "OBS_EXTRA",
    "MoonShotBatch",
    "MoonShotConfig",
    "MoonShotSoloBatch",
    "SOLO_OBS_SIZE",
    "Shots",
    "check_actions",
    "check_batch",
    "check_shots",
    "observation_layout",
    "observation_space",
    "observe",
    "run_shots",
]

ACTION_SIZE = 4


# ----------------------------------------------------------------------------- shots
@dataclass
class Shots:
    """Physics result and score of a batch of shots (M shots)."""

    poses: np.ndarray  # (M, 3, 3)
    toppled: np.ndarray  # (M, 3)
    in_tube: np.ndarray  # (M, 3)
    fully_in_tube: np.ndarray  # (M, 3)
    score: ShotScore
    frames: np.ndarray | None  # (M, T, 3, 3) when recorded

    def info(self, m: int) -> dict[str, Any]:
        """Plain-data summary of shot ``m`` for ``infos`` (MS-10..MS-13)."""
        return {
            "poses": self.poses[m].copy(),
            "toppled": self.toppled[m].copy(),
            "in_tube": self.in_tube[m].copy(),
            "fully_in_tube": self.fully_in_tube[m].copy(),
            "points": int(self.score.points[m]),
            "kind": KIND_NAMES[int(self.score.kind[m])],
        }


def check_actions(actions: Any, count: int, clip: bool = False) -> np.ndarray:
    """Validate a (count, 4) batch of MS-5 actions; ValueError naming the problem.

    NaN or infinite entries are always rejected. Out-of-range values are rejected unless
    ``clip`` (then they are clipped to [-1, 1]).
    """
    try:
        a = np.asarray(actions, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"action must be numeric, got {actions!r}") from exc
    if a.shape != (count, ACTION_SIZE):
        want = (ACTION_SIZE,) if count == 1 else (count, ACTION_SIZE)
        got = a.shape[1:] if count == 1 and a.ndim == 2 and a.shape[0] == 1 else a.shape
        raise ValueError(f"action must have shape {want}, got {got}")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"action must be finite (no NaN or infinity), got {a.tolist()}")
    if clip:
        return np.clip(a, -1.0, 1.0)
    if np.any(np.abs(a) > 1.0):
        raise ValueError(f"action entries must lie in [-1, 1] (MS-5), got {a.tolist()}")
    return a


def check_shots(
    actions: Any, count: int, clip: bool = False, agent: str | None = None
) -> np.ndarray:
    """The action check of every Moon Shot env (AEC, parallel, solo, vector): shape, finite
    entries (MS-5) and a real dtype, as :func:`check_actions`; ``count == 1`` also takes one
    ``(4,)`` action. A complex action is a ``ValueError`` (numpy would drop its imaginary
    part with only a warning); ``agent`` names the player in the message.
    """
    try:
        arr = _real(actions)
        if count == 1 and arr.ndim == 1:
            arr = arr.reshape(1, -1)
        return check_actions(arr, count, clip=clip)
    except ValueError as exc:
        if agent is None:
            raise
        raise ValueError(f"{agent}: {exc}") from None


def check_batch(
    actions: Any, batch: int, game: str = "moon_shot", bad: np.ndarray | None = None
) -> np.ndarray:
    """``actions`` as a contiguous (batch, 4) float64 array, or ValueError naming the games.

    Why: the batch facades' ``step`` and ``learner_step`` must never run a NaN, an infinity
    or an entry outside [-1, 1] (MS-5) through the physics, and a bad row must leave every
    game unchanged. Every row is checked, finished games' rows too. ``bad`` (if given)
    marks the rows at fault.
    """
    try:
        arr = _real(actions)
    except ValueError as exc:
        raise ValueError(f"{game}: {exc}; no game was changed") from None
    if arr.shape != (batch, ACTION_SIZE):
        raise ValueError(
            f"{game}: actions must have shape ({batch}, {ACTION_SIZE}) for a batch of "
            f"{batch} games, got shape {arr.shape}"
        )
    if arr.dtype.kind not in "iuf":  # no text, bytes, objects or booleans
        raise ValueError(f"{game}: actions must be real numbers, got dtype {arr.dtype}")
    a = np.ascontiguousarray(arr, dtype=np.float64)
    rows = ~(np.isfinite(a) & (np.abs(a) <= 1.0)).all(axis=1)
    if bad is not None:
        bad[:] = rows
    if rows.any():
        idx = np.flatnonzero(rows)
        shown = ", ".join(f"game {int(i)}: {a[i].tolist()}" for i in idx[:8])
        more = f" and {len(idx) - 8} more" if len(idx) > 8 else ""
        raise ValueError(
            f"{game}: {len(idx)} action(s) not finite or outside [-1, 1] (MS-5) "
            f"({shown}{more}); no game was changed"
        )
    return a


def _real(actions: Any) -> np.ndarray:
    """``actions`` as an array of real numbers (ValueError for complex or non-numeric)."""
    try:
        arr = np.asarray(actions)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"action must be numeric, got {actions!r}") from exc
    if np.iscomplexobj(arr) or (
        arr.dtype == object and any(isinstance(x, complex) for x in arr.reshape(-1))
    ):
        raise ValueError(f"action must be real, got complex {arr.tolist()!r}")
    return arr


def run_shots(
    actions: np.ndarray, seeds: np.ndarray, config: MoonShotConfig, record: bool = False
) -> Shots:
    """Simulate and score M shots in ONE batched physics call (MS-5..MS-13, MS-20).

    ``record`` asks the physics for trajectories (for rendering the last shot).
    """
    from envs.moon_shot import physics  # compiled kernels; imported on first shot

    params = config.physics_params()
    a = np.ascontiguousarray(actions, dtype=np.float64).reshape(-1, ACTION_SIZE)
    s = np.ascontiguousarray(seeds, dtype=np.uint64).reshape(-1)
    frames = None
    # (the physics runs small batches on the calling thread itself: no pool wake-up)
    if record:
        result, frames = physics.simulate_recorded(a, s, params, tube_distance=config.distance)
    else:
        result = physics.simulate(a, s, params, tube_distance=config.distance)
    score = score_shots(
        result.in_tube,
        result.fully_in_tube,
        result.poses,
        result.toppled,
        full_landing=config.full_landing,
        full_colony=config.full_colony,
    )
    return Shots(
        poses=np.asarray(result.poses),
        toppled=np.asarray(result.toppled),
        in_tube=np.asarray(result.in_tube),
        fully_in_tube=np.asarray(result.fully_in_tube),
        score=score,
        frames=None if frames is None else np.asarray(frames),
    )


# ----------------------------------------------------------------------------- keys
_ACTION_SALT = np.uint64(0xA0761D6478BD642F)  # keeps action draws apart from shot seeds
_RESET_SALT = np.uint64(0xE7037ED1A0B428DB)


@njit(cache=True)
def _random_actions(keys: np.ndarray, turns: np.ndarray, out: np.ndarray) -> None:
    """Uniform [-1, 1)^4 per game from (key, turn): splitmix64 seeded off the shot seeds."""
    for i in range(keys.shape[0]):
        st = hash64(keys[i] ^ _ACTION_SALT ^ hash64(np.uint64(turns[i])))
        for j in range(out.shape[1]):
            st, z = splitmix64(st)
            out[i, j] = float(z >> np.uint64(11)) * (2.0 / 9007199254740992.0) - 1.0


@njit(cache=True)
def _next_keys(keys: np.ndarray) -> np.ndarray:
    out = np.empty_like(keys)
    for i in range(keys.shape[0]):
        out[i] = hash64(keys[i] ^ _RESET_SALT)
    return out


# ----------------------------------------------------------------------------- shared shape
class _ShotGames:
    """What the turn facade and the solo facade share: the batch-game protocol around a
    per-game key, and the fused learner step of the board facades (``envs/core/batch.py``)
    with continuous actions (no legal mask: ``mask`` is None in the buffers).

    A subclass says how a batch of running games takes one shot each (``_advance``), what
    a fresh game is (``new_games``), which counter numbers a game's shots
    (``_counter``) and what a seat sees (``observe``).
    """

    continuous = True
    action_shape = (ACTION_SIZE,)
    name: str
    num_players: int
    obs_shape: tuple[int, ...]
    _state_type: type

    def new_games(self, keys: np.ndarray) -> Any:
        raise NotImplementedError

    def observe(self, state: Any, seats: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _advance(self, state: Any, actions: np.ndarray) -> np.ndarray:
        """One shot per running game of ``state`` (in place); (B, P) float32 rewards."""
        raise NotImplementedError

    @staticmethod
    def _counter(state: Any) -> np.ndarray:
        """(B,) number of the next shot of each game (noise and action draws)."""
        raise NotImplementedError

    # -- state ------------------------------------------------------------------------
    def init(self, batch_size: int, seed: int) -> Any:
        """New games; game i's key comes from (seed, i)."""
        if int(batch_size) != batch_size or batch_size < 0:
            raise ValueError(f"batch_size must be an integer >= 0, got {batch_size}")
        return self.new_games(derive_keys(int(seed), int(batch_size)))

    def copy(self, state: Any) -> Any:
        """Deep copy (for search)."""
        return state.copy()

    def take(self, state: Any, index: np.ndarray) -> Any:
        """Games ``index`` as a new batch (copies)."""
        idx = np.asarray(index, dtype=np.int64)
        return self._state_type(**{k: v[idx].copy() for k, v in state.__dict__.items()})

    def put(self, state: Any, index: np.ndarray, sub: Any) -> None:
        """Write the games of ``sub`` back into ``state`` at ``index`` (inverse of take)."""
        idx = np.asarray(index, dtype=np.int64)
        for name, value in sub.__dict__.items():
            getattr(state, name)[idx] = value

    def terminated(self, state: Any) -> np.ndarray:
        """(B,) bool: game over."""
        return state.done.copy()

    def legal_mask(self, state: Any) -> np.ndarray | None:
        """None: every action in [-1, 1]^4 is legal (MS-5); there is nothing to mask."""
        return None

    def random_actions(self, state: Any) -> np.ndarray:
        """(B, 4) uniform actions in [-1, 1)^4 from each game's key and shot number."""
        out = np.empty((len(state.key), ACTION_SIZE), np.float64)
        _random_actions(state.key, self._counter(state).astype(np.uint64), out)
        return out

    # -- the batch-game protocol ---------------------------------------------------------
    def step(
        self, state: Any, actions: np.ndarray, auto_reset: bool = False, validate: bool = True
    ) -> tuple[np.ndarray, np.ndarray]:
        """One shot per running game (rows of finished games are ignored). Returns
        (rewards (B, P) float32, done (B,) bool): the rewards of this step (0 in games
        that were already over) and which games are over.

        With ``validate`` (default) actions of the wrong shape or with a non-finite entry
        or one outside [-1, 1] (MS-5) raise ValueError naming the games, and no game
        changes. With ``auto_reset`` every game that is over after the step restarts at
        once with a new key hashed from its old one, so its course still depends on its
        own key only.
        """
        if validate:
            a = check_batch(actions, len(state.done), self.name)
        else:
            a = np.asarray(actions, dtype=np.float64).reshape(-1, ACTION_SIZE)
        rewards = self._advance(state, a)
        done = state.done.copy()
        if auto_reset and done.any():
            idx = np.flatnonzero(done)
            self.put(state, idx, self.new_games(_next_keys(state.key[idx])))
        return rewards, done

    # -- the learner step (the board facades' names and semantics) ----------------------
    def learner_buffers(
        self, batch_size: int, dense: bool = False, mask_bits: bool = False
    ) -> LearnerBuffers:
        """Outputs of :meth:`learner_step` for ``batch_size`` games (allocate once, reuse):
        ``obs`` float32 (the observation is already as compact as its information: a few
        real features, so ``dense`` changes nothing), ``mask`` None (continuous actions:
        ``mask_bits=True`` is refused, there is no mask to pack). The board facades' keywords,
        so that one consumer can ask every game the same way."""
        if mask_bits:
            raise ValueError(
                f"{self.name}: mask_bits=True, but actions are continuous: no legal mask to pack"
            )
        if int(batch_size) != batch_size or batch_size < 0:
            raise ValueError(f"batch_size must be an integer >= 0, got {batch_size}")
        b = int(batch_size)
        return LearnerBuffers(
            obs=np.zeros((b, *self.obs_shape), np.float32),
            mask=None,  # type: ignore[arg-type]  # continuous actions: nothing to mask
            rewards=np.zeros((b, self.num_players), np.float32),
            done=np.zeros(b, np.bool_),
            seat=np.zeros(b, np.int64),
            bad=np.zeros(b, np.bool_),
        )

    def learner_step(
        self, state: Any, actions: np.ndarray, out: LearnerBuffers, validate: bool = True
    ) -> LearnerBuffers:
        """Validate (unless ``validate`` is False), shoot, auto-reset the finished games,
        then the next observation of the seat to move, the rewards and done flags into
        ``out``. A bad action raises ValueError naming the games (``out.bad`` marks them)
        and no game changes."""
        n = len(state.done)
        self._check_buffers(out, n)
        a = check_batch(actions, n, self.name, out.bad) if validate else actions
        rewards, done = self.step(state, a, auto_reset=True, validate=False)
        out.rewards[:] = rewards
        out.done[:] = done
        self._view(state, out)
        return out

    def learner_view(self, state: Any, out: LearnerBuffers) -> LearnerBuffers:
        """The observation of every game's seat to move into ``out`` (no step; rewards 0)."""
        self._check_buffers(out, len(state.done))
        self._view(state, out)
        out.rewards[:] = 0.0
        out.done[:] = False
        return out

    #: the float value of one observation entry (``decode`` is the identity)
    obs_scale = 1.0

    def decode(self, codes: np.ndarray) -> np.ndarray:
        """float32 observations of learner-step outputs (a copy: the buffers are reused)."""
        return np.array(codes, dtype=np.float32)

    def _view(self, state: Any, out: LearnerBuffers) -> None:
        seat = np.maximum(self.current_player(state), 0)
        out.seat[:] = seat
        out.obs[:] = self.observe(state, seat)

    def current_player(self, state: Any) -> np.ndarray:
        raise NotImplementedError

    def _check_buffers(self, out: LearnerBuffers, batch: int) -> None:
        want = {
            "obs": ((batch, *self.obs_shape), np.float32),
            "rewards": ((batch, self.num_players), np.float32),
            "done": ((batch,), np.bool_),
            "seat": ((batch,), np.int64),
            "bad": ((batch,), np.bool_),
        }
        for name, (shape, dtype) in want.items():
            a = getattr(out, name)
            if not isinstance(a, np.ndarray) or a.shape != shape or a.dtype != dtype:
                got = f"{a.dtype}{a.shape}" if isinstance(a, np.ndarray) else repr(a)
                raise ValueError(
                    f"learner buffer {name!r} is {got}, expected {np.dtype(dtype)}{shape}: "
                    "allocate with the facade's learner_buffers()"
                )


# ----------------------------------------------------------------------------- turn game
class MoonShotBatch(_ShotGames):
    """The turn game (MS-14..MS-17, MS-19) and its realtime step (MS-18) over N games.

    Build it from a :class:`MoonShotConfig` (``MoonShotBatch(cfg)``) or from the config's
    fields (``MoonShotBatch(num_players=3, noise=0.5)``). State is a
    :class:`~envs.moon_shot.state.GameState` with a leading batch axis.
    """

    _state_type = GameState

    def __init__(
        self, config: MoonShotConfig | None = None, name: str = "moon_shot", **rules: Any
    ) -> None:
        if config is None:
            config = MoonShotConfig(**rules)
        elif rules:
            config = dataclasses.replace(config, **rules)
        if not isinstance(config, MoonShotConfig):
            raise ValueError(f"config must be a MoonShotConfig, got {type(config).__name__}")
        self.config = config
        self.name = name

    def __repr__(self) -> str:
        return f"MoonShotBatch({self.config!r})"

    # -- static shape -----------------------------------------------------------------
    @property
    def num_players(self) -> int:  # type: ignore[override]
        """P, the number of seats."""
        return int(self.config.num_players)

    @property
    def obs_shape(self) -> tuple[int, ...]:  # type: ignore[override]
        """(2P + 10,): see :func:`observation_layout`."""
        return (2 * self.num_players + OBS_EXTRA,)

    def observation_space(self) -> spaces.Box:
        """The observation Box (bounds of :func:`observe`)."""
        return observation_space(self.config)

    def action_space(self) -> spaces.Box:
        """``Box(-1, 1, (4,))``: aim, speed, strike height, spin offset (MS-5)."""
        return spaces.Box(-1.0, 1.0, (ACTION_SIZE,), dtype=np.float32)

    # -- state ------------------------------------------------------------------------
    def new_games(self, keys: np.ndarray) -> GameState:
        """Fresh games with the given per-game uint64 keys (seat 0 to shoot)."""
        keys = np.asarray(keys, dtype=np.uint64).reshape(-1)
        return S.new_games(len(keys), self.num_players, keys)

    @staticmethod
    def _counter(state: GameState) -> np.ndarray:
        return state.turn

    def current_player(self, state: GameState) -> np.ndarray:
        """(B,) seat to shoot; -1 where the game is over."""
        return np.where(state.done, -1, state.seat).astype(np.int64)

    def observe(self, state: GameState, seats: np.ndarray) -> np.ndarray:
        """(B, 2P + 10) float32 observations from each given seat (:func:`observe`)."""
        return observe(state, seats, self.config)

    def observe_realtime(self, state: GameState) -> np.ndarray:
        """(B, P, 2P + 10) observations of every seat when all shoot at once (MS-18)."""
        B, P = state.scores.shape
        many = self.take(state, np.repeat(np.arange(B), P))
        many.seat = np.tile(np.arange(P, dtype=np.int64), B)  # everybody shoots now
        return self.observe(many, many.seat).reshape(B, P, -1)

    # -- shots ------------------------------------------------------------------------
    def simulate(self, actions: np.ndarray, seeds: np.ndarray, record: bool = False) -> Shots:
        """Score M shots (``Shots``) in one batched physics call (MS-5..MS-13); agents
        search with it at their own seeds."""
        return run_shots(
            np.asarray(actions, np.float64), np.asarray(seeds, np.uint64), self.config, record
        )

    def shoot(
        self, state: GameState, actions: np.ndarray, record: bool = False, validate: bool = True
    ) -> Shots:
        """The turn loop, written once: in every running game the seat to shoot shoots its
        row of ``actions`` (B, 4) (rows of finished games are ignored).

        ONE physics call for all running games, noise from ``shot_seeds(key, turn)``,
        then ``turn_step`` (MS-14..MS-17, MS-19) in place. Returns the running games'
        shots, in batch order. ``validate``: as :meth:`step` (:func:`check_batch`; a bad
        action raises ValueError naming the games, and no game changes).
        """
        alive = np.flatnonzero(~state.done)
        if validate:
            a = check_batch(actions, len(state.done), self.name)
        else:
            a = np.asarray(actions, dtype=np.float64).reshape(-1, ACTION_SIZE)
        if len(a) != len(state.done):
            raise ValueError(f"actions must have shape ({len(state.done)}, 4), got {a.shape}")
        seeds = S.shot_seeds(state.key[alive], state.turn[alive])
        shots = self.simulate(a[alive], seeds, record)
        self._score(turn_step, state, shots, alive, (len(state.done),))
        return shots

    def shoot_realtime(self, state: GameState, actions: np.ndarray, record: bool = False) -> Shots:
        """MS-18: in every running game all P seats shoot at once, actions (B, P, 4).

        ONE physics call for all shots (noise of seat p from shot number ``turn P + p``),
        every shot scored, then ``realtime_step``. Returns the running games' shots,
        game-major: shot ``g P + p`` is seat p of the g-th running game.
        """
        B, P = state.scores.shape
        alive = np.flatnonzero(~state.done)
        a = np.asarray(actions, dtype=np.float64).reshape(B, P, ACTION_SIZE)[alive]
        counters = (state.turn[alive, None] * P + np.arange(P)[None, :]).reshape(-1)
        seeds = S.shot_seeds(np.repeat(state.key[alive], P), counters)
        shots = self.simulate(a.reshape(-1, ACTION_SIZE), seeds, record)
        self._score(realtime_step, state, shots, alive, (B, P))
        return shots

    def _score(
        self, rule: Any, state: GameState, shots: Shots, alive: np.ndarray, shape: tuple
    ) -> None:
        """Spread the running games' shot values over the batch (0 / False in finished
        games) and apply ``rule`` (``turn_step`` or ``realtime_step``) in place."""
        sc = shots.score
        values = []
        for v, dtype in (
            (sc.points, np.int64),
            (sc.crack, bool),
            (sc.colony, bool),
            (sc.landed, bool),
        ):
            if len(alive) == shape[0]:
                values.append(np.asarray(v, dtype=dtype).reshape(shape))
                continue
            full = np.zeros(shape, dtype=dtype)
            full[alive] = np.asarray(v, dtype=dtype).reshape(len(alive), *shape[1:])
            values.append(full)
        rule(
            state, *values, max_rounds=self.config.max_rounds, target_score=self.config.target_score
        )

    def _advance(self, state: GameState, actions: np.ndarray) -> np.ndarray:
        """The MS-17 final rewards of the games that end in this shot (0 elsewhere)."""
        before = state.done.copy()
        self.shoot(state, actions, validate=False)  # step checked them (or was told not to)
        ended = state.done & ~before
        rewards = np.zeros(state.scores.shape, np.float32)
        rewards[ended] = state.rewards[ended]
        return rewards


# ----------------------------------------------------------------------------- solo (MS-21)
SOLO_OBS_SIZE = 8
#: the rules solo practice takes (MS-3, MS-6, MS-20); the rest of MoonShotConfig is the
#: turn game's
_SOLO_RULES = ("noise", "close_tube", "full_landing", "full_colony", "tube_distance", "params")


class MoonShotSoloBatch(_ShotGames):
    """Solo practice (MS-21) over N episodes: the batch-game protocol with one seat.

    Rewards are the shot's points (a crack: minus the points so far), not +-1: solo is a
    single-agent task. ``game`` is the :class:`MoonShotConfig` (one player) of the shots;
    ``rules`` are its fields ``noise``, ``close_tube``, ``full_landing``, ``full_colony``
    (MS-20), ``tube_distance`` (MS-3) and ``params``.
    """

    num_players = 1
    obs_shape = (SOLO_OBS_SIZE,)
    _state_type = SoloState

    def __init__(self, *, max_shots: int = 20, name: str = "moon_shot_solo", **rules: Any) -> None:
        if int(max_shots) != max_shots or max_shots < 1:
            raise ValueError(f"max_shots must be an integer >= 1, got {max_shots}")
        unknown = sorted(set(rules) - set(_SOLO_RULES))
        if unknown:
            raise TypeError(f"solo practice takes the rules {list(_SOLO_RULES)}, not {unknown}")
        if rules.get("params") is None:
            rules["params"] = PhysicsParams()
        self.max_shots = int(max_shots)
        self.name = name
        self.game = MoonShotConfig(num_players=1, **rules)
        self.config = self.game

    def observation_space(self) -> spaces.Box:
        """The solo observation Box (layout: ``envs.moon_shot.solo``'s table)."""
        top = float(self.max_shots)
        g = self.game
        high = [2 * top, top, top, max(g.distance, 1.0), 1, 1, 1, max(g.noise, 1.0)]
        return spaces.Box(np.zeros(SOLO_OBS_SIZE, np.float32), np.array(high, np.float32))

    def observe(self, state: SoloState, seats: np.ndarray | None = None) -> np.ndarray:
        """(N, 8) float32 observations (one seat: ``seats`` is ignored)."""
        g = self.game
        n = state.points.shape[0]
        pts = np.where(state.outcome == S.CRACK_END, 0, state.points)
        return np.stack(
            [
                pts.astype(np.float64),
                state.shots.astype(np.float64),
                (self.max_shots - state.shots).astype(np.float64),
                np.full(n, g.distance),
                np.full(n, float(g.close_tube)),
                np.full(n, float(g.full_landing)),
                np.full(n, float(g.full_colony)),
                np.full(n, float(g.noise)),
            ],
            axis=1,
        ).astype(np.float32)

    def shoot(
        self, state: SoloState, actions: np.ndarray, record: bool = False, validate: bool = True
    ) -> tuple[np.ndarray, Shots]:
        """The solo loop, written once: one shot for every episode of ``state`` (ONE physics
        call, noise from ``shot_seeds(key, shots taken)``), then MS-21's ``solo_step``.
        Returns ((N,) float64 rewards, the N shots). ``validate``: as :meth:`step`."""
        if validate:
            actions = check_batch(actions, len(state.done), self.name)
        seeds = S.shot_seeds(state.key, state.shots)
        shots = run_shots(actions, seeds, self.game, record=record)
        sc = shots.score
        reward = solo_step(state, sc.points, sc.crack, sc.colony, self.max_shots)
        return reward, shots

    # -- the batch-game protocol ---------------------------------------------------------
    def new_games(self, keys: np.ndarray) -> SoloState:
        """Fresh episodes with the given per-episode uint64 keys."""
        keys = np.asarray(keys, dtype=np.uint64).reshape(-1)
        return S.new_solo(len(keys), keys)

    @staticmethod
    def _counter(state: SoloState) -> np.ndarray:
        return state.shots

    def current_player(self, state: SoloState) -> np.ndarray:
        """(B,) 0 while the episode runs, -1 when it is over."""
        return np.where(state.done, -1, 0).astype(np.int64)

    def _advance(self, state: SoloState, actions: np.ndarray) -> np.ndarray:
        """Each running episode's shot reward (finished ones are not simulated), (B, 1)."""
        alive = np.flatnonzero(~state.done)
        rewards = np.zeros((len(state.done), 1), np.float32)
        if len(alive):
            sub = self.take(state, alive)
            r, _ = self.shoot(sub, actions[alive], validate=False)
            self.put(state, alive, sub)
            rewards[alive, 0] = r
        return rewards
