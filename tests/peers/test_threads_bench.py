"""``benchmarks/threads.py``: each batch call on one thread beside all threads."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numba
import pytest

from benchmarks import threads
from envs.core import loops

pytestmark = pytest.mark.skipif(
    int(numba.config.NUMBA_NUM_THREADS) < 2,  # type: ignore[attr-defined]
    reason="needs two Numba threads",
)


@pytest.fixture
def two_threads() -> Iterator[None]:
    """Two Numba threads for the test: an earlier test in this worker (a training run, a
    game's bench) may have left the process on one, and the benchmark refuses that."""
    old = numba.get_num_threads()
    numba.set_num_threads(2)
    try:
        yield
    finally:
        numba.set_num_threads(old)


def test_both_modes_are_timed_and_the_thresholds_put_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, two_threads: None
) -> None:
    seen: list[str] = []
    choose = loops.choose

    def spy(batch: int, many_steps: bool = False) -> str:
        seen.append(choose(batch, many_steps))
        return seen[-1]

    monkeypatch.setattr(loops, "choose", spy)
    before = (loops.PARALLEL_MIN_BATCH, loops.STEP_PARALLEL_MIN_BATCH)
    out = tmp_path / "threads.json"
    argv = ["--games", "proteus", "--batch", "64", "--rounds", "2", "--seconds", "0.001"]
    assert threads.main([*argv, "--warm", "2", "--json", str(out)]) == 0
    assert (loops.PARALLEL_MIN_BATCH, loops.STEP_PARALLEL_MIN_BATCH) == before
    # at 64 games the default is one thread; the benchmark forced both modes
    assert {"parallel", "one thread"} <= set(seen)
    rows = json.loads(out.read_text())["rows"]
    assert [r["measure"] for r in rows] == [name for name, _ in threads.CALLS]
    for r in rows:
        assert r["one_thread"] > 0 and r["all_threads"] > 0 and r["rounds"] == 2
        assert r["wall_ratio"] == pytest.approx(r["all_threads"] / r["one_thread"])


def test_a_batch_below_the_serial_threshold_is_refused(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit):
        threads.main(["--batch", str(loops.SINGLE_THREAD_MIN_BATCH - 1)])
    assert "always runs serially" in capsys.readouterr().err
