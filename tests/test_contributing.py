"""CONTRIBUTING.md names real things: every path, test, command and module it points a newcomer to
exists (no MkDocs, no torch: a second)."""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
TEXT = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")

# What a path in backticks starts with when it means a file or folder of this repository.
_ROOTS = ("attn_examples/", "tests/", "docs/", "docs-dev/", "snippets/", "snapshots/", "benchmarks/", "scripts/")
_FILES = ("mkdocs.yml", "Makefile", "pyproject.toml", "uv.lock", "README.md", "CHANGELOG.md")
_CODE = re.compile(r"`([^`\n]+)`")


def _mentions() -> list[str]:
    """Every backticked word of the text and every word of its fenced blocks."""
    spans = _CODE.findall(re.sub(r"^```.*?^```", "", TEXT, flags=re.M | re.S))
    blocks = re.findall(r"^ *```\w*\n(.*?)^ *```", TEXT, flags=re.M | re.S)
    return spans + [word for block in blocks for word in block.split()]


def _paths() -> list[str]:
    found = set()
    for span in _mentions():
        for word in span.split():
            word = word.strip("(),;:.'\"")
            if word.startswith(_ROOTS) or word in _FILES:
                found.add(word)
    return sorted(found)


def _is_template(path: str) -> bool:
    """`docs/en/<page>.md`, `claims.d/<page>.yml`, `/tmp/...`: a pattern, not one file."""
    return "<" in path or "*" in path or "…" in path or "$" in path


@pytest.mark.parametrize("mention", [p for p in _paths() if not _is_template(p)])
def test_every_path_it_names_exists(mention: str) -> None:
    path, _, test_name = mention.partition("::")
    target = REPO / path
    assert target.exists(), f"CONTRIBUTING.md names {path}, which does not exist"
    if test_name:
        names = {
            n.name
            for n in ast.walk(ast.parse(target.read_text(encoding="utf-8")))
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
        }
        assert test_name in names, f"CONTRIBUTING.md names {mention}: no such test in {path}"


def test_templated_paths_match_something() -> None:
    """`docs/en/<page>.md` must match at least one file once the placeholder is a wildcard."""
    for mention in [p for p in _paths() if _is_template(p) and "$" not in p and "…" not in p]:
        pattern = re.sub(r"<[^>]+>", "*", mention.partition("::")[0])
        assert list(REPO.glob(pattern)), f"CONTRIBUTING.md names {mention}: nothing matches {pattern}"


def _subcommands() -> set[str]:
    import argparse

    from attn_examples.site import cli

    actions = cli.build_parser()._actions
    return {name for a in actions if isinstance(a, argparse._SubParsersAction) for name in a.choices}


def test_every_cli_command_it_names_exists() -> None:
    named = set(re.findall(r"attn-examples (\w+)", TEXT)) | set(re.findall(r"attn_examples\.cli (\w+)", TEXT))
    assert named, "CONTRIBUTING.md names no attn-examples command"
    unknown = named - _subcommands()
    assert not unknown, f"CONTRIBUTING.md names commands that do not exist: {sorted(unknown)}"


def test_every_module_it_runs_exists() -> None:
    modules = set(re.findall(r"python -m ([\w.]+)", TEXT))
    assert modules
    missing = [m for m in sorted(modules) if importlib.util.find_spec(m) is None]
    assert not missing, f"CONTRIBUTING.md runs modules that do not exist: {missing}"


# `path` `NAME` and `NAME` in `path`: a name of a module the text tells a newcomer to edit.
_NAMED_IN = re.compile(
    r"`(attn_examples/[\w/]+\.py)`,? `([A-Za-z_][\w.]*)`|`([A-Za-z_][\w]*)` in `(attn_examples/[\w/]+\.py)`"
)


def test_every_name_it_points_into_a_module_exists() -> None:
    pairs = [(m[0] or m[3], m[1] or m[2]) for m in _NAMED_IN.findall(TEXT)]
    assert pairs
    for path, name in pairs:
        source = (REPO / path).read_text(encoding="utf-8")
        head = name.split(".")[0]
        assert re.search(rf"^\s*(?:def |class )?{re.escape(head)}\b", source, re.M), (
            f"CONTRIBUTING.md points to {name} in {path}, which has no such name"
        )


# Upper-case words in backticks that are not names in the code: a log level, GPU names, an
# environment variable.
_NOT_CODE = {"WARNING", "A100", "H200", "NO_MKDOCS_2_WARNING"}
_PACKAGE = "\n".join(p.read_text(encoding="utf-8") for p in sorted((REPO / "attn_examples").rglob("*.py")))


def test_every_constant_and_function_it_names_is_defined_in_the_package() -> None:
    """`VARIANTS`, `SHORT_TITLES`, `draw_roofline`, `bind()`, `site.kernels("<id>")`,
    `measurement_hooks.on_post_page`: each is defined (assigned, or a def/class) in attn_examples/."""
    spans = _CODE.findall(TEXT)
    constants = {s for s in spans if re.fullmatch(r"[A-Z][A-Z0-9_]{2,}", s)} - _NOT_CODE
    calls = {m for s in spans for m in re.findall(r"^(?:\w+\.)?(_?[a-z]\w*)\(", s)}
    dotted = {s.split(".")[-1] for s in spans if re.fullmatch(r"(?:\w+_hooks|figures|site)\.[a-z_]\w*", s)}
    functions = {s for s in spans if re.fullmatch(r"(?:draw|on|_?first)_\w+", s)}
    missing = [c for c in sorted(constants) if not re.search(rf"^\s*{c}\b[^=\n]*=", _PACKAGE, re.M)]
    missing += [
        f
        for f in sorted(calls | dotted | functions)
        if not re.search(rf"^\s*(?:def|class) {f}\b|^\s*{f}\s*=", _PACKAGE, re.M)
    ]
    assert constants and calls, "the text names no constant or call"
    assert not missing, f"CONTRIBUTING.md names what attn_examples/ does not define: {missing}"
