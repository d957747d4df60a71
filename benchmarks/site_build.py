"""Snapshot build time of the site against the same pages with the measurement stripped out.

    python benchmarks/site_build.py [--repeats 2]

Builds (1) the real site from the committed snapshot, cold (every figure drawn: they are kept in
memory only, so a second build in a fresh process draws them again; the "warm" build of earlier
versions, with figures read from .cache/figures, is gone with that cache), and (2) a copy of docs/ in which every
markdown-exec block is removed and every `{{ value }}` replaced by a fixed word, both with
torch made unimportable (a build that imported it would fail), each in a fresh process with a
cold notebook cache. Prints one JSON object with the best wall time of each and their ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BUILD = """
import sys, runpy
sys.modules["torch"] = None
sys.argv = ["mkdocs", "build", "--strict", "-q", "-f", sys.argv[1], "-d", sys.argv[2]]
runpy.run_module("mkdocs", run_name="__main__")
"""
EXEC_BLOCK = re.compile(r'^```python exec="1"[^\n]*\n.*?^```\n', re.S | re.M)
PLACEHOLDER = re.compile(r"\{\{\s*[A-Za-z0-9_.\-]+\s*\}\}")


def stripped_docs(target: Path, repo: Path = REPO) -> None:
    shutil.copytree(repo / "docs", target)
    for page in target.rglob("*.md"):
        text = page.read_text(encoding="utf-8")
        page.write_text(PLACEHOLDER.sub("N", EXEC_BLOCK.sub("", text)), encoding="utf-8")


def config_for(docs_dir: Path, out: Path, repo: Path = REPO) -> Path:
    raw = (repo / "mkdocs.yml").read_text(encoding="utf-8")
    raw = raw.replace("docs_dir: docs", f"docs_dir: {docs_dir}")
    raw = re.sub(
        r"^  - (attn_examples/\S+\.py|attn_examples|snippets|snapshots)$",
        lambda m: f"  - {repo / m.group(1)}",
        raw,
        flags=re.M,
    )  # the hooks, and the folders `mkdocs serve` watches
    out.write_text(raw, encoding="utf-8")
    return out


def timed_build(config: Path, tmp: Path, label: str, repeats: int, repo: Path = REPO) -> float:
    """Best wall time; each repeat gets a cold notebook cache."""
    best = float("inf")
    for i in range(repeats):
        env = dict(
            os.environ,
            NO_MKDOCS_2_WARNING="1",
            ATTN_EXAMPLES_MEASURE="snapshot",
            MKDOCS_JUPYTER_CACHE_DIR=str(tmp / f"nbcache-{label}-{i}"),
        )
        t0 = time.perf_counter()
        subprocess.run(
            [sys.executable, "-c", BUILD, str(config), str(tmp / f"site-{label}-{i}")], cwd=repo, env=env, check=True
        )
        best = min(best, time.perf_counter() - t0)
    return best


def measure(repeats: int = 2, repo: Path = REPO) -> dict:
    """Best cold and stripped build times of the checkout at `repo`, and their ratio."""
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        stripped_docs(tmp / "docs-stripped", repo)
        full = config_for(repo / "docs", tmp / "full.yml", repo)
        bare = config_for(tmp / "docs-stripped", tmp / "stripped.yml", repo)
        cold_s = timed_build(full, tmp, "cold", repeats, repo=repo)
        bare_s = timed_build(bare, tmp, "stripped", repeats, repo=repo)
    return {
        "snapshot_build_cold_figures_s": round(cold_s, 2),
        "stripped_build_s": round(bare_s, 2),
        "ratio_cold": round(cold_s / bare_s, 2),
        "torch_importable_during_build": False,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--repo", type=Path, default=REPO, help="the checkout to build (default: this one)")
    args = parser.parse_args()
    print(json.dumps(measure(args.repeats, args.repo.resolve())))


if __name__ == "__main__":
    main()
