"""``envs.moon_shot.play`` (``arena play moon_shot``) driven by fed input lines."""

from __future__ import annotations

import io

import numpy as np
import pytest

from envs.moon_shot.env import MoonShotEnv
from envs.moon_shot.params import PhysicsParams
from envs.moon_shot.play import main, parse_shot, physical_ranges, to_physical

P = PhysicsParams()
# The docs' example shot: at noise 0 a controlled landing (small in the tube, 2 points).
LANDING = "0 -0.2 0.5 -0.5"
LANDING_PHYS = "aim=0 speed=0.86 z=33.675 spin=-0.5"  # the same shot in MS-5 units


def _run(capsys: pytest.CaptureFixture, lines: str, argv: list[str]) -> tuple[int, str]:
    code = main(argv, stdin=io.StringIO(lines))
    return code, capsys.readouterr().out


def _prompts(out: str) -> int:
    return out.count("to shoot> ")


# ----------------------------------------------------------------------------- parsing
def test_ms5_parse_four_numbers_commas_or_spaces() -> None:
    np.testing.assert_array_equal(
        parse_shot("0 -0.2 0.5 -0.5", P), np.array([0, -0.2, 0.5, -0.5], np.float32)
    )
    np.testing.assert_array_equal(parse_shot(" 1, -1,0 ,1 ", P), [1, -1, 0, 1])
    assert parse_shot("0 0 0 0", P).dtype == np.float32


def test_ms5_parse_physical_units_is_the_linear_map() -> None:
    a = parse_shot("aim=-3 speed=0.8 z=30 spin=0.2", P)
    expect = [-3 / 20, 2 * (0.8 - 0.1) / 1.9 - 1, 2 * 30 / 44.9 - 1, 0.2]
    np.testing.assert_allclose(a, expect, rtol=1e-6)
    # any order, unit suffixes, upper-case keys
    b = parse_shot("SPIN=0.2 z=30mm speed=0.8m/s aim=-3deg", P)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(parse_shot(LANDING_PHYS, P), parse_shot(LANDING, P), atol=1e-6)
    # range ends map to the action's ends
    lo = parse_shot("aim=-20 speed=0.1 z=0 spin=-1", P)
    hi = parse_shot("aim=20 speed=2 z=44.9 spin=1", P)
    np.testing.assert_array_equal(lo, [-1, -1, -1, -1])
    np.testing.assert_array_equal(hi, [1, 1, 1, 1])


def test_ms5_to_physical_inverts_parse() -> None:
    a = parse_shot("aim=7.5 speed=1.3 z=12 spin=-0.4", P)
    phys = to_physical(a, P)
    assert phys == pytest.approx({"aim": 7.5, "speed": 1.3, "z": 12.0, "spin": -0.4}, abs=1e-5)
    assert physical_ranges(P)["z"] == pytest.approx((0.0, 44.9))


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("0 0 0", "4 numbers in [-1, 1]"),
        ("0 0 0 0 0", "got 5"),
        ("0 0 0 1.5", "spin=1.5"),
        ("-1.01 0 0 0", "must lie in [-1, 1]"),
        ("nan 0 0 0", "not a finite number"),
        ("0 inf 0 0", "not a finite number"),
        ("a b c d", "'a' is not a number"),
        ("aim=50 speed=1 z=3 spin=0", "aim=50 is outside [-20, 20] deg"),
        ("aim=0 speed=0.05 z=3 spin=0", "speed=0.05 is outside [0.1, 2] m/s"),
        ("aim=0 speed=1 z=45 spin=0", "z=45 is outside [0, 44.9] mm"),
        ("aim=0 speed=1 z=3 spin=-2", "spin=-2 is outside [-1, 1]"),
        ("aim=0 speed=1 z=nan spin=0", "z: 'nan' is not a finite number"),
        ("aim=0 speed=1", "missing z=, spin="),
        ("aim=0 aim=1 speed=1 z=3 spin=0", "aim given twice"),
        ("aim=0 speed=1 z=3 spin=0 tilt=4", "'tilt=4': expected key=value"),
        ("aim=0 speed=1 z=3 0", "'0': expected key=value"),
        ("aim=x speed=1 z=3 spin=0", "aim: 'x' is not a number"),
        ("", "empty shot"),
    ],
)
def test_ms5_bad_shot_text_names_the_problem(text: str, reason: str) -> None:
    with pytest.raises(ValueError) as exc:
        parse_shot(text, P)
    assert reason in str(exc.value)


# ----------------------------------------------------------------------------- playing
def test_play_bad_input_is_reprompted_and_state_untouched(capsys) -> None:
    bad = ["0 0 0", "nan 0 0 0", "0 0 0 2", "a b c d", "aim=50 speed=1 z=3 spin=0", "aim=0"]
    lines = "\n".join([*bad, LANDING, "quit"]) + "\n"
    code, out = _run(capsys, lines, ["--noise", "0", "--seed", "0"])
    assert code == 0
    assert out.count("not accepted: ") == len(bad)
    # every bad line was re-prompted: 6 bad + the good shot + quit
    assert _prompts(out) == len(bad) + 2
    # the good shot is still the game's first: the docs' controlled landing, 2 points
    assert "player_0 shoots aim=+0.0deg speed=0.86m/s z=33.7mm spin=-0.50: " in out
    assert "controlled landing, +2 points; in the tube: small" in out
    assert "player_0: 2 points, last landing turn 1" in out
    assert out.rstrip().endswith("bye")


