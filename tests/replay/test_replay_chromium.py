"""The replay pages in a real browser (issue #13 item 2): headless Chromium (Debian's
``chromium`` package, which ``.ci/run`` installs) loads each game's page with no console
message and no script error, the script runs (``data-ready``), every control works
(``#selftest``: buttons, keys, slider, move list, play / pause), and screenshots at
different moves differ where the moves change the board. Skipped where no Chromium is
installed, except under CI (``CI`` set), where a missing browser fails the test."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from training.replay import write_replay

BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def browser() -> str:
    if BROWSER is None:
        if os.environ.get("CI"):
            pytest.fail("CI needs chromium for the replay test (.ci/run installs it)")
        pytest.skip("no chromium installed")
    return BROWSER


def _chromium(browser: str, profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    cmd = [
        browser,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        "--no-first-run",
        f"--user-data-dir={profile}",
        "--window-size=1100,760",
        "--virtual-time-budget=3000",
        "--enable-logging=stderr",
        "--v=0",
        *args,
    ]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)


def _console(stderr: str) -> list[str]:
    """Console messages and uncaught errors the page produced (Chromium logs them as
    ``CONSOLE``); the browser's own noise (D-Bus, GPU) is not the page's."""
    return [line for line in stderr.splitlines() if ":CONSOLE" in line or "Uncaught" in line]


def _screenshot(browser: str, tmp: Path, url: str, name: str) -> np.ndarray:
    from PIL import Image

    out = tmp / f"{name}.png"
    res = _chromium(browser, tmp / f"profile-{name}", f"--screenshot={out}", url)
    assert out.exists(), res.stderr[-2000:]
    assert not _console(res.stderr), _console(res.stderr)
    with Image.open(out) as im:
        return np.asarray(im.convert("RGB"))


@pytest.mark.parametrize("game", ["proteus", "virus_fight", "moon_shot"])
def test_page_in_chromium(browser: str, records, tmp_path: Path, game: str) -> None:  # type: ignore[no-untyped-def]
    _, rec = records[game]
    page = write_replay(rec, tmp_path / f"{game}.html")
    last = rec.length
    url = page.resolve().as_uri()
    res = _chromium(browser, tmp_path / "profile-dom", "--dump-dom", f"{url}#move={last}")
    assert res.returncode == 0, res.stderr[-2000:]
    assert not _console(res.stderr), _console(res.stderr)
    dom = res.stdout
    body = re.search(r"<body[^>]*>", dom)
    assert body is not None
    assert 'data-ready="1"' in body.group(0)  # the script ran to its end
    assert f'data-step="{last}"' in body.group(0)  # ...and opened at the asked move
    assert "data-errors" not in body.group(0)
    assert re.search(r'<div id="board"><svg', dom)  # the board is drawn
    # every control once (buttons, keys, slider, move list, play / pause), in the page
    res = _chromium(browser, tmp_path / "profile-self", "--dump-dom", f"{url}#selftest")
    assert not _console(res.stderr), _console(res.stderr)
    assert 'data-selftest="pass"' in res.stdout, re.findall(r'data-selftest="[^"]*"', res.stdout)
    first = _screenshot(browser, tmp_path, f"{url}#move=0", "first")
    end = _screenshot(browser, tmp_path, f"{url}#move={last}", "last")
    assert first.shape == end.shape
    assert np.count_nonzero(np.any(first != end, axis=2)) > 500  # the board changed
