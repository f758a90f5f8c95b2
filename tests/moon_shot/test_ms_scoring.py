"""Scoring and game-flow rules MS-10..MS-21 on hand-chosen poses and shot outcomes."""

from __future__ import annotations

import numpy as np
import pytest

from envs.moon_shot import game
from envs.moon_shot.scoring import (
    COLONY,
    CONTROLLED,
    CRACK,
    CRASH,
    NOTHING,
    heading_points_home,
    score_shots,
)

# ---------------------------------------------------------------- scoring on poses


def poses(small=(0.3, 0.0, np.pi), medium=(0.0, 0.05, 0.0), large=(0.0, -0.05, 0.0)):
    """One shot's resting poses (x, y, heading) for small, medium, large."""
    return np.array([small, medium, large], dtype=np.float64)


def score(in_tube, fully=None, p=None, toppled=None, **variants):
    in_tube = np.array(in_tube, dtype=bool)
    fully = np.zeros(3, dtype=bool) if fully is None else np.array(fully, dtype=bool)
    p = poses() if p is None else p
    s = score_shots(
        in_tube[None],
        fully[None],
        p[None],
        None if toppled is None else np.array(toppled, dtype=bool)[None],
        **variants,
    )
    return int(s.points[0]), int(s.kind[0])


def test_ms13_controlled_landing_heading_home_scores_2():
    # small lies in the tube with its apex pointing back at the tree
    assert score([1, 0, 0], p=poses(small=(0.25, 0.01, np.pi))) == (2, CONTROLLED)


def test_ms13_crash_landing_heading_away_scores_1():
    assert score([1, 0, 0], p=poses(small=(0.25, 0.01, 0.0))) == (1, CRASH)


def test_ms13_angle_strictly_below_90_degrees():
    x, y = 0.25, 0.0  # the vector to the origin points along -x (180 deg)
    deg = np.deg2rad
    assert score([1, 0, 0], p=poses(small=(x, y, deg(180 - 89.9))))[0] == 2
    assert score([1, 0, 0], p=poses(small=(x, y, deg(180 + 89.9))))[0] == 2
    assert score([1, 0, 0], p=poses(small=(x, y, deg(180 - 90.1))))[0] == 1
    # exactly perpendicular (90 deg) is not "strictly below 90": a crash landing
    assert not heading_points_home(np.array([0.0, 0.25, 0.0]))
    assert score([1, 0, 0], p=poses(small=(0.0, 0.25, 0.0)))[0] == 1


def test_ms13_angle_uses_direction_to_origin_not_x_axis():
    # small off-axis at (0.2, 0.1); heading -x+.. : towards origin is angle atan2(-0.1,-0.2)
    to_origin = np.arctan2(-0.1, -0.2)
    assert score([1, 0, 0], p=poses(small=(0.2, 0.1, to_origin + np.deg2rad(85))))[0] == 2
    assert score([1, 0, 0], p=poses(small=(0.2, 0.1, to_origin - np.deg2rad(95))))[0] == 1


def test_ms13_medium_alone_scores_nothing():
    assert score([0, 1, 0], fully=[0, 1, 0]) == (0, NOTHING)
    assert score([0, 0, 0]) == (0, NOTHING)


def test_ms10_positive_overlap_counts_as_in_the_tube():
    # partly in (not fully) still lands without the full-landing variant
    assert score([1, 0, 0], fully=[0, 0, 0], p=poses(small=(0.2, 0.0, np.pi))) == (2, CONTROLLED)


def test_ms10_standing_piece_never_scores():
    assert score([1, 1, 0], toppled=[0, 1, 1]) == (0, NOTHING)
    assert score([1, 1, 1], toppled=[1, 1, 0])[1] == COLONY


def test_ms11_large_in_tube_cracks_whatever_else():
    for small_med in ([0, 0], [1, 0], [0, 1], [1, 1]):
        pts, kind = score([*small_med, 1], fully=[*small_med, 0])
        assert (pts, kind) == (0, CRACK)
    s = score_shots(np.ones((1, 3), bool), np.ones((1, 3), bool), poses()[None])
    assert bool(s.crack[0]) and not s.colony[0] and not s.landed[0]


