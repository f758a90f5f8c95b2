"""Our games through the peer harness: the batched kernel and AEC env() rows measure moves."""

from __future__ import annotations

import importlib
import os

import pytest

from benchmarks import peers


@pytest.mark.parametrize("game", ["proteus", "virus_fight", "moon_shot"])
def test_peers_ours_kernel_and_aec_rows(game: str, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = next(g for g in peers.OUR_GAMES if g.game == game)
    try:
        importlib.import_module(f"envs.{game}_v0")
    except ImportError:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"{game} env not in the tree yet")
    monkeypatch.setattr(peers, "OUR_GAMES", (spec,))
    monkeypatch.setattr(peers, "PEER_GAMES", ())
    rows = peers.run([3], seconds=0.05, threads=1, loop_games=2)
    assert [r["measure"] for r in rows] == [peers.KERNEL, peers.AEC]
    for r in rows:
        assert r["rate"] is not None and r["rate"] > 0, r
        assert r["compile_s"] is not None
    assert rows[0]["batch"] == 3 and rows[1]["batch"] == 2


def test_moon_shot_selfplay_restarts_finished_games() -> None:
    sp = peers.MoonShotSelfPlay()
    state = sp.init(4, seed=1)
    finished = 0
    for _ in range(200):  # a 2-player game lasts at most 2 * max_rounds shots
        sp.step(state, sp.random_actions(state), auto_reset=False)
        if state.done.all():
            finished = 4
            break
    assert finished == 4
    sp.step(state, sp.random_actions(state), auto_reset=True)
    assert not state.done.all()  # restarted, then stepped once more
