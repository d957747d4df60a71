"""`mkdocs serve` while writing (attn_examples/site/serve_hooks.py): every input of a page is watched, a
change to any of them is served, and what the reused work serves equals a fresh build.

The serve test runs `mkdocs serve --strict` in a copy of the checkout (benchmarks/authoring.py's),
edits a page, a claim, a snippet, a committed snapshot, a module of the package and one of its HTML
templates, and after each waits for the rebuild and reads the page that shows the change. Then a
fresh `mkdocs build` of the edited copy must give every page the same article and each language the
same search index as the server gave after its rebuilds: nothing it keeps from one rebuild to the
next may go stale. The server's own report of each rebuild says what it reused: after the prose
edit, all but that page.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LANGS = ("en", "zh-TW")


def _bench():
    spec = importlib.util.spec_from_file_location("authoring_bench", REPO / "benchmarks" / "authoring.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_mkdocs_yml_watches_what_the_pages_are_computed_from() -> None:
    from mkdocs.config import load_config

    config = load_config(str(REPO / "mkdocs.yml"))
    watched = {Path(p).resolve() for p in config.watch}
    for folder in ("attn_examples", "snippets", "snapshots"):
        assert REPO / folder in watched, folder
    assert any(name.endswith("serve_hooks.py") for name in config.hooks)


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


# (what, file, text replaced, by, page that shows it)
EDITS = [
    ("prose", "docs/en/method.md", "A profiler trace holds", "A profiler trace zqxprose holds", "method/"),
    (
        "claim",
        "attn_examples/claims/claims.d/method.yml",
        "The measured GPU has the article's architecture",
        "The measured GPU zqxclaim has the article's architecture",
        "reproducibility/",
    ),
    (
        "snippet",
        "snippets/profile_forward.py",
        "# first calls pay for lazy init",
        "# first calls pay for lazy init zqxsnippet",
        "method/",
    ),
    (
        "snapshot",
        "snapshots/cpu/snapshot.json",
        '"device_name": "AMD EPYC"',
        '"device_name": "AMD EPYC zqxsnapshot"',
        "devices/",
    ),
    (
        "module",
        "attn_examples/render/blocks.py",
        'this_site=paren(lang, t(lang, "this_site")),',
        'this_site=paren(lang, "zqxmodule " + t(lang, "this_site")),',
        "devices/",
    ),
    (
        "template",
        "attn_examples/render/templates/snapshot_label.html.j2",
        '<span class="attn-detail">torch {{ torch }}',
        '<span class="attn-detail">zqxtemplate torch {{ torch }}',
        "devices/",
    ),
]
ARTICLE = re.compile(r"<article[^>]*>.*?</article>", re.S)


def _pages(work: Path) -> list[str]:
    """Every page's path under a language's root ("" for the overview)."""
    stems = sorted(p.stem for p in (work / "docs" / "en").iterdir() if p.suffix in (".md", ".ipynb"))
    return ["" if s == "index" else f"{s}/" for s in stems]


REUSE = re.compile(r"attn-examples: (\d+ pages reused, .*)$", re.M)


PAGE_WORK = ("pages reused", "pages converted", "blocks reused", "blocks run")


def _reuse(log: Path, which: int = -1) -> dict[str, int]:
    """What a build reused (the latest by default), as serve_hooks reports it."""
    lines = REUSE.findall(log.read_text(encoding="utf-8"))
    assert lines, "no reuse line in the serve log"
    return {name: int(n) for n, name in (part.split(" ", 1) for part in lines[which].split(", "))}


def _article(html: str, where: str) -> str:
    found = ARTICLE.search(html)
    assert found, f"{where}: no <article>"
    return found.group(0)


def test_serve_takes_every_input_and_serves_what_a_fresh_build_gives(tmp_path: Path) -> None:
    bench = _bench()
    work = tmp_path / "repo"
    bench.copy_repo(REPO, work, with_cache=True)
    port = bench.free_port()
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "ATTN_EXAMPLES_MEASURE": "snapshot"}
    env.pop("ATTN_EXAMPLES_SNAPSHOT", None)
    log_path = tmp_path / "serve.log"
    with open(log_path, "w", encoding="utf-8") as log:
        server = subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "serve", "--strict", "-a", f"127.0.0.1:{port}"],
            cwd=work,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            bench.wait_for(base + "/", None, 600, server)
            for what, name, old, new, page in EDITS:
                time.sleep(1.0)  # past the previous rebuild's polling round
                before = bench.epoch(base)
                _edit(work / name, old, new)
                assert bench.wait_rebuilt(base, before, 300), f"{what}: no rebuild followed ({log_path})"
                word = re.search(r"zqx\w+", new).group(0)
                assert word in (bench.get(base + "/" + page) or ""), f"{what}: {page} does not show {word!r}"
                reuse = _reuse(log_path)
                if what == "prose":  # the edited page alone is converted and indexed again
                    assert (reuse["pages converted"], reuse["blocks run"], reuse["search indexed"]) == (1, 0, 1), reuse
                    assert reuse["pages reused"] > 30 and reuse["search reused"] > 30, reuse
                else:  # an input outside docs/: pages and blocks as in the first build
                    first = _reuse(log_path, 0)
                    assert [reuse[k] for k in PAGE_WORK] == [first[k] for k in PAGE_WORK], (what, reuse, first)
            served = {
                (lang, page): bench.get(f"{base}/{'' if lang == 'en' else lang + '/'}{page}")
                for lang in LANGS
                for page in _pages(work)
            }
            indexes = {
                lang: json.loads(bench.get(f"{base}/{'' if lang == 'en' else lang + '/'}search/search_index.json"))
                for lang in LANGS
            }
        finally:
            server.terminate()
            server.wait(timeout=60)
    text = log_path.read_text(encoding="utf-8")
    assert "Traceback" not in text and "WARNING" not in text, text[-4000:]

    built = tmp_path / "built"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(built)],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    for (lang, page), html in served.items():
        path = built / ("" if lang == "en" else lang) / page / "index.html"
        where = f"{lang}/{page}"
        assert html is not None, where
        assert _article(html, where) == _article(path.read_text(encoding="utf-8"), where), f"{where} is stale"
    for lang in LANGS:
        fresh = json.loads((built / ("" if lang == "en" else lang) / "search" / "search_index.json").read_text())
        assert indexes[lang] == fresh, f"{lang}: the served search index differs from a fresh build's"
