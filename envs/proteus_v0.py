"""Proteus: the game whose rules are tiles on the board (Waitsman, Kadon 1983).

Rules reference (PR-1 .. PR-17, in the project's words) with design notes:
``docs/proteus.md``.

| Import             | ``from envs import proteus_v0``                                   |
|--------------------|-------------------------------------------------------------------|
| Actions            | Discrete                                                          |
| Parallel API       | No                                                                |
| Manual control     | ``arena play proteus`` / ``python -m envs.proteus.play``          |
| Agents             | ``agents = ["black", "white"]`` (black moves first, PR-4)        |
| Number of agents   | 2                                                                 |
| Action shape       | (1,)                                                              |
| Action values      | Discrete(226)                                                     |
| Observation shape  | (3, 3, 35)                                                        |
| Observation values | [0, 1]                                                            |

A 3x3 board starts empty. Players place the nine rule tiles (brown = movement, turquoise
= exchange, gold = goal; each with a circle, square or triangle hole) and their three
pieces; a piece on a tile of its shape turns that tile face up and its inscription becomes
the rule of its colour (PR-3, PR-6, PR-7). Once everything is placed, players move pieces
or exchange tiles as the face-up rules allow, and win by the face-up goal (PR-15, PR-16).

Observation space
-----------------
``observe(agent)`` returns ``{"observation": float32 (3, 3, 35), "action_mask": int8
(226,)}``; the mask is all zeros for the agent not to act and after the game. Planes are
from the observing agent's point of view (row 0 = rank 3, column 0 = file a):

| planes | meaning                                                                 |
|--------|-------------------------------------------------------------------------|
| 0-8    | tile ``3*colour + shape`` on the square (colour: brown, turquoise, gold; shape: circle, square, triangle) |
| 9      | the tile on the square is face up                                       |
| 10-12  | observer's circle / square / triangle piece on the square               |
| 13-15  | opponent's pieces likewise                                              |
| 16-24  | constant: tile k still in the pool                                      |
| 25-27  | constant: observer's circle / square / triangle still in hand           |
| 28-30  | constant: opponent's pieces still in hand                               |
| 31     | constant: movement phase                                                |
| 32     | constant: the observer is to move                                       |
| 33     | constant: turn / max_turns                                              |
| 34     | constant: (occurrences of this position - 1) / 2 (PR-17 repetition)     |

Action space
------------
One ``Discrete(226)``; squares ``sq = 3*row + col`` (0 = a3, top-left; 8 = c1); tiles
``3*colour + shape``:

| actions             | count | meaning (notation)                                        |
|---------------------|-------|-----------------------------------------------------------|
| ``9*tile + sq``     | 81    | put a pool tile face down on an empty square (``Mo@b2``)  |
| ``81 + 9*shape + sq``| 27   | put your piece on a vacant tile (``s@b2``)                |
| ``108 + 9*src + dst``| 81   | move your piece (``b2-c3``; src == dst never legal)       |
| ``189 + pair``      | 36    | exchange two tiles (``a1<>c3``); pairs (i < j) of square indices in lexicographic order |
| ``225``             | 1     | pass (``pass``), legal only when nothing else is (PR-11, PR-14) |

``action_to_str`` / ``str_to_action`` (module functions and env methods) use exactly the
rules file's notation: tile ``[MTG][ost]`` (M move/brown, T trade/turquoise, G goal/gold;
o circle, s square, t triangle), squares ``a``-``c`` x ``1``-``3`` (rank 1 at the bottom),
exchanges with the smaller square first in the order a1, b1, c1, a2, ..., c3.

Rewards
-------
+1 for the winner, -1 for the loser, 0 each for a draw, given in the step that ends the
game. Draws (PR-17: third occurrence of a position, or ``max_turns`` turns, default 200)
are terminations, never truncations. ``raw_env`` raises ``ValueError`` naming the problem
on out-of-range, malformed or illegal actions and leaves the state untouched; ``env()``
is wrapped like PettingZoo classic envs (an illegal move loses with -1).

Position text
-------------
``to_text()`` gives one line that ``reset(options={"position": text})`` loads; it carries
the turn counter, ``max_turns`` and the repetition history, so a restored game continues
exactly::

    .,.,./.,.,./.,.,. b 0/200 h=0ffffff000000000          # the start
    .,.,./.,Mo+:bo,./Gt,.,. w 3/200 h=1fffff4009010000    # after Mo@b2 Gt@a1 o@b2

Ranks 3, 2, 1 separated by ``/``, squares a, b, c by ``,``; a square is ``.`` or a tile,
``+`` when face up, then ``:`` and a piece (``b``/``w`` + shape). Then the mover
(``b``/``w``), ``turn/max_turns``, optionally ``h=`` the history since the last placement
as hexadecimal packed positions (last = current; omitted = just the current position) and
``result=black|white|repetition|turns`` for a finished game. A hand-written movement
position::

    env.reset(options={"position": "Mo+:bo,Ts,Gt/Ms:ws,Tt+:bt,Go+:wo/Mt:wt,To:bs,Gs b 40/200"})
    env.legal_moves()  # ['a3-b3', 'b2-b3', 'b2-c3', 'b2-c1', 'b1-c1', 'c2<>a3', ...]

Arguments
---------
``env(render_mode=None, max_turns=200)`` / ``raw_env(...)``; render modes ``ansi`` (text
board), ``rgb_array`` (picture) and ``human`` (pygame window, imported lazily).
Batch consumers use :class:`ProteusBatch` (``envs.core.batch`` protocol) over the Numba
kernels in ``envs.proteus.kernel``.

Version history
---------------
* v0: initial release (rules file PR-1 .. PR-17).
"""

from envs.proteus.batch import ProteusBatch, state_from_text, text_of
from envs.proteus.constants import NUM_ACTIONS
from envs.proteus.env import ProteusEnv, env, raw_env
from envs.proteus.notation import action_to_str, str_to_action

__all__ = [
    "NUM_ACTIONS",
    "ProteusBatch",
    "ProteusEnv",
    "action_to_str",
    "env",
    "raw_env",
    "state_from_text",
    "str_to_action",
    "text_of",
]
