"""Single-agent masked Gymnasium envs of the turn-based games: one learner, registry opponents.

``gymnasium.make("<Title>-v0", opponent=..., num_players=...)`` (ids registered on
``import envs`` by ``envs.core.single_agent``: the game's title without spaces) builds a
:class:`MaskedSingleAgentEnv` over the game's batch facade (a batch of one game). The
learner plays one seat; every other seat is an agent of the agent registry
(``agents.registry.resolve``: ``random``, ``heuristic``, ``mcts:N``, ``policy:PATH``, ...) or
an :class:`~agents.base.Agent` object, and moves inside ``reset``/``step`` until the learner
is to act again. Why this env: on gymnasium 1.x PettingZoo's SB3 action-mask tutorial no
longer runs (its wrapper is not a ``gymnasium.Env``), and a wrapper that returns the last
mover's reward trains an agent to lose. Here:

* observation: the learner's planes (the facade's ``observe``, the same ``Box`` as the AEC
  env's ``"observation"``); ``action_masks()`` gives the legal actions (sb3-contrib's
  ``MaskablePPO`` reads it), also in ``info["action_mask"]``;
* reward: the learner's own, summed over its move and the opponents' replies, so the final
  -1 of a game it lost arrives in the step that ends it (eliminations too);
* ``terminated`` when the learner's game ends (game over or learner eliminated); never
  truncated (the games end by their own limits);
* an illegal learner action ends the episode with -1 (``illegal_action="lose"``, as
  PettingZoo's ``TerminateIllegalWrapper``; ``info["illegal_action"]``) or raises
  ``ValueError`` (``"raise"``);
* ``info``: ``action_mask``, ``seat`` (the learner's), ``illegal_action`` and
  ``opponent_moves`` (how many replies were played in this step);
* the learner's seat: ``seat=None`` draws it per episode from the env's seeded RNG, an int
  fixes it. ``reset(seed=s)`` seeds the game, the seat draw and every opponent.

Other keyword arguments go to the batch facade (e.g. ``max_turns``, ``board_size``,
``max_rounds``). ``docs/single_agent.md`` has a MaskablePPO example.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from agents.base import ActContext, Agent
from envs import registry
from envs.core.batch import has_learner_step
from envs.core.single_agent import gym_id, register_single_agent_envs

__all__ = ["MaskedSingleAgentEnv", "gym_id", "register_single_agent_envs"]

ILLEGAL = ("lose", "raise")


def _facade(game: str, players: int | None, params: dict[str, Any]) -> tuple[Any, Any]:
    """(batch facade, the AEC env's observation Box) for ``players`` seats and ``params``."""
    spec = registry.get(game)
    if spec.continuous or spec.batch is None:
        raise ValueError(f"{game} has no Discrete batch facade for a masked single-agent env")
    n = spec.default_players if players is None else players
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
        raise ValueError(f"num_players must be an int, got {players!r}")
    spec.check_players(int(n))
    batch_kwargs = dict(params)
    env_kwargs = dict(params)
    if spec.batch_players_arg is not None:
        batch_kwargs[spec.batch_players_arg] = int(n)
    if spec.env_players_arg is not None:
        env_kwargs[spec.env_players_arg] = int(n)
    game_obj = registry.load(spec.batch)(**batch_kwargs)
    box = None
    if spec.aec is not None:
        aec = registry.load(spec.aec)(**env_kwargs)
        box = aec.observation_space(aec.possible_agents[0])["observation"]
        aec.close()
    return game_obj, box


class MaskedSingleAgentEnv(gymnasium.Env):
    """One seat of a turn-based game for a single learner; see the module docstring."""

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(
        self,
        game: str,
        opponent: str | Agent | Sequence[str | Agent] = "random",
        num_players: int | None = None,
        seat: int | None = None,
        illegal_action: str = "lose",
        render_mode: str | None = None,
        **game_kwargs: Any,
    ) -> None:
        if render_mode is not None:
            raise ValueError(
                f"render_mode must be None (this env draws nothing), got {render_mode!r}"
            )
        if illegal_action not in ILLEGAL:
            raise ValueError(f"illegal_action must be one of {ILLEGAL}, got {illegal_action!r}")
        self.game_name = game
        self.game, box = _facade(game, num_players, game_kwargs)
        self.num_players = int(self.game.num_players)
        if seat is not None and (
            isinstance(seat, (bool, np.bool_))
            or not isinstance(seat, (int, np.integer))
            or not 0 <= seat < self.num_players
        ):
            raise ValueError(
                f"seat must be None or an int in [0, {self.num_players}), got {seat!r}"
            )
        self.fixed_seat = None if seat is None else int(seat)
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self.opponents = self._make_opponents(opponent)
        self._num_actions = int(self.game.num_actions)
        self.action_space = spaces.Discrete(self._num_actions)
        if box is None:
            box = spaces.Box(0.0, float(self.num_players), tuple(self.game.obs_shape), np.float32)
        self.observation_space = box
        self._state: Any = None
        self.seat = 0
        self._mask = np.zeros(int(self.game.num_actions), dtype=bool)
        self._over = True
        self._replies = 0  # opponent moves in the last reset/step
        # facades with the fused learner step (envs.core.batch.LearnerBuffers): seat to act
        # and mask in one call, no second legality check in a step after the mask check
        self._fused = has_learner_step(self.game)
        self._view: Any = None

    def _make_opponents(self, opponent: Any) -> list[Agent]:
        from agents.registry import resolve

        count = self.num_players - 1
        if isinstance(opponent, (str, Agent)):
            items: list[Any] = [opponent] * count
        elif isinstance(opponent, Sequence) and len(opponent) == count:
            items = list(opponent)
        else:
            raise ValueError(
                f"opponent must be an agent name, an Agent, or a list of {count} of them "
                f"(one per other seat), got {opponent!r}"
            )
        out: list[Agent] = []
        seen: set[int] = set()
        for item in items:
            if isinstance(item, str):
                agent = resolve(self.game_name, item)(0)  # ValueError naming unknown agents
                agent.name = item
            elif isinstance(item, Agent):
                if id(item) in seen:  # one object twice would share its RNG across seats
                    raise ValueError("pass a separate Agent object per opponent seat")
                agent = item
            else:
                raise ValueError(f"an opponent is an agent name or an Agent, got {item!r}")
            seen.add(id(agent))
            out.append(agent)
        return out

    # ------------------------------------------------------------------ gymnasium API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        rng = self.np_random
        self._state = self.game.init(1, int(rng.integers(0, 2**63 - 1)))
        if self.fixed_seat is None:
            self.seat = int(rng.integers(self.num_players))
        else:
            self.seat = self.fixed_seat
        for agent in self.opponents:
            agent.reset(seed=int(rng.integers(0, 2**63 - 1)))
        self._over = False
        self._play_opponents()  # no reward: no game ends before the learner's first move
        if self._over:  # not in these games; a learner must get a move in every episode
            raise RuntimeError(f"{self.game_name}: the game ended before the learner's turn")
        return self._observe(), self._info(False)

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self._state is None or self._over:
            raise RuntimeError("step() needs a running episode: call reset() first")
        a = self._check(action)
        self._replies = 0
        if not self._mask[a]:
            if self.illegal_action == "raise":
                raise ValueError(
                    f"illegal action {a} for seat {self.seat}; legal: "
                    f"{np.flatnonzero(self._mask).tolist()}"
                )
            self._over = True
            self._mask = np.zeros_like(self._mask)
            return self._observe(), -1.0, True, False, self._info(True)
        reward = self._apply(a)  # checked against the learner's mask above
        if not self._over:
            reward += self._play_opponents()
        return self._observe(), reward, self._over, False, self._info(False)

    def action_masks(self) -> np.ndarray:
        """(num_actions,) bool legal actions of the learner now (what MaskablePPO reads)."""
        return self._mask.copy()

    def render(self) -> None:
        return None

    # ------------------------------------------------------------------ internals
    def _check(self, action: Any) -> int:
        if isinstance(action, np.ndarray) and action.shape in ((), (1,)):
            action = action.reshape(()).item() if action.dtype.kind in "iu" else action
        n = self._num_actions
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise ValueError(f"action must be an integer in [0, {n}), got {action!r}")
        if not 0 <= action < n:
            raise ValueError(f"action {action} is out of range [0, {n})")
        return int(action)

    def _apply(self, action: int) -> float:
        """Step the game by ``action`` (legal: checked against the mask); the learner's reward.

        The learner's episode is over when the game is, or when it got its final reward
        (an elimination: the protocol gives a seat its nonzero final reward in the step that
        eliminates it, as the self-play VecEnv reads it too).
        """
        acts = np.array([action], dtype=np.int64)
        if self._fused:  # the mask is the kernel's: no second check inside the step
            rewards, done = self.game.step(self._state, acts, validate=False)
        else:
            rewards, done = self.game.step(self._state, acts)
        reward = float(rewards[0, self.seat])
        if bool(done[0]) or reward != 0.0:
            self._over = True
        return reward

    def _to_move(self) -> tuple[int, np.ndarray]:
        """(seat to act, (1, num_actions) bool mask): one fused call where the facade has it."""
        if self._fused:
            if self._view is None:
                self._view = self.game.learner_buffers(1)
            self.game.learner_view(self._state, self._view)
            return int(self._view.seat[0]), self._view.mask
        return int(self.game.current_player(self._state)[0]), self.game.legal_mask(self._state)

    def _play_opponents(self) -> float:
        """Opponents move until the learner is to act or its game ends; its reward meanwhile."""
        reward = 0.0
        self._replies = 0
        while not self._over:
            player, mask = self._to_move()
            if player == self.seat:
                self._mask = mask[0].astype(bool)  # a copy: the view is written again
                break
            seats = np.array([player], dtype=np.int64)
            agent = self.opponents[player if player < self.seat else player - 1]
            obs = self.game.observe(self._state, seats)
            act = np.asarray(agent.act(obs, mask, ActContext(self.game, self._state, seats)))
            a = int(act.reshape(-1)[0])
            if not (0 <= a < mask.shape[1] and mask[0, a]):
                raise RuntimeError(f"opponent {agent.name!r} (seat {player}) chose illegal {a}")
            reward += self._apply(a)
            self._replies += 1
        if self._over:
            self._mask = np.zeros_like(self._mask)
        return reward

    def _observe(self) -> np.ndarray:
        seats = np.array([self.seat], dtype=np.int64)
        obs = np.asarray(self.game.observe(self._state, seats)[0], dtype=np.float32)
        return obs

    def _info(self, illegal: bool) -> dict[str, Any]:
        return {
            "action_mask": self._mask.astype(np.int8),
            "seat": self.seat,
            "illegal_action": illegal,
            "opponent_moves": self._replies,
        }
