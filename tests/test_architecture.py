"""The package's import graph: one-way layers, no import circle (docs/design.md §1, "The layout").

Every ``hoity_env`` import of every module is read from the source (function-level
imports included: a lazy import is still a dependency), so a change that makes a
lower layer reach up, or two modules import each other, fails here with the
offending import named.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import hoity_env

PACKAGE_DIR = Path(hoity_env.__file__).resolve().parent

# Rank of each top-level part of the package: a module may import its own part and parts of a
# lower rank, never a higher or equal one.  The learner may score its policies in matches, so it
# sits above ``evaluation``; ``strength`` trains policies to measure them, so it sits above both;
# the CLIs of ``play`` and ``hoity-eval`` sit on top, and ``serve`` (the web app) above ``play``.
RANKS: dict[str, int] = {
    "engine": 0,
    "files": 1,  # reads and writes files; refuses damaged ones with the engine's FileFormatError
    "threads": 0,  # the command lines' BLAS-thread limit; imports nothing of ours
    "environment": 1,
    "registration": 2,
    "agents": 2,
    "replays": 3,
    "wrappers": 3,
    "integrations": 3,
    "evaluation": 4,
    "learning": 5,
    "strength": 6,  # trains best responses to measure agents
    "league": 7,  # trains a main agent against exploiters, which are best responses
    "play": 7,
    "serve": 8,  # the web app reuses hoity-play's choice labels
    "cli": 9,  # one thin module per console script, over everything
    "": 10,  # the package's own __init__
}

# Inside the engine: a ruleset is one folder. The parts every ruleset shares (the modules of
# engine/ and engine/batched/) import no ruleset folder; a ruleset folder imports the shared parts
# and never the registry or the facade above it (so the registry can list it without a circle);
# the standard ruleset knows nothing of the original one (which builds on the standard rules).
RULESET_FOLDERS = ("hoity_env.engine.standard", "hoity_env.engine.original")
ENGINE_TOP = (
    "hoity_env.engine",
    "hoity_env.engine.game",
    "hoity_env.engine.registry",
)
ENGINE_FORBIDDEN: dict[str, tuple[str, ...]] = {
    "hoity_env.engine.standard": ("hoity_env.engine.original", *ENGINE_TOP),
    "hoity_env.engine.original": ENGINE_TOP,
}


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for path in PACKAGE_DIR.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _resolve(name: str) -> str | None:
    """The module a dotted import name lands in (``a.b.C`` -> ``a.b`` when C is a name)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(source: str) -> set[str]:
    """The ``hoity_env`` modules a source file imports, anywhere in it."""
    found: set[str | None] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(_resolve(a.name) for a in node.names if a.name.split(".")[0] == "hoity_env")
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.split(".")[0] != "hoity_env":
                continue
            for alias in node.names:
                submodule = f"{node.module}.{alias.name}"
                found.add(submodule if submodule in MODULES else _resolve(node.module))
    found.discard(None)
    return {name for name in found if name is not None}


GRAPH: dict[str, set[str]] = {
    name: imports_of(path.read_text(encoding="utf-8")) - {name} for name, path in MODULES.items()
}


def part_of(module: str) -> str:
    """``hoity_env.engine.standard.batched`` -> ``engine``; the package itself -> ``""``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_every_part_of_the_package_has_a_rank() -> None:
    assert {part_of(m) for m in MODULES} <= set(RANKS), sorted({part_of(m) for m in MODULES} - set(RANKS))


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_go_down_the_layers(module: str) -> None:
    mine = part_of(module)
    upward = sorted(
        target
        for target in GRAPH[module]
        if part_of(target) != mine and RANKS[part_of(target)] >= RANKS[mine]
    )
    assert not upward, f"{module} ({mine}, rank {RANKS[mine]}) imports upward: {upward}"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if part_of(m) == "engine"))
def test_engine_parts_import_only_downward(module: str) -> None:
    targets = GRAPH[module]
    for inside, forbidden in ENGINE_FORBIDDEN.items():
        if module == inside or module.startswith(inside + "."):
            bad = sorted(
                t
                for t in targets
                if any(t == f or (f in RULESET_FOLDERS and t.startswith(f + ".")) for f in forbidden)
            )
            assert not bad, f"{module} must not import {bad}"
    shared = module not in ENGINE_TOP and not any(
        module == sub or module.startswith(sub + ".") for sub in RULESET_FOLDERS
    )
    if shared:
        bad = sorted(t for t in targets if any(t == s or t.startswith(s + ".") for s in RULESET_FOLDERS))
        assert not bad, f"{module} is shared by the rulesets and must not import a ruleset: {bad}"


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    circles: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                members = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    members.append(top)
                    if top == node:
                        break
                if len(members) > 1:
                    circles.append(sorted(members))
    return circles


def test_no_import_circle() -> None:
    assert _circles(GRAPH) == []


def test_checks_see_what_they_must_forbid() -> None:
    # Guards the tests above: the graph reads lazy imports and submodule imports, and the
    # circle finder finds a circle.
    assert imports_of("def f():\n    from hoity_env.engine.standard import kernels\n") == {
        "hoity_env.engine.standard.kernels"
    }
    assert imports_of("from hoity_env.engine.errors import ConfigError") == {"hoity_env.engine.errors"}
    assert set(ENGINE_TOP) <= set(MODULES) and set(RULESET_FOLDERS) <= set(MODULES)  # no stale name
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []
    assert "hoity_env.agents" in GRAPH["hoity_env.evaluation.harness"] | {
        t.rpartition(".")[0] for t in GRAPH["hoity_env.evaluation.harness"]
    }
