"""Every string parser: any string parses or raises ValueError (issue #11 item 5).

One test per property, parametrised over the parsers of ``tests/fuzz_parsers.py``
(positions and moves of the board games, Moon Shot's shot text): arbitrary text for each
of the parser's tags (player counts, board sizes), seeded mutations of valid texts, and a
seeded run of the fuzzer itself; plus each board notation's ``action_to_str``, which takes
integer ids only. The per-game reproductions of the issue stay in
``tests/<game>/test_*_parsers_fuzz.py``.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from envs.proteus import notation as proteus_notation
from envs.virus_fight import notation as vf_notation
from tests import fuzz_parsers as F

NAMES = sorted(F.PARSERS)
#: strings per parser in the seeded run (the slow position parsers get fewer)
SEEDED_RUN = {"proteus_position": 1500, "proteus_move": 1500}


def _parses_or_value_error(parser: F.Parser, tag: object, text: str) -> None:
    result = F.outcome(parser, tag, text)
    assert result in ("parsed", "ValueError"), (result, tag, text)


def _tags(parser: F.Parser) -> list[object]:
    return sorted({tag for tag, _ in parser.seeds()}, key=repr)


@pytest.mark.parametrize("name", NAMES)
@given(data=st.data())
def test_any_text_parses_or_value_error(name: str, data: st.DataObject) -> None:
    parser = F.PARSERS[name]
    tag = data.draw(st.sampled_from(_tags(parser)))
    text = data.draw(st.text(max_size=120 if name.endswith("position") else 20))
    _parses_or_value_error(parser, tag, text)


@pytest.mark.parametrize("name", NAMES)
@given(seed=st.integers(0, 2**32 - 1))
def test_mutated_text_parses_or_value_error(name: str, seed: int) -> None:
    parser = F.PARSERS[name]
    tag, text = F.fuzz_case(parser, random.Random(seed))
    _parses_or_value_error(parser, tag, text)


@pytest.mark.parametrize("name", NAMES)
def test_seeded_fuzz_run_has_no_failures(name: str) -> None:
    res = F.run(name, SEEDED_RUN.get(name, 1000), seed=11)
    assert set(res["counts"]) <= {"parsed", "ValueError"}, res


#: game -> (action_to_str, str_to_action) of its notation (Virus Fight on the 5x5 board)
NOTATIONS: dict[str, tuple[Callable[[object], str], Callable[[str], int]]] = {
    "proteus": (proteus_notation.action_to_str, proteus_notation.str_to_action),  # type: ignore[dict-item]
    "virus_fight": (
        lambda a: vf_notation.action_to_str(a, 5),  # type: ignore[arg-type]
        lambda t: vf_notation.str_to_action(t, 5),
    ),
}


@pytest.mark.parametrize("game", sorted(NOTATIONS))
@given(
    action=st.one_of(
        st.floats(allow_nan=True),
        st.none(),
        st.text(max_size=5),
        st.integers(-(2**70), 2**70),
        st.booleans(),
    )
)
def test_action_to_str_takes_integer_ids_only(game: str, action: object) -> None:
    to_str, from_str = NOTATIONS[game]
    try:
        text = to_str(action)
    except ValueError:
        return
    assert from_str(text) == action
