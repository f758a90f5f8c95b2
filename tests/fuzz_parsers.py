"""Reproducible fuzzing of the string parsers: any string parses or raises ``ValueError``.

The five parsers a user's text reaches (issue #11 item 5):

=========================  ================================================================
name                       parser
=========================  ================================================================
``proteus_position``       ``envs.proteus.batch.state_from_text`` (``docs/proteus.md``)
``proteus_move``           ``envs.proteus.notation.str_to_action``
``virus_fight_position``   ``envs.virus_fight.position.from_text`` (2, 3 and 4 players)
``virus_fight_move``       ``envs.virus_fight.notation.str_to_action`` (boards 5..8)
``moon_shot_shot``         ``envs.moon_shot.play.parse_shot`` (``arena play moon_shot``)
=========================  ================================================================

Strings come from valid seeds (positions and moves of seeded random games) put through
seeded mutations (characters replaced, inserted, deleted; fields dropped, duplicated,
swapped or spliced from another seed; numbers replaced by extreme ones such as 2**31 or
10**20; result/phase words changed) and from random strings over each format's alphabet
with some arbitrary Unicode. Each outcome is one of ``parsed`` (and the parsed value
passes its check: a position re-parses from its own text to the same text, its legal mask
is non-empty exactly while the game runs; a move round-trips through ``action_to_str``; a
shot is a finite float32 vector in [-1, 1]^4; a Proteus win is one the kernel's own PR-16
check sees, and no running game or draw has a winner), ``ValueError``, ``corrupted`` (parsed but
the check failed), ``error:<type>`` (any other exception) or ``slow`` (over a second;
300 uncounted strings first load the lazily compiled kernels, which can take seconds).

Run: ``python -m tests.fuzz_parsers --n 100000 --seed 0`` (counts per parser and outcome).
The hypothesis tests (``tests/*/test_*_parsers_fuzz.py``) use the same seeds and mutations.
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import re
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from tests.aec import random_walk

EXTREME_NUMBERS = (
    "0",
    "1",
    "-1",
    "2",
    "00",
    "99",
    "255",
    "256",
    str(2**31 - 1),
    str(2**31),
    str(2**32),
    str(2**63),
    str(2**64),
    "1" + "0" * 20,
    "1.5",
    "nan",
    "inf",
    "-inf",
    "1e309",
    "٣",
    "²",
)
UNICODE = "é✓→ �\u200b\t\n\x00"
_NUMBER = re.compile(r"-?\d+")


@dataclass(frozen=True)
class Parser:
    """One parser under fuzz: its seeds (tag, text), alphabet, call and check."""

    name: str
    seeds: Callable[[], list[tuple[Any, str]]]
    alphabet: str
    parse: Callable[[Any, str], Any]
    check: Callable[[Any, Any], None]  # AssertionError when a parsed value is corrupt
    words: tuple[str, ...] = ()


# ----------------------------------------------------------------------------- seeds
def _random_game_texts(make_env: Callable[[], Any], seeds: range, max_steps: int) -> list[str]:
    texts = []
    for seed in seeds:
        env = make_env()
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        texts.append(env.to_text())
        for action in random_walk(env, rng, max_steps):
            if action is not None:  # a dead seat's step leaves the text as it was
                texts.append(env.to_text())
    return texts


@cache
def proteus_position_seeds() -> list[tuple[Any, str]]:
    from envs.proteus.env import ProteusEnv

    texts = _random_game_texts(lambda: ProteusEnv(max_turns=60), range(12), 80)
    texts += _random_game_texts(lambda: ProteusEnv(max_turns=200), range(12, 16), 220)
    return [(None, t) for t in dict.fromkeys(texts)]


@cache
def proteus_move_seeds() -> list[tuple[Any, str]]:
    from envs.proteus.notation import NUM_ACTIONS, action_to_str

    return [(None, action_to_str(a)) for a in range(NUM_ACTIONS)]


@cache
def _vf_games() -> dict[int, Any]:
    from envs.virus_fight.batch import VirusFightBatch

    return {p: VirusFightBatch(p, max_rounds=30) for p in (2, 3, 4)}


@cache
def virus_fight_position_seeds() -> list[tuple[Any, str]]:
    from envs.virus_fight.env import raw_env

    out: list[tuple[Any, str]] = []
    for players in (2, 3, 4):
        make = functools.partial(raw_env, num_players=players, max_rounds=30)
        texts = _random_game_texts(make, range(4), 250)
        out += [(players, t) for t in dict.fromkeys(texts)]
    return out


@cache
def virus_fight_move_seeds() -> list[tuple[Any, str]]:
    from envs.virus_fight.kernel import num_actions
    from envs.virus_fight.notation import action_to_str

    out: list[tuple[Any, str]] = []
    for n in (5, 6, 7, 8):
        step = 1 if n == 5 else 7
        out += [(n, action_to_str(a, n)) for a in range(0, num_actions(n), step)]
    return out


def moon_shot_seeds() -> list[tuple[Any, str]]:
    return [
        (None, t)
        for t in (
            "0 -0.2 0.5 -0.5",
            "1,1,1,1",
            "-1 -1 -1 -1",
            "0.25, 0, 0, 0",
            "aim=-3 speed=0.8 z=30 spin=0.2",
            "aim=-3deg speed=0.8m/s z=30mm spin=0",
            "spin=0 z=5 speed=1.2 aim=20",
        )
    ]


# ----------------------------------------------------------------------------- parse + check
def _proteus_position(tag: Any, text: str) -> Any:
    from envs.proteus.batch import state_from_text

    return state_from_text(text)


def _proteus_position_check(tag: Any, st: Any) -> None:
    from envs.proteus import kernel as K
    from envs.proteus.batch import state_from_text, text_of

    text = text_of(st)
    again = state_from_text(text)  # a parsed position's own text parses to the same text
    assert text_of(again) == text, (text, text_of(again))
    legal = K.legal_mask(st)[0]
    status = int(st.status[0])
    assert legal.any() == (status == 0), text
    # the kernel's own PR-16 check agrees with the result (a win only where it sees one)
    winner = int(K._goal_winner(st.tiles[0], st.pieces[0], st.bb[0], st.act[0]))
    assert winner == (status - 1 if status in (1, 2) else -1), text


def _proteus_move(tag: Any, text: str) -> int:
    from envs.proteus.notation import str_to_action

    return str_to_action(text)


def _proteus_move_check(tag: Any, action: Any) -> None:
    from envs.proteus.notation import NUM_ACTIONS, action_to_str, str_to_action

    assert type(action) is int and 0 <= action < NUM_ACTIONS, action
    assert str_to_action(action_to_str(action)) == action


def _vf_position(tag: Any, text: str) -> Any:
    from envs.virus_fight.position import from_text

    return from_text(_vf_games()[tag], text, key=7)


def _vf_position_check(tag: Any, st: Any) -> None:
    from envs.virus_fight import kernel as K
    from envs.virus_fight.position import from_text, to_text

    game = _vf_games()[tag]
    text = to_text(game, st)
    assert to_text(game, from_text(game, text)) == text, text
    legal = game.legal_mask(st)[0]
    assert legal.any() == (int(st.info[0, K.I_PHASE]) != K.PH_OVER), text


def _vf_move(tag: Any, text: str) -> int:
    from envs.virus_fight.notation import str_to_action

    return str_to_action(text, tag)


def _vf_move_check(tag: Any, action: Any) -> None:
    from envs.virus_fight.kernel import num_actions
    from envs.virus_fight.notation import action_to_str, str_to_action

    assert type(action) is int and 0 <= action < num_actions(tag), action
    assert str_to_action(action_to_str(action, tag), tag) == action


@cache
def _moon_params() -> Any:
    from envs.moon_shot.params import PhysicsParams

    return PhysicsParams()


def _moon_shot(tag: Any, text: str) -> Any:
    from envs.moon_shot.play import parse_shot

    return parse_shot(text, _moon_params())


def _moon_shot_check(tag: Any, action: Any) -> None:
    assert isinstance(action, np.ndarray) and action.dtype == np.float32 and action.shape == (4,)
    assert np.isfinite(action).all() and (np.abs(action) <= 1.0).all(), action


PARSERS: dict[str, Parser] = {
    p.name: p
    for p in (
        Parser(
            "proteus_position",
            proteus_position_seeds,
            ".,/+:MTGostbw0123456789 h=resulackwhiptnf",
            _proteus_position,
            _proteus_position_check,
            ("result=black", "result=white", "result=repetition", "result=turns", "h=", "b", "w"),
        ),
        Parser(
            "proteus_move",
            proteus_move_seeds,
            "MTGost@abc123-<>pas ",
            _proteus_move,
            _proteus_move_check,
            ("pass", "<>", "@", "-"),
        ),
        Parser(
            "virus_fight_position",
            virus_fight_position_seeds,
            "players=sizebordmkupl,/-.0123456789abcdefMWJE:hitnvr ",
            _vf_position,
            _vf_position_check,
            ("phase=setup", "phase=effect", "phase=step", "phase=over", "hist=-", "rng=0"),
        ),
        Parser(
            "virus_fight_move",
            virus_fight_move_seeds,
            "MWJE123@abcdefgh45678-x*pas ",
            _vf_move,
            _vf_move_check,
            ("pass", "x", "*", "@", "-"),
        ),
        Parser(
            "moon_shot_shot",
            moon_shot_seeds,
            "0123456789.-+e ,aimspedzn=/°mdgx",
            _moon_shot,
            _moon_shot_check,
            ("aim=", "speed=", "z=", "spin=", "nan", "inf", "deg", "mm", "m/s"),
        ),
    )
}


# ----------------------------------------------------------------------------- mutation
def mutate(text: str, other: str, parser: Parser, rng: random.Random) -> str:
    """One to three seeded mutations of ``text`` (``other``: a second seed for splicing)."""
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(11)
        alphabet = parser.alphabet + UNICODE
        pos = rng.randint(0, len(text))
        if op == 0 and text:  # replace a character
            i = rng.randrange(len(text))
            text = text[:i] + rng.choice(alphabet) + text[i + 1 :]
        elif op == 1:  # insert characters
            text = text[:pos] + "".join(rng.choices(alphabet, k=rng.randint(1, 3))) + text[pos:]
        elif op == 2 and text:  # delete a slice
            j = min(len(text), pos + rng.randint(1, 4))
            text = text[:pos] + text[j:]
        elif op in (3, 4) and _NUMBER.search(text):  # an extreme number
            spans = [m.span() for m in _NUMBER.finditer(text)]
            a, b = rng.choice(spans)
            text = text[:a] + rng.choice(EXTREME_NUMBERS) + text[b:]
        elif op == 5:  # fields: drop, duplicate, swap
            fields = text.split(" ")
            k = rng.randrange(len(fields))
            what = rng.randrange(3)
            if what == 0 and len(fields) > 1:
                del fields[k]
            elif what == 1:
                fields.insert(rng.randrange(len(fields) + 1), fields[k])
            else:
                j = rng.randrange(len(fields))
                fields[k], fields[j] = fields[j], fields[k]
            text = " ".join(fields)
        elif op == 6:  # splice with another seed
            text = text[:pos] + other[rng.randint(0, len(other)) :]
        elif op == 7 and parser.words:  # a format word
            word = rng.choice(parser.words)
            text = text[:pos] + (" " if rng.random() < 0.5 else "") + word + text[pos:]
        elif op == 8:  # a field of the other seed
            mine, theirs = text.split(" "), other.split(" ")
            k = rng.randrange(len(mine))
            mine[k] = rng.choice(theirs)
            text = " ".join(mine)
        elif op == 9 and text:  # case or whitespace change
            i = rng.randrange(len(text))
            text = text[:i] + text[i].swapcase() + text[i + 1 :]
            if rng.random() < 0.3:
                text = rng.choice((" ", "  ", "\t")) + text + rng.choice(("", " ", "\n"))
        else:  # a separator doubled or removed
            for sep in (",", "/", ":", "=", " "):
                if sep in text and rng.random() < 0.5:
                    text = text.replace(sep, rng.choice(("", sep + sep)), 1)
                    break
    return text


def random_string(parser: Parser, rng: random.Random) -> str:
    """A random string over the format's alphabet with some arbitrary Unicode."""
    alphabet = parser.alphabet + UNICODE
    return "".join(rng.choices(alphabet, k=rng.randint(0, 60)))


