"""Proteus position pictures as a vector scene (``envs.core.scene``): SVG and RGB frames.

The board (PR-1) with file letters a-c and rank numbers 1-3, tiles coloured by colour
(brown / turquoise / gold) with their shape hole, the face-up tile of each colour bright
with a white frame (PR-3: its inscription is the rule in force), pieces as black or white
shapes; beside it whose turn it is (PR-17 turn count) or the result, the rules in force,
the pool (PR-8), both hands, the last move and a legend.
"""

from __future__ import annotations

from typing import Any

from envs.core.scene import Scene
from envs.proteus import kernel as K
from envs.proteus.constants import (
    COLOUR_NAMES,
    INSCRIPTIONS,
    PLAYER_NAMES,
    STATUS_NAMES,
)
from envs.proteus.notation import tile_name

CELL = 96
X0, Y0 = 34, 16
PANEL_X = X0 + 3 * CELL + 22
WIDTH, HEIGHT = PANEL_X + 250, Y0 + 3 * CELL + 96
TILE_RGB = ("#8b5a2b", "#40c8be", "#e6b41e")
TILE_DIM = ("#6a5140", "#4f8884", "#a08a4a")
BG = "#282c34"
TEXT = "#e8e8e8"
RULE_KINDS = ("move", "exchange", "goal")


def _shape(scene: Scene, shape: int, cx: float, cy: float, r: float, fill: str | None,
           stroke: str | None, sw: float = 2.0) -> None:  # fmt: skip
    if shape == 0:  # circle
        scene.circle(cx, cy, r, fill, stroke, sw)
    elif shape == 1:  # square
        h = 0.85 * r
        scene.rect(cx - h, cy - h, 2 * h, 2 * h, fill, stroke, sw)
    else:  # triangle, point up
        scene.poly(
            [(cx, cy - r), (cx + r, cy + 0.75 * r), (cx - r, cy + 0.75 * r)], fill, stroke, sw
        )


def _tile(scene: Scene, x: float, y: float, size: float, tile: int, face_up: bool) -> None:
    colour = tile // 3
    fill = TILE_RGB[colour] if face_up else TILE_DIM[colour]
    scene.rect(x, y, size, size, fill, "#ffffff" if face_up else "#1e1e1e", 4 if face_up else 1)
    _shape(scene, tile % 3, x + size / 2, y + size / 2, 0.36 * size, None, "#1e1e1e", 3)


def _piece(scene: Scene, cx: float, cy: float, r: float, piece: int) -> None:
    fill, rim = ("#0f0f0f", "#ebebeb") if piece < 3 else ("#f5f5f5", "#141414")
    _shape(scene, piece % 3, cx, cy, r, fill, rim, 3)


def scene(st: K.KernelState, b: int = 0, last_move: str | None = None) -> Scene:
    """The picture of game ``b`` of ``st`` (module docstring)."""
    sc = Scene(WIDTH, HEIGHT, BG)
    tile_at, piece_at, active = st.tile_at[b], st.piece_at[b], st.active[b]
    for sq in range(9):
        row, col = divmod(sq, 3)
        x, y = X0 + col * CELL, Y0 + row * CELL
        sc.rect(x + 2, y + 2, CELL - 4, CELL - 4, "#464a54")
        t = int(tile_at[sq])
        if t >= 0:
            _tile(sc, x + 7, y + 7, CELL - 14, t, int(active[t // 3]) == t % 3)
            sc.text(x + 10, y + CELL - 16, tile_name(t), 11, "#101010")
        pc = int(piece_at[sq])
        if pc >= 0:
            _piece(sc, x + CELL / 2, y + CELL / 2, 0.22 * CELL, pc)
    for i in range(3):  # coordinates: files under the board, ranks left of it
        sc.text(X0 + (i + 0.5) * CELL, Y0 + 3 * CELL + 12, "abc"[i], 14, TEXT, "middle")
        sc.text(X0 - 14, Y0 + (i + 0.5) * CELL, str(3 - i), 14, TEXT, "middle")
    # panel
    status = int(st.status[b])
    turn = f"turn {int(st.turn[b])}/{int(st.max_turns[b])}"
    x, y = PANEL_X, Y0 + 10
    if status:
        sc.text(x, y, f"game over: {STATUS_NAMES[status]}", 15, "#ff8080", bold=True)
    else:
        mover = PLAYER_NAMES[int(st.player[b])]
        sc.text(x, y, f"{mover} to move", 15, TEXT, bold=True)
        sc.circle(x + 200, y, 8, "#0f0f0f" if mover == "black" else "#f5f5f5", "#999999", 2)
    sc.text(x, y + 22, turn, 13, TEXT)
    if last_move:
        sc.text(x, y + 42, f"last move: {last_move}", 13, "#ffd070")
    y += 70
    sc.text(x, y, "rules in force", 13, TEXT, bold=True)
    for c in range(3):
        s = int(active[c])
        what = INSCRIPTIONS[c][s] if s >= 0 else "-"
        sc.rect(x, y + 12 + 20 * c, 12, 12, TILE_RGB[c])
        sc.text(x + 18, y + 18 + 20 * c, f"{RULE_KINDS[c]}: {what}", 12, TEXT)
    y += 84
    sc.text(x, y, "pool", 13, TEXT, bold=True)
    on_board = {int(t) for t in tile_at if t >= 0}
    pool = [t for t in range(9) if t not in on_board]
    for k, t in enumerate(pool):
        _tile(sc, x + 40 + (k % 5) * 30, y - 10 + (k // 5) * 30, 26, t, False)
    if not pool:
        sc.text(x + 40, y, "-", 12, TEXT)
    y += 70
    pieces_on = {int(p) for p in piece_at if p >= 0}
    for p in (0, 1):
        sc.text(x, y + 26 * p, f"{PLAYER_NAMES[p]} hand", 12, TEXT)
        for k, s in enumerate(s for s in range(3) if 3 * p + s not in pieces_on):
            _piece(sc, x + 100 + 26 * k, y + 26 * p, 9, 3 * p + s)
    # legend under the board
    ly = Y0 + 3 * CELL + 36
    for c, lx in enumerate((0, 112, 268)):
        sc.rect(X0 + lx, ly - 6, 12, 12, TILE_RGB[c])
        sc.text(X0 + lx + 16, ly, f"{COLOUR_NAMES[c]} = {RULE_KINDS[c]}", 11, TEXT)
    sc.text(X0, ly + 20, "white frame: face-up tile (its rule is in force)", 11, TEXT)
    sc.text(X0, ly + 38, "tiles: colour M/T/G + shape o/s/t (circle, square, triangle)", 11, TEXT)
    return sc


def replay_scenes(record: Any, animate: bool = False) -> tuple[list[Scene], None]:
    """One scene per position of a game record (the start, then after each move), the move
    that led there named; the record is replayed bit for bit first (``arena replay``)."""
    from envs.core.records import replay

    rep = replay(record, keep_states=True)
    return [scene(s, 0, record.moves[k - 1] if k else None) for k, s in enumerate(rep.states)], None
