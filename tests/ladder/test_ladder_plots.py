"""``arena ladder``'s quick plots are the report's own: the heatmap's cells carry counts.

Why: the quick heatmap once showed bare scores (no game count, no interval) while the
report's showed both; one function (``training.ladder_report.plot_heatmap``) now draws
both, so the two cannot drift apart again.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.ladder.test_ladder import ttt_ladder


def test_quick_heatmap_cells_show_score_interval_and_game_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import matplotlib.axes

    texts: list[str] = []
    real = matplotlib.axes.Axes.text

    def record(self, x, y, s, *args, **kwargs):  # type: ignore[no-untyped-def]
        texts.append(str(s))
        return real(self, x, y, s, *args, **kwargs)

    monkeypatch.setattr(matplotlib.axes.Axes, "text", record)
    res = ttt_ladder(tmp_path, ["random", "mcts4", "mcts24"], n=4)
    h = res.h2h
    assert h.names == res.names
    assert np.array_equal(h.score(), res.win_matrix, equal_nan=True)  # same cells
    games = h.games
    met = [(i, j) for i in range(3) for j in range(3) if i != j and games[i, j] > 0]
    assert met and len(texts) == len(met)  # one label per met pair, none on the diagonal
    for (i, j), text in zip(met, texts, strict=True):
        lo, hi = h.interval(i, j)
        assert text == f"{h.score()[i, j]:.2f}\n[{lo:.2f}, {hi:.2f}]\nn={int(games[i, j])}"
    assert res.plots["winrate"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
