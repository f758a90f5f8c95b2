"""Virus Fight in plain, slow, obvious Python, written straight from the rules file.

Used only by the differential tests against ``kernel.py``; it shares nothing with the
kernel (no bitboards, no action numbers): squares are ``(row, col)`` tuples, pieces are
``(kind_letter, size)`` tuples and actions are notation strings (``W2@c1``, ``c1-d2``,
``xc2``, ``*c2``, ``pass``). The VF-12 random tie-break is delegated to a callable so a
test can feed the kernel's choice after checking it is one of the tied seats.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field

KINDS = ("M", "W", "J", "E")
SIZES = (1, 2, 3)
ALL_PIECES = [(k, s) for k in KINDS for s in SIZES]

Square = tuple[int, int]
Piece = tuple[str, int]


def square_name(sq: Square, n: int) -> str:
    """Notation: files a.. left to right, rank 1 the bottom row."""
    r, c = sq
    return f"{chr(ord('a') + c)}{n - r}"


def home_segment(n: int, players: int, seat: int) -> list[Square]:
    """VF-9: the seat's home cells in order along the edge."""
    if players == 2:
        row = n - 1 if seat == 0 else 0
        return [(row, c) for c in range(n)]
    inner = range(1, n - 1)
    if seat == 0:
        return [(n - 1, c) for c in inner]
    if seat == 1:
        return [(r, 0) for r in inner]
    if seat == 2:
        return [(0, c) for c in inner]
    return [(r, n - 1) for r in inner]


