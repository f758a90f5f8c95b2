"""The repository's contract with CI: README's test command is the one CI runs."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```bash\n(.*?)\n```", readme, flags=re.S)
    assert len(blocks) >= 2, "README must open with two commands"
    test_command = blocks[1].split("&&")[-1].strip()
    assert test_command.startswith("python -m pytest")
    ci_lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert test_command in ci_lines


def test_envs_import_without_torch_or_pygame():
    code = (
        "import sys, envs, envs.core.turn_based, envs.core.batch\n"
        "assert 'torch' not in sys.modules and 'pygame' not in sys.modules, sorted(sys.modules)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_arena_cli_help_lists_commands():
    out = subprocess.run(
        [sys.executable, "-m", "training.cli", "--help"],
        check=True,
        cwd=ROOT,
        capture_output=True,
        text=True,
    ).stdout
    for command in ("play", "bench", "train", "ladder", "demo"):
        assert command in out


# -- the package's shape (issue 10's "done when") ---------------------------------------------
PACKAGES = ("envs", "agents", "training", "benchmarks")
#: data flows down: envs <- agents <- training / benchmarks
LAYER = {"envs": 0, "agents": 1, "training": 2, "benchmarks": 2}


def _modules() -> dict[str, Path]:
    mods = {}
    for pkg in PACKAGES:
        for path in (ROOT / pkg).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            mods[name] = path
    return mods


def import_graph() -> dict[str, set[str]]:
    """module -> the package modules it imports, lazy (in-function) imports included."""
    import ast

    mods = _modules()

    def resolve(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for name, path in mods.items():
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                deps |= {r for a in node.names if (r := resolve(a.name))}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for a in node.names:
                    r = resolve(f"{node.module}.{a.name}") or resolve(node.module)
                    if r:
                        deps.add(r)
        deps.discard(name)
        graph[name] = deps
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_loops():
    assert _cycles(import_graph()) == []


def test_no_lower_layer_imports_a_higher_one():
    upward = [
        f"{m} -> {d}"
        for m, deps in sorted(import_graph().items())
        for d in sorted(deps)
        if LAYER[d.split(".")[0]] > LAYER[m.split(".")[0]]
    ]
    assert upward == []


def files_naming(game: str) -> list[str]:
    """Package files outside ``envs/<game>/`` and the registry that name ``game``
    (its identifier, or its title with a space: "virus fight")."""
    words = (game, game.replace("_", " "))
    out = []
    for path in _modules().values():
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(f"envs/{game}/") or rel == "envs/registry.py":
            continue
        text = path.read_text().lower()
        if any(w in text for w in words):
            out.append(rel)
    return sorted(out)


#: files still naming a game while the work that removes the names is under way (issue 10
#: items 3, 7, 8 and the game records of issue 13): each line says who takes it out. Keep
#: this list shrinking; a file that no longer names the game must leave it.
PENDING: dict[str, str] = {}


def test_at_most_two_files_outside_a_game_folder_name_the_game():
    from envs import registry

    for game in registry.names():
        named = [f for f in files_naming(game) if f not in PENDING]
        assert len(named) <= 2, f"{game} is named by {named}"
