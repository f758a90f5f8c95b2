"""Mutation probe: plant one-line rule bugs in a copy of the repository, one at a time,
and check that each game's fast tests (``-m "not slow"``) catch them.

Run from the repository root::

    python -m tests.mutation_probe                  # every mutant, writes results/mutation_probe.json
    python -m tests.mutation_probe --only PR-17-mover VF-17-pieces-first
    python -m tests.mutation_probe --game proteus --list
    python -m tests.mutation_probe --check           # snippets only, no test run (seconds)

Each mutant is (id, game, file, exact original snippet, replacement, rule, description);
``file`` is where the snippet was last seen, but the snippet is looked for in every Python
file of the game's package ``envs/<game>/``. For each one the committed tree (``git
archive HEAD``, or the working tree with ``--worktree``) is copied into a temporary
folder, the snippet is replaced there (it must occur exactly once in the package, else
the mutant is reported as ``stale`` or ``ambiguous``, never skipped), and the game's test files run with ``-x -p no:cacheprovider`` and
``NUMBA_CACHE_DIR`` inside the copy, so that a mutant never touches the real Numba
cache. Rule-test files run first, so that a caught mutant stops early. A baseline run
of each game's tests on the unmutated copy comes first: a mutant only counts as caught
when the baseline passed. One mutant runs at a time (each costs a fresh Numba compile).

``--check`` only plants every mutant in memory and reports the stale or ambiguous ones;
``tests/test_mutation_probe_snippets.py`` runs it in the fast suite, so that code moved
under a mutant fails there and the mutant is moved with it (same rule bug, same id).

This module is not collected by pytest (its name does not start with ``test_``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PK = "envs/proteus/kernel.py"
PR = "envs/proteus/rules.py"
PL = "envs/proteus/legal.py"
PT = "envs/proteus/tables.py"
VR = "envs/virus_fight/rules.py"
VL = "envs/virus_fight/legal.py"
VB = "envs/virus_fight/board.py"
VO = "envs/virus_fight/observe.py"
VP = "envs/virus_fight/params.py"
MSC = "envs/moon_shot/scoring.py"
MSR = "envs/moon_shot/rules.py"


@dataclass(frozen=True)
class Mutant:
    id: str
    game: str
    file: str
    original: str
    replacement: str
    rule: str
    description: str
    #: the same edit in a twin of the code (one bug written twice), as (original, replacement)
    also: tuple[tuple[str, str], ...] = ()


M = Mutant
MUTANTS: list[Mutant] = [
    # ------------------------------------------------------------------ the four
    M("PR-17-mover", "proteus", PR,
      "k |= np.uint64(p) << np.uint64(62)",
      "k |= np.uint64(0) << np.uint64(62)",
      "PR-17", "movement-phase repetition key drops the player to move (_key_w and _key)",
      also=(("k |= np.uint64(player[b]) << np.uint64(62)",
             "k |= np.uint64(0) << np.uint64(62)"),)),
    M("PR-17-fused-turn-reset", "proteus", PK,
      "        if st != 0:  # auto-reset (PR-8)\n"
      "            tw, ts, pcs, pw, w, a, p, t, st, n = _initial(hist, b)",
      "        if st != 0:  # auto-reset (PR-8)\n"
      "            tw, ts, pcs, pw, w, a, p, _t, st, n = _initial(hist, b)",
      "PR-17", "fused random_step does not reset the turn counter on auto-reset"),
    M("VF-17-pieces-first", "virus_fight", VR,
      "return pieces * 1000 + pips",
      "return pips * 1000 + pieces",
      "VF-17", "adjudication ranks pips before pieces"),
    M("VF-14-erase-outside-block", "virus_fight", VL,
      "return _erase_set(block & (bb[g, 9] | bb[g, 10] | bb[g, 11]), mk, cfg)",
      "return _erase_set(bb[g, OCC] & (bb[g, 9] | bb[g, 10] | bb[g, 11]), mk, cfg)",
      "VF-14", "ERASE instructions outside the active block give targets"),
    # ------------------------------------------------------------------ Proteus
    M("PR-4-white-first", "proteus", PR,
      "return 0, EMPTY_TSQ, EMPTY_PIECES, 0, HAND_ALL, 0, 0, 0, 0, 1",
      "return 0, EMPTY_TSQ, EMPTY_PIECES, 0, HAND_ALL, 0, 1, 0, 0, 1",
      "PR-4", "a new game (step path) starts with WHITE to move"),
    M("PR-5-match-by-colour", "proteus", PR,
      "    s = t - 3 * c\n    return pc % 3 == s",
      "    s = c\n    return pc % 3 == s",
      "PR-5", "a piece matches a tile by colour index instead of shape"),
    M("PR-6-old-stays-up", "proteus", PR,
      "return (a & ~(3 << (2 * c))) | ((t - 3 * c + 1) << (2 * c))",
      "return a | ((t - 3 * c + 1) << (2 * c))",
      "PR-6", "activation does not turn the previously active tile of the colour face down"),
    M("PR-7-cancel-any-colour", "proteus", PR,
      "if ci and cj and ti // 3 == tj // 3:",
      "if ci and cj:",
      "PR-7", "two new matches cancel even when their colours differ"),
    M("PR-8-piece-on-covered-tile", "proteus", PL,
      "v = (bb >> 36) & ~covered & 511",
      "v = (bb >> 36) & 511",
      "PR-8", "a piece may be placed on a tile that already holds a piece"),
    M("PR-9-no-bar", "proteus", PL,
      "pr9 = (1 - match) | np.int64(up == 0) | np.int64(up == s + 1)",
      "pr9 = np.int64(1)",
      "PR-9", "a matching piece may go on another tile of a colour that has a face-up tile"),
    M("PR-10-no-forced-activation", "proteus", PL,
      "return pr9 & _feasible(need & ~(match << c), avail & ~(piece << t), hand2)",
      "return pr9 & (piece | _feasible(need & ~(match << c), avail & ~(piece << t), hand2))",
      "PR-10", "piece placements ignore forced activation"),
    M("PR-11-no-pass", "proteus", PL,
      "    if _count(L) == 0:\n        out[A_PASS] = True",
      "    if _count(L) < 0:\n        out[A_PASS] = True",
      "PR-11", "no pass in the mask when nothing else is legal (bool and packed masks)",
      also=(("none = np.uint64(_count(L) == 0)", "none = np.uint64(_count(L) < 0)"),)),
    M("PR-12-king-orthogonal", "proteus", PT,
      "if max(abs(rr - r), abs(cc - c)) == 1:",
      "if abs(rr - r) + abs(cc - c) == 1:",
      "PR-12", "KING moves only orthogonally"),
    M("PR-12-rook-row-only", "proteus", PT,
      "if rr == r or cc == c:",
      "if rr == r:",
      "PR-12", "ROOK moves only along its row"),
    M("PR-12-bishop-diagonal", "proteus", PT,
      "if rr != r and cc != c:",
      "if rr != r and cc != c and abs(rr - r) == abs(cc - c):",
      "PR-12", "BISHOP moves only diagonally (not to every square off its row and column)"),
    M("PR-12-colour-is-shape", "proteus", PL,
      "if rule == 1:  # COLOUR: tiles (g, x), (g, y)",
      "if rule == 2:  # COLOUR: tiles (g, x), (g, y)",
      "PR-12", "COLOUR and SHAPE exchanges swapped"),
    M("PR-13-no-activation-on-move", "proteus", PR,
      "if _is_new_active(a, td, pc):  # PR-13 -> PR-6",
      "if False:  # PR-13 -> PR-6",
      "PR-13", "a move onto a tile of the piece's shape activates nothing"),
    M("PR-15-no-anti-diagonal", "proteus", PT,
      "for m in (0o007, 0o070, 0o700, 0o111, 0o222, 0o444, 0o421, 0o124):",
      "for m in (0o007, 0o070, 0o700, 0o111, 0o222, 0o444, 0o421):",
      "PR-15", "THREE-IN-LINE misses the anti-diagonal c3-b2-a1"),
    M("PR-15-colour-two-tiles", "proteus", PR,
      "m = t0 // 3 == t1 // 3 and t1 // 3 == t2 // 3",
      "m = t0 // 3 == t1 // 3",
      "PR-15", "COLOUR goal checks two of the three tiles"),
    M("PR-15-goal-with-pieces-in-hand", "proteus", PR,
      "if s0 == 15 or s1 == 15 or s2 == 15:",
      "if s0 == 15 and s1 == 15 and s2 == 15:",
      "PR-15", "a goal applies to a player with pieces still in hand"),
    M("PR-16-both-meet-wins", "proteus", PR,
      "    if meets0 and not meets1:\n        return 0",
      "    if meets0:\n        return 0",
      "PR-16", "BLACK wins when both players meet the goal"),
    M("PR-17-fourth-occurrence", "proteus", PR,
      "if not placement and occurrences >= 3:",
      "if not placement and occurrences >= 4:",
      "PR-17", "repetition draw at the fourth occurrence"),
    M("PR-17-turn-limit-late", "proteus", PR,
      "if t_now >= max_t:",
      "if t_now > max_t:",
      "PR-17", "turn-limit draw one turn late"),
    # ------------------------------------------------------------------ Virus Fight
    M("VF-5-flood-through-empty", "virus_fight", VB,
      "g = (f | _nbrs(f, cfg)) & occ",
      "g = f | _nbrs(f, cfg)",
      "VF-5", "a block floods through empty cells"),
    M("VF-8-move-protected", "virus_fight", VL,
      "return U0, 0, U0, U0, block, block & ~mk, occ, 1  # MOVE",
      "return U0, 0, U0, U0, block, block, occ, 1  # MOVE",
      "VF-8", "MOVE may take an instruction that carries a marker"),
    M("VF-14-move-next-to-itself", "virus_fight", VL,
      "return _nbrs(block & ~_bit(f), cfg) & ~occ",
      "return _nbrs(block, cfg) & ~occ",
      "VF-14", "MOVE destinations next to the moved instruction only count"),
    M("VF-14-write-any-block", "virus_fight", VL,
      "return _nbrs(block, cfg) & ~occ",
      "return _nbrs(occ, cfg) & ~occ",
      "VF-14", "WRITE may put an instruction next to any block"),
    M("VF-7-jump-anywhere", "virus_fight", VL,
      "return (block | (occ & ~marked_blocks)) & ~mk",
      "return occ & ~mk",
      "VF-7", "JUMP may land in another player's active block"),
    M("VF-15-step-onto-marked", "virus_fight", VL,
      "return _nbrs(_bit(executed), cfg) & occ & ~mk",
      "return _nbrs(_bit(executed), cfg) & occ",
      "VF-15", "the marker step may land on a marked instruction (VF-3)"),
    M("VF-12-pips-first", "virus_fight", VR,
      "return cnt * 10000 + pips * 10 + (3 - msize)",
      "return pips * 10000 + cnt * 10 + (3 - msize)",
      "VF-12", "first player by pips before instruction count"),
    M("VF-13-previous-first-not-kept", "virus_fight", VR,
      "if (alive >> prev) & 1 and cells[g, marker[g, prev]] % 3 + 1 == best:",
      "if False and cells[g, marker[g, prev]] % 3 + 1 == best:",
      "VF-13", "the previous first player does not stay first on a tie for largest"),
    M("VF-16-never-last-standing", "virus_fight", VR,
      "    if left == 1:\n",
      "    if left == 0:\n",
      "VF-16", "the last player standing does not win"),
    M("VF-17-round-limit-late", "virus_fight", VR,
      "if info[g, I_ROUND] >= cfg[C_MAX_ROUNDS]:",
      "if info[g, I_ROUND] > cfg[C_MAX_ROUNDS]:",
      "VF-17", "round-limit adjudication one round late"),
    M("VF-17-fourth-repetition", "virus_fight", VR,
      "if seen >= 2:",
      "if seen >= 3:",
      "VF-17", "repetition adjudication at the fourth round start"),
    M("VF-11-setup-visible", "virus_fight", VO,
      "visible = np.uint64(cfg[C_SEGMASK + seat])",
      "visible = np.uint64(cfg[C_FULL])",
      "VF-11", "other players' programs are visible during setup"),
    M("VF-9-segment-with-corner", "virus_fight", VP,
      "seg[0, i] = (n - 1) * n + (i + 1)  # bottom",
      "seg[0, i] = (n - 1) * n + i  # bottom",
      "VF-9", "seat 0's home segment (3-4 players) includes the corner cell"),
    M("VF-10-program-too-long", "virus_fight", VL,
      "if nset < cfg[C_MAXPROG]:  # grow the run at either end",
      "if nset <= cfg[C_MAXPROG]:  # grow the run at either end",
      "VF-10", "a program may hold one instruction more than the limit"),
    # ------------------------------------------------------------------ Moon Shot
    M("MS-11-medium-cracks", "moon_shot", MSC,
      "crack = in_tube[..., LARGE]  # MS-11",
      "crack = in_tube[..., MEDIUM]  # MS-11",
      "MS-11", "the medium in the tube cracks the Moon"),
    M("MS-12-colony-despite-crack", "moon_shot", MSC,
      "colony = colony_pieces & ~crack  # MS-12",
      "colony = colony_pieces  # MS-12",
      "MS-12", "a colony counts even when the large cracks the Moon"),
    M("MS-13-controlled-backwards", "moon_shot", MSC,
      "return np.cos(h) * (-x) + np.sin(h) * (-y) > 0.0",
      "return np.cos(h) * (-x) + np.sin(h) * (-y) < 0.0",
      "MS-13", "controlled landing when the heading points away from the launch point"),
    M("MS-14-colonist-not-first", "moon_shot", MSR,
      "return _rank(scores, last, colonists, 1)",
      "return _rank(scores, last, colonists & ~colonists, 1)",
      "MS-14", "the colonist does not win a tie for the most points"),
    M("MS-15-most-points-wins", "moon_shot", MSR,
      "return _rank(scores, last, crackers, -1)",
      "return _rank(-scores, last, crackers, -1)",
      "MS-15", "after a crack the player with the most points wins"),
    M("MS-17-draw-gives-one", "moon_shot", MSR,
      "out[p] = 1.0 if k == 1 else 0.0",
      "out[p] = 1.0",
      "MS-17", "every player of a draw gets +1"),
    M("MS-19-target-exceeded", "moon_shot", MSR,
      "reached = target_score > 0 and scores[i, s] >= target_score",
      "reached = target_score > 0 and scores[i, s] > target_score",
      "MS-19", "the target score must be exceeded, not reached"),
]  # fmt: skip

#: test files that run first (by name fragment), so that a caught mutant stops early
FIRST = ("rules", "fast_cases", "pr15", "pr17", "scoring", "fused", "env")


def interleave(mutants: list[Mutant]) -> list[Mutant]:
    """The first four (the issue's) first, then one mutant of each game in turn, so that a
    run cut short still covers every game."""
    head, rest = mutants[:4], mutants[4:]
    by_game: dict[str, list[Mutant]] = {}
    for m in rest:
        by_game.setdefault(m.game, []).append(m)
    out = list(head)
    while any(by_game.values()):
        for game in sorted(by_game):
            if by_game[game]:
                out.append(by_game[game].pop(0))
    return out


def game_tests(tree: Path, game: str) -> list[str]:
    """The game's test files, rule tests first (every file of ``tests/<game>/`` is run)."""
    files = sorted((tree / "tests" / game).glob("test_*.py"))

    def rank(p: Path) -> tuple[int, str]:
        for i, frag in enumerate(FIRST):
            if frag in p.name:
                return i, p.name
        return len(FIRST), p.name

    return [str(p.relative_to(tree)) for p in sorted(files, key=rank)]


def copy_tree(dest: Path, worktree: bool) -> str:
    """Copy the repository (HEAD, or the working tree's tracked and unignored files)."""
    if worktree:
        files = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT, check=True, capture_output=True,
        ).stdout.split(b"\0")  # fmt: skip
        for f in files:
            if not f:
                continue
            src = ROOT / f.decode()
            if src.is_file():
                (dest / f.decode()).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, dest / f.decode())
        return "worktree"
    commit = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.strip()
    archive = subprocess.run(["git", "archive", commit], cwd=ROOT, check=True, capture_output=True)
    subprocess.run(["tar", "xf", "-"], cwd=dest, input=archive.stdout, check=True)
    return commit


