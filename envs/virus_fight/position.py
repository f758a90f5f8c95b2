"""One-line position text of Virus Fight: ``to_text`` / ``from_text``.

The text is a list of ``key=value`` fields separated by single spaces::

    players=2 size=5 board=5/1J2M12/5/5/M1W2J1E3E1 markers=c1,b4 supply=011011011011,...
    alive=11 phase=effect turn=0 round=3 first=1 results=.,. hist=<rec>,<rec>,...

==========  ==================================================================================
field       meaning
==========  ==================================================================================
players     number of players (must match the env)
size        board side (must match the env)
board       ranks from the top (rank n) to the bottom (rank 1) separated by ``/``; in a rank
            an instruction is its kind letter and size (``W2``) and a digit alone counts
            empty squares (so ``M12`` is an M1 followed by two empty squares)
markers     per seat the square of its instruction marker, ``-`` for none
supply      per seat twelve digits: counts of M1 M2 M3 W1 W2 W3 J1 J2 J3 E1 E2 E3
alive       per seat ``1`` while still in, ``0`` once eliminated
phase       ``setup``, ``effect`` (instruction to execute), ``step`` (marker step) or ``over``
turn        seat to act (``-`` when over)
round       play round (1-based; 0 during setup)
first       first player of the round (``-`` during setup)
results     per seat its final reward once done (``-1``, ``0``, ``1``), ``.`` otherwise
hist        VF-17 repetition history: the exact records of the positions that started each
            round so far, ``,``-separated, each eight ``:``-separated hex words; ``-`` if none
rng         (setup only, optional) the game's RNG key in hex, which draws the VF-12 tie-break
            when setup ends; without it the key comes from ``reset``'s seed
==========  ==================================================================================

A position of phase ``effect`` whose seat to act is the round's first player and whose
``hist`` is ``-`` is taken as the start of that round: its record starts the history.
During setup the program being written is read off the board (the pieces in the seat's
home segment). ``from_text`` validates everything (pieces conserved, programs shaped per
VF-9/VF-10, markers on distinct instructions, ...) and raises ``ValueError`` naming the
problem.
"""

from __future__ import annotations

import numpy as np

from envs.core.params import bounded_int
from envs.virus_fight import kernel as K
from envs.virus_fight.batch import VFState, VirusFightBatch
from envs.virus_fight.notation import piece_to_str, square_to_str, str_to_square

PHASE_NAMES = {K.PH_SETUP: "setup", K.PH_EFFECT: "effect", K.PH_STEP: "step", K.PH_OVER: "over"}
PHASE_CODES = {v: k for k, v in PHASE_NAMES.items()}
FIELDS = (
    "players",
    "size",
    "board",
    "markers",
    "supply",
    "alive",
    "phase",
    "turn",
    "round",
    "first",
    "results",
    "hist",
)
OPTIONAL = ("rng",)
#: the largest ``max_rounds`` (VF-17): the kernel counts rounds in int32
MAX_ROUNDS_LIMIT = 2**31 - 2


def check_max_rounds(max_rounds: object) -> int:
    """``max_rounds`` as an int in 1..MAX_ROUNDS_LIMIT (VF-17); ValueError naming it otherwise."""
    return bounded_int(max_rounds, "max_rounds", MAX_ROUNDS_LIMIT, "VF-17")


def board_to_text(cells: np.ndarray, n: int) -> str:
    """Ranks top to bottom, ``/``-separated, digits for runs of empty squares."""
    ranks = []
    for r in range(n):
        out = ""
        empty = 0
        for c in range(n):
            p = int(cells[r * n + c])
            if p < 0:
                empty += 1
                continue
            if empty:
                out += str(empty)
                empty = 0
            out += piece_to_str(p)
        if empty:
            out += str(empty)
        ranks.append(out)
    return "/".join(ranks)


