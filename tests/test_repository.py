"""The repository's contract with CI: README's test command is the one CI runs."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```bash\n(.*?)\n```", readme, flags=re.S)
    assert len(blocks) >= 2, "README must open with two commands"
    test_command = blocks[1].split("&&")[-1].strip()
    assert test_command.startswith("python -m pytest")
    ci_lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert test_command in ci_lines


def test_envs_import_without_torch_or_pygame():
    code = (
        "import sys, envs, envs.core.turn_based, envs.core.batch\n"
        "assert 'torch' not in sys.modules and 'pygame' not in sys.modules, sorted(sys.modules)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_arena_cli_help_lists_commands():
    out = subprocess.run(
        [sys.executable, "-m", "training.cli", "--help"],
        check=True,
        cwd=ROOT,
        capture_output=True,
        text=True,
    ).stdout
    for command in ("play", "bench", "train", "ladder", "demo"):
        assert command in out