def _plant(texts: dict[Path, str], original: str, replacement: str) -> tuple[str, str]:
    """Replace ``original`` in the package's texts (in memory): (status, where)."""
    files = [p for p, text in texts.items() if original in text]
    if not files:
        return "stale", ""
    if len(files) > 1 or texts[files[0]].count(original) > 1:
        return "ambiguous", ", ".join(p.as_posix() for p in files)
    texts[files[0]] = texts[files[0]].replace(original, replacement)
    return "ok", files[0].as_posix()


def plant(tree: Path, m: Mutant) -> tuple[str, str, dict[Path, str]]:
    """(status, file, the changed texts by path under ``tree``) of planting ``m``.

    Each snippet (the original, then each ``also`` twin, in turn on the texts the earlier
    ones left) must occur exactly once in the Python files of the game's package
    (``envs/<game>/``, ``m.file`` among them): else 'stale' (found nowhere) or
    'ambiguous' (found more than once), and the file names where it was (not) found.
    """
    package = tree / "envs" / m.game
    texts = {p.relative_to(tree): p.read_text() for p in sorted(package.rglob("*.py"))}
    before = dict(texts)
    where = []
    for original, replacement in ((m.original, m.replacement), *m.also):
        if original == replacement:
            return "unchanged", m.file, {}
        status, path = _plant(texts, original, replacement)
        if status != "ok":
            return status, path or m.file, {}
        where.append(path)
    changed = {p: text for p, text in texts.items() if text != before[p]}
    return "ok", ", ".join(dict.fromkeys(where)), changed