def to_text(game: VirusFightBatch, st: VFState, g: int = 0) -> str:
    """The one-line position text of game g."""
    n, P = game.board_size, game.num_players
    info = st.info[g]
    phase = int(info[K.I_PHASE])
    over = phase == K.PH_OVER
    alive = int(info[K.I_ALIVE])
    markers = ",".join(
        square_to_str(int(m), n) if m >= 0 else "-" for m in st.marker[g, :P].tolist()
    )
    supply = ",".join("".join(str(int(v)) for v in st.supply[g, s]) for s in range(P))
    results = []
    for s in range(P):
        done = over or not (alive >> s) & 1
        results.append(str(int(info[K.I_RES + s])) if done else ".")
    hlen = int(info[K.I_HLEN])
    hist = ",".join(":".join(f"{int(w):x}" for w in st.hist[g, h]) for h in range(hlen)) or "-"
    fields = [
        f"players={P}",
        f"size={n}",
        f"board={board_to_text(st.cells[g], n)}",
        f"markers={markers}",
        f"supply={supply}",
        "alive=" + "".join(str((alive >> s) & 1) for s in range(P)),
        f"phase={PHASE_NAMES[phase]}",
        "turn=" + ("-" if over else str(int(info[K.I_CUR]))),
        f"round={int(info[K.I_ROUND])}",
        "first=" + ("-" if phase == K.PH_SETUP else str(int(info[K.I_FIRST]))),
        "results=" + ",".join(results),
        f"hist={hist}",
    ]
    if phase == K.PH_SETUP:
        fields.append(f"rng={int(st.rng[g]):x}")
    return " ".join(fields)


def _parse_board(text: str, n: int) -> np.ndarray:
    cells = np.full(64, -1, np.int8)
    ranks = text.split("/")
    if len(ranks) != n:
        raise ValueError(f"board has {len(ranks)} ranks, expected {n}")
    for r, rank in enumerate(ranks):
        col = 0
        i = 0
        while i < len(rank):
            ch = rank[i]
            if ch in K.KIND_LETTERS:
                if i + 1 >= len(rank) or rank[i + 1] not in "123":
                    raise ValueError(f"board rank {n - r}: {ch} must be followed by a size 1-3")
                if col >= n:
                    raise ValueError(f"board rank {n - r} is longer than {n} squares")
                cells[r * n + col] = 3 * K.KIND_LETTERS.index(ch) + int(rank[i + 1]) - 1
                col += 1
                i += 2
            elif ch.isdigit() and ch != "0":
                col += int(ch)
                i += 1
            else:
                raise ValueError(f"board rank {n - r}: unexpected character {ch!r}")
        if col != n:
            raise ValueError(f"board rank {n - r} covers {col} squares, expected {n}")
    return cells


def _number(text: str) -> int | None:
    """A plain decimal number of at most 12 ASCII digits, else None."""
    if not (text.isascii() and text.isdigit()) or len(text) > 12:
        return None
    return int(text)


def _seat(text: str, P: int, what: str) -> int:
    value = _number(text)
    if value is None or not 0 <= value < P:
        raise ValueError(f"{what} must be a seat 0..{P - 1}, got {text!r}")
    return int(text)


