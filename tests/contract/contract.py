"""The batch-game contract (Pgx's ``api_test`` style): what every registered facade does.

``check_batch_game(make)`` runs every check on a facade built by ``make()``; each check is
also a function of its own, so ``test_contract.py`` can report them one by one for every
game of the registry (``envs/registry.py``), and a new game's author sees which part of the
protocol (``envs/core/batch.py``) is missing. Turn-based facades (a Discrete action space
with a legal mask) and continuous-action facades (``continuous = True``, ``legal_mask``
None, actions of shape ``action_shape`` in [-1, 1]) are both covered; the checks branch on
that only where the protocol does.

What is checked: init (shapes, dtypes, a seat to act, legal moves), step (reward and done
shapes, rewards in [-1, 1]), take/put (a gathered batch plays like the games it came
from, and is a copy), copy, observe (any seat), legal mask (random actions are legal, a
finished game has none and no seat), terminal (a game over stays over), auto-reset (a
finished game restarts at once), determinism under a seed, and independence of batch
size and of position in the batch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

Make = Callable[[], Any]
#: steps after which a random game must have ended at least once (auto-reset checks)
MAX_STEPS = 2000


def is_continuous(game: Any) -> bool:
    """True for a continuous-action facade (no legal mask)."""
    return bool(getattr(game, "continuous", False))


def actions_for(game: Any, state: Any) -> np.ndarray:
    """Random actions drawn from each game's own key (the facade's ``random_actions``)."""
    return np.asarray(game.random_actions(state))


def put(game: Any, state: Any, index: np.ndarray, sub: Any) -> None:
    """The facade's ``put`` when it has one, else the generic scatter of training."""
    if hasattr(game, "put"):
        game.put(state, index, sub)
        return
    from training.vec_env import put as generic_put

    generic_put(state, index, sub)


def trajectory(game: Any, state: Any, steps: int, auto_reset: bool = True) -> list[np.ndarray]:
    """Per step: observations of every game from seat 0, rewards, done, seat (one array
    per step with the batch axis first, so games can be compared across batches)."""
    out = []
    for _ in range(steps):
        seats = np.asarray(game.current_player(state), np.int64)
        obs = np.asarray(game.observe(state, np.zeros_like(seats)), np.float64)
        rewards, done = game.step(state, actions_for(game, state), auto_reset=auto_reset)
        b = len(seats)
        out.append(
            np.concatenate(
                [
                    obs.reshape(b, -1),
                    np.asarray(rewards, np.float64).reshape(b, -1),
                    np.asarray(done, np.float64).reshape(b, 1),
                    seats.reshape(b, 1).astype(np.float64),
                ],
                axis=1,
            )
        )
    return out


# -- the checks ------------------------------------------------------------------------------
def check_static(game: Any) -> None:
    """name, num_players, obs_shape (and num_actions or action_shape) are declared."""
    assert isinstance(game.name, str) and game.name
    assert int(game.num_players) >= 1
    assert all(int(d) > 0 for d in game.obs_shape)
    if is_continuous(game):
        assert all(int(d) > 0 for d in game.action_shape)
    else:
        assert int(game.num_actions) > 0


def check_init(game: Any, batch: int = 6) -> None:
    """init: B running games, each with a seat to act and (discrete) a legal action."""
    state = game.init(batch, 0)
    seats = np.asarray(game.current_player(state))
    assert seats.shape == (batch,)
    assert ((seats >= 0) & (seats < game.num_players)).all()
    over = np.asarray(game.terminated(state))
    assert over.shape == (batch,) and over.dtype == bool and not over.any()
    obs = np.asarray(game.observe(state, seats))
    assert obs.shape == (batch, *game.obs_shape)
    assert np.isfinite(obs.astype(np.float64)).all()
    mask = game.legal_mask(state)
    if is_continuous(game):
        assert mask is None
    else:
        mask = np.asarray(mask)
        assert mask.shape == (batch, game.num_actions) and mask.dtype == bool
        assert mask.any(axis=1).all()


def check_step(game: Any, batch: int = 6) -> None:
    """step: rewards (B, P) in [-1, 1] and done (B,) bool; actions of the right shape."""
    state = game.init(batch, 1)
    for _ in range(5):
        actions = actions_for(game, state)
        if is_continuous(game):
            assert actions.shape == (batch, *game.action_shape)
            assert (np.abs(actions) <= 1).all()
        else:
            assert actions.shape == (batch,)
        rewards, done = game.step(state, actions, auto_reset=True)
        rewards, done = np.asarray(rewards), np.asarray(done)
        assert rewards.shape == (batch, game.num_players)
        assert done.shape == (batch,) and done.dtype == bool
        assert (np.abs(rewards) <= 1).all()
        assert not rewards[~done].any() or game.num_players > 2  # P > 2: eliminations


def check_legal_actions(game: Any, batch: int = 8) -> None:
    """Random actions are legal under the mask (or inside [-1, 1]^k) all game long."""
    state = game.init(batch, 2)
    for _ in range(60):
        actions = actions_for(game, state)
        if is_continuous(game):
            assert (np.abs(actions) <= 1).all()
        else:
            mask = np.asarray(game.legal_mask(state))
            assert mask[np.arange(batch), actions].all()
        game.step(state, actions, auto_reset=True)


