"""``arena replay`` pages and exports (issue #13 item 2), without a browser."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from training import replay
from training.cli import main as arena


@pytest.mark.parametrize("game", ["proteus", "virus_fight", "moon_shot"])
def test_page_is_self_contained(records, tmp_path: Path, game: str) -> None:  # type: ignore[no-untyped-def]
    _, rec = records[game]
    page = replay.replay_html(rec)
    # no network: nothing loaded from anywhere (the SVG namespace is a name, not a fetch)
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    assert "<script src" not in page and "<link" not in page
    data = page[page.index('id="replay-data">') :]
    assert data.count("<svg xmlns") == rec.length + 1  # one inline SVG per position
    for move in rec.moves[:3]:
        assert move in page


def test_moon_shot_page_carries_trajectories(records) -> None:  # type: ignore[no-untyped-def]
    _, rec = records["moon_shot"]
    scenes, anim = replay.scenes(rec)
    assert anim is not None and len(anim["traj"]) == rec.length
    t = np.asarray(anim["traj"][0])
    assert t.ndim == 3 and t.shape[1:] == (3, 3) and len(t) > 2  # (frames, pieces, pose)
    assert not np.allclose(t[0], t[-1])  # the pieces move along the shot


def test_gif_export(records, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from PIL import Image

    _, rec = records["proteus"]
    path = replay.export_gif(rec, tmp_path / "g.gif")
    with Image.open(path) as im:
        assert im.n_frames == rec.length + 1


def test_arena_replay_cli(ladder_db: Path, records, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    rid, rec = records["virus_fight"]
    out = tmp_path / "vf.html"
    assert arena(["replay", str(ladder_db), str(rid), "--out", str(out)]) == 0
    assert out.exists() and rec.moves[0] in out.read_text()
    assert arena(["replay", str(ladder_db), "--list"]) == 0
    assert f"{rid:6d}" in capsys.readouterr().out
    assert arena(["replay", str(ladder_db), "999999"]) == 2
    assert "no game record with id 999999" in capsys.readouterr().out
    assert arena(["replay", str(tmp_path / "nothing.jsonl")]) == 2