@dataclass
class RefGame:
    """A whole Virus Fight game state."""

    n: int
    players: int
    max_rounds: int = 100
    board: dict[Square, Piece] = field(default_factory=dict)
    markers: list[Square | None] = field(default_factory=list)
    supplies: list[list[Piece]] = field(default_factory=list)  # multiset as a list
    alive: list[bool] = field(default_factory=list)
    phase: str = "setup"  # setup | effect | step | over
    seat: int = 0  # who acts
    program: list[Square] = field(default_factory=list)  # setup: squares placed so far
    round: int = 0
    first: int = -1
    order: list[int] = field(default_factory=list)  # seat order of the current round
    order_pos: int = 0
    history: list[tuple] = field(default_factory=list)
    results: list[int | None] = field(default_factory=list)
    events: list[tuple[str, int]] = field(default_factory=list)  # for test coverage

    def __post_init__(self) -> None:
        if not self.markers:
            self.markers = [None] * self.players
            self.supplies = [list(ALL_PIECES) for _ in range(self.players)]
            self.alive = [True] * self.players
            self.results = [None] * self.players

    def clone(self) -> RefGame:
        return copy.deepcopy(self)

    # ------------------------------------------------------------------ geometry
    def on_board(self, sq: Square) -> bool:
        return 0 <= sq[0] < self.n and 0 <= sq[1] < self.n

    def neighbours(self, sq: Square) -> list[Square]:
        r, c = sq
        out = [(r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)]
        return [x for x in out if self.on_board(x)]

    def block_of(self, sq: Square) -> set[Square]:
        """VF-5: the maximal orthogonally connected set of occupied cells holding sq."""
        seen = {sq}
        todo = [sq]
        while todo:
            cur = todo.pop()
            for nb in self.neighbours(cur):
                if nb in self.board and nb not in seen:
                    seen.add(nb)
                    todo.append(nb)
        return seen

    def marked(self) -> set[Square]:
        return {m for m in self.markers if m is not None}

    def name(self, sq: Square) -> str:
        return square_name(sq, self.n)

    # ------------------------------------------------------------------ legal actions
    def legal(self) -> list[str]:
        """Every legal action of the seat to act, as notation strings."""
        if self.phase == "over":
            return []
        s = self.seat
        if self.phase == "setup":
            seg = home_segment(self.n, self.players, s)
            limit = min(5, len(seg))
            out: list[str] = []
            if len(self.program) < limit:
                if not self.program:
                    cells = list(seg)
                else:
                    idx = sorted(seg.index(q) for q in self.program)
                    cells = [seg[i] for i in (idx[0] - 1, idx[-1] + 1) if 0 <= i < len(seg)]
                for piece in sorted(set(self.supplies[s])):
                    for q in cells:
                        out.append(f"{piece[0]}{piece[1]}@{self.name(q)}")
            for q in self.program:
                out.append("*" + self.name(q))
            return out
        here = self.markers[s]
        assert here is not None
        protected = self.marked()
        if self.phase == "step":
            targets = [q for q in self.neighbours(here) if q in self.board and q not in protected]
            return ["*" + self.name(q) for q in targets]
        kind = self.board[here][0]
        block = self.block_of(here)
        if kind == "J":
            return ["*" + self.name(q) for q in self.jump_targets()]
        if kind == "M":
            out = []
            for src in block:
                if src in protected:
                    continue
                rest = block - {src}
                dests: set[Square] = set()
                for q in rest:
                    for nb in self.neighbours(q):
                        if nb not in self.board:
                            dests.add(nb)
                for d in dests:
                    out.append(f"{self.name(src)}-{self.name(d)}")
            return out + ["pass"]
        if kind == "W":
            dests = set()
            for q in block:
                for nb in self.neighbours(q):
                    if nb not in self.board:
                        dests.add(nb)
            out = []
            for piece in set(self.supplies[s]):
                for d in dests:
                    out.append(f"{piece[0]}{piece[1]}@{self.name(d)}")
            return out + ["pass"]
        # ERASE
        erase_targets: set[Square] = set()
        for q in block:
            if self.board[q][0] == "E":
                for nb in self.neighbours(q):
                    if nb not in protected:
                        erase_targets.add(nb)
        if not erase_targets:
            return ["pass"]
        return ["x" + self.name(q) for q in erase_targets]

    def jump_targets(self) -> list[Square]:
        """VF-14 JUMP: unmarked pieces of the active block or of blocks without markers."""
        here = self.markers[self.seat]
        assert here is not None
        protected = self.marked()
        out = set(q for q in self.block_of(here) if q not in protected)
        for q in self.board:
            blk = self.block_of(q)
            if not (blk & protected):
                out.add(q)
        return sorted(out)

    # ------------------------------------------------------------------ transitions
    def parse_square(self, text: str) -> Square:
        col = ord(text[0]) - ord("a")
        rank = int(text[1:])
        return (self.n - rank, col)

    def apply(self, action: str, tie_break: Callable[[list[int]], int] | None = None) -> None:
        """Play one legal action; returns rewards via ``self.results``."""
        assert action in self.legal(), action
        s = self.seat
        if self.phase == "setup":
            if action.startswith("*"):
                self.markers[s] = self.parse_square(action[1:])
                self.program = []
                if s + 1 < self.players:
                    self.seat = s + 1
                    return
                self.start_play(tie_break)
                return
            piece = (action[0], int(action[1]))
            sq = self.parse_square(action[3:])
            self.board[sq] = piece
            self.supplies[s].remove(piece)
            self.program.append(sq)
            return
        if self.phase == "step":
            self.markers[s] = self.parse_square(action[1:])
            self.end_turn()
            return
        kind = self.board[self.markers[s]][0]  # type: ignore[index]
        self.events.append(("executed_" + kind, s))
        if kind == "J":
            self.markers[s] = self.parse_square(action[1:])
            self.end_turn()
            return
        if action != "pass":
            if kind == "M":
                a, b = action.split("-")
                src, dst = self.parse_square(a), self.parse_square(b)
                self.board[dst] = self.board.pop(src)
            elif kind == "W":
                piece = (action[0], int(action[1]))
                self.board[self.parse_square(action[3:])] = piece
                self.supplies[s].remove(piece)
            else:
                sq = self.parse_square(action[1:])
                if sq in self.board:
                    self.supplies[s].append(self.board.pop(sq))
        # VF-15: the marker step, or elimination at once
        self.phase = "step"
        if not self.legal():
            self.events.append(("eliminated_no_step", s))
            self.eliminate(s)
            if self.phase != "over":
                self.end_turn()

    def eliminate(self, s: int) -> None:
        self.alive[s] = False
        self.markers[s] = None
        self.results[s] = -1
        left = [t for t in range(self.players) if self.alive[t]]
        if len(left) == 1:
            self.results[left[0]] = 1
            self.phase = "over"
            self.events.append(("end_last_standing", left[0]))

    def start_play(self, tie_break: Callable[[list[int]], int] | None) -> None:
        """VF-12: first player of the first round."""

        def key(t: int) -> tuple[int, int, int]:
            prog = [q for q in home_segment(self.n, self.players, t) if q in self.board]
            pips = sum(self.board[q][1] for q in prog)
            msize = self.board[self.markers[t]][1]  # type: ignore[index]
            return (len(prog), pips, -msize)

        keys = {t: key(t) for t in range(self.players)}
        best = min(keys.values())
        tied = [t for t in range(self.players) if keys[t] == best]
        if len(tied) == 1:
            first = tied[0]
        else:
            assert tie_break is not None, "VF-12 tie needs the seeded tie-break"
            first = tie_break(tied)
            assert first in tied
        self.round = 1
        self.first = first
        self.begin_round()

    def position_key(self) -> tuple:
        return (
            tuple(sorted(self.board.items())),
            tuple(self.markers[t] if self.alive[t] else None for t in range(self.players)),
            tuple(
                tuple(sorted(self.supplies[t])) if self.alive[t] else None
                for t in range(self.players)
            ),
            self.first,
        )

    def begin_round(self) -> None:
        """A round starts: repetition check (VF-17), then the turns in seat order."""
        key = self.position_key()
        if self.history.count(key) >= 2:
            self.events.append(("end_repetition", self.round))
            self.adjudicate()
            return
        self.history.append(key)
        self.order = [
            (self.first + i) % self.players
            for i in range(self.players)
            if self.alive[(self.first + i) % self.players]
        ]
        self.order_pos = -1
        self.next_turn()

    def end_turn(self) -> None:
        self.next_turn()

    def next_turn(self) -> None:
        while True:
            self.order_pos += 1
            while self.order_pos < len(self.order) and not self.alive[self.order[self.order_pos]]:
                self.order_pos += 1
            if self.order_pos >= len(self.order):
                if self.round >= self.max_rounds:
                    self.events.append(("end_max_rounds", self.round))
                    self.adjudicate()
                    return
                self.round += 1
                self.first = self.next_first()
                self.begin_round()
                return
            s = self.order[self.order_pos]
            self.seat = s
            self.phase = "effect"
            if self.board[self.markers[s]][0] == "J" and not self.jump_targets():  # type: ignore[index]
                self.events.append(("eliminated_no_jump", s))
                self.eliminate(s)
                if self.phase == "over":
                    return
                continue
            return

    def next_first(self) -> int:
        """VF-13."""
        alive = [t for t in range(self.players) if self.alive[t]]
        size = {t: self.board[self.markers[t]][1] for t in alive}  # type: ignore[index]
        top = max(size.values())
        prev = self.first
        if self.alive[prev] and size[prev] == top:
            return prev
        largest = [t for t in alive if size[t] == top]
        if len(largest) == 1:
            return largest[0]
        for d in range(1, self.players + 1):
            t = (prev + d) % self.players
            if t in largest:
                return t
        raise AssertionError("unreachable")

    def adjudicate(self) -> None:
        """VF-17: pieces in supply, then pips; single top +1, shared top 0, others -1."""
        alive = [t for t in range(self.players) if self.alive[t]]
        score = {t: (len(self.supplies[t]), sum(p[1] for p in self.supplies[t])) for t in alive}
        top = max(score.values())
        tops = [t for t in alive if score[t] == top]
        for t in alive:
            if score[t] == top:
                self.results[t] = 1 if len(tops) == 1 else 0
            else:
                self.results[t] = -1
        self.phase = "over"
