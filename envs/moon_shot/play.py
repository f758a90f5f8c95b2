"""Play Moon Shot in the terminal against random shooters: ``arena play moon_shot [options]``.

You shoot for one or more seats of the turn-based AEC env (``moon_shot_v0``); the other
seats fire uniformly random actions, or ``--opponent AGENT`` shoots for them (any registry
agent of the game: ``random``, ``aim``, ``planner``). A shot is typed in one of two forms:

* four numbers in ``[-1, 1]`` (commas or spaces), the env's action itself (MS-5):
  ``0 -0.2 0.5 -0.5`` = aim, speed, strike height, spin offset;
* physical units, all four keys in any order: ``aim=-3 speed=0.8 z=30 spin=0.2`` with the
  aim angle in degrees (-20..20, 0 points at the tube), fingertip speed in m/s (0.1..2.0),
  strike height in mm (0..44.9: large below 9.8, medium below 19.5, small above, MS-2) and
  the off-centre offset in [-1, 1] (spin). Unit suffixes ``deg``, ``m/s`` and ``mm`` may be
  written (``aim=-3deg``).

Commands: ``help`` (the mapping and the current scores), ``board`` (show the table again),
``random`` (fire a random shot for yourself), ``quit``. Malformed input (wrong count, a
value out of range, NaN, unparsable text, unknown or missing keys) is re-prompted with the
reason; the game is untouched. After every shot its outcome (points, pieces in the tube,
crack or colony) and, with ``--render ascii``, the ansi text and a character map of the
table are printed; at the end the result.
"""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any, TextIO

import numpy as np

from envs.core import cli_text
from envs.core.records import moon_shot_config_dict, now, save_play_record
from envs.moon_shot.env import MoonShotEnv
from envs.moon_shot.params import PIECE_NAMES, PhysicsParams

COMMANDS = "commands: help, board, random, quit"

# physical keys of a shot: name -> (index in the action, unit suffixes accepted)
_KEYS: dict[str, tuple[int, tuple[str, ...]]] = {
    "aim": (0, ("deg", "°")),
    "speed": (1, ("m/s", "mps")),
    "z": (2, ("mm",)),
    "spin": (3, ()),
}


def physical_ranges(params: PhysicsParams) -> dict[str, tuple[float, float]]:
    """The MS-5 range of each physical key in the units typed (degrees, m/s, mm, offset)."""
    return {
        "aim": (-params.theta_max_deg, params.theta_max_deg),
        "speed": (params.v_min, params.v_max),
        "z": (params.z_min * 1000.0, params.z_max * 1000.0),
        "spin": (-params.o_max, params.o_max),
    }


def to_physical(action: np.ndarray, params: PhysicsParams) -> dict[str, float]:
    """The MS-5 linear map of an action in [-1, 1]^4 to typed units (before noise, MS-6)."""
    out = {}
    for name, (lo, hi) in physical_ranges(params).items():
        a = float(action[_KEYS[name][0]])
        out[name] = lo + (a + 1.0) * 0.5 * (hi - lo)
    return out


