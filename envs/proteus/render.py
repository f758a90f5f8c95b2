"""Proteus pictures: ANSI text and RGB arrays (pygame only via ``envs.core.render``).

Kept apart from the rules: these functions only read a kernel state. RGB frames are the
vector scene of ``envs.proteus.svg`` (the replay page's picture) drawn with Pillow.
"""

from __future__ import annotations

import numpy as np

from envs.proteus import kernel as K
from envs.proteus.constants import INSCRIPTIONS, SHAPE_LETTERS, STATUS_NAMES
from envs.proteus.notation import tile_name


def render_ansi(st: K.KernelState, b: int = 0) -> str:
    """A text board: tile code (``*`` = face up) and piece (``B``/``W`` + shape) per square."""
    lines = ["    +--------+--------+--------+"]
    for row in range(3):
        cells = []
        for col in range(3):
            sq = 3 * row + col
            t = int(st.tile_at[b, sq])
            if t < 0:
                cells.append("   .    ")
                continue
            up = "*" if int(st.active[b, t // 3]) == t % 3 else " "
            pc = int(st.piece_at[b, sq])
            piece = f"{'BW'[pc // 3]}{SHAPE_LETTERS[pc % 3]}" if pc >= 0 else "  "
            cells.append(f" {tile_name(t)}{up} {piece} ")
        lines.append(f"  {3 - row} |" + "|".join(cells) + "|")
        lines.append("    +--------+--------+--------+")
    lines.append("        a        b        c")
    rules = []
    for c, what in enumerate(("move", "exchange", "goal")):
        s = int(st.active[b, c])
        rules.append(f"{what}: {INSCRIPTIONS[c][s] if s >= 0 else '-'}")
    lines.append("rules in force: " + ", ".join(rules))
    on_board = {int(t) for t in st.tile_at[b] if t >= 0}
    pool = [tile_name(t) for t in range(9) if t not in on_board]
    pieces_on = {int(p) for p in st.piece_at[b] if p >= 0}
    hands = [
        " ".join(SHAPE_LETTERS[s] for s in range(3) if 3 * p + s not in pieces_on) or "-"
        for p in (0, 1)
    ]
    lines.append(f"pool: {' '.join(pool) or '-'}; hands: black {hands[0]}, white {hands[1]}")
    status = int(st.status[b])
    turn = f"turn {int(st.turn[b])}/{int(st.max_turns[b])}"
    if status:
        lines.append(f"game over: {STATUS_NAMES[status]} ({turn})")
    else:
        lines.append(f"{('black', 'white')[int(st.player[b])]} to move ({turn})")
    return "\n".join(lines)


def render_rgb(st: K.KernelState, b: int = 0, last_move: str | None = None) -> np.ndarray:
    """(H, W, 3) uint8 picture of game ``b``, drawn with Pillow from ``envs.proteus.svg``.

    Board with coordinates a-c / 1-3; tiles brown / turquoise / gold with a circle /
    square / triangle hole, face-up tiles bright with a white frame, face-down ones
    muted; BLACK pieces black shapes, WHITE pieces white shapes; beside it the mover and
    PR-17 turn count (or the result), the rules in force, pool, hands and a legend.
    """
    from envs.core.scene import to_rgb
    from envs.proteus.svg import scene

    return to_rgb(scene(st, b, last_move))