def test_ms12_colony_scores_as_landing():
    home = poses(small=(0.25, 0.0, np.pi))
    away = poses(small=(0.25, 0.0, 0.0))
    s = score_shots(np.array([[1, 1, 0]], bool), np.zeros((1, 3), bool), home[None])
    assert (int(s.points[0]), int(s.kind[0]), bool(s.colony[0]), bool(s.landed[0])) == (
        2,
        COLONY,
        True,
        True,
    )
    s = score_shots(np.array([[1, 1, 0]], bool), np.zeros((1, 3), bool), away[None])
    assert (int(s.points[0]), bool(s.colony[0])) == (1, True)


def test_ms20_full_landing_needs_whole_small():
    assert score([1, 0, 0], fully=[0, 0, 0], full_landing=True) == (0, NOTHING)
    assert score([1, 0, 0], fully=[1, 0, 0], full_landing=True)[0] == 2
    # no colony either when the small is only partly in
    assert score([1, 1, 0], fully=[0, 1, 0], full_landing=True) == (0, NOTHING)
    assert score([1, 1, 0], fully=[1, 0, 0], full_landing=True)[1] == COLONY
    # the large still cracks with any overlap
    assert score([0, 0, 1], fully=[0, 0, 0], full_landing=True) == (0, CRACK)


def test_ms20_full_colony_needs_whole_small_and_medium():
    assert score([1, 1, 0], fully=[1, 0, 0], full_colony=True) == (2, CONTROLLED)
    assert score([1, 1, 0], fully=[0, 1, 0], full_colony=True) == (2, CONTROLLED)
    assert score([1, 1, 0], fully=[1, 1, 0], full_colony=True) == (2, COLONY)
    assert score([0, 0, 1], full_colony=True) == (0, CRACK)


def test_scoring_batch_shapes_and_bad_input():
    rng = np.random.default_rng(1)
    it = rng.random((4, 5, 3)) < 0.5
    s = score_shots(it, it & (rng.random((4, 5, 3)) < 0.5), rng.random((4, 5, 3, 3)))
    assert s.points.shape == (4, 5) and s.kind.dtype == np.int8
    for i in range(4):
        for j in range(5):
            one = score_shots(it[i, j][None], (it & False)[i, j][None], np.zeros((1, 3, 3)))
            assert bool(one.crack[0]) == bool(it[i, j, 2])
    with pytest.raises(ValueError, match="poses"):
        score_shots(np.zeros((2, 3), bool), np.zeros((2, 3), bool), np.zeros((2, 3)))
    with pytest.raises(ValueError, match="same shape"):
        score_shots(np.zeros((2, 3), bool), np.zeros((2, 2), bool), np.zeros((2, 3, 3)))


# ---------------------------------------------------------------- game flow
# shot codes: "-" nothing, "c" crash landing 1, "C" controlled 2,
# "k" crack, "o" colony with crash 1, "O" colony controlled 2
CODES = {
    "-": (0, False, False, False),
    "c": (1, False, False, True),
    "C": (2, False, False, True),
    "k": (0, True, False, False),
    "o": (1, False, True, True),
    "O": (2, False, True, True),
}


def play(num_players, shots, **rules):
    st = game.new_games(1, num_players)
    for code in shots:
        assert not st.done[0], f"game ended before shot {code}"
        p, k, c, l = CODES[code]
        game.turn_step(st, np.array([p]), np.array([k]), np.array([c]), np.array([l]), **rules)
    return st


def rewards(st, i=0):
    return st.rewards[i].tolist()


def test_ms14_colonist_among_most_points_wins():
    st = play(2, "CO")  # 2 : 2, seat 1 colonised
    assert st.done[0] and st.outcome[0] == game.COLONY_END
    assert rewards(st) == [-1.0, 1.0]


