"""Proteus reference implementation: plain, slow, obvious Python straight from the rules.

Used only by the differential tests against :mod:`envs.proteus.kernel`; it shares
nothing with the kernel except :mod:`envs.proteus.constants` (numbering and the action
encoding). Squares are (row, col) pairs internally; actions use the shared encoding.
"""

from __future__ import annotations

import itertools

from envs.proteus.constants import (
    A_MOVE,
    A_PASS,
    A_PIECE,
    A_SWAP,
    A_TILE,
    DEFAULT_MAX_TURNS,
    PAIRS,
)

COLOURS = ("brown", "turquoise", "gold")
SHAPES = ("circle", "square", "triangle")
ALL_TILES = [(c, s) for c in COLOURS for s in SHAPES]
SQUARES = [(r, c) for r in range(3) for c in range(3)]

# PR-3 inscriptions
MOVE_RULE = {"circle": "king", "square": "rook", "triangle": "bishop"}
EXCHANGE_RULE = {"circle": "polarity", "square": "colour", "triangle": "shape"}
GOAL_RULE = {"circle": "three-in-line", "square": "colour", "triangle": "shape"}

LINES = (
    [[(r, c) for c in range(3)] for r in range(3)]
    + [[(r, c) for r in range(3)] for c in range(3)]
    + [[(0, 0), (1, 1), (2, 2)], [(0, 2), (1, 1), (2, 0)]]
)


def sq_index(square: tuple[int, int]) -> int:
    return square[0] * 3 + square[1]


