"""``arena train``'s command line is generated from TrainConfig / RunOptions (no copies)."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import pytest

from training.config import RunOptions, TrainConfig, build_parser, config_from_args, flag


def test_every_config_field_is_a_flag_with_its_help_and_default() -> None:
    parser = build_parser()
    by_dest = {a.dest: a for a in parser._actions}
    for f in fields(TrainConfig) + fields(RunOptions):
        assert f.name in by_dest, f"{f.name} has no command-line flag"
        action = by_dest[f.name]
        assert f.metadata["help"] in (action.help or "")
        if f.name != "game":
            assert flag(f.name) in action.option_strings
    assert "-q" in by_dest["quiet"].option_strings
    assert by_dest["backend"].choices == ("sb3", "rllib")


def test_a_given_flag_is_typed_and_an_omitted_one_takes_the_games_default(tmp_path: Path) -> None:
    args = build_parser().parse_args(["moon_shot", "--n-envs", "3", "--out", str(tmp_path)])
    cfg, resume = config_from_args(args)
    assert not resume and cfg.n_envs == 3 and isinstance(cfg.learning_rate, float)
    assert cfg.algo == "ppo" and cfg.players == 1  # the registry entry's training defaults
    args = build_parser().parse_args(["proteus", "--out", str(tmp_path)])
    assert config_from_args(args)[0] == TrainConfig(game="proteus", out=str(tmp_path))


def test_a_new_field_would_get_its_flag() -> None:
    import argparse
    from dataclasses import dataclass

    from training.config import _opt, add_dataclass_arguments

    @dataclass
    class Extra:
        warmup: int = _opt(5, "steps of warm-up")
        fast: bool = _opt(False, "go fast")

    p = argparse.ArgumentParser()
    add_dataclass_arguments(p, Extra, defaults=True)
    ns = p.parse_args(["--warmup", "7", "--fast"])
    assert ns.warmup == 7 and ns.fast is True
    with pytest.raises(SystemExit):
        p.parse_args(["--warmup", "x"])
