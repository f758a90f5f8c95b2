"""Drawing Virus Fight positions: ANSI text and RGB arrays (no pygame here; RGB frames are
the vector scene of ``envs.virus_fight.svg``, the replay page's picture, drawn with Pillow).

``viewer`` (optional) hides, during the hidden setup (VF-11), every program and supply but
that seat's own, so a person playing in the terminal does not see the others' programs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.virus_fight import kernel as K
from envs.virus_fight.batch import VFState, VirusFightBatch
from envs.virus_fight.notation import piece_to_str
from envs.virus_fight.params import C_FULL, C_SEGMASK

PHASE_WORDS = {
    K.PH_SETUP: "setup",
    K.PH_EFFECT: "execute",
    K.PH_STEP: "marker step",
    K.PH_OVER: "over",
}
KIND_NAMES = ("MOVE", "WRITE", "JUMP", "ERASE")


def _hidden(game: VirusFightBatch, st: VFState, g: int, viewer: int | None) -> np.uint64:
    """Bitboard of the squares ``viewer`` may not see (other programs during setup)."""
    if viewer is None or st.info[g, K.I_PHASE] != K.PH_SETUP:
        return np.uint64(0)
    full = np.uint64(game.cfg[C_FULL])
    own = np.uint64(game.cfg[C_SEGMASK + viewer])
    return full & ~own


def ansi(game: VirusFightBatch, st: VFState, g: int = 0, viewer: int | None = None) -> str:
    """Text picture: ranks top to bottom, ``W2`` instructions, ``*k`` marker of seat k."""
    n, P = game.board_size, game.num_players
    hidden = int(_hidden(game, st, g, viewer))
    others = 0  # home segments of the other seats (shown as ? during the hidden setup)
    if hidden:
        for s in range(P):
            if s != viewer:
                others |= int(np.uint64(game.cfg[C_SEGMASK + s]))
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


def rgb(game: VirusFightBatch, st: VFState, g: int = 0, **view: Any) -> np.ndarray:
    """(H, W, 3) uint8 picture of game ``g``: the vector scene of ``envs.virus_fight.svg``
    drawn with Pillow (the board with coordinates, pyramids coloured by kind and sized by
    pips, home segments outlined, markers as seat-coloured discs; phase, round and seat to
    act, every seat's status and supply, a legend). ``view`` takes ``scene``'s ``viewer``
    (hide the other programs during the VF-11 setup) and ``last_move``."""
    from envs.core.scene import to_rgb
    from envs.virus_fight.svg import scene

    return to_rgb(scene(game, st, g, **view))