def test_ms14_colony_most_points_wins_outright():
    st = play(3, "CC-C-o")  # 4, 2, 1 ; seat 2 colonised
    assert st.scores[0].tolist() == [4, 2, 1]
    assert rewards(st) == [1.0, -1.0, -1.0]


def test_ms14_tie_without_colonist_most_recent_landing_wins():
    st = play(3, "CCo")  # 2, 2, 1: seat 1 landed after seat 0
    assert rewards(st) == [-1.0, 1.0, -1.0]
    st = play(3, "CC-C---Co")  # 4, 4, 1: seat 1 landed at turn 7, seat 0 at turn 3
    assert rewards(st) == [-1.0, 1.0, -1.0]
    st = play(3, "CC--C-C-o")  # 4, 4, 1: seat 0 landed last (turn 6)
    assert rewards(st) == [1.0, -1.0, -1.0]


def test_ms15_cracker_among_fewest_wins():
    st = play(2, "ck")  # 1 : 0, seat 1 cracked
    assert st.outcome[0] == game.CRACK_END and rewards(st) == [-1.0, 1.0]
    st = play(2, "-k")  # 0 : 0, cracker among the fewest
    assert rewards(st) == [-1.0, 1.0]


def test_ms15_crack_scores_nothing_and_fewest_wins():
    st = play(2, "-Ck")  # seat 0 cracks on turn 3 with 0 points vs 2
    assert st.scores[0].tolist() == [0, 2] and rewards(st) == [1.0, -1.0]
    st = play(2, "C-k")  # 2 : 0, seat 0 cracked but seat 1 has fewer
    assert rewards(st) == [-1.0, 1.0]


def test_ms15_tie_without_cracker_least_recent_landing_wins():
    st = play(4, "ccCC--k")  # 1,1,2,2; seat 2 cracks; seat 0 landed first
    assert st.scores[0].tolist() == [1, 1, 2, 2]
    assert rewards(st) == [1.0, -1.0, -1.0, -1.0]
    # 2, 2, 2, 3; seat 3 cracks; last landings: seat 0 turn 8, seat 1 turn 5, seat 2 turn 2
    st = play(4, "ccCC-c-cc--k")
    assert st.scores[0].tolist() == [2, 2, 2, 3]
    assert rewards(st) == [-1.0, -1.0, 1.0, -1.0]


def test_ms15_several_never_landed_draw():
    st = play(4, "c--ck")  # 1,0,0,1 -> seat 0 cracks; fewest = seats 1,2 never landed
    assert rewards(st) == [-1.0, 0.0, 0.0, -1.0]


def test_ms15_never_landed_counts_as_least_recent():
    st = game.new_games(1, 3)
    # constructed tie (equal points, one seat never landed) to pin the rule itself
    st.scores[0] = [1, 1, 3]
    st.last_landing[0] = [4, -1, 2]
    st.turn[0] = 5
    st.seat[0] = 2
    game.turn_step(st, np.array([0]), np.array([True]), np.array([False]), np.array([False]))
    assert rewards(st) == [-1.0, 1.0, -1.0]


def test_ms16_max_rounds_ends_ranked_as_colony_by_nobody():
    st = play(2, "----", max_rounds=2)
    assert st.done[0] and st.outcome[0] == game.MAX_ROUNDS_END
    assert rewards(st) == [0.0, 0.0]  # nobody landed: draw
    st = play(2, "---", max_rounds=2)
    assert not st.done[0] and st.round[0] == 1 and st.seat[0] == 1
    st = play(2, "cc--", max_rounds=2)  # 1 : 1, seat 1 landed last
    assert rewards(st) == [-1.0, 1.0]
    st = play(3, "c--cC-", max_rounds=2)  # 2, 2, 0 -> seat 1 most recent
    assert rewards(st) == [-1.0, 1.0, -1.0]
    st = play(3, "C------c-", max_rounds=3)  # 2, 1, 0 -> most points
    assert rewards(st) == [1.0, -1.0, -1.0]