def sq_of(index: int) -> tuple[int, int]:
    return (index // 3, index % 3)


class RefGame:
    """One Proteus game, as the rules file describes it."""

    def __init__(self, max_turns: int = DEFAULT_MAX_TURNS) -> None:
        self.tiles: dict[tuple[int, int], tuple[str, str]] = {}  # square -> (colour, shape)
        self.face_up: set[tuple[str, str]] = set()
        self.pieces: dict[tuple[int, int], tuple[int, str]] = {}  # square -> (player, shape)
        self.pool: set[tuple[str, str]] = set(ALL_TILES)
        self.hands: list[set[str]] = [set(SHAPES), set(SHAPES)]
        self.to_move = 0  # PR-4 black first
        self.turn = 0
        self.max_turns = max_turns
        self.result: str | None = None  # "black", "white", "draw-repetition", "draw-turns"
        self.history = [self.position()]  # PR-17: the history starts with the empty board
        self.cancellations = 0

    # ------------------------------------------------------------------ queries
    def position(self) -> tuple:
        """PR-17 position: tiles + face-up + pieces per square, pool, hands, phase, mover."""
        squares = tuple(
            (self.tiles.get(sq), self.tiles.get(sq) in self.face_up, self.pieces.get(sq))
            for sq in SQUARES
        )
        return (
            squares,
            frozenset(self.pool),
            frozenset(self.hands[0]),
            frozenset(self.hands[1]),
            self.phase(),
            self.to_move,
        )

    def phase(self) -> str:
        if self.pool or self.hands[0] or self.hands[1]:
            return "placement"
        return "movement"

    def active_tile(self, colour: str) -> tuple[str, str] | None:
        for tile in self.face_up:
            if tile[0] == colour:
                return tile
        return None

    def can_still_activate(self) -> bool:
        """PR-10: colours without an active tile can be matched to distinct pieces in hand."""
        needy = [c for c in COLOURS if self.active_tile(c) is None]
        in_hand = [(p, s) for p in (0, 1) for s in self.hands[p]]
        occupied_tiles = {self.tiles[sq] for sq in self.pieces}
        for chosen in itertools.permutations(in_hand, len(needy)):
            ok = True
            for colour, (_, shape) in zip(needy, chosen, strict=True):
                tile = (colour, shape)
                if not (tile in self.pool or (tile not in occupied_tiles)):
                    ok = False
                    break
            if ok:
                return True
        return False

    def legal_actions(self) -> list[int]:
        if self.result is not None:
            return []
        actions = []
        me = self.to_move
        if self.phase() == "placement":
            for tile in ALL_TILES:
                if tile not in self.pool:
                    continue
                for sq in SQUARES:
                    if sq in self.tiles:
                        continue
                    trial = self._clone()
                    trial._place_tile(tile, sq)
                    if trial.can_still_activate():  # PR-10
                        t = COLOURS.index(tile[0]) * 3 + SHAPES.index(tile[1])
                        actions.append(A_TILE + 9 * t + sq_index(sq))
            for shape in SHAPES:
                if shape not in self.hands[me]:
                    continue
                for sq in SQUARES:
                    if sq not in self.tiles or sq in self.pieces:
                        continue  # PR-8: only on a placed tile without a piece
                    colour, tshape = self.tiles[sq]
                    if tshape == shape:
                        active = self.active_tile(colour)
                        if active is not None and active != (colour, tshape):
                            continue  # PR-9
                    trial = self._clone()
                    trial._place_piece(me, shape, sq)
                    if trial.can_still_activate():  # PR-10
                        actions.append(A_PIECE + 9 * SHAPES.index(shape) + sq_index(sq))
        else:
            brown = self.active_tile("brown")
            if brown is not None:
                rule = MOVE_RULE[brown[1]]
                for src, (owner, _) in self.pieces.items():
                    if owner != me:
                        continue
                    for dst in SQUARES:
                        if dst == src or dst not in self.tiles or dst in self.pieces:
                            continue
                        dr, dc = abs(dst[0] - src[0]), abs(dst[1] - src[1])
                        if rule == "king":
                            ok = max(dr, dc) == 1
                        elif rule == "rook":
                            ok = dr == 0 or dc == 0
                        else:
                            ok = dr != 0 and dc != 0
                        if ok:
                            actions.append(A_MOVE + 9 * sq_index(src) + sq_index(dst))
            turq = self.active_tile("turquoise")
            if turq is not None:
                rule = EXCHANGE_RULE[turq[1]]
                for k, (i, j) in enumerate(PAIRS):
                    a, b = sq_of(i), sq_of(j)
                    ta, tb = self.tiles[a], self.tiles[b]
                    if rule == "polarity":
                        ok = (
                            a in self.pieces
                            and b in self.pieces
                            and self.pieces[a][0] != self.pieces[b][0]
                        )
                    elif rule == "colour":
                        ok = ta[0] == tb[0]
                    else:
                        ok = ta[1] == tb[1]
                    if ok:
                        actions.append(A_SWAP + k)
        if not actions:
            actions.append(A_PASS)  # PR-11, PR-14
        return sorted(actions)

    def meets_goal(self, player: int) -> bool:
        """PR-15 for the face-up GOLD tile; only with all three pieces on the board."""
        gold = self.active_tile("gold")
        if gold is None:
            return False
        squares = [sq for sq, (owner, _) in self.pieces.items() if owner == player]
        if len(squares) != 3:
            return False
        goal = GOAL_RULE[gold[1]]
        if goal == "three-in-line":
            return any(set(line) == set(squares) for line in LINES)
        if goal == "colour":
            return len({self.tiles[sq][0] for sq in squares}) == 1
        return len({self.tiles[sq][1] for sq in squares}) == 1

    # ------------------------------------------------------------------ changes
    def _clone(self) -> RefGame:
        """A copy of the board part (enough to test a placement)."""
        other = RefGame.__new__(RefGame)
        other.tiles = dict(self.tiles)
        other.face_up = set(self.face_up)
        other.pieces = dict(self.pieces)
        other.pool = set(self.pool)
        other.hands = [set(self.hands[0]), set(self.hands[1])]
        other.to_move = self.to_move
        other.cancellations = 0
        return other

    def _match(self, tile: tuple[str, str]) -> None:
        """PR-6: a new match turns the tile face up, the old tile of its colour down."""
        if tile in self.face_up:
            return
        old = self.active_tile(tile[0])
        if old is not None:
            self.face_up.discard(old)
        self.face_up.add(tile)

    def _place_tile(self, tile: tuple[str, str], sq: tuple[int, int]) -> None:
        self.pool.discard(tile)
        self.tiles[sq] = tile

    def _place_piece(self, player: int, shape: str, sq: tuple[int, int]) -> None:
        self.hands[player].discard(shape)
        self.pieces[sq] = (player, shape)
        if self.tiles[sq][1] == shape:
            self._match(self.tiles[sq])

    def step(self, action: int) -> None:
        if action not in self.legal_actions():
            raise ValueError(f"illegal action {action}")
        me = self.to_move
        if action < A_PIECE:
            t, sq = divmod(action - A_TILE, 9)
            self._place_tile(ALL_TILES[t], sq_of(sq))
        elif action < A_MOVE:
            s, sq = divmod(action - A_PIECE, 9)
            self._place_piece(me, SHAPES[s], sq_of(sq))
        elif action < A_SWAP:
            src, dst = divmod(action - A_MOVE, 9)
            piece = self.pieces.pop(sq_of(src))
            self.pieces[sq_of(dst)] = piece
            if self.tiles[sq_of(dst)][1] == piece[1]:
                self._match(self.tiles[sq_of(dst)])  # PR-13
        elif action < A_PASS:
            a, b = (sq_of(x) for x in PAIRS[action - A_SWAP])
            self.tiles[a], self.tiles[b] = self.tiles[b], self.tiles[a]
            new = []
            for square in (a, b):
                if square in self.pieces and self.tiles[square][1] == self.pieces[square][1]:
                    if self.tiles[square] not in self.face_up:
                        new.append(self.tiles[square])
            if len(new) == 2 and new[0][0] == new[1][0]:
                self.cancellations += 1  # PR-7: they cancel (counted for test coverage)
            else:
                for tile in new:
                    self._match(tile)
        # else: pass (PR-11, PR-14)
        self.to_move = 1 - me
        self.turn += 1
        wins = [self.meets_goal(0), self.meets_goal(1)]  # PR-16
        self.history.append(self.position())
        if wins[0] != wins[1]:
            self.result = "black" if wins[0] else "white"
        elif self.history.count(self.history[-1]) >= 3:
            self.result = "draw-repetition"
        elif self.turn >= self.max_turns:
            self.result = "draw-turns"

    # ------------------------------------------------------------------ comparison
    def snapshot(self) -> tuple:
        """(tile ids, piece ids, active shape per colour, mover, turn, status code)."""
        tile_at = [
            COLOURS.index(self.tiles[sq][0]) * 3 + SHAPES.index(self.tiles[sq][1])
            if sq in self.tiles
            else -1
            for sq in SQUARES
        ]
        piece_at = [
            self.pieces[sq][0] * 3 + SHAPES.index(self.pieces[sq][1]) if sq in self.pieces else -1
            for sq in SQUARES
        ]
        active = []
        for colour in COLOURS:
            tile = self.active_tile(colour)
            active.append(-1 if tile is None else SHAPES.index(tile[1]))
        status = {
            None: 0,
            "black": 1,
            "white": 2,
            "draw-repetition": 3,
            "draw-turns": 4,
        }[self.result]
        return (tuple(tile_at), tuple(piece_at), tuple(active), self.to_move, self.turn, status)