def from_text(game: VirusFightBatch, text: str, key: int = 0) -> VFState:
    """Parse and validate a position text into a batch of one (ValueError on problems).

    ``key`` is the game's RNG key unless the text carries one (``rng=``)."""
    if not isinstance(text, str):
        raise ValueError(f"position must be a string, got {type(text).__name__}")
    fields: dict[str, str] = {}
    for tok in text.split():
        name, sep, val = tok.partition("=")
        if not sep:
            raise ValueError(f"position field {tok!r} is not key=value")
        if name not in FIELDS and name not in OPTIONAL:
            raise ValueError(f"unknown position field {name!r}")
        if name in fields:
            raise ValueError(f"position field {name!r} given twice")
        fields[name] = val
    missing = [f for f in FIELDS if f not in fields]
    if missing:
        raise ValueError(f"position lacks field(s): {', '.join(missing)}")
    n, P = game.board_size, game.num_players
    if fields["players"] != str(P):
        raise ValueError(f"position is for players={fields['players']}, the env has {P}")
    if fields["size"] != str(n):
        raise ValueError(f"position is for size={fields['size']}, the env has {n}")
    st = game.empty(1)
    st.rng[0] = np.uint64(key & 0xFFFFFFFFFFFFFFFF)
    if "rng" in fields:
        try:
            st.rng[0] = np.uint64(int(fields["rng"], 16) & 0xFFFFFFFFFFFFFFFF)
        except ValueError:
            raise ValueError(f"rng must be a hex key, got {fields['rng']!r}") from None
    cells = _parse_board(fields["board"], n)
    st.cells[0] = cells
    for c in range(n * n):
        p = int(cells[c])
        if p >= 0:
            st.bb[0, p] |= np.uint64(1 << c)
            st.bb[0, K.OCC] |= np.uint64(1 << c)

    marks = fields["markers"].split(",")
    if len(marks) != P:
        raise ValueError(f"markers lists {len(marks)} seats, expected {P}")
    for s, m in enumerate(marks):
        if m == "-":
            continue
        c = str_to_square(m, n)
        if cells[c] < 0:
            raise ValueError(f"marker of seat {s} on empty square {m} (VF-3)")
        if c in st.marker[0, :s].tolist():
            raise ValueError(f"two markers on {m} (VF-3)")
        st.marker[0, s] = c

    sups = fields["supply"].split(",")
    if len(sups) != P or any(len(x) != 12 or _number(x) is None for x in sups):
        raise ValueError(f"supply must be {P} groups of 12 digits, got {fields['supply']!r}")
    for s, x in enumerate(sups):
        st.supply[0, s] = [int(ch) for ch in x]
    for p in range(12):
        total = int((cells == p).sum()) + int(st.supply[0, :P, p].sum())
        if total != P:
            raise ValueError(
                f"{piece_to_str(p)}: {total} on board and in supplies, expected {P} (VF-2)"
            )

    alive_txt = fields["alive"]
    if len(alive_txt) != P or any(ch not in "01" for ch in alive_txt):
        raise ValueError(f"alive must be {P} digits 0/1, got {alive_txt!r}")
    alive = sum(1 << s for s in range(P) if alive_txt[s] == "1")
    if fields["phase"] not in PHASE_CODES:
        raise ValueError(f"phase must be one of {', '.join(PHASE_CODES)}, got {fields['phase']!r}")
    phase = PHASE_CODES[fields["phase"]]
    rnd_value = _number(fields["round"])
    if rnd_value is None:
        raise ValueError(f"round must be a number, got {fields['round']!r}")
    rnd = rnd_value
    if phase != K.PH_SETUP and not 1 <= rnd <= game.max_rounds:  # before int32 storage
        raise ValueError(f"round must be 1..{game.max_rounds} after setup, got {rnd}")
    if phase == K.PH_SETUP and rnd != 0:
        raise ValueError("during setup round must be 0 and first '-'")
    info = st.info[0]
    info[K.I_PHASE] = phase
    info[K.I_ALIVE] = alive
    info[K.I_ROUND] = rnd

    results = fields["results"].split(",")
    if len(results) != P or any(x not in (".", "-1", "0", "1") for x in results):
        raise ValueError(f"results must be {P} of . -1 0 1, got {fields['results']!r}")

    if phase == K.PH_SETUP:
        _check_setup(game, st, fields, cells, alive)
    else:
        _check_play(game, st, fields, alive, rnd, results)
    for s in range(P):
        if results[s] != ".":
            info[K.I_RES + s] = int(results[s])

    hist = fields["hist"]
    if hist != "-":
        recs = hist.split(",")
        if phase == K.PH_SETUP or len(recs) > rnd:
            raise ValueError(f"hist has {len(recs)} records, more than the {rnd} rounds started")
        game.reserve(st, len(recs))  # history slots for them (the state starts with a few)
        for h, rec in enumerate(recs):
            words = rec.split(":")
            if len(words) != K.HW:
                raise ValueError(f"hist record {h} must have {K.HW} hex words")
            try:
                vals = [int(w, 16) for w in words]
            except ValueError:
                raise ValueError(f"hist record {h} is not hexadecimal") from None
            if any(not 0 <= v < 1 << 64 for v in vals):
                raise ValueError(f"hist record {h} has a word out of 64-bit range")
            st.hist[0, h] = np.array(vals, dtype=np.uint64)
        info[K.I_HLEN] = len(recs)
        last = st.hist[0, len(recs) - 1]
        info[K.I_REP] = int((st.hist[0, : len(recs)] == last).all(axis=1).sum())
    elif phase == K.PH_EFFECT and info[K.I_K] == 0:
        # a position written at the start of a round without history starts the history
        K.record_one(st.bb, st.cells, st.marker, st.supply, st.info, game.cfg, st.hist[0, 0])
        info[K.I_HLEN] = 1
        info[K.I_REP] = 1
    return st


