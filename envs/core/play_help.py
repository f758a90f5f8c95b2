"""What the terminal ``arena play`` modes of the board games share: any registry agent as
the opponent, and a reason why a typed move is illegal.

The reason is read off the legal moves of the position (the kernel's one legal-move
enumeration) and the board's occupancy, in the rules' notation: a kind of move that is
not legal in this phase at all, a square that is occupied or empty, no movable piece of
yours on a square, a piece that is not in your supply, a target it cannot reach.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from envs.core.agent import ActContext

__all__ = ["Opponent", "explain_illegal", "make_agent", "set_agent_factory", "typed_move"]

#: ``(game, name, seed) -> Agent``: how ``--opponent NAME`` becomes an agent.
AgentFactory = Callable[[str, str, int], Any]
_agent_factory: AgentFactory | None = None


def set_agent_factory(factory: AgentFactory | None) -> None:
    """Install the agent registry's ``make_agent`` for the play modes.

    Why a hook: ``envs`` sits below ``agents`` and must not import it, so the layer that
    starts a play mode (the ``arena play`` CLI, a test) hands the factory down.
    """
    global _agent_factory
    _agent_factory = factory


def make_agent(game: str, name: str, seed: int) -> Any:
    """A registry agent through the installed factory (ValueError if none is installed)."""
    if _agent_factory is None:
        raise ValueError(
            f"opponent {name!r} needs the agent registry: run `arena play {game} "
            f"--opponent {name}` (it installs the agents)"
        )
    return _agent_factory(game, name, seed)


_SQUARE = re.compile(r"[a-z][1-9][0-9]?")


def _kind(move: str) -> str:
    if move == "pass":
        return "pass"
    if "<>" in move:
        return "exchange"
    if move.startswith("x"):
        return "erase"
    if move.startswith("*"):
        return "marker"
    if "@" in move:
        return "placement"
    if "-" in move:
        return "move"
    return "other"


def _squares(move: str) -> list[str]:
    return _SQUARE.findall(move.split("@", 1)[1] if "@" in move else move)


def explain_illegal(
    move: str,
    legal: Sequence[str],
    phase: str | None = None,
    cell: Callable[[str], str | None] | None = None,
) -> str:
    """Why ``move`` (notation) is not among ``legal``; ``cell(square)`` gives what stands
    on a square (None: empty), ``phase`` names the phase for the message."""
    legal = list(legal)
    kind, in_phase = _kind(move), f" in this phase ({phase})" if phase else " now"
    kinds = sorted({_kind(m) for m in legal})
    same = [m for m in legal if _kind(m) == kind]
    if not same:
        allowed = ", ".join(kinds) or "none"
        return f"no {kind} is legal{in_phase}; legal kinds: {allowed}"
    if kind == "pass":
        return "you may not pass: you have a legal move"
    squares = _squares(move)
    if kind == "placement":
        what, square = move.split("@", 1)[0], (squares or ["?"])[0]
        here = [m for m in same if _squares(m)[:1] == [square]]
        if not here:
            held = cell(square) if cell is not None else None
            if held:
                return f"{square} is occupied ({held})"
            return f"nothing may be placed on {square}{in_phase}"
        if not any(m.split("@", 1)[0] == what for m in same):
            return f"{what} cannot be placed{in_phase} (not in your supply or hand)"
        ok = sorted({m.split("@", 1)[0] for m in here})
        return f"{what} cannot go on {square}; there: {', '.join(ok)}"
    if not squares:
        return f"not a legal {kind}"
    src = squares[0]
    starts = [m for m in same if _squares(m)[:1] == [src]]
    if not starts:
        held = cell(src) if cell is not None else None
        if cell is not None and not held:
            return f"{src} is empty"
        on = f" ({held})" if held else ""
        return f"no {kind} starts at {src}{on}: not your piece, or it cannot {kind} now"
    targets = ", ".join(m for m in starts)
    return f"{move} is not a legal {kind}; from {src}: {targets}"


class Opponent:
    """A registry agent (random, heuristic, mcts:N, ...: see :func:`set_agent_factory`)
    playing one seat of a batch-of-one game through the game's facade.

    Without an installed factory (``python -m envs.<game>.play``), ``random`` still works:
    it draws the facade's random legal action from the game's own key.
    """

    def __init__(self, game: str, name: str, seed: int | None) -> None:
        self.name = name
        self.agent = (
            None
            if name == "random" and _agent_factory is None
            else make_agent(game, name, seed=0 if seed is None else int(seed))
        )

    def act(self, facade: Any, state: Any, seat: int) -> int:
        """The agent's action for ``seat`` in ``state`` (a batch of one game)."""
        if self.agent is None:
            return int(np.asarray(facade.random_actions(state)).reshape(-1)[0])
        seats = np.array([seat], np.int64)
        mask = np.asarray(facade.legal_mask(state), bool)
        obs = facade.observe(state, seats)
        ctx = (
            ActContext(game=facade, state=state, seats=seats) if self.agent.needs_context else None
        )
        return int(np.asarray(self.agent.act(obs, mask, ctx)).reshape(-1)[0])


def typed_move(
    env: Any,
    text: str,
    phase: str | None = None,
    cell: Callable[[str], str | None] | None = None,
) -> int | None:
    """The action of the move typed as ``text`` if it is legal in ``env`` now; otherwise
    print why not (malformed, or :func:`explain_illegal`'s reason) and return None."""
    try:
        action = env.str_to_action(text)
    except ValueError as exc:
        print(f"not accepted: {exc}")
        return None
    if action not in env.legal_actions():
        why = explain_illegal(env.action_to_str(action), env.legal_moves(), phase, cell)
        print(f"illegal: {why} (help lists the legal moves)")
        return None
    return int(action)
