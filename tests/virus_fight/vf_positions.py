"""Test helper: build Virus Fight envs from readable positions (not a test module)."""

from __future__ import annotations

from envs.virus_fight.env import raw_env
from envs.virus_fight.notation import str_to_piece
from tests.aec import legal_moves as legal  # noqa: F401  (the rule tests' names)
from tests.aec import play

DEFAULT_SIZE = {2: 5, 3: 6, 4: 7}
ORDER = [f"{k}{s}" for k in "MWJE" for s in (1, 2, 3)]


def position_text(
    rows: list[str],
    markers: list[str],
    *,
    players: int = 2,
    phase: str = "effect",
    turn: int | str = 0,
    first: int | str = 0,
    rnd: int = 1,
    supply: dict[int, str] | None = None,
    alive: str | None = None,
    results: str | None = None,
    hist: str = "-",
) -> str:
    """rows: ranks from the top, squares as space-separated ``W2`` / ``.`` tokens.

    Supplies of seats not in ``supply`` get the remaining pieces (pieces are conserved).
    """
    size = len(rows)
    board_counts = [0] * 12
    ranks = []
    for row in rows:
        toks = row.split()
        assert len(toks) == size, row
        out, empty = "", 0
        for t in toks:
            if t == ".":
                empty += 1
                continue
            if empty:
                out += str(empty)
                empty = 0
            out += t
            board_counts[str_to_piece(t)] += 1
        if empty:
            out += str(empty)
        ranks.append(out)
    supply = dict(supply or {})
    sup = [[0] * 12 for _ in range(players)]
    for s, txt in supply.items():
        for t in txt.split():
            sup[s][str_to_piece(t)] += 1
    free = [s for s in range(players) if s not in supply]
    for p in range(12):
        left = players - board_counts[p] - sum(sup[s][p] for s in range(players))
        assert left >= 0, f"too many {ORDER[p]}"
        i = 0
        while left:
            assert free, f"no seat takes the remaining {ORDER[p]}"
            sup[free[i % len(free)]][p] += 1
            i += 1
            left -= 1
    if alive is None:
        alive = "".join("0" if m == "-" and phase != "setup" else "1" for m in markers)
    if results is None:
        results = ",".join("-1" if a == "0" else "." for a in alive)
    fields = [
        f"players={players}",
        f"size={size}",
        "board=" + "/".join(ranks),
        "markers=" + ",".join(markers),
        "supply=" + ",".join("".join(str(v) for v in s) for s in sup),
        f"alive={alive}",
        f"phase={phase}",
        f"turn={turn}",
        f"round={rnd}",
        f"first={first}",
        f"results={results}",
        f"hist={hist}",
    ]
    return " ".join(fields)


def load(rows: list[str], markers: list[str], *, max_rounds: int = 100, **kw) -> raw_env:
    """A raw env reset to the given position."""
    players = kw.get("players", 2)
    env = raw_env(num_players=players, board_size=len(rows), max_rounds=max_rounds)
    env.reset(seed=0, options={"position": position_text(rows, markers, **kw)})
    while (
        env.agents and env.terminations[env.agent_selection] and not all(env.terminations.values())
    ):
        env.step(None)  # seats already out leave first (PettingZoo dead steps)
    return env


# 3 players on 6x6, seat 2 out (its supply, out of play, takes the leftovers); seat 1
# ends round 1 (max_rounds=1) with its marker step, so the game is adjudicated at once.
ADJ_ROWS = [". . . . . .", "W1 M1 . . . .", *[". . . . . ."] * 3, "M1 W1 . . . ."]


def adjudicated(supply: dict[int, str]) -> dict[str, float]:
    """The VF-17 rewards of the :data:`ADJ_ROWS` game with these supplies."""
    e = load(ADJ_ROWS, ["a1", "a5", "-"], players=3, phase="step", turn=1, first=0,
             max_rounds=1, supply=supply)  # fmt: skip
    assert e.agent_selection == "player_1"
    play(e, "*b5")
    assert all(e.terminations.values()) and not any(e.truncations.values())
    return dict(e.rewards)