def _number(text: str, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{what}: {text!r} is not a number") from None
    if not math.isfinite(value):
        raise ValueError(f"{what}: {text!r} is not a finite number")
    return value


def parse_shot(text: str, params: PhysicsParams) -> np.ndarray:
    """A typed shot as a float32 action in [-1, 1]^4; ValueError naming the problem.

    Accepts four numbers in [-1, 1] or ``aim= speed= z= spin=`` in physical units (see the
    module docstring); nothing is clipped: out-of-range values are an error.
    """
    tokens = text.replace(",", " ").split()
    if not tokens:
        raise ValueError("empty shot")
    if any("=" in t for t in tokens):
        return _parse_physical(tokens, params)
    if len(tokens) != 4:
        raise ValueError(
            f"a shot is 4 numbers in [-1, 1] (aim speed height spin), got {len(tokens)}"
        )
    names = ("aim", "speed", "height", "spin")
    action = np.array([_number(t, n) for t, n in zip(tokens, names, strict=True)])
    bad = [f"{n}={v:g}" for n, v in zip(names, action, strict=True) if not -1.0 <= v <= 1.0]
    if bad:
        raise ValueError(f"numbers must lie in [-1, 1] (MS-5): {', '.join(bad)}")
    return action.astype(np.float32)


def _parse_physical(tokens: list[str], params: PhysicsParams) -> np.ndarray:
    ranges = physical_ranges(params)
    values: dict[str, float] = {}
    for tok in tokens:
        key, sep, raw = tok.partition("=")
        key = key.strip().lower()
        if not sep or key not in _KEYS:
            raise ValueError(
                f"{tok!r}: expected key=value with keys {', '.join(_KEYS)} "
                "(or four numbers in [-1, 1])"
            )
        if key in values:
            raise ValueError(f"{key} given twice")
        raw = raw.strip()
        for suffix in _KEYS[key][1]:
            if raw.lower().endswith(suffix):
                raw = raw[: -len(suffix)]
                break
        value = _number(raw, key)
        lo, hi = ranges[key]
        if not lo <= value <= hi:
            unit = {"aim": " deg", "speed": " m/s", "z": " mm", "spin": ""}[key]
            raise ValueError(f"{key}={value:g} is outside [{lo:g}, {hi:g}]{unit} (MS-5)")
        values[key] = value
    missing = [k for k in _KEYS if k not in values]
    if missing:
        raise ValueError(f"missing {', '.join(k + '=' for k in missing)} (all four keys needed)")
    action = np.empty(4)
    for key, (lo, hi) in ranges.items():
        a = -1.0 if hi == lo else 2.0 * (values[key] - lo) / (hi - lo) - 1.0
        action[_KEYS[key][0]] = min(max(a, -1.0), 1.0)  # rounding only: range checked above
    return action.astype(np.float32)


def help_text(env: MoonShotEnv) -> str:
    """The MS-5 mapping, the input forms, and the current scores."""
    p = env.config.params
    r = physical_ranges(p)
    zb_m, zb_s = p.z_base_medium * 1000.0, p.z_base_small * 1000.0
    lines = [
        "A shot (MS-5): four numbers a0 a1 a2 a3 in [-1, 1], mapped linearly to",
        f"  a0 aim angle   {r['aim'][0]:g}..{r['aim'][1]:g} deg from the tube's axis "
        "(0 = straight at the tube)",
        f"  a1 speed       {r['speed'][0]:g}..{r['speed'][1]:g} m/s fingertip speed",
        f"  a2 height      {r['z'][0]:g}..{r['z'][1]:g} mm strike height: large below "
        f"{zb_m:g}, medium below {zb_s:g}, small above (the struck piece flies fastest)",
        f"  a3 spin        {r['spin'][0]:g}..{r['spin'][1]:g} off-centre offset (spins the struck piece)",
        "or in physical units, all four keys: aim=-3 speed=0.8 z=30 spin=0.2 "
        "(degrees, m/s, mm, offset)",
        f"execution noise x{env.config.noise:g} (MS-6); tube mouth at "
        f"{env.config.distance * 1000:.0f} mm",
        "scoring: small in the tube 1 point (crash) or 2 (controlled: apex back towards you);",
        "  small and medium in: colony, game ends (most points win); large in: crack, no",
        "  points, game ends (fewest points win)",
        COMMANDS,
        "scores: "
        + ", ".join(
            f"{a} {int(env.game_state.scores[0, i])}" for i, a in enumerate(env.possible_agents)
        ),
    ]
    return "\n".join(lines)


def outcome_line(env: MoonShotEnv, shooter: str, action: np.ndarray) -> str:
    """One line for the shot just fired: what was aimed, its kind, points, pieces in the tube."""
    info = env.infos[shooter]["last_shot"]
    phys = to_physical(action, env.config.params)
    aimed = (
        f"aim={phys['aim']:+.1f}deg speed={phys['speed']:.2f}m/s z={phys['z']:.1f}mm "
        f"spin={phys['spin']:+.2f}"
    )
    inside = [n for n, flag in zip(PIECE_NAMES, info["in_tube"], strict=True) if flag]
    text = (
        f"{shooter} shoots {aimed}: {info['kind']}, +{info['points']} points; in the tube: "
        f"{', '.join(inside) if inside else 'nothing'}"
    )
    if info["kind"] == "crack":
        text += " -- the Moon is cracked (MS-11)"
    elif info["kind"] == "colony":
        text += " -- a colony (MS-12)"
    return text


def ascii_table(env: MoonShotEnv, cols: int = 72, rows: int = 9) -> str:
    """A character map of the table from above: tree ``+``, tube ``=``/``|``, pieces.

    Lying pieces are ``s m l`` (small, medium, large), standing ones ``S M L``; a piece off
    the map is shown at its edge.
    """
    cfg = env.config
    p = cfg.params
    dist = cfg.distance
    x_lo, x_hi = -0.03, dist + p.tube_length + 0.01
    half = p.tube_inner_diameter / 2.0 + p.tube_wall
    y_hi = half * 1.35
    grid = [[" "] * cols for _ in range(rows)]

    def cell(x: float, y: float) -> tuple[int, int]:
        c = int(round((x - x_lo) / (x_hi - x_lo) * (cols - 1)))
        r = int(round((y_hi - y) / (2 * y_hi) * (rows - 1)))
        return min(max(r, 0), rows - 1), min(max(c, 0), cols - 1)

    wall_top, _ = cell(0.0, half - p.tube_wall / 2)
    wall_bot, _ = cell(0.0, -(half - p.tube_wall / 2))
    _, c0 = cell(dist, 0.0)
    _, c1 = cell(dist + p.tube_length, 0.0)
    for c in range(c0, c1 + 1):
        grid[wall_top][c] = "="
        grid[wall_bot][c] = "="
    for r in range(wall_top, wall_bot + 1):
        grid[r][c1] = "|"
    r, c = cell(0.0, 0.0)
    grid[r][c] = "+"
    shots = env.last_shot
    if shots is not None:
        for k in (2, 1, 0):  # the small last, on top
            x, y, _ = shots.poses[0, k]
            r, c = cell(float(x), float(y))
            ch = "sml"[k]
            grid[r][c] = ch if shots.toppled[0, k] else ch.upper()
    return "\n".join("".join(row).rstrip() for row in grid)


def _parser() -> argparse.ArgumentParser:
    p = cli_text.ArgumentParser(
        prog="arena play moon_shot",
        description=__doc__.splitlines()[0] if __doc__ else None,
        epilog="shots: four numbers in [-1, 1], or aim=DEG speed=M/S z=MM spin=OFFSET",
    )
    p.add_argument("--players", type=int, default=2, help="number of players, 2..8")
    p.add_argument(
        "--seat", default="0", help="seat(s) you play, e.g. 0 or 0,2 (seat 0 shoots first)"
    )
    p.add_argument("--seed", type=int, default=None, help="seeds the noise and random shooters")
    p.add_argument(
        "--opponent", default="random", metavar="AGENT",
        help="registry agent for the other seats: random, aim, planner (random)",
    )  # fmt: skip
    p.add_argument("--noise", type=float, default=1.0, help="execution noise scale (MS-6)")
    p.add_argument("--max-rounds", type=int, default=30, help="round limit (MS-16)")
    p.add_argument("--target-score", type=int, default=None, help="target score (MS-19)")
    p.add_argument("--close-tube", action="store_true", help="close tube variant (MS-20)")
    p.add_argument("--render", choices=["ascii", "none"], default="ascii", help="show the table")
    p.add_argument(
        "--record", default="runs/records/play_moon_shot.jsonl", metavar="FILE",
        help="append the finished game's record here ('' for none)",
    )  # fmt: skip
    return p


def _agent_shot(agent: Any, env: MoonShotEnv, seat: int) -> np.ndarray:
    """A registry agent's shot (MS-5 action) for ``seat`` of the env's batch of one."""
    from envs.core.agent import ActContext

    seats = np.array([seat], np.int64)
    obs = env.game.observe(env.game_state, seats)
    ctx = (
        ActContext(game=env.game, state=env.game_state, seats=seats)
        if agent.needs_context
        else None
    )
    shot = np.asarray(agent.act(obs, None, ctx), np.float32).reshape(-1, 4)[0]
    return np.clip(shot, -1.0, 1.0)


def _seats(text: str, players: int) -> list[int]:
    try:
        seats = sorted({int(x) for x in text.split(",") if x.strip()})
    except ValueError:
        raise ValueError(f"--seat must be seat numbers like 0 or 0,2, got {text!r}") from None
    if not seats or any(not 0 <= s < players for s in seats):
        raise ValueError(f"--seat must name seats in 0..{players - 1}, got {text!r}")
    return seats


def main(argv: list[str] | None = None, stdin: TextIO | None = None) -> int:
    """Run one game; 0 when it ends or the player quits (EOF quits), 2 on bad options.

    ``stdin`` defaults to ``sys.stdin`` (a parameter so that tests can feed lines).
    """
    args = _parser().parse_args(argv)
    stream = sys.stdin if stdin is None else stdin
    try:
        env = MoonShotEnv(
            num_players=args.players,
            noise=args.noise,
            max_rounds=args.max_rounds,
            target_score=args.target_score,
            close_tube=args.close_tube,
            render_mode="ansi" if args.render == "ascii" else None,
        )
        seats = _seats(args.seat, args.players)
        opponent = None
        if args.opponent != "random":  # random keeps its own stream (below)
            from envs.core.play_help import make_agent

            opponent = make_agent("moon_shot", args.opponent, seed=args.seed or 0)
    except (ValueError, ImportError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    env.reset(seed=args.seed)
    # the random shooters' stream, independent of the env's noise stream
    rng = np.random.default_rng(None if args.seed is None else [args.seed, 1])
    params = env.config.params
    mine = [env.possible_agents[s] for s in seats]
    print(
        f"Moon Shot, {args.players} players; you are {', '.join(mine)}. "
        f"Type a shot (e.g. 0 -0.2 0.5 -0.5 or aim=0 speed=0.86 z=33.7 spin=-0.5); {COMMANDS}"
    )

    def show() -> None:
        if env.render_mode is not None:
            print(env.render())
            print(ascii_table(env))

    show()
    started, key, moves = now(), int(env.game_state.key[0]), []  # for the game record
    while not all(env.terminations.values()):
        agent = env.agent_selection
        if agent not in mine and opponent is not None:
            action = _agent_shot(opponent, env, env.possible_agents.index(agent))
        elif agent not in mine:
            action = rng.uniform(-1.0, 1.0, 4).astype(np.float32)
        else:
            print(f"{agent} to shoot> ", end="", flush=True)
            line = stream.readline()
            if not line:
                print("\nbye")
                return 0
            text = line.strip()
            cmd = text.lower()
            if not text:
                continue
            if cmd in ("quit", "exit"):
                print("bye")
                return 0
            if cmd in ("help", "?"):
                print(help_text(env))
                continue
            if cmd == "board":
                print(env.render() if env.render_mode is not None else help_text(env))
                if env.render_mode is not None:
                    print(ascii_table(env))
                continue
            if cmd == "random":
                action = rng.uniform(-1.0, 1.0, 4).astype(np.float32)
            else:
                try:
                    action = parse_shot(text, params)
                except ValueError as exc:
                    print(f"not accepted: {exc}")
                    continue
        try:
            env.step(action)
        except ValueError as exc:  # pragma: no cover - parse_shot already checks everything
            print(f"not accepted: {exc}")
            continue
        moves.append((env.possible_agents.index(agent), [float(x) for x in action]))
        print(outcome_line(env, agent, action))
        show()
    any_agent = env.possible_agents[0]
    outcome = env.infos[any_agent].get("outcome", "over")
    result = ", ".join(f"{a} {env.rewards[a]:+.0f}" for a in env.possible_agents)
    verdicts = []
    for a in mine:
        r = env.rewards[a]
        verdicts.append(f"{a} {'wins' if r > 0 else 'loses' if r < 0 else 'draws'}")
    scores = ", ".join(
        f"{a} {int(env.game_state.scores[0, i])}" for i, a in enumerate(env.possible_agents)
    )
    names = ["you" if a in mine else args.opponent for a in env.possible_agents]
    config = moon_shot_config_dict(env.config)
    note = save_play_record(args.record, "moon_shot", config, names, moves, f"key={key}", started)
    if note:
        print(note)
    print(f"game over: {outcome}; points {scores}; rewards {result} ({'; '.join(verdicts)})")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
