"""Proteus pictures: ANSI text and RGB arrays (pygame only via ``envs.core.render``).

Kept apart from the rules: these functions only read a kernel state.
"""

from __future__ import annotations

import numpy as np

from envs.proteus import kernel as K
from envs.proteus.constants import INSCRIPTIONS, SHAPE_LETTERS, STATUS_NAMES
from envs.proteus.notation import tile_name

CELL = 120
MARGIN = 20
PANEL = 110
COLOURS_RGB = np.array([[139, 90, 43], [64, 200, 190], [230, 180, 30]], dtype=np.float64)
BG = np.array([40, 44, 52], dtype=np.uint8)


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


def _shape_mask(shape: int, yy: np.ndarray, xx: np.ndarray, cy: float, cx: float, r: float):
    if shape == 0:  # circle
        return (yy - cy) ** 2 + (xx - cx) ** 2 <= r * r
    if shape == 1:  # square
        h = r * 0.85
        return (np.abs(yy - cy) <= h) & (np.abs(xx - cx) <= h)
    top, bottom = cy - r, cy + 0.75 * r  # triangle, point up
    frac = (yy - top) / (bottom - top)
    return (yy >= top) & (yy <= bottom) & (np.abs(xx - cx) <= frac * r * 1.05)


def _paint(img: np.ndarray, mask: np.ndarray, colour) -> None:
    img[mask] = np.asarray(colour, dtype=np.uint8)


def _draw_tile(img, y0, x0, size, tile, face_up) -> None:
    yy, xx = np.mgrid[y0 : y0 + size, x0 : x0 + size].astype(np.float64)
    base = COLOURS_RGB[tile // 3]
    colour = base if face_up else base * 0.45 + 60
    sub = img[y0 : y0 + size, x0 : x0 + size]
    sub[:] = colour.astype(np.uint8)
    if face_up:  # a bright frame marks the face-up (active) tile
        edge = max(3, size // 20)
        sub[:edge] = sub[-edge:] = 255
        sub[:, :edge] = sub[:, -edge:] = 255
    c = size / 2
    r = size * 0.36
    hole = _shape_mask(tile % 3, yy - y0, xx - x0, c, c, r)
    inner = _shape_mask(tile % 3, yy - y0, xx - x0, c, c, r - max(3, size / 24))
    _paint(sub, hole & ~inner, (30, 30, 30))


def _draw_piece(img, y0, x0, size, piece) -> None:
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float64)
    c = size / 2
    r = size * 0.24
    sub = img[y0 : y0 + size, x0 : x0 + size]
    outer = _shape_mask(piece % 3, yy, xx, c, c, r + 3)
    inner = _shape_mask(piece % 3, yy, xx, c, c, r)
    fill, rim = ((15, 15, 15), (235, 235, 235)) if piece < 3 else ((245, 245, 245), (20, 20, 20))
    _paint(sub, outer, rim)
    _paint(sub, inner, fill)


def render_rgb(st: K.KernelState, b: int = 0) -> np.ndarray:
    """(H, W, 3) uint8 picture: board, pool (left part of the panel), hands (right part).

    Tiles are brown / turquoise / gold with a circle / square / triangle hole; face-up
    tiles are bright with a white frame, face-down ones muted. BLACK pieces are black
    shapes, WHITE pieces white shapes.
    """
    width = 3 * CELL + 2 * MARGIN
    height = 3 * CELL + 2 * MARGIN + PANEL
    img = np.empty((height, width, 3), dtype=np.uint8)
    img[:] = BG
    for sq in range(9):
        row, col = divmod(sq, 3)
        y0, x0 = MARGIN + row * CELL, MARGIN + col * CELL
        img[y0 + 2 : y0 + CELL - 2, x0 + 2 : x0 + CELL - 2] = (70, 74, 84)
        t = int(st.tile_at[b, sq])
        if t >= 0:
            _draw_tile(img, y0 + 6, x0 + 6, CELL - 12, t, int(st.active[b, t // 3]) == t % 3)
        pc = int(st.piece_at[b, sq])
        if pc >= 0:
            _draw_piece(img, y0 + 6, x0 + 6, CELL - 12, pc)
    # panel: pool tiles (small), then each player's pieces in hand
    y = 3 * CELL + 2 * MARGIN
    small = 34
    on_board = {int(t) for t in st.tile_at[b] if t >= 0}
    for k, t in enumerate(t for t in range(9) if t not in on_board):
        row, col = divmod(k, 5)
        _draw_tile(img, y + row * (small + 4), MARGIN + col * (small + 4), small, t, False)
    pieces_on = {int(p) for p in st.piece_at[b] if p >= 0}
    for p in (0, 1):
        for s in range(3):
            if 3 * p + s not in pieces_on:
                x = width // 2 + 10 + s * 50
                _draw_piece(img, y + p * 50, x, 48, 3 * p + s)
    # who moves: a marker square at the bottom right, black or white; red when over
    mark = (200, 40, 40) if int(st.status[b]) else ((0, 0, 0) if st.player[b] == 0 else (255,) * 3)
    img[height - 18 : height - 6, width - 18 : width - 6] = mark
    return img
