"""``arena train GAME --backend rllib`` reaches the RLlib entry point (issue #6)."""

from __future__ import annotations

import pytest

from training import train


def test_backend_rllib_dispatches_to_rllib_entry(capsys):
    with pytest.raises(SystemExit) as exit_info:
        train.main(["proteus", "--backend", "rllib", "--help"])
    assert exit_info.value.code == 0
    assert "arena train GAME --backend rllib" in capsys.readouterr().out


def test_unknown_backend_is_a_clear_error(capsys):
    with pytest.raises(SystemExit) as exit_info:
        train.main(["proteus", "--backend", "tensorflow"])
    assert exit_info.value.code == 2
    assert "invalid choice: 'tensorflow'" in capsys.readouterr().err
