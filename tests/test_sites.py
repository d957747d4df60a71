"""The site built from every committed snapshot: each build is strict and clean, and its pages name
that measurement's device, dtype and shape, hold no dash where a value was missing, name no other
GPU as if it had been measured, and link to every other measurement's site."""

from __future__ import annotations

import html as htmllib
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from attn_examples.render import blocks as render
from attn_examples.site import pages
from attn_examples.snapshot.schema import load_snapshot
from tests.conftest import REPO, Sites

NAMES = [folder.name for folder in pages.committed_snapshots()]
PAGES = pages.page_names()
LANGS = ("en", "zh-TW")
_ARTICLE = re.compile(r'<article class="md-content__inner md-typeset">(.*?)</article>', re.S)
_NOT_PROSE = re.compile(
    r'<div class="attn-table"[^>]*>.*?</table></div>|<figure.*?</figure>|<pre.*?</pre>|'
    r'<code>.*?</code>|<span class="attn-quoted"[^>]*>.*?</span>|<p class="attn-(?:provenance|'
    r'caption|trace|detail)"[^>]*>.*?</p>|<details.*?</details>|<div class="highlight">.*?</div>|'
    r'<span class="attn-ev"[^>]*>.*?</span></span>',  # a statement's evidence mark and its popup
    re.S,
)
_DASH_IN_SENTENCE = re.compile(r"(?:^|[\s(（:：])–(?=[\s,.;:)）。，、]|$)")
_GPU_NAMES = re.compile(r"\b(?:[ABH]100|H200|B200|L40S?|RTX \d{4})\b")


def _page(sites: Sites, name: str, lang: str, page: str) -> str:
    stem = Path(page).stem
    path = sites.site(name) / ("" if lang == "en" else "zh-TW") / ("" if stem == "index" else stem) / "index.html"
    return path.read_text(encoding="utf-8")


def _prose(html: str) -> str:
    """The article's text outside tables, figures, code, quotations and provenance lines."""
    match = _ARTICLE.search(html)
    assert match, "no article body"
    text = _NOT_PROSE.sub(" ", match.group(1))
    return htmllib.unescape(re.sub(r"<[^>]+>", " ", text))


@pytest.mark.parametrize("name", NAMES)
def test_the_site_builds_cleanly_from_the_snapshot(sites: Sites, name: str) -> None:
    build = sites.builds[name]
    assert build.ok and "WARNING" not in build.log, build.log[-3000:]


@pytest.mark.parametrize("name", NAMES)
def test_every_page_carries_this_measurements_provenance(sites: Sites, name: str) -> None:
    snap = load_snapshot(REPO / "snapshots" / name)
    shape = (
        f"[{snap.config.batch}, {snap.config.heads}, {snap.config.seq_len}, {snap.config.head_dim}] {snap.config.dtype}"
    )
    seen = 0
    for lang in LANGS:
        for page in PAGES:
            html = _page(sites, name, lang, page)
            assert "Traceback" not in html and "{{" not in html and "{%" not in html and render.SITE_ROOT not in html
            for line in re.findall(
                r'<details class="attn-provenance" data-search-exclude(?: open)?[^>]*>(.*?)</details>', html, re.S
            ):
                seen += 1
                assert htmllib.escape(snap.provenance.device_name) in line and shape in line, (lang, page, line)
    assert seen >= 20


@pytest.mark.parametrize("name", NAMES)
def test_the_overview_names_the_device_dtype_and_shape(sites: Sites, name: str) -> None:
    snap = load_snapshot(REPO / "snapshots" / name)
    for lang in LANGS:
        first = _prose(_page(sites, name, lang, "index.md"))[:1500]
        assert snap.provenance.device_name in first
        assert render.DTYPE_WORDS[snap.config.dtype] in first and render.fmt_shape(snap.config.shape) in first


@pytest.mark.parametrize("name", NAMES)
def test_no_sentence_holds_a_dash_for_a_missing_value(sites: Sites, name: str) -> None:
    found = []
    for lang in LANGS:
        for page in PAGES:
            for match in _DASH_IN_SENTENCE.finditer(_prose(_page(sites, name, lang, page))):
                found.append(
                    f"{lang}/{page}: …{_prose(_page(sites, name, lang, page))[max(0, match.start() - 60) : match.end() + 30]}…"
                )
    assert not found, "\n".join(found)


@pytest.mark.parametrize("name", NAMES)
def test_no_other_gpu_is_named_as_measured(sites: Sites, name: str) -> None:
    """Outside quotations and tables, the only GPU a page names is the one this site measured."""
    device = load_snapshot(REPO / "snapshots" / name).provenance.device_name
    found = []
    for lang in LANGS:
        for page in PAGES:
            for gpu in set(_GPU_NAMES.findall(_prose(_page(sites, name, lang, page)))):
                if gpu not in device:
                    found.append(f"{lang}/{page}: {gpu}")
    assert not found, found


@pytest.mark.parametrize("name", NAMES)
def test_the_devices_page_links_every_measurements_site(sites: Sites, name: str) -> None:
    here = sites.site(name) / "devices"
    html = _page(sites, name, "en", "devices.md")
    links = set(re.findall(r'href="([^"]*snapshots/[^"/]+/)"', html))
    assert len(links) == len(NAMES), links
    for href in links:
        assert (here / href / "index.html").resolve().is_file(), href
    assert "(this site)" in html


def test_a_measurement_outside_the_repository_serves_as_a_site(tmp_path: Path) -> None:
    """What a reader does with their own measurement: `mkdocs serve` pointed at a snapshot folder
    elsewhere. The CPU snapshot stands in for theirs; both languages are served."""
    mine = tmp_path / "my-measurement"
    shutil.copytree(REPO / "snapshots" / "cpu", mine)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(
        os.environ,
        NO_MKDOCS_2_WARNING="1",
        ATTN_EXAMPLES_SNAPSHOT=str(mine),
        MKDOCS_JUPYTER_CACHE_DIR=str(tmp_path / "nb"),
    )
    env.pop("ATTN_EXAMPLES_MEASURE", None)  # auto: no GPU here, so the snapshot
    server = subprocess.Popen(
        [sys.executable, "-m", "mkdocs", "serve", "--no-livereload", "-a", f"127.0.0.1:{port}"],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline, pages_served = time.time() + 240, {}
        while time.time() < deadline and len(pages_served) < 2:
            for path in ("/flash/", "/zh-TW/flash/"):
                try:
                    pages_served[path] = (
                        urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5).read().decode()
                    )
                except OSError:
                    time.sleep(1)
            if server.poll() is not None:
                break
        assert len(pages_served) == 2, server.stdout.read() if server.poll() is not None else "server never answered"
        device = load_snapshot(mine).provenance.device_name
        for body in pages_served.values():
            assert device in body and "Traceback" not in body
    finally:
        server.terminate()
        server.wait(timeout=30)
