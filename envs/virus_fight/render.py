"""Drawing Virus Fight positions: ANSI text and RGB arrays (no pygame here).

``viewer`` (optional) hides, during the hidden setup (VF-11), every program and supply but
that seat's own, so a person playing in the terminal does not see the others' programs.
"""

from __future__ import annotations

import numpy as np

from envs.virus_fight import kernel as K
from envs.virus_fight.batch import VFState, VirusFightBatch
from envs.virus_fight.notation import piece_to_str

PHASE_WORDS = {
    K.PH_SETUP: "setup",
    K.PH_EFFECT: "execute",
    K.PH_STEP: "marker step",
    K.PH_OVER: "over",
}
KIND_NAMES = ("MOVE", "WRITE", "JUMP", "ERASE")
# kind colours (VF-2: cosmetic): yellow MOVE, green WRITE, blue JUMP, red ERASE
KIND_RGB = np.array([[235, 190, 30], [40, 170, 80], [50, 90, 210], [210, 45, 45]], np.uint8)
SEAT_RGB = np.array([[250, 250, 250], [20, 20, 20], [230, 120, 220], [60, 220, 230]], np.uint8)


def _hidden(game: VirusFightBatch, st: VFState, g: int, viewer: int | None) -> np.uint64:
    """Bitboard of the squares ``viewer`` may not see (other programs during setup)."""
    if viewer is None or st.info[g, K.I_PHASE] != K.PH_SETUP:
        return np.uint64(0)
    full = np.uint64(game.cfg[6])
    own = np.uint64(game.cfg[9 + viewer])
    return full & ~own


def ansi(game: VirusFightBatch, st: VFState, g: int = 0, viewer: int | None = None) -> str:
    """Text picture: ranks top to bottom, ``W2`` instructions, ``*k`` marker of seat k."""
    n, P = game.board_size, game.num_players
    hidden = int(_hidden(game, st, g, viewer))
    others = 0  # home segments of the other seats (shown as ? during the hidden setup)
    if hidden:
        for s in range(P):
            if s != viewer:
                others |= int(np.uint64(game.cfg[9 + s]))
    markers = {int(st.marker[g, s]): s for s in range(P) if st.marker[g, s] >= 0}
    lines = []
    for r in range(n):
        row = f"{n - r} "
        for c in range(n):
            cell = r * n + c
            p = int(st.cells[g, cell])
            if hidden >> cell & 1:  # another seat's home segment: never reveal contents
                row += "  ?  " if others >> cell & 1 else "  .  "
                continue
            txt = piece_to_str(p) if p >= 0 else " ."
            mk = f"*{markers[cell]}" if cell in markers else "  "
            row += f" {txt}{mk}"
        lines.append(row.rstrip())
    lines.append("  " + "".join(f"  {chr(97 + c)}  " for c in range(n)).rstrip())
    info = st.info[g]
    phase = int(info[K.I_PHASE])
    alive = int(info[K.I_ALIVE])
    for s in range(P):
        if viewer is not None and phase == K.PH_SETUP and s != viewer:
            sup = "(hidden)"
        else:
            sup = " ".join(
                piece_to_str(p) + (f"x{int(v)}" if v > 1 else "")
                for p, v in enumerate(st.supply[g, s].tolist())
                if v > 0
            )
        state = "in" if alive >> s & 1 else "out"
        lines.append(f"player_{s} [{state}] supply: {sup or '-'}")
    if phase == K.PH_OVER:
        res = ", ".join(f"player_{s} {int(info[K.I_RES + s]):+d}" for s in range(P))
        lines.append(f"game over: {res}")
    else:
        head = f"{PHASE_WORDS[phase]}: player_{int(info[K.I_CUR])} to act"
        if phase != K.PH_SETUP:
            kind = int(st.cells[g, st.marker[g, info[K.I_CUR]]]) // 3
            head += f" ({KIND_NAMES[kind]})" if phase == K.PH_EFFECT else ""
            head += f"; round {int(info[K.I_ROUND])}, first player_{int(info[K.I_FIRST])}"
        lines.append(head)
    return "\n".join(lines)