def test_play_outcome_matches_the_env_for_both_input_forms(capsys) -> None:
    """A shot typed as numbers or units is the same env action: same outcome as the env."""
    env = MoonShotEnv(noise=1.0)
    env.reset(seed=11)
    env.step(parse_shot(LANDING, P))
    info = env.infos["player_0"]["last_shot"]
    inside = [n for n, f in zip(("small", "medium", "large"), info["in_tube"], strict=True) if f]
    want = (
        f"{info['kind']}, +{info['points']} points; in the tube: {', '.join(inside) or 'nothing'}"
    )
    outs = []
    for shot in (LANDING, LANDING_PHYS):
        code, out = _run(capsys, shot + "\nquit\n", ["--seed", "11", "--render", "none"])
        assert code == 0
        outs.append(out)
        assert f"player_0 shoots aim=+0.0deg speed=0.86m/s z=33.7mm spin=-0.50: {want}" in out
    # --render none: no ansi table printed
    assert "Moon Shot, 2 players, round" not in outs[0]


def test_play_help_explains_mapping_and_shows_scores(capsys) -> None:
    code, out = _run(capsys, f"{LANDING}\nhelp\nboard\n", ["--noise", "0", "--seed", "0"])
    assert code == 0
    help_part = out.split("A shot (MS-5)")[1]
    for needle in ("-20..20 deg", "0.1..2 m/s", "0..44.9 mm", "large below 9.8", "spin"):
        assert needle in help_part
    assert "aim=-3 speed=0.8 z=30 spin=0.2" in help_part
    assert "scores: player_0 2, player_1 0" in help_part
    assert out.rstrip().endswith("bye")  # EOF ends the session


def test_play_ascii_render_draws_table_and_pieces(capsys) -> None:
    code, out = _run(capsys, f"{LANDING}\nquit\n", ["--noise", "0", "--seed", "0"])
    assert code == 0
    after = out.split("controlled landing, +2 points")[1]
    table = after.split("last shot by player_0: ")[1]
    rows = table.splitlines()[1:10]  # the 9-row map after the ansi text
    # the tube walls and the small lying inside them, between the walls
    walls = [i for i, r in enumerate(rows) if "====" in r]
    small = [i for i, r in enumerate(rows) if "s" in r]
    assert len(walls) >= 2 and small and walls[0] < small[0] < walls[1]
    assert "M" in rows[small[0]]  # the medium stayed standing at the launch point


def test_play_whole_game_against_random_shooters(capsys) -> None:
    """Three players, the person on seat 1 shoots randomly until the game ends."""
    code, out = _run(
        capsys,
        "random\n" * 20,
        ["--players", "3", "--seat", "1", "--seed", "4", "--max-rounds", "3"],
    )
    assert code == 0
    assert out.index("player_0 shoots") < out.index("player_1 to shoot> ")
    assert "player_2 shoots" in out
    last = out.rstrip().splitlines()[-1]
    assert last.startswith("game over: ")
    assert "rewards player_0 " in last and "player_1 " in last
    assert _prompts(out) <= 3


def test_play_several_seats(capsys) -> None:
    code, out = _run(capsys, "random\n" * 10, ["--seat", "0,1", "--max-rounds", "2", "--seed", "3"])
    assert code == 0
    assert "you are player_0, player_1" in out
    last = out.rstrip().splitlines()[-1]
    assert last.startswith("game over: ")
    assert "player_0 " in last.split("(")[-1] and "player_1 " in last.split("(")[-1]
    if "max rounds" in last:
        assert _prompts(out) == 4  # both seats are the person's: 2 rounds x 2 shots
    else:
        assert _prompts(out) <= 4  # a crack or colony can also come on the last shot


@pytest.mark.parametrize(
    ("argv", "reason"),
    [
        (["--players", "1"], "num_players"),
        (["--players", "9"], "num_players"),
        (["--seat", "2"], "--seat must name seats in 0..1"),
        (["--seat", "x"], "--seat must be seat numbers"),
        (["--noise", "-1"], "noise"),
        (["--max-rounds", "0"], "max_rounds"),
    ],
)
def test_play_bad_options_are_reported(capsys, argv: list[str], reason: str) -> None:
    assert main(argv, stdin=io.StringIO("")) == 2
    assert reason in capsys.readouterr().err


def test_play_reads_sys_stdin_and_arena_dispatch(monkeypatch, capsys) -> None:
    from envs.core import play_help
    from training import cli

    # `arena play` installs the agent registry globally; restore it after the test, else
    # later play tests in this process get registry agents instead of the facade's random
    monkeypatch.setattr(play_help, "_agent_factory", play_help._agent_factory)
    monkeypatch.setattr("sys.stdin", io.StringIO(f"{LANDING}\nquit\n"))
    assert cli.main(["play", "moon_shot", "--noise", "0", "--seed", "3"]) == 0
    assert "controlled landing, +2 points" in capsys.readouterr().out