def test_ms16_default_is_30_rounds():
    st = play(2, "-" * 59)
    assert not st.done[0]
    st = play(2, "-" * 60)
    assert st.done[0] and st.round[0] == 30


def test_ms17_rewards_winner_plus_one_draw_zero():
    st = play(3, "------", max_rounds=2)
    assert rewards(st) == [0.0, 0.0, 0.0]
    st = play(3, "-c-k")  # 0, 1, 0: seat 0 cracks and is among the fewest
    assert rewards(st) == [1.0, -1.0, -1.0]
    assert play(2, "cco").rewards[0].sum() == 0.0  # winner +1, loser -1


def test_ms19_target_score_wins_at_once():
    st = play(2, "CCc", target_score=5)
    assert not st.done[0]
    st = play(2, "CCcC", target_score=5)  # 3 : 4
    assert not st.done[0]
    st = play(2, "CCcCC", target_score=5)  # seat 0: 2+1+2 = 5
    assert st.done[0] and st.outcome[0] == game.TARGET_END
    assert rewards(st) == [1.0, -1.0]


def test_ms19_crack_and_colony_still_end_with_target():
    st = play(2, "CCk", target_score=3)  # crack: fewest wins (the cracker, 2 vs 2)
    assert st.outcome[0] == game.CRACK_END and rewards(st) == [1.0, -1.0]
    st = play(2, "C-O", target_score=4)  # colony reaching the target: MS-14
    assert st.outcome[0] == game.COLONY_END and rewards(st) == [1.0, -1.0]


def test_finished_games_are_untouched():
    st = play(2, "k")
    before = st.copy()
    game.turn_step(st, np.array([2]), np.array([False]), np.array([False]), np.array([True]))
    for k, v in before.__dict__.items():
        assert np.array_equal(v, getattr(st, k))


def test_turn_step_batch_independent_games():
    seqs = ["ck", "CCO", "----", "cc--"]
    st = game.new_games(len(seqs), 2)
    for t in range(4):
        vals = np.array([CODES[s[t]] if t < len(s) else CODES["-"] for s in seqs])
        game.turn_step(st, vals[:, 0], vals[:, 1], vals[:, 2], vals[:, 3], max_rounds=2)
    for i, s in enumerate(seqs):
        ref = play(2, s, max_rounds=2)
        assert st.rewards[i].tolist() == rewards(ref)
        assert st.scores[i].tolist() == ref.scores[0].tolist()


def test_rules_parameters_rejected():
    st = game.new_games(1, 2)
    z = np.zeros(1)
    with pytest.raises(ValueError, match="max_rounds"):
        game.turn_step(st, z, z, z, z, max_rounds=0)
    with pytest.raises(ValueError, match="target_score"):
        game.turn_step(st, z, z, z, z, target_score=-1)


# ---------------------------------------------------------------- realtime (MS-18)


def rt(num_players, steps, **rules):
    st = game.new_games(1, num_players)
    for step in steps:
        vals = np.array([CODES[c] for c in step])
        game.realtime_step(
            st, vals[None, :, 0], vals[None, :, 1], vals[None, :, 2], vals[None, :, 3], **rules
        )
    return st


def test_ms18_all_shots_of_a_crack_step_are_scored():
    st = rt(2, ["kc"])  # seat 0 cracks, seat 1 lands in the same step
    assert st.scores[0].tolist() == [0, 1] and rewards(st) == [1.0, -1.0]
    st = rt(3, ["C--", "kCc"])  # 2,2,1: cracker not among fewest -> seat 2 fewest
    assert rewards(st) == [-1.0, -1.0, 1.0]


def test_ms18_several_crackers_among_fewest_draw():
    st = rt(3, ["kkc"])
    assert rewards(st) == [0.0, 0.0, -1.0]
    st = rt(3, ["c--", "kkC"])  # 1, 0, 2 -> only cracker seat 1 among fewest
    assert rewards(st) == [-1.0, 1.0, -1.0]


def test_ms18_crack_beats_colony_in_same_step():
    st = rt(2, ["kO"])
    assert st.outcome[0] == game.CRACK_END and rewards(st) == [1.0, -1.0]