def check_terminal(game: Any, batch: int = 8) -> None:
    """Played to the end without auto-reset, a game is over for good: no seat (-1), no
    legal action, ``terminated`` True; its reward came in the step that ended it."""
    state = game.init(batch, 3)
    got = np.zeros((batch, game.num_players))
    for _ in range(MAX_STEPS):
        alive = np.flatnonzero(~np.asarray(game.terminated(state)))
        if len(alive) == 0:
            break
        sub = game.take(state, alive)
        rewards, _ = game.step(sub, actions_for(game, sub))
        got[alive] += np.asarray(rewards)
        put(game, state, alive, sub)
    else:
        raise AssertionError(f"random games did not end within {MAX_STEPS} steps")
    assert (np.asarray(game.current_player(state)) == -1).all()
    if not is_continuous(game):
        assert not np.asarray(game.legal_mask(state)).any()
    assert np.asarray(game.terminated(state)).all()
    assert (np.abs(got) <= 1).all()


def check_auto_reset(game: Any, batch: int = 8) -> None:
    """With auto_reset a finished game restarts at once: it is running after the step."""
    state = game.init(batch, 4)
    ended = 0
    for _ in range(MAX_STEPS):
        _, done = game.step(state, actions_for(game, state), auto_reset=True)
        assert not np.asarray(game.terminated(state)).any()
        seats = np.asarray(game.current_player(state))
        assert ((seats >= 0) & (seats < game.num_players)).all()
        if not is_continuous(game):
            assert np.asarray(game.legal_mask(state)).any(axis=1).all()
        ended += int(np.asarray(done).sum())
        if ended >= batch:
            return
    raise AssertionError(f"only {ended} games ended within {MAX_STEPS} auto-reset steps")


def check_take_and_copy(game: Any, batch: int = 6) -> None:
    """take gathers games (repeats allowed) as a copy; copy is deep; put writes back."""
    state = game.init(batch, 5)
    for _ in range(3):
        game.step(state, actions_for(game, state), auto_reset=True)
    seats = np.asarray(game.current_player(state))
    obs = np.asarray(game.observe(state, seats))
    index = np.array([batch - 1, 0, 0, 2])
    sub = game.take(state, index)
    np.testing.assert_array_equal(np.asarray(game.observe(sub, seats[index])), obs[index])
    np.testing.assert_array_equal(np.asarray(game.current_player(sub)), seats[index])
    copy = game.copy(state)
    game.step(sub, actions_for(game, sub), auto_reset=True)
    game.step(copy, actions_for(game, copy), auto_reset=True)
    np.testing.assert_array_equal(np.asarray(game.observe(state, seats)), obs)  # untouched
    # put writes a stepped sub-batch back into the games it came from
    back = game.take(state, np.array([1, 3]))
    game.step(back, actions_for(game, back), auto_reset=True)
    after = np.asarray(game.observe(back, np.zeros(2, np.int64)))
    put(game, state, np.array([1, 3]), back)
    np.testing.assert_array_equal(
        np.asarray(game.observe(state, np.zeros(batch, np.int64)))[[1, 3]], after
    )


def check_observe_any_seat(game: Any, batch: int = 4) -> None:
    """observe works from every seat's point of view, whoever is to act."""
    state = game.init(batch, 6)
    game.step(state, actions_for(game, state), auto_reset=True)
    for seat in range(game.num_players):
        obs = np.asarray(game.observe(state, np.full(batch, seat, np.int64)))
        assert obs.shape == (batch, *game.obs_shape)
        assert np.isfinite(obs.astype(np.float64)).all()


def check_determinism(game: Any, make: Make, batch: int = 8, steps: int = 40) -> None:
    """The same seed gives the same games (a fresh facade too); another seed differs."""
    a = trajectory(game, game.init(batch, 11), steps)
    other = make()
    b = trajectory(other, other.init(batch, 11), steps)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)
    c = trajectory(game, game.init(batch, 12), steps)
    assert any(not np.array_equal(x, y) for x, y in zip(a, c, strict=True))


def check_batch_independence(game: Any, steps: int = 40) -> None:
    """Game i's course depends on (seed, i) only: not on the batch size, nor on where a
    gathered game sits in the batch."""
    small = trajectory(game, game.init(4, 21), steps)
    large = trajectory(game, game.init(16, 21), steps)
    for x, y in zip(small, large, strict=True):
        np.testing.assert_array_equal(x, y[:4])
    order = np.array([3, 1, 2, 0])
    moved = trajectory(game, game.take(game.init(4, 21), order), steps)
    for x, y in zip(small, moved, strict=True):
        np.testing.assert_array_equal(x[order], y)


CHECKS: dict[str, Callable[[Any, Make], None]] = {
    "static": lambda g, m: check_static(g),
    "init": lambda g, m: check_init(g),
    "step": lambda g, m: check_step(g),
    "legal_actions": lambda g, m: check_legal_actions(g),
    "terminal": lambda g, m: check_terminal(g),
    "auto_reset": lambda g, m: check_auto_reset(g),
    "take_and_copy": lambda g, m: check_take_and_copy(g),
    "observe_any_seat": lambda g, m: check_observe_any_seat(g),
    "determinism": check_determinism,
    "batch_independence": lambda g, m: check_batch_independence(g),
}


def check_batch_game(make: Make) -> None:
    """Every check of the contract on the facade ``make()`` builds."""
    game = make()
    for check in CHECKS.values():
        check(game, make)
