"""The stages' direction: measure -> snapshot -> render -> check, with the site glue on top.

Every module of the package belongs to one stage (a new one must be placed here). Reading and
rendering never need torch: no module outside the measuring stage imports torch or a measuring
module when it is imported, and the render and claims stages do not even import them inside a
function. Module-level imports form no cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.conftest import REPO

PACKAGE = REPO / "attn_examples"

STAGES: dict[str, set[str]] = {
    # torch: runs the variants, the sweep and training; drives ncu
    "measure": {"measure", "extended", "workload", "timing", "provenance", "counters_driver"},
    # what a measurement is, read and written without torch
    "snapshot": {
        "snapshot",
        "config",
        "variants",
        "kineto",
        "stages",
        "stamp",
        "counters",
        "ncu_reader",
        "live_cache",
        "notebook",
        "__init__",
    },
    # a measurement into words, tables and figures
    "render": {
        "render",
        "figures",
        "svgplot",
        "views",
        "timeline",
        "i18n",
        "hardware",
        "occupancy",
        "metrics",
        "arch",
        "article",
        "prose",
        "templating",
    },
    # claims against a measurement, and drift against a baseline
    "claims": {"claims", "plausible", "uncertainty", "lint"},
    # MkDocs, the command line and the sites: may call any stage, the measuring one lazily
    "site": {
        "site",
        "sites",
        "pages",
        "cli",
        "measurement_hooks",
        "publish_hooks",
        "search_hooks",
        "serve_hooks",
        "site_hooks",
    },
}
MEASURE = STAGES["measure"]


def _imports(path: Path, module_level: bool) -> set[str]:
    """The package's modules (and 'torch') that `path` imports: at module level only, or anywhere."""
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
            names = (
                [f"{node.module}.{alias.name}" for alias in node.names]
                if node.module == "attn_examples"
                else [node.module]
            )
        for name in names:
            parts = name.split(".")
            if parts[0] == "torch":
                found.add("torch")
            elif parts[0] == "attn_examples" and len(parts) > 1 and (PACKAGE / f"{parts[1]}.py").exists():
                found.add(parts[1])
    found.discard(path.stem)
    return found


def _graph(module_level: bool) -> dict[str, set[str]]:
    return {path.stem: _imports(path, module_level) for path in sorted(PACKAGE.glob("*.py"))}


def _reach(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for nxt in graph.get(todo.pop(), set()) - seen:
            seen.add(nxt)
            todo.append(nxt)
    return seen


def test_every_module_belongs_to_one_stage():
    placed = [m for stage in STAGES.values() for m in stage]
    assert len(placed) == len(set(placed)), "a module in two stages"
    assert set(_graph(True)) == set(placed)


@pytest.mark.parametrize("stage", [s for s in STAGES if s != "measure"])
def test_only_the_measuring_stage_imports_torch_on_import(stage):
    graph = _graph(module_level=True)
    crossing = {m: sorted(_reach(graph, m) & (MEASURE | {"torch"})) for m in STAGES[stage]}
    assert not {m: c for m, c in crossing.items() if c}


@pytest.mark.parametrize("stage", ["render", "claims"])
def test_render_and_claims_never_call_into_measuring(stage):
    graph = _graph(module_level=False)
    crossing = {m: sorted(graph[m] & (MEASURE | {"torch"})) for m in STAGES[stage]}
    assert not {m: c for m, c in crossing.items() if c}


def test_module_level_imports_form_no_cycle():
    graph = _graph(module_level=True)
    cycles = sorted(m for m in graph if m in _reach(graph, m))
    assert not cycles


def test_outside_the_site_glue_no_two_modules_import_each_other_even_lazily():
    """(measure.py and extended.py once did: the sweep reached back into the measurement for its
    inputs; both now take them from workload.py.)"""
    graph = _graph(module_level=False)
    glue = STAGES["site"]
    cycles = sorted(m for m in graph if m not in glue and m in _reach({k: v - glue for k, v in graph.items()}, m))
    assert not cycles