def test_ms18_several_colonists_and_same_step_landings():
    st = rt(3, ["OO-"])  # both colonists share the most: draw
    assert st.outcome[0] == game.COLONY_END and rewards(st) == [0.0, 0.0, -1.0]
    st = rt(3, ["Oo-"])  # colonist with most points wins
    assert rewards(st) == [1.0, -1.0, -1.0]
    st = rt(3, ["-C-", "CCo"])  # 2, 4, 1 -> most points
    assert rewards(st) == [-1.0, 1.0, -1.0]
    st = rt(3, ["C-c", "-Co"])  # 2, 2, 2 colonist seat 2 among most
    assert rewards(st) == [-1.0, -1.0, 1.0]
    st = rt(3, ["CC-", "--o"])  # 2, 2, 1: seats 0 and 1 landed in the same step: draw
    assert rewards(st) == [0.0, 0.0, -1.0]


def test_ms18_crack_tie_same_step_least_recent_draw():
    st = rt(3, ["cc-", "--k"])  # 1, 1, 0 -> cracker fewest
    assert rewards(st) == [-1.0, -1.0, 1.0]
    st = rt(3, ["ccC", "--k"])  # 1, 1, 2: seats 0, 1 landed in the same step: draw
    assert rewards(st) == [0.0, 0.0, -1.0]
    st = rt(3, ["c-C", "-ck"])  # 1, 1, 2: seat 0 landed earlier
    assert rewards(st) == [1.0, -1.0, -1.0]


def test_ms18_realtime_max_rounds_and_target():
    st = rt(2, ["cc", "--"], max_rounds=2)
    assert st.outcome[0] == game.MAX_ROUNDS_END and rewards(st) == [0.0, 0.0]
    st = rt(2, ["c-", "-c"], max_rounds=2)
    assert rewards(st) == [-1.0, 1.0]
    st = rt(3, ["CC-", "cC-"], target_score=3)  # both reach: 3 vs 4 -> most points
    assert st.outcome[0] == game.TARGET_END and rewards(st) == [-1.0, 1.0, -1.0]
    st = rt(3, ["CCc", "cc-"], target_score=3)  # both 3: draw
    assert rewards(st) == [0.0, 0.0, -1.0]


# ---------------------------------------------------------------- solo (MS-21)


def solo(shots, max_shots=20):
    st = game.new_solo(1)
    out = []
    for code in shots:
        p, k, c, _ = CODES[code]
        out.append(
            float(
                game.solo_step(
                    st, np.array([p]), np.array([k]), np.array([c]), max_shots=max_shots
                )[0]
            )
        )
    return st, out


def test_ms21_solo_reward_is_points_per_shot():
    st, r = solo("cC-c")
    assert r == [1.0, 2.0, 0.0, 1.0] and not st.done[0]


def test_ms21_solo_colony_ends_episode():
    st, r = solo("cO")
    assert r == [1.0, 2.0] and st.done[0] and st.outcome[0] == game.COLONY_END


def test_ms21_solo_crack_takes_back_points_so_far():
    st, r = solo("cC-k")
    assert r == [1.0, 2.0, 0.0, -3.0] and st.done[0] and st.outcome[0] == game.CRACK_END
    assert sum(r) == 0.0
    st, r = solo("k")
    assert r == [0.0] and st.done[0]


def test_ms21_solo_max_shots_terminates():
    st, r = solo("ccc", max_shots=3)
    assert st.done[0] and st.outcome[0] == game.MAX_ROUNDS_END and st.shots[0] == 3
    st, r = solo("cc", max_shots=3)
    assert not st.done[0]
    st, r = solo("c" * 20)
    assert st.done[0] and r == [1.0] * 20
    # a finished episode gives 0 and stays put
    r2 = game.solo_step(st, np.array([2]), np.array([False]), np.array([False]))
    assert r2.tolist() == [0.0] and st.points[0] == 20


