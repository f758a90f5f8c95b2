"""Readable ``rgb_array`` frames (issue #13 item 3): the Proteus and Virus Fight frames are
the replay page's scene drawn with Pillow, with coordinates, legend, turn and result."""

from __future__ import annotations

import numpy as np

from envs.core.scene import to_rgb, to_svg


def _texts(scene) -> list[str]:  # type: ignore[no-untyped-def]
    return [d["s"] for kind, d in scene.items if kind == "text"]


def test_proteus_frame_has_coordinates_legend_and_turn() -> None:
    from envs.proteus.batch import ProteusBatch
    from envs.proteus.render import render_rgb
    from envs.proteus.svg import scene

    g = ProteusBatch()
    st = g.init(1, 0)
    texts = _texts(scene(st))
    assert {"a", "b", "c", "1", "2", "3"} <= set(texts)  # PR-1 files and ranks
    assert "black to move" in texts and "turn 0/200" in texts  # PR-17 turn count
    assert any("brown = move" in t for t in texts)  # legend
    before = render_rgb(st)
    g.step(st, np.array([0]))  # a tile on a3
    after = render_rgb(st)
    assert before.shape == after.shape and before.dtype == np.uint8
    assert np.any(before != after)
    assert "white to move" in _texts(scene(st)) and "turn 1/200" in _texts(scene(st))


def test_virus_fight_frame_has_coordinates_status_and_results() -> None:
    from envs.virus_fight.batch import VirusFightBatch
    from envs.virus_fight.svg import scene

    g = VirusFightBatch(3)
    st = g.init(1, 2)
    texts = _texts(scene(g, st))
    n = g.board_size
    assert {chr(97 + i) for i in range(n)} | {str(i + 1) for i in range(n)} <= set(texts)
    assert "setup: player_0 to act" in texts and "MOVE" in texts and "ERASE" in texts
    while not g.terminated(st)[0]:
        g.step(st, g.random_actions(g.copy(st)))
    over = _texts(scene(g, st))
    assert "game over" in over and any("result +1" in t for t in over)
    img = to_rgb(scene(g, st))
    assert img.shape[2] == 3 and len(np.unique(img.reshape(-1, 3), axis=0)) > 8


def test_svg_and_rgb_are_the_same_scene() -> None:
    from envs.proteus.batch import ProteusBatch
    from envs.proteus.svg import scene

    sc = scene(ProteusBatch().init(1, 0))
    svg = to_svg(sc)
    assert svg.startswith("<svg") and f'viewBox="0 0 {sc.width} {sc.height}"' in svg
    assert to_rgb(sc).shape == (sc.height, sc.width, 3)
    sc.text(0, 0, "a<>c3")  # notation with markup characters is escaped
    assert "a&lt;&gt;c3" in to_svg(sc)
