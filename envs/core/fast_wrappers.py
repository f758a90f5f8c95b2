"""PettingZoo classic's ``env()`` wrapper stack with the per-move attribute reads made direct.

``TerminateIllegalWrapper(-1) -> AssertOutOfBoundsWrapper -> OrderEnforcingWrapper``, as
:func:`envs.core.turn_based.make_env` builds it, with two changes that keep the behaviour:

* the bookkeeping attributes every move reads (``agent_selection``, ``terminations``, ...)
  are properties that read the raw env, instead of ``BaseWrapper.__getattr__`` forwards
  (which run only after a failed lookup, once per wrapper: three per read). Order
  enforcing still raises ``AttributeError`` for its guarded names before ``reset``;
* an in-range Python ``int`` action skips gymnasium's ``Discrete.contains``; anything else
  goes through the wrapper's own check;
* a legal move takes a short path through the stack: ``last``, ``observe`` and ``step`` of
  the outer wrapper call the illegal-move wrapper directly (the bounds wrapper passes
  them through unchanged for such an action), and the illegal-move wrapper reads the raw
  env's bookkeeping directly. Every other case (before ``reset``, after the end, a dead
  agent, an illegal or out-of-space action, a non-``int`` action) runs PettingZoo's own
  code, so its errors, warnings and -1 are PettingZoo's.

Measured on the board games, the forwarding chain cost more than the game. With these
wrappers a random legal move of ``env()`` (``last`` + ``step``) costs 1.5-2x fewer CPU-seconds
than at commit 31200a2 and runs at 1.8-6x ``tictactoe_v3.env()`` in the same process
(2026-12-02, a loaded 2-core machine: the spread is noise; docs/benchmarks.md has the rows).
PettingZoo's ``api_test``, the illegal-move tests and a random-call-order comparison with
PettingZoo's own stack run on the result.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

#: Attributes read on every move, forwarded straight to the raw env.
HOT = (
    "agent_selection",
    "agents",
    "terminations",
    "truncations",
    "rewards",
    "infos",
    "_cumulative_rewards",
    "num_agents",
    "possible_agents",
)
#: Names ``OrderEnforcingWrapper`` refuses before ``reset`` (as its ``__getattr__`` does).
GUARDED = frozenset(
    {"rewards", "terminations", "truncations", "infos", "agent_selection", "num_agents", "agents"}
)


def _forward(name: str, guarded: bool) -> property:
    if guarded and name in GUARDED:

        def get_after_reset(self: Any) -> Any:
            if not self._has_reset:
                raise AttributeError(f"{name} cannot be accessed before reset")
            return getattr(self._raw, name)

        return property(get_after_reset)

    def get(self: Any) -> Any:
        return getattr(self._raw, name)  # wrappers never shadow these: read the raw env

    return property(get)


def _direct(cls: type, name: str, guarded: bool = False) -> type:
    """``cls`` with the HOT attributes read from the raw env (``self._raw``).

    It keeps ``cls``'s ``__name__`` (so ``str(env)`` reads as PettingZoo's) and gets the
    qualified name ``name`` of this module, where it is bound to that name, so that pickle
    finds it: ``pickle.dumps(<game>_v0.env())`` works as for PettingZoo's envs.
    """

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:  # noqa: N807
        cls.__init__(self, *args, **kwargs)  # type: ignore[misc]
        self._raw = self.env.unwrapped

    attrs: dict[str, Any] = {name: _forward(name, guarded) for name in HOT}
    attrs["__init__"] = __init__
    attrs["__doc__"] = cls.__doc__
    attrs["__module__"] = __name__
    attrs["__qualname__"] = name
    return type(cls.__name__, (cls,), attrs)


class _IntFastAssertOutOfBounds(wrappers.AssertOutOfBoundsWrapper):
    """``AssertOutOfBoundsWrapper`` whose in-range ``int`` actions skip ``Discrete.contains``."""

    def step(self, action: Any) -> None:
        if type(action) is int and 0 <= action < self._n_actions:
            self.env.step(action)
        else:
            super().step(action)


class _ShortTerminateIllegal(wrappers.TerminateIllegalWrapper):
    """``TerminateIllegalWrapper`` whose observe and legal steps read the raw env directly.

    ``step`` of a legal ``int`` action of a live agent, whose observation (with its mask)
    this wrapper saw, clears the remembered observation and steps the env, as PettingZoo's
    does; any other action runs PettingZoo's ``step`` with nothing changed before it.
    """

    def observe(self, agent: Any) -> Any:
        obs = self.env.observe(agent)
        raw = self._raw
        if agent == raw.agent_selection:
            self._prev_obs = obs
            infos = raw.infos
            self._prev_info = infos[agent] if agent in infos else {}
        return obs

    def step(self, action: Any) -> None:
        raw = self._raw
        agent = raw.agent_selection
        prev = self._prev_obs
        if (
            type(action) is int
            and type(prev) is dict
            and "action_mask" in prev
            and not raw.terminations[agent]
            and not raw.truncations[agent]
            and prev["action_mask"][action]
        ):
            self._prev_obs = None
            self._prev_info = None
            self.env.step(action)
        else:
            super().step(action)


class _ShortOrderEnforcing(wrappers.OrderEnforcingWrapper):
    """``OrderEnforcingWrapper`` that hands legal-move traffic straight to ``self._inner``.

    ``_inner`` is the illegal-move wrapper under the bounds wrapper; the bounds wrapper
    does nothing to ``observe`` nor to an in-range ``int`` step, so skipping it changes
    nothing. Before ``reset`` and after the end PettingZoo's own methods run.
    """

    def observe(self, agent: Any) -> Any:
        if self._has_reset:
            return self._inner.observe(agent)
        return super().observe(agent)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            return super().last(observe)
        raw = self._raw
        agent = raw.agent_selection
        assert agent is not None
        observation = self._inner.observe(agent) if observe else None
        return (
            observation,
            raw._cumulative_rewards[agent],
            raw.terminations[agent],
            raw.truncations[agent],
            raw.infos[agent],
        )

    def step(self, action: Any) -> None:
        if (
            self._has_reset
            and type(action) is int
            and 0 <= action < self._n_actions
            and self._raw.agents
        ):
            self._has_updated = True
            self._inner.step(action)
        else:
            super().step(action)


TerminateIllegal = _direct(_ShortTerminateIllegal, "TerminateIllegal")
AssertOutOfBounds = _direct(_IntFastAssertOutOfBounds, "AssertOutOfBounds")
OrderEnforcing = _direct(_ShortOrderEnforcing, "OrderEnforcing", guarded=True)


def make_fast_env(raw_cls: Callable[..., AECEnv]) -> Callable[..., AECEnv]:
    """The ``env()`` constructor of a game with one ``Discrete`` action space for all agents."""

    def env(**kwargs: Any) -> AECEnv:
        raw = raw_cls(**kwargs)
        illegal: Any = TerminateIllegal(raw, illegal_reward=-1)
        bounds: Any = AssertOutOfBounds(illegal)
        bounds._n_actions = int(raw.action_space(raw.possible_agents[0]).n)
        order: Any = OrderEnforcing(bounds)
        order._inner = illegal
        order._n_actions = bounds._n_actions
        return order

    env.__doc__ = (
        f"{raw_cls.__name__} wrapped as PettingZoo classic envs are (an illegal move ends the "
        "game with -1 for the mover; out-of-space actions assert; call order is enforced)."
    )
    return env