def test_shot_seeds_depend_only_on_key_and_counter():
    keys = game.derive_keys(7, 5)
    assert len(set(keys.tolist())) == 5
    assert np.array_equal(game.derive_keys(7, 3), keys[:3])
    s1 = game.shot_seeds(keys, np.arange(5))
    s2 = game.shot_seeds(keys[::-1], np.arange(5)[::-1])
    assert np.array_equal(s1, s2[::-1])
    assert not np.array_equal(game.shot_seeds(keys, np.zeros(5)), game.shot_seeds(keys, np.ones(5)))


# ---------------------------------------------------------------- hand-placed poses + geometry
# The physics geometry decides MS-10 (footprint vs tube interior) for poses placed by hand;
# scoring then decides the shot. Default tube: mouth at 0.16 m, interior 0.16..0.318 m,
# |y| < 0.02 m. The small's centre of mass is s/3 = 8.8 mm ahead of its base, 17.6 mm
# behind its apex.

FAR = (0.0, 0.06, 0.0)  # a piece lying on the table beside the tree


def geo_score(small=FAR, medium=FAR, large=(0.0, -0.06, 0.0), **variants):
    from envs.moon_shot import geometry

    p = poses(small, medium, large)[None]
    over, full = geometry.in_tube(p)
    s = score_shots(over, full, p, np.ones((1, 3), bool), **variants)
    return int(s.points[0]), int(s.kind[0])


def test_ms10_geometry_piece_inside_outside_and_straddling():
    assert geo_score(small=(0.25, 0.0, np.pi)) == (2, CONTROLLED)  # wholly inside
    assert geo_score(small=(0.15, 0.0, np.pi)) == (0, NOTHING)  # short of the mouth
    assert geo_score(small=(0.25, 0.035, np.pi)) == (0, NOTHING)  # beside the tube
    assert geo_score(small=(0.40, 0.0, np.pi)) == (0, NOTHING)  # behind the closed end
    # straddling the mouth: positive overlap counts, but not for the full-landing variant
    assert geo_score(small=(0.165, 0.0, np.pi)) == (2, CONTROLLED)
    assert geo_score(small=(0.165, 0.0, np.pi), full_landing=True) == (0, NOTHING)
    assert geo_score(small=(0.25, 0.0, np.pi), full_landing=True) == (2, CONTROLLED)


def test_ms11_geometry_large_at_the_mouth_cracks():
    pts, kind = geo_score(
        small=(0.25, 0.0, np.pi), medium=(0.28, 0.0, 0.0), large=(0.155, 0.0, 0.0)
    )
    assert (pts, kind) == (0, CRACK)
    # base 15.4 mm behind the centre of mass: at x = 0.14 it stays short of the mouth
    assert geo_score(large=(0.14, 0.0, np.pi))[1] == NOTHING
    assert geo_score(large=(0.146, 0.0, np.pi))[1] == CRACK


def test_ms12_geometry_colony_and_full_colony():
    inside = dict(small=(0.25, 0.0, np.pi), medium=(0.28, 0.0, 0.0))
    assert geo_score(**inside) == (2, COLONY)
    straddle = dict(small=(0.25, 0.0, 0.0), medium=(0.165, 0.0, np.pi))
    assert geo_score(**straddle) == (1, COLONY)
    assert geo_score(**straddle, full_colony=True) == (1, CRASH)
    assert geo_score(**inside, full_colony=True) == (2, COLONY)


def test_ms13_geometry_heading_against_direction_to_origin():
    # at (0.25, +0.01) the origin lies at 182.3 deg; a heading of 91 deg is 91.3 deg off it
    # (a crash) although it is only 89 deg off the -x axis
    assert geo_score(small=(0.25, 0.01, np.deg2rad(91))) == (1, CRASH)
    # mirrored position: the origin lies at 177.7 deg, 86.7 deg off: controlled
    assert geo_score(small=(0.25, -0.01, np.deg2rad(91))) == (2, CONTROLLED)
    assert geo_score(medium=(0.25, 0.0, np.pi)) == (0, NOTHING)  # medium alone
