"""Matches between OpenSpiel bots and our agents on the registered games.

Our agents (``agents.base.Agent``) act on batches of (observation planes, legal mask);
:func:`agent_policy` feeds them one OpenSpiel state at a time through the game's
observation tensor (the kernel's planes) and legal actions, so an OpenSpiel bot and one of
our agents can sit at the same table. Chance nodes are sampled from their outcomes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pyspiel

Policy = Callable[[Any], int]  # OpenSpiel state -> action


def agent_policy(agent: Any) -> Policy:
    """Wrap one of our agents as a policy over OpenSpiel states (legal by construction)."""

    def act(state: Any) -> int:
        player = state.current_player()
        shape = state.get_game().observation_tensor_shape()
        obs = np.asarray(state.observation_tensor(player), np.float32).reshape(shape)
        mask = np.zeros(state.get_game().num_distinct_actions(), bool)
        mask[state.legal_actions()] = True
        action = int(agent.act(obs[None], mask[None])[0])
        if not mask[action]:
            raise RuntimeError(f"agent {getattr(agent, 'name', agent)} chose illegal {action}")
        return action

    return act


def bot_policy(bot: Any) -> Policy:
    """Wrap an OpenSpiel bot (``step(state) -> action``) as a policy."""

    def act(state: Any) -> int:
        return int(bot.step(state))

    return act


def uniform_policy(rng: np.random.Generator) -> Policy:
    """Uniform over legal actions (when no agent is at hand)."""

    def act(state: Any) -> int:
        legal = state.legal_actions()
        return int(legal[rng.integers(len(legal))])

    return act


def play_game(
    game: pyspiel.Game, policies: Sequence[Policy], rng: np.random.Generator
) -> tuple[list[float], int]:
    """Play one game, seat i using ``policies[i]``; returns (returns, number of moves)."""
    if len(policies) != game.num_players():
        raise ValueError(f"need {game.num_players()} policies, got {len(policies)}")
    state = game.new_initial_state()
    moves = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            action = int(rng.choice(outcomes, p=probs))
        else:
            player = state.current_player()
            action = policies[player](state)
            if action not in state.legal_actions():
                raise RuntimeError(f"seat {player} chose illegal action {action}")
            moves += 1
        state.apply_action(action)
    return [float(r) for r in state.returns()], moves


def play_match(
    game: pyspiel.Game,
    contenders: Sequence[Policy],
    games: int,
    seed: int = 0,
) -> np.ndarray:
    """``games`` games rotating the seats; returns (games, len(contenders)) rewards per contender.

    Game k seats contender ``(k + i) % n`` at seat i, so each one plays every seat.
    """
    n = game.num_players()
    if len(contenders) != n:
        raise ValueError(f"need {n} contenders, got {len(contenders)}")
    rng = np.random.default_rng(seed)
    out = np.zeros((games, n))
    for k in range(games):
        order = [(k + i) % n for i in range(n)]
        returns, _ = play_game(game, [contenders[c] for c in order], rng)
        for seat, c in enumerate(order):
            out[k, c] = returns[seat]
    return out
