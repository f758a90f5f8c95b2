"""Moon Shot (``moon_shot_v0``): flick a pyramid tree into a tube on the Moon.

David Artman's Icehouse dexterity game (rules in ``docs/moon_shot.md``, MS-1..MS-21),
simulated in 2-D from above by a batched Numba physics kernel. Players take turns knocking
over a tree of three pyramids (large, medium, small) standing at the origin towards a tube
lying on its side; pieces that come to rest in the tube score.

| Import | ``from envs import moon_shot_v0`` |
|---|---|
| Actions | Continuous: ``Box(-1, 1, (4,), float32)`` |
| Parallel API | Yes: ``moon_shot_v0.parallel_env()`` is the *realtime* variant (MS-18) |
| Manual control | No |
| Agents | ``agents = ["player_0", ..., "player_{P-1}"]``, ``num_players`` P in 2..8 |
| Action shape | ``(4,)`` |
| Action values | ``[-1, 1]`` per entry |
| Observation shape | ``(2P + 10,)`` float32 |
| Observation values | ``[0, high]``, finite (see the table below) |

## Actions (MS-5)

Entry k of the action in ``[-1, 1]`` maps linearly to: 0 aim angle ``[-20, +20]`` degrees from
the +x axis (the tube's axis); 1 fingertip speed ``[0.1, 2.0]`` m/s; 2 strike height
``[0, 44.9]`` mm (which piece is struck: large below 9.8 mm, medium below 19.5 mm, small
above, MS-2); 3 off-centre offset ``[-1, 1]`` (spin). Execution noise (MS-6) is drawn from the
env's seeded RNG and scaled by ``noise`` (0 makes shots deterministic).

``env()`` clips out-of-range actions (PettingZoo's continuous convention:
``ClipOutOfBoundsWrapper``, with a warning); ``raw_env`` rejects them with ``ValueError``. A
NaN or infinite entry, or a wrong shape, is always a ``ValueError`` (in ``env()`` too, checked
before clipping) and leaves the game untouched.

## Observations

A flat float32 vector, seat-relative (own seat first):

| index | meaning |
|---|---|
| 0 .. P-1 | points per seat: own, then the following seats in shooting order |
| P .. 2P-1 | last-landing recency per seat (same order): ``1 / (1 + shots since it)``, 0 = never landed |
| 2P | completed rounds |
| 2P+1 | rounds left (``max_rounds`` - completed rounds) |
| 2P+2 | seats until the observer shoots: ``(seat to shoot - own seat) mod P`` (0 in realtime) |
| 2P+3 | own seat index (seat 0 shoots first in every round) |
| 2P+4 | tube distance in metres (MS-3) |
| 2P+5 | close tube variant (0/1) |
| 2P+6 | full landing variant (0/1) |
| 2P+7 | full colony variant (0/1) |
| 2P+8 | target score (0 = none) |
| 2P+9 | noise scale (MS-6) |

"Shots since" counts turns in the AEC env and steps in the realtime env.

## Rewards (MS-17)

Zero until the game ends. Then the winner gets +1 and every other player -1; if the tie
rules leave several players they draw with 0 each, the rest -1. The game ends (a
*termination* for everybody, never a truncation) on

* a crack (large piece in the tube, MS-11): fewest points wins; ties go to the cracker, else
  the least recent last landing (never landed counts as least recent; several such draw), MS-15;
* a colony (small and medium in the tube, MS-12): the shot scores as a landing, then most
  points wins; ties go to the colonist, else the most recent last landing; if none of the
  tied players ever landed they draw, MS-14;
* ``target_score`` reached at the end of a turn (MS-19): that player wins at once;
* ``max_rounds`` rounds played (MS-16, default 30): ranked as after a colony by nobody.

A shot scores 2 for a controlled landing (small in the tube, its apex pointing back towards
the launch point: angle < 90 degrees), 1 for a crash landing, 0 otherwise (MS-13).

## Infos

After every shot each agent's ``infos[agent]["last_shot"]`` describes it: ``shooter``,
``poses`` (3, 3) resting ``[x, y, heading]`` of small/medium/large (centre of mass, metres,
radians), ``toppled``, ``in_tube``, ``fully_in_tube`` (3,) bool, ``points`` and ``kind``
(``"nothing"``, ``"crash landing"``, ``"controlled landing"``, ``"colony"``, ``"crack"``) and
``scores`` (all seats). When the game ends ``infos[agent]["outcome"]`` names the ending.

## Arguments

``num_players`` (2..8, default 2; ValueError otherwise), ``noise`` (1.0, MS-6),
``close_tube`` (MS-20: minimum tube distance half a tube length), ``full_landing``,
``full_colony`` (MS-10/MS-20), ``target_score`` (None, MS-19), ``max_rounds`` (30, MS-16),
``tube_distance`` (None = the variant's minimum: 0.16 m, or 0.08 m with ``close_tube``;
smaller values are a ValueError, MS-3), ``params`` (a ``PhysicsParams``),
``render_mode`` (``"ansi"``, ``"rgb_array"``, ``"human"``). ``parallel_env`` also takes
``clip_actions`` (default True, as ``env()``).

## Realtime variant (MS-18)

``parallel_env()``: every player has their own tree and tube and all shoot at once (one
batched physics call per step). All shots of a step are scored. If any cracked, MS-15
applies with every cracker as "the cracker"; else if any colonised, MS-14 with every
colonist as "the colonist"; landings of the same step are equally recent, and when the tie
rules leave several players they draw. With ``target_score``, if several reach it in the
same step the most points win (ties draw). A step is a round for ``max_rounds``.

## Rendering

``ansi``: scores, seat to shoot and the last shot in text. ``rgb_array``: a fixed
``256 x 480 x 3`` uint8 top-down picture of the table, tube, pieces (MS-4 pentagon
footprints, small yellow / medium orange / large red) and the last shot's trajectories
(usable with Gymnasium's ``RecordVideo``); the realtime env stacks one table per player.
``human``: replays each shot in a pygame window (pygame is imported only then).

## State

``state()`` is PettingZoo's global state (both envs): the observation of seat 0, whose
seat-relative order is the absolute one, in ``state_space``. The batch state (keys, scores,
history) is the attribute ``game_state``. ``step``, ``observe`` and ``state`` before
``reset`` raise ``RuntimeError``; so does ``raw_env().step`` after the game is over.
Every Moon Shot env (AEC, parallel, solo, vector) checks actions the same way: the shape,
finite entries and a real dtype (a complex action is a ``ValueError``); a parallel env's
message names the agent at fault.

## Seeding

``reset(seed=s)`` seeds the game's noise key; the noise of a shot depends only on that key
and the shot's number (and seat in realtime), so the same seed and actions replay the same
game.

## Version history

* v0: first release.
"""

from __future__ import annotations

from typing import Any

from envs.moon_shot.env import MoonShotEnv, MoonShotParallelEnv, make_env

__all__ = ["env", "raw_env", "parallel_env"]

raw_env = MoonShotEnv


def env(**kwargs: Any) -> Any:
    """The turn-based AEC env with PettingZoo's standard wrappers (clip, order enforcing)."""
    return make_env(**kwargs)


def parallel_env(**kwargs: Any) -> MoonShotParallelEnv:
    """The realtime variant (MS-18) as a PettingZoo Parallel env (clips actions by default)."""
    kwargs.setdefault("clip_actions", True)
    return MoonShotParallelEnv(**kwargs)
