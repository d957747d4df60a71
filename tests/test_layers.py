"""The stages' direction: measure -> snapshot -> render -> check, with the site glue on top.

The package has one folder per stage. A stage imports only the stages it is allowed to (below);
only the measuring stage imports torch, and the site glue imports the measuring stage only inside a
function (a build that measures live), so reading and rendering never load torch. Module-level
imports form no cycle, and outside the site glue no two modules import each other even lazily.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.conftest import REPO

PACKAGE = REPO / "attn_examples"

# What each stage may import, at module level or inside a function. "torch" and "snippets" (the
# readers' code, which the measurement runs) belong to measuring.
ALLOWED: dict[str, set[str]] = {
    "snapshot": set(),  # what a measurement is: the base every stage reads
    "measure": {"snapshot", "torch", "snippets"},  # runs the snippets, writes a snapshot
    "render": {"snapshot"},  # reads one
    "claims": {"snapshot", "render"},  # checks the prose's values, which render derives
    "site": {"snapshot", "render", "claims", "measure", "torch"},  # measure and torch: lazily only
}
STAGES = set(ALLOWED)


def _module_name(path: Path) -> str:
    return ".".join(path.relative_to(PACKAGE).with_suffix("").parts)


def _imports(path: Path, module_level: bool) -> set[str]:
    """The package's modules ("render.blocks") and "torch" that `path` imports: at module level
    only (what importing it runs), or anywhere."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = tree.body if module_level else list(ast.walk(tree))
    found: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.If) and module_level:  # `if TYPE_CHECKING:` imports never run
            continue
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [f"{node.module}.{alias.name}" for alias in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] == "torch":
                found.add("torch")
            elif parts[0] == "attn_examples":
                for depth in (3, 2):  # attn_examples.render.blocks[.name], or attn_examples.render
                    if len(parts) >= depth and (PACKAGE / Path(*parts[1:depth])).with_suffix(".py").is_file():
                        found.add(".".join(parts[1:depth]))
                        break
    found.discard(_module_name(path))
    return found


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "snippets" not in p.parts)


def _graph(module_level: bool) -> dict[str, set[str]]:
    return {_module_name(path): _imports(path, module_level) for path in _modules()}


def _stage(module: str) -> str:
    return module.split(".")[0]


def _reach(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for nxt in graph.get(todo.pop(), set()) - seen:
            seen.add(nxt)
            todo.append(nxt)
    return seen


def test_every_module_lives_in_a_stage_folder():
    stray = [m for m in _graph(True) if m != "__init__" and _stage(m) not in STAGES]
    assert not stray, f"place these in a stage's folder: {stray}"


@pytest.mark.parametrize("stage", sorted(STAGES))
def test_a_stage_imports_only_what_it_may(stage):
    graph = _graph(module_level=False)
    crossing = {
        m: sorted(d for d in deps if d != "__init__" and _stage(d) not in ALLOWED[stage] | {stage})
        for m, deps in graph.items()
        if _stage(m) == stage
    }
    assert not {m: c for m, c in crossing.items() if c}


@pytest.mark.parametrize("stage", sorted(STAGES - {"measure"}))
def test_only_the_measuring_stage_loads_torch_on_import(stage):
    graph = _graph(module_level=True)
    crossing = {
        m: sorted(d for d in _reach(graph, m) if d == "torch" or _stage(d) == "measure")
        for m in graph
        if _stage(m) == stage
    }
    assert not {m: c for m, c in crossing.items() if c}


def test_module_level_imports_form_no_cycle():
    graph = _graph(module_level=True)
    cycles = sorted(m for m in graph if m in _reach(graph, m))
    assert not cycles


def test_outside_the_site_glue_no_two_modules_import_each_other_even_lazily():
    """(measure.py and extended.py once did: the sweep reached back into the measurement for its
    inputs; both now take them from measure/workload.py.)"""
    graph = {m: {d for d in deps if _stage(d) != "site"} for m, deps in _graph(module_level=False).items()}
    cycles = sorted(m for m in graph if _stage(m) != "site" and m in _reach(graph, m))
    assert not cycles