CELL = 48
PANEL = 200


def _triangle(size: int) -> np.ndarray:
    """Boolean mask (CELL, CELL) of a pyramid side view sized by pips (1..3)."""
    h = int(CELL * (0.35 + 0.17 * size))
    w = int(CELL * (0.30 + 0.18 * size))
    mask = np.zeros((CELL, CELL), bool)
    top = CELL - 4 - h
    for y in range(h):
        half = max(1, int(w / 2 * (y + 1) / h))
        mask[top + y, CELL // 2 - half : CELL // 2 + half] = True
    return mask


_TRI = [_triangle(s) for s in (1, 2, 3)]


def _small_triangle(size: int, px: int) -> np.ndarray:
    tri = _TRI[size - 1]
    idx = (np.arange(px) * CELL // px).astype(int)
    return tri[np.ix_(idx, idx)]


def rgb(game: VirusFightBatch, st: VFState, g: int = 0, viewer: int | None = None) -> np.ndarray:
    """(H, W, 3) uint8: the board (pyramids coloured by kind, sized by pips; markers as
    player-coloured discs on top) and the supplies beside it."""
    n, P = game.board_size, game.num_players
    H = max(n * CELL, 20 + P * 60)
    W = n * CELL + PANEL
    img = np.full((H, W, 3), 235, np.uint8)
    hidden = int(_hidden(game, st, g, viewer))
    yy, xx = np.mgrid[0:CELL, 0:CELL]
    disc = (yy - CELL * 0.3) ** 2 + (xx - CELL / 2) ** 2 <= (CELL * 0.14) ** 2
    ring = (yy - CELL * 0.3) ** 2 + (xx - CELL / 2) ** 2 <= (CELL * 0.19) ** 2
    markers = {int(st.marker[g, s]): s for s in range(P) if st.marker[g, s] >= 0}
    for r in range(n):
        for c in range(n):
            y0, x0 = r * CELL, c * CELL
            tile = img[y0 : y0 + CELL, x0 : x0 + CELL]
            tile[:] = 205 if (r + c) % 2 else 190
            tile[0, :] = 120
            tile[:, 0] = 120
            cell = r * n + c
            if hidden >> cell & 1:
                continue
            p = int(st.cells[g, cell])
            if p >= 0:
                tile[_TRI[p % 3]] = KIND_RGB[p // 3]
            if cell in markers:
                tile[ring] = 90
                tile[disc] = SEAT_RGB[markers[cell]]
    # supplies beside the board
    phase = int(st.info[g, K.I_PHASE])
    alive = int(st.info[g, K.I_ALIVE])
    x_panel = n * CELL + 8
    px = 15
    for s in range(P):
        y0 = 8 + s * 60
        img[y0 : y0 + 14, x_panel : x_panel + 14] = 90
        img[y0 + 2 : y0 + 12, x_panel + 2 : x_panel + 12] = SEAT_RGB[s]
        if not alive >> s & 1:
            img[y0 + 6 : y0 + 8, x_panel : x_panel + 14] = (200, 0, 0)
        if phase == K.PH_SETUP and viewer is not None and s != viewer:
            continue
        if phase != K.PH_OVER and st.info[g, K.I_CUR] == s:
            img[y0 + 16 : y0 + 18, x_panel : x_panel + 14] = 0
        x = x_panel + 20
        y = y0
        for p in range(12):
            for _ in range(int(st.supply[g, s, p])):
                if x + px > W:
                    x = x_panel + 20
                    y += px + 2
                tri = _small_triangle(p % 3 + 1, px)
                img[y : y + px, x : x + px][tri] = KIND_RGB[p // 3]
                x += px
    return img