def _check_setup(
    game: VirusFightBatch, st: VFState, fields: dict[str, str], cells: np.ndarray, alive: int
) -> None:
    n, P = game.board_size, game.num_players
    info = st.info[0]
    seglen, maxprog = int(game.cfg[4]), int(game.cfg[5])
    if alive != (1 << P) - 1:
        raise ValueError("during setup every seat is in")
    if fields["round"] != "0" or fields["first"] != "-":
        raise ValueError("during setup round must be 0 and first '-'")
    if any(x != "." for x in fields["results"].split(",")):
        raise ValueError("during setup no seat has a result")
    turn = _seat(fields["turn"], P, "turn")
    info[K.I_CUR] = turn
    info[K.I_FIRST] = -1
    home = set()
    for s in range(P):
        seg = [int(c) for c in game.seg[s, :seglen]]
        home |= set(seg)
        placed = [i for i, c in enumerate(seg) if cells[c] >= 0]
        if placed and placed != list(range(placed[0], placed[-1] + 1)):
            raise ValueError(f"seat {s}'s program is not one contiguous run (VF-10)")
        if len(placed) > maxprog:
            raise ValueError(f"seat {s}'s program has more than {maxprog} instructions (VF-10)")
        own = np.zeros(12, np.int64)
        for i in placed:
            own[cells[seg[i]]] += 1
        if ((own + st.supply[0, s]) != 1).any():
            raise ValueError(f"seat {s}: program + supply is not one of each piece (VF-2)")
        m = int(st.marker[0, s])
        if s < turn:
            if not placed or m not in [seg[i] for i in placed]:
                raise ValueError(f"seat {s}'s finished program needs its marker on it (VF-10)")
        elif m >= 0:
            raise ValueError(f"seat {s} has not finished its program and has no marker yet")
        if s > turn and placed:
            raise ValueError(f"seat {s} writes after seat {turn} and has placed nothing yet")
        if s == turn and placed:
            info[K.I_NSET] = len(placed)
            info[K.I_RLO] = placed[0]
            info[K.I_RHI] = placed[-1]
    for c in range(n * n):
        if cells[c] >= 0 and c not in home:
            raise ValueError(f"{square_to_str(c, n)} is outside every home segment during setup")
    if fields["hist"] != "-":
        raise ValueError("no repetition history during setup")


def _check_play(
    game: VirusFightBatch,
    st: VFState,
    fields: dict[str, str],
    alive: int,
    rnd: int,
    results: list[str],
) -> None:
    P = game.num_players
    info = st.info[0]
    phase = int(info[K.I_PHASE])
    if not 1 <= rnd <= game.max_rounds:
        raise ValueError(f"round must be 1..{game.max_rounds} after setup, got {rnd}")
    first = _seat(fields["first"], P, "first")
    info[K.I_FIRST] = first
    for s in range(P):
        in_game = bool((alive >> s) & 1)
        if in_game != (st.marker[0, s] >= 0):
            raise ValueError(f"seat {s}: a seat is in exactly when its marker is on the board")
        if not in_game and results[s] != "-1":
            raise ValueError(f"seat {s} is eliminated, its result must be -1 (VF-16)")
    nalive = bin(alive).count("1")
    if phase == K.PH_OVER:
        if fields["turn"] != "-":
            raise ValueError("turn must be '-' when the game is over")
        if "." in results:
            raise ValueError("every seat needs a result when the game is over")
        info[K.I_CUR] = -1
        return
    if nalive < 2:
        raise ValueError("a game still running needs at least two seats in (VF-16)")
    if any(results[s] != "." for s in range(P) if (alive >> s) & 1):
        raise ValueError("a seat still in has no result yet")
    turn = _seat(fields["turn"], P, "turn")
    if not (alive >> turn) & 1:
        raise ValueError(f"seat {turn} to act is eliminated")
    info[K.I_CUR] = turn
    info[K.I_K] = (turn - first) % P
    # a decision must exist: states with a pending elimination never occur in play
    row = np.zeros(game.num_actions, np.bool_)
    K.refresh_active(st.bb, st.marker, st.info, game.cfg)  # the legal set reads it
    K.legal_mask_one(st.bb, st.cells, st.marker, st.supply, st.info, game.seg, game.cfg, row)
    if not row.any():
        raise ValueError(
            "the seat to act has no decision (a JUMP without target or a marker step without"
            " target eliminates at once, VF-14/VF-15)"
        )