def apply_mutant(tree: Path, m: Mutant) -> tuple[str, str]:
    """Plant the mutant in the copy ``tree``: (status, file). Status 'ok', 'stale',
    'ambiguous' or 'unchanged' (:func:`plant`); nothing is written unless 'ok'."""
    status, where, changed = plant(tree, m)
    for rel, text in changed.items():
        (tree / rel).write_text(text)
    return status, where


def check_snippets(tree: Path = ROOT, mutants: list[Mutant] | None = None) -> list[str]:
    """Problems of the mutant list against ``tree`` without running a test: a snippet
    that is stale, ambiguous or unchanged, a hint file that does not exist, a repeated
    id. Empty when every mutant plants (cheap: no copy, no compile)."""
    mutants = MUTANTS if mutants is None else mutants
    problems = []
    seen: set[str] = set()
    for m in mutants:
        if m.id in seen:
            problems.append(f"{m.id}: id used twice")
        seen.add(m.id)
        if not (tree / m.file).is_file():
            problems.append(f"{m.id}: hint file {m.file} does not exist")
        status, where, _ = plant(tree, m)
        if status != "ok":
            problems.append(f"{m.id}: {status} in {where}")
    return problems


def run_tests(tree: Path, game: str, timeout: float) -> tuple[int, str, float]:
    """(pytest exit code, last lines of output, seconds) of the game's fast tests."""
    env = dict(os.environ)
    env["NUMBA_CACHE_DIR"] = str(tree / ".numba_cache")
    env["PYTHONPATH"] = str(tree)
    env.pop("CI", None)
    cmd = [sys.executable, "-m", "pytest", *game_tests(tree, game), "-q", "-x",
           "-m", "not slow", "-p", "no:cacheprovider", "-rfE"]  # fmt: skip
    t0 = time.time()
    try:
        out = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True,
                             timeout=timeout)  # fmt: skip
        code, log = out.returncode, out.stdout + out.stderr
    except subprocess.TimeoutExpired as exc:
        partial = exc.stdout.decode() if isinstance(exc.stdout, bytes) else exc.stdout or ""
        code, log = -1, f"timeout after {timeout} s\n{partial}"
    lines = [ln for ln in log.splitlines() if ln.strip()]
    failed = [ln for ln in lines if ln.startswith(("FAILED", "ERROR"))]
    return code, "\n".join((failed[:1] + lines[-1:]) if failed else lines[-3:]), time.time() - t0


