"""Memory per reset independent of ``max_rounds`` (issue #11 item 5; VF-17 history).

``virus_fight_v0.env(max_rounds=10**7)`` used to allocate ``max_rounds + 1`` history slots
per game at every reset (1.3 GB, seconds). States now start with ``HIST_START`` slots and
the facade grows them before a call that could fill them; games are exactly the same.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from envs import virus_fight_v0
from envs.virus_fight import batch as vf_batch
from envs.virus_fight import position
from envs.virus_fight.batch import VirusFightBatch


def test_reset_memory_does_not_grow_with_max_rounds() -> None:
    sizes = {}
    for max_rounds in (300, 10**7):
        env = virus_fight_v0.raw_env(max_rounds=max_rounds)
        env.reset(seed=0)
        tracemalloc.start()
        env.reset(seed=1)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        sizes[max_rounds] = (env.state_arrays.hist.nbytes, peak)
    assert sizes[300][0] == sizes[10**7][0] <= vf_batch.HIST_START * 64
    assert sizes[10**7][1] < 2 * 2**20  # bytes allocated by one reset


def _play_batch(game: VirusFightBatch, seed: int) -> tuple[list[str], np.ndarray]:
    state = game.init(12, seed)
    rng = np.random.default_rng(seed)
    for _ in range(3000):
        live = ~game.terminated(state)
        if not live.any():
            break
        mask = game.legal_mask(state)
        acts = np.array([rng.choice(np.flatnonzero(m)) if m.any() else -1 for m in mask])
        game.step(state, acts)
    texts = [
        position.to_text(game, state.__class__(*(a[g : g + 1] for a in state.arrays())))
        for g in range(state.batch_size)
    ]
    return texts, game.results(state)


@pytest.fixture
def tiny_history(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vf_batch, "HIST_START", 2)  # every game outgrows it


def test_a_grown_history_plays_the_same_games(tiny_history: None) -> None:
    small = VirusFightBatch(2, max_rounds=40)
    assert small.init(3, 0).hist.shape[1] == 2
    texts_small, res_small = _play_batch(small, 5)
    vf_batch.HIST_START = 10_000  # (monkeypatch restores it) full capacity from the start
    full = VirusFightBatch(2, max_rounds=40)
    assert full.init(3, 0).hist.shape[1] == 41
    texts_full, res_full = _play_batch(full, 5)
    assert texts_small == texts_full and (res_small == res_full).all()
    assert any(int(t.split(" round=")[1].split(" ")[0]) > 2 for t in texts_small)


def test_selfplay_with_a_growing_history_is_unchanged(tiny_history: None) -> None:
    small = VirusFightBatch(3, max_rounds=25)
    st_small = small.init(8, 2)
    stats_small = small.selfplay(st_small, 700)
    vf_batch.HIST_START = 10_000
    full = VirusFightBatch(3, max_rounds=25)
    st_full = full.init(8, 2)
    stats_full = full.selfplay(st_full, 700)
    assert (stats_small == stats_full).all() and stats_small[:, 0].sum() > 0
    assert st_small.hist.shape[1] <= 26


def test_aec_env_and_position_text_grow_the_history(tiny_history: None) -> None:
    env = virus_fight_v0.raw_env(max_rounds=60)
    env.reset(seed=8)
    rng = np.random.default_rng(8)
    texts = []
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent]:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))
        texts.append(env.to_text())
    longest = max(texts, key=lambda t: t.count(":"))
    records = longest.split(" hist=")[1].split(" ")[0].split(",")
    assert len(records) > 2  # more round starts than the first two slots
    again = virus_fight_v0.raw_env(max_rounds=60)
    again.reset(options={"position": longest})
    assert again.to_text() == longest
