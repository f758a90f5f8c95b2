"""Virus Fight position pictures as a vector scene (``envs.core.scene``): SVG and RGB frames.

The memory board (VF-4) with file letters and rank numbers, every instruction as a
pyramid coloured by kind (MOVE yellow, WRITE green, JUMP blue, ERASE red; VF-2 colours are
cosmetic) with its size and notation (``W2``), each seat's home segment outlined in the
seat's colour, program markers as seat-coloured discs; beside it the phase, round and
seat to act, every seat's status (in / eliminated / final reward) and supply, the last
move and a legend. ``viewer`` hides the other seats' programs during the hidden setup
(VF-11), as ``envs.virus_fight.render`` does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core.scene import Scene
from envs.virus_fight import kernel as K
from envs.virus_fight.batch import VFState, VirusFightBatch
from envs.virus_fight.notation import piece_to_str
from envs.virus_fight.params import C_FULL, C_SEGMASK

KIND_NAMES = ("MOVE", "WRITE", "JUMP", "ERASE")
KIND_RGB = ("#ebbe1e", "#28aa50", "#325ad2", "#d22d2d")
SEAT_RGB = ("#fafafa", "#202020", "#e678dc", "#3cdce6")
SEAT_EDGE = ("#c08000", "#202020", "#b040a0", "#109aa0")
PHASE_WORDS = {K.PH_SETUP: "setup", K.PH_EFFECT: "execute", K.PH_STEP: "marker step",
               K.PH_OVER: "over"}  # fmt: skip
CELL = 56
X0, Y0 = 30, 14
TEXT = "#202020"


def _hidden(game: VirusFightBatch, st: VFState, g: int, viewer: int | None) -> int:
    if viewer is None or st.info[g, K.I_PHASE] != K.PH_SETUP:
        return 0
    return int(np.uint64(game.cfg[C_FULL])) & ~int(np.uint64(game.cfg[C_SEGMASK + viewer]))


def _pyramid(sc: Scene, x: float, y: float, size: int, piece: int) -> None:
    h = CELL * (0.30 + 0.15 * size)
    w = CELL * (0.28 + 0.16 * size)
    base = y + CELL - 8
    cx = x + CELL / 2
    sc.poly([(cx, base - h), (cx + w / 2, base), (cx - w / 2, base)], KIND_RGB[piece // 3],
            "#303030", 1.5)  # fmt: skip


def scene(
    game: VirusFightBatch,
    st: VFState,
    g: int = 0,
    viewer: int | None = None,
    last_move: str | None = None,
) -> Scene:
    """The picture of game ``g`` of ``st`` (module docstring)."""
    n, P = game.board_size, game.num_players
    board_w = n * CELL
    panel_x = X0 + board_w + 24
    width = panel_x + 260
    height = max(Y0 + board_w + 96, 150 + P * 62)
    sc = Scene(width, height, "#f0f0ec")
    hidden = _hidden(game, st, g, viewer)
    markers = {int(st.marker[g, s]): s for s in range(P) if st.marker[g, s] >= 0}
    homes = [int(np.uint64(game.cfg[C_SEGMASK + s])) for s in range(P)]  # home segments
    for r in range(n):
        for c in range(n):
            cell = r * n + c
            x, y = X0 + c * CELL, Y0 + r * CELL
            sc.rect(x, y, CELL, CELL, "#cdcdc8" if (r + c) % 2 else "#bebeb8", "#787878", 1)
            for s in range(P):
                if homes[s] >> cell & 1:
                    sc.rect(x + 3, y + 3, CELL - 6, CELL - 6, None, SEAT_EDGE[s], 3)
            if hidden >> cell & 1:
                sc.text(x + CELL / 2, y + CELL / 2, "?", 16, "#707070", "middle")
                continue
            p = int(st.cells[g, cell])
            if p >= 0:
                _pyramid(sc, x, y, p % 3 + 1, p)
                sc.text(x + 6, y + 10, piece_to_str(p), 10, TEXT)
            if cell in markers:
                s = markers[cell]
                sc.circle(x + CELL - 13, y + 13, 8, SEAT_RGB[s], "#505050", 2)
                sc.text(x + CELL - 13, y + 13, str(s), 9, "#ffffff" if s == 1 else "#000000",
                        "middle")  # fmt: skip
    for i in range(n):
        sc.text(X0 + (i + 0.5) * CELL, Y0 + board_w + 12, chr(97 + i), 13, TEXT, "middle")
        sc.text(X0 - 14, Y0 + (i + 0.5) * CELL, str(n - i), 13, TEXT, "middle")
    info = st.info[g]
    phase = int(info[K.I_PHASE])
    alive = int(info[K.I_ALIVE])
    x, y = panel_x, Y0 + 8
    if phase == K.PH_OVER:
        sc.text(x, y, "game over", 15, "#b00000", bold=True)
    else:
        head = f"{PHASE_WORDS[phase]}: player_{int(info[K.I_CUR])} to act"
        sc.text(x, y, head, 14, TEXT, bold=True)
    if phase not in (K.PH_SETUP, K.PH_OVER):
        sc.text(x, y + 20, f"round {int(info[K.I_ROUND])}, first player_{int(info[K.I_FIRST])}",
                12, TEXT)  # fmt: skip
    if last_move:
        sc.text(x, y + 38, f"last move: {last_move}", 12, "#905000")
    y += 62
    for s in range(P):
        yy = y + 62 * s
        sc.circle(x + 8, yy, 8, SEAT_RGB[s], "#505050", 2)
        if phase == K.PH_OVER or not alive >> s & 1:
            res = int(info[K.I_RES + s])
            state = f"{'out' if not alive >> s & 1 else 'done'}, result {res:+d}"
        else:
            state = "in"
        sc.text(x + 22, yy, f"player_{s} [{state}]", 12, TEXT, bold=not alive >> s & 1)
        if not alive >> s & 1:
            sc.line([(x, yy), (x + 16, yy)], "#c00000", 3)
        if viewer is not None and phase == K.PH_SETUP and s != viewer:
            sc.text(x + 22, yy + 20, "supply hidden", 11, TEXT)
            continue
        k = 0
        for p in range(12):
            for _ in range(int(st.supply[g, s, p])):
                px, py = x + 22 + (k % 12) * 19, yy + 12 + (k // 12) * 18
                sc.poly([(px + 8, py), (px + 16, py + 16), (px, py + 16)], KIND_RGB[p // 3],
                        "#303030", 1)  # fmt: skip
                k += 1
    ly = Y0 + board_w + 34
    for kind in range(4):
        lx = X0 + kind * 80
        sc.rect(lx, ly - 6, 12, 12, KIND_RGB[kind], "#303030", 1)
        sc.text(lx + 16, ly, KIND_NAMES[kind], 11, TEXT)
    sc.text(X0, ly + 20, "size 1-3 = pips; outline: home segment; disc: program marker", 11, TEXT)
    return sc


def replay_scenes(record: Any, animate: bool = False) -> tuple[list[Scene], None]:
    """One scene per position of a game record (the start, then after each move), the move
    that led there named; the record is replayed bit for bit first (``arena replay``)."""
    from envs.core.records import replay

    rep = replay(record, keep_states=True)
    return [
        scene(rep.facade, s, 0, None, record.moves[k - 1] if k else None)
        for k, s in enumerate(rep.states)
    ], None