def fuzz_case(parser: Parser, rng: random.Random) -> tuple[Any, str]:
    """One (tag, string): a mutated seed (most), a seed as is, or a random string."""
    seeds = parser.seeds()
    tag, text = rng.choice(seeds)
    r = rng.random()
    if r < 0.08:
        return tag, text
    if r < 0.2:
        return tag, random_string(parser, rng)
    other = rng.choice(seeds)[1]
    return tag, mutate(text, other, parser, rng)


def outcome(parser: Parser, tag: Any, text: str) -> str:
    """``parsed``, ``ValueError``, ``corrupted``, ``error:<type>`` or ``slow``."""
    start = time.perf_counter()
    try:
        value = parser.parse(tag, text)
    except ValueError:
        result = "ValueError"
    except Exception as exc:  # noqa: BLE001 - any other exception is the finding
        result = f"error:{type(exc).__name__}"
    else:
        try:
            parser.check(tag, value)
            result = "parsed"
        except AssertionError:
            result = "corrupted"
        except Exception as exc:  # noqa: BLE001
            result = f"corrupted:{type(exc).__name__}"
    if time.perf_counter() - start > 1.0:
        return "slow"
    return result


def run(name: str, n: int, seed: int, examples: int = 3) -> dict[str, Any]:
    """Fuzz ``n`` strings through parser ``name``: counts per outcome and failing examples."""
    parser = PARSERS[name]
    parser.seeds()  # build the seeds (and compile kernels) outside the timing
    parser.check(*_first_parsed(parser))
    warm = random.Random(f"warm-up:{name}")  # uncounted: loads lazily compiled kernels
    for _ in range(300):
        outcome(parser, *fuzz_case(parser, warm))
    rng = random.Random(f"{name}:{seed}")
    counts: Counter[str] = Counter()
    bad: dict[str, list[str]] = {}
    slowest = 0.0
    start = time.perf_counter()
    for _ in range(n):
        tag, text = fuzz_case(parser, rng)
        t0 = time.perf_counter()
        result = outcome(parser, tag, text)
        slowest = max(slowest, time.perf_counter() - t0)
        counts[result] += 1
        if result not in ("parsed", "ValueError"):
            bad.setdefault(result, [])
            if len(bad[result]) < examples:
                bad[result].append(f"{tag!r}: {text!r}")
    return {
        "parser": name,
        "strings": n,
        "seed": seed,
        "counts": dict(sorted(counts.items())),
        "failures": bad,
        "slowest_s": round(slowest, 4),
        "seconds": round(time.perf_counter() - start, 1),
    }


def _first_parsed(parser: Parser) -> tuple[Any, Any]:
    tag, text = parser.seeds()[0]
    return tag, parser.parse(tag, text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=100_000, help="strings per parser")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--parser", action="append", choices=sorted(PARSERS), help="default: all")
    ap.add_argument("--json", help="write the results to this file")
    args = ap.parse_args(argv)
    results = []
    for name in args.parser or list(PARSERS):
        res = run(name, args.n, args.seed)
        results.append(res)
        print(json.dumps(res), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    failed = any(set(r["counts"]) - {"parsed", "ValueError"} for r in results)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