def check_imports_from(tree: Path) -> None:
    """The copy's packages must shadow the editable install (else mutants test nothing)."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    out = subprocess.run(
        [sys.executable, "-c", "import envs; print(envs.__file__)"],
        cwd=tree, env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    if not out.stdout.strip().startswith(str(tree)):
        raise RuntimeError(f"envs imported from {out.stdout.strip()}, not from the copy {tree}")


def markdown(report: dict) -> str:
    """The report as the markdown table of docs/testing.md."""
    lines = ["| game | baseline (unmutated) | commit | seconds |", "|---|---|---|---:|"]
    for game, b in sorted(report["baseline"].items()):
        last = b["tail"].splitlines()[-1] if b["tail"] else ""
        lines.append(
            f"| {game} | exit {b['exit']}: {last} | `{b['source'][:8]}` | {b['seconds']} |"
        )
    lines += ["", "| # | mutant | rule | file | bug planted | result | caught by | s |",
              "|---:|---|---|---|---|---|---|---:|"]  # fmt: skip
    for i, row in enumerate(report["mutants"], 1):
        first = row["tail"].splitlines()[0] if row["tail"] else ""
        by = first.split("::", 1)[1].split(" ")[0] if first.startswith("FAILED") else ""
        by = f"`{first.split('::')[0].split('/')[-1]}::{by}`" if by else ""
        lines.append(
            f"| {i} | `{row['id']}` | {row['rule']} | `{row['file']}` | {row['description']} "
            f"| **{row['result']}** | {by} | {row['seconds']} |"
        )
    counts: dict[str, int] = {}
    for row in report["mutants"]:
        counts[row["result"]] = counts.get(row["result"], 0) + 1
    lines += [
        "",
        ", ".join(f"{v} {k}" for k, v in sorted(counts.items())) + f" of {len(report['mutants'])}.",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="*", help="mutant ids to run (default: all)")
    ap.add_argument("--game", choices=["proteus", "virus_fight", "moon_shot"])
    ap.add_argument("--list", action="store_true", help="print the mutants and exit")
    ap.add_argument(
        "--check",
        action="store_true",
        help="only check that every snippet (and twin) occurs exactly once; run no test",
    )
    ap.add_argument("--worktree", action="store_true", help="copy the working tree, not HEAD")
    ap.add_argument("--no-baseline", action="store_true", help="skip the unmutated runs")
    ap.add_argument(
        "--reuse-baseline",
        metavar="JSON",
        help="take the baselines of an earlier report (their commits are kept)",
    )
    ap.add_argument(
        "--order",
        choices=["listed", "interleaved"],
        default="interleaved",
        help="interleaved: the issue's mutants, then one game after the other",
    )
    ap.add_argument("--timeout", type=float, default=1200.0, help="seconds per test run")
    ap.add_argument("--out", default="results/mutation_probe.json")
    ap.add_argument("--table", metavar="JSON", help="print a report as markdown and exit")
    args = ap.parse_args(argv)
    if args.table:
        print(markdown(json.loads(Path(args.table).read_text())))
        return 0

    by_id = {m.id: m for m in MUTANTS}
    chosen = [by_id[i] for i in args.only if i in by_id] if args.only else list(MUTANTS)
    chosen = [m for m in chosen if not args.game or m.game == args.game]
    if args.order == "interleaved":
        chosen = interleave(chosen)
    unknown = set(args.only or ()) - {m.id for m in MUTANTS}
    if unknown:
        ap.error(f"unknown mutant ids: {sorted(unknown)}")
    if args.check:
        problems = check_snippets(ROOT, chosen)
        print("\n".join(problems) if problems else f"{len(chosen)} mutants plant cleanly")
        return 1 if problems else 0
    if args.list:
        for m in chosen:
            print(f"{m.id:32} {m.rule:6} {m.file:28} {m.description}")
        return 0

    out_path = ROOT / args.out
    out_path.parent.mkdir(parents=True, exist_ok=True)
    report: dict = {"started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
                    "baseline": {}, "mutants": []}  # fmt: skip

    def save() -> None:
        out_path.write_text(json.dumps(report, indent=2) + "\n")

    with tempfile.TemporaryDirectory(prefix="mutation_probe_") as tmp:
        games = sorted({m.game for m in chosen})
        if args.reuse_baseline:
            earlier = json.loads(Path(args.reuse_baseline).read_text())["baseline"]
            report["baseline"] = {g: earlier[g] for g in games if g in earlier}
        if not args.no_baseline:
            for game in games:
                if game in report["baseline"]:
                    continue
                tree = Path(tmp) / f"baseline_{game}"
                tree.mkdir()
                source = copy_tree(tree, args.worktree)
                check_imports_from(tree)
                code, tail, secs = run_tests(tree, game, args.timeout)
                report["baseline"][game] = {
                    "exit": code, "seconds": round(secs), "tail": tail, "source": source
                }  # fmt: skip
                print(f"baseline {game}: exit {code} ({secs:.0f} s) {tail.splitlines()[-1]}")
                save()
                shutil.rmtree(tree)
        for m in chosen:
            tree = Path(tmp) / m.id
            tree.mkdir()
            source = copy_tree(tree, args.worktree)
            status, where = apply_mutant(tree, m)
            row = asdict(m)
            row.update(file=where, source=source)
            if status != "ok":
                row.update(result=status, seconds=0, tail="")
            else:
                code, tail, secs = run_tests(tree, m.game, args.timeout)
                base = report["baseline"].get(m.game, {}).get("exit", 0)
                if code == 0:
                    result = "survived"
                elif code == -1:
                    result = "timeout"
                elif base != 0:
                    result = "unknown (baseline failed)"
                else:
                    result = "caught"
                row.update(result=result, seconds=round(secs), tail=tail)
            report["mutants"].append(row)
            save()
            print(
                f"{m.id:32} {row['result']:9} {row['seconds']:5} s  {row['tail'].splitlines()[0] if row['tail'] else ''}"
            )
            shutil.rmtree(tree, ignore_errors=True)
    counts: dict[str, int] = {}
    for row in report["mutants"]:
        counts[row["result"]] = counts.get(row["result"], 0) + 1
    report["counts"] = counts
    report["finished"] = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    save()
    print(json.dumps(counts), "->", out_path)
    return 0 if set(counts) <= {"caught"} else 1


if __name__ == "__main__":
    raise SystemExit(main())
