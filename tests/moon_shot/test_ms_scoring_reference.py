"""Differential tests: the batched scoring/game-flow kernels against a plain Python reference.

The reference below is written straight from the rules text (MS-10..MS-21), one game and
one shot at a time, sharing nothing with ``envs.moon_shot.scoring`` / ``game`` but the
piece order (0 small, 1 medium, 2 large).
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from envs.moon_shot import game
from envs.moon_shot.scoring import score_shots

# ----------------------------------------------------------------------------- reference


def ref_score(in_tube, fully, small_pose, toppled, full_landing, full_colony):
    """One shot -> (points, crack, colony, landed)."""
    # MS-7: a standing piece never scores
    in_tube = [bool(in_tube[k]) and bool(toppled[k]) for k in range(3)]
    fully = [bool(fully[k]) and in_tube[k] for k in range(3)]
    small_in = fully[0] if full_landing else in_tube[0]  # MS-10 / MS-20
    medium_in = in_tube[1]
    if in_tube[2]:  # MS-11
        return 0, True, False, False
    if full_colony:
        colony = fully[0] and fully[1]
    else:
        colony = small_in and medium_in
    if not small_in:
        return 0, False, colony, False  # medium alone scores nothing
    x, y, heading = small_pose
    if x == 0.0 and y == 0.0:  # no direction to the origin: the angle is not below 90
        return 1, False, colony, True
    to_origin = math.atan2(-y, -x)
    diff = abs((heading - to_origin + math.pi) % (2 * math.pi) - math.pi)
    if abs(diff - math.pi / 2) < 1e-9:
        return None, False, colony, True  # within rounding of exactly 90 degrees: not compared
    return (2 if diff < math.pi / 2 else 1), False, colony, True


def _reward(winners, n):
    if len(winners) == 1:
        return [1.0 if p in winners else -1.0 for p in range(n)]
    return [0.0 if p in winners else -1.0 for p in range(n)]


def _extreme(scores, pick, special):
    """The seats with the ``pick`` (max or min) points, and the reward when some of them
    are ``special`` (they win the tie: MS-14 colonists, MS-15 crackers), else None."""
    n = len(scores)
    seats = [p for p in range(n) if scores[p] == pick(scores)]
    won = [p for p in seats if p in special]
    return seats, (_reward(won, n) if won else None)


def ref_after_colony(scores, last, colonists):
    """MS-14: most points; colonist; else most recent landing; nobody landed: draw."""
    n = len(scores)
    top, reward = _extreme(scores, max, colonists)
    if reward is not None:
        return reward
    landed = [p for p in top if last[p] is not None]
    if not landed:
        return _reward(top, n)
    latest = max(last[p] for p in landed)
    return _reward([p for p in landed if last[p] == latest], n)


def ref_after_crack(scores, last, crackers):
    """MS-15: fewest points; cracker; else least recent landing (never = least recent)."""
    n = len(scores)
    low, reward = _extreme(scores, min, crackers)
    if reward is not None:
        return reward
    never = [p for p in low if last[p] is None]
    if never:
        return _reward(never, n)
    earliest = min(last[p] for p in low)
    return _reward([p for p in low if last[p] == earliest], n)


def ref_turn_game(n, shots, max_rounds, target):
    """Turn-based game; returns (scores, rewards or None, shots used)."""
    scores = [0] * n
    last = [None] * n
    for t, (points, crack, colony, landed) in enumerate(shots):
        seat = t % n
        scores[seat] += points
        if landed:
            last[seat] = t
        if crack:
            return scores, ref_after_crack(scores, last, {seat}), t + 1
        if colony:
            return scores, ref_after_colony(scores, last, {seat}), t + 1
        if target and scores[seat] >= target:
            return scores, _reward([seat], n), t + 1
        if (t + 1) % n == 0 and (t + 1) // n >= max_rounds:
            return scores, ref_after_colony(scores, last, set()), t + 1
    return scores, None, len(shots)


def ref_realtime_game(n, steps, max_rounds, target):
    scores = [0] * n
    last = [None] * n
    for t, step in enumerate(steps):
        for p, (points, _c, _o, landed) in enumerate(step):
            scores[p] += points
            if landed:
                last[p] = t
        crackers = {p for p in range(n) if step[p][1]}
        colonists = {p for p in range(n) if step[p][2]}
        if crackers:
            return scores, ref_after_crack(scores, last, crackers), t + 1
        if colonists:
            return scores, ref_after_colony(scores, last, colonists), t + 1
        reached = [p for p in range(n) if target and scores[p] >= target]
        if reached:
            best = max(scores[p] for p in reached)
            return scores, _reward([p for p in reached if scores[p] == best], n), t + 1
        if t + 1 >= max_rounds:
            return scores, ref_after_colony(scores, last, set()), t + 1
    return scores, None, len(steps)


# ----------------------------------------------------------------------------- strategies
SHOT_VALUES = [
    (0, False, False, False),
    (1, False, False, True),
    (2, False, False, True),
    (0, True, False, False),
    (1, False, True, True),
    (2, False, True, True),
]
shot = st.sampled_from(SHOT_VALUES)
# weights: mostly ordinary shots so that games run long enough for tie-breaks
common = st.one_of(shot, st.sampled_from(SHOT_VALUES[:3]), st.sampled_from(SHOT_VALUES[:3]))


@given(
    n=st.integers(2, 5),
    seqs=st.lists(st.lists(common, min_size=0, max_size=30), min_size=1, max_size=6),
    max_rounds=st.integers(1, 6),
    target=st.one_of(st.none(), st.integers(1, 8)),
)
def test_turn_game_flow_matches_reference(n, seqs, max_rounds, target):
    B = len(seqs)
    state = game.new_games(B, n)
    length = max(len(s) for s in seqs)
    for t in range(length):
        vals = np.array([s[t] if t < len(s) else SHOT_VALUES[0] for s in seqs])
        game.turn_step(state, vals[:, 0], vals[:, 1], vals[:, 2], vals[:, 3], max_rounds, target)
    for b, seq in enumerate(seqs):
        pad = seq + [SHOT_VALUES[0]] * (length - len(seq))
        scores, rewards, used = ref_turn_game(n, pad, max_rounds, target)
        assert state.scores[b].tolist() == scores
        assert bool(state.done[b]) == (rewards is not None)
        if rewards is not None:
            assert state.rewards[b].tolist() == rewards
            assert int(state.turn[b]) == used


@given(
    n=st.integers(2, 5),
    data=st.data(),
    max_rounds=st.integers(1, 8),
    target=st.one_of(st.none(), st.integers(1, 6)),
)
def test_realtime_game_flow_matches_reference(n, data, max_rounds, target):
    steps = data.draw(st.lists(st.lists(common, min_size=n, max_size=n), min_size=1, max_size=10))
    state = game.new_games(1, n)
    for step in steps:
        vals = np.array(step)[None]
        game.realtime_step(
            state, vals[..., 0], vals[..., 1], vals[..., 2], vals[..., 3], max_rounds, target
        )
    scores, rewards, _ = ref_realtime_game(n, steps, max_rounds, target)
    assert state.scores[0].tolist() == scores
    assert bool(state.done[0]) == (rewards is not None)
    if rewards is not None:
        assert state.rewards[0].tolist() == rewards
        r = np.array(rewards)  # MS-17 shape: one +1 and the rest -1, or >=1 draws at 0
        assert (r == 1).sum() == 1 and (r == 0).sum() == 0 or (r == 1).sum() == 0


flags = st.lists(st.booleans(), min_size=3, max_size=3)
coord = st.floats(-0.4, 0.4, allow_nan=False)
angle = st.floats(-7.0, 7.0, allow_nan=False)


@given(
    shots=st.lists(
        st.tuples(flags, flags, flags, st.tuples(coord, coord, angle)), min_size=1, max_size=20
    ),
    full_landing=st.booleans(),
    full_colony=st.booleans(),
)
def test_scoring_matches_reference(shots, full_landing, full_colony):
    in_tube = np.array([s[0] for s in shots])
    fully = np.array([s[1] for s in shots])
    toppled = np.array([s[2] for s in shots])
    poses = np.zeros((len(shots), 3, 3))
    poses[:, 0] = [s[3] for s in shots]
    got = score_shots(in_tube, fully, poses, toppled, full_landing, full_colony)
    for i, s in enumerate(shots):
        pts, crack, colony, landed = ref_score(s[0], s[1], s[3], s[2], full_landing, full_colony)
        if pts is not None:
            assert int(got.points[i]) == pts
        assert bool(got.crack[i]) == crack and bool(got.landed[i]) == landed
        assert bool(got.colony[i]) == (colony and not crack)


# ----------------------------------------------------------------------------- through the envs


@settings(max_examples=12)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 4),
    max_rounds=st.integers(1, 5),
    target=st.one_of(st.none(), st.integers(1, 4)),
)
def test_aec_env_games_match_reference(seed, n, max_rounds, target):
    """Random games through the AEC env end exactly as the reference says (MS-10..MS-19)."""
    from envs import moon_shot_v0

    env = moon_shot_v0.raw_env(num_players=n, max_rounds=max_rounds, target_score=target)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    values = []
    while not env.game_state.done[0]:
        shooter = env.agent_selection
        env.step(rng.uniform(-1, 1, 4))
        shot = env.infos[shooter]["last_shot"]
        assert shot["shooter"] == shooter
        ref = ref_score(
            shot["in_tube"], shot["fully_in_tube"], shot["poses"][0], shot["toppled"], False, False
        )
        assert ref[0] is None or ref[0] == shot["points"]
        values.append((shot["points"], ref[1], ref[2] and not ref[1], ref[3]))
    scores, rewards, used = ref_turn_game(n, values, max_rounds, target)
    assert used == len(values)
    assert env.game_state.scores[0].tolist() == scores
    assert [env.rewards[a] for a in env.possible_agents] == rewards


@settings(max_examples=8)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 5), max_rounds=st.integers(1, 4))
def test_realtime_env_games_match_reference(seed, n, max_rounds):
    from envs import moon_shot_v0

    env = moon_shot_v0.parallel_env(num_players=n, max_rounds=max_rounds, target_score=3)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps = []
    while env.agents:
        _, rewards, _, _, infos = env.step({a: rng.uniform(-1, 1, 4) for a in env.agents})
        step = []
        for a in env.possible_agents:
            s = infos[a]["last_shot"]
            r = ref_score(
                s["in_tube"], s["fully_in_tube"], s["poses"][0], s["toppled"], False, False
            )
            step.append((s["points"], r[1], r[2] and not r[1], r[3]))
        steps.append(step)
    scores, ref_rewards, used = ref_realtime_game(n, steps, max_rounds, 3)
    assert used == len(steps) and env.game_state.scores[0].tolist() == scores
    assert [rewards[a] for a in env.possible_agents] == ref_rewards
