"""Build the bilingual site once, strictly, and check the built HTML.

Guards the fragile parts of the documentation stack:
notebooks rendered as raw JSON under i18n (a strict build still exits 0), the
language switcher, the per-language ``<html lang>``, the mkdocs-jupyter cache
surviving both language passes, and the site staying free of external assets.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
DEFAULT_LANG = "en"
LANGS = ("en", "zh-TW")


def _site_prefix(lang: str) -> str:
    return "" if lang == DEFAULT_LANG else f"{lang}/"


def _page_dir(src: Path) -> str:
    """Site-relative directory of a source page (``use_directory_urls``)."""
    rel = src.with_suffix("")
    return "" if rel.as_posix() == "index" else f"{rel.as_posix()}/"


def _sources(lang: str) -> set[Path]:
    root = DOCS / lang
    return {p.relative_to(root) for p in root.rglob("*") if p.suffix in (".md", ".ipynb")}


PAGES = sorted(_sources(DEFAULT_LANG))


from tests.conftest import Built  # noqa: E402  (the build is shared with tests/test_site_content.py)


class _Tags(HTMLParser):
    """Collects the start tags of a page as (tag, attrs) pairs."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))


def _tags(html_path: Path) -> list[tuple[str, dict[str, str]]]:
    parser = _Tags()
    parser.feed(html_path.read_text(encoding="utf-8"))
    return parser.tags


def _html(built: Built, lang: str, page: Path) -> Path:
    return built.site / _site_prefix(lang) / _page_dir(page) / "index.html"


def _resolve(href: str, page_dir: str) -> str:
    """Site-relative target of a link found on the page at ``page_dir``."""
    target = href.lstrip("/") if href.startswith("/") else posixpath.join(page_dir, href)
    norm = posixpath.normpath(target or ".")
    return "" if norm == "." else norm.rstrip("/") + "/"


def test_build_is_clean(built: Built) -> None:
    assert "WARNING" not in built.log, built.log


def test_languages_have_the_same_pages() -> None:
    assert PAGES, "no pages found in docs/en"
    for lang in LANGS:
        assert _sources(lang) == set(PAGES), lang


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("page", PAGES, ids=str)
def test_page_built_with_lang_attribute(built: Built, lang: str, page: Path) -> None:
    html = _html(built, lang, page)
    assert html.is_file(), html
    html_tags = [attrs for tag, attrs in _tags(html) if tag == "html"]
    assert html_tags and html_tags[0].get("lang") == lang


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("page", [p for p in PAGES if p.suffix == ".ipynb"], ids=str)
def test_notebook_rendered_as_html(built: Built, lang: str, page: Path) -> None:
    html = _html(built, lang, page)
    text = html.read_text(encoding="utf-8")
    assert not text.lstrip().startswith("{"), f"{html} is the raw notebook JSON"
    classes = [attrs.get("class", "").split() for tag, attrs in _tags(html) if tag == "div"]
    assert any("jp-Cell" in c and "jp-CodeCell" in c for c in classes), html
    assert any("jupyter-wrapper" in c for c in classes), html


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("page", PAGES, ids=str)
def test_language_switcher_targets_same_page(built: Built, lang: str, page: Path) -> None:
    here = _site_prefix(lang) + _page_dir(page)
    links = {
        attrs["hreflang"]: attrs.get("href", "")
        for tag, attrs in _tags(_html(built, lang, page))
        if tag == "a" and "hreflang" in attrs
    }
    assert set(links) == set(LANGS), links
    for other in LANGS:
        expected = _site_prefix(other) + _page_dir(page)
        assert _resolve(links[other], here) == expected, (other, links[other])


def test_each_language_has_its_own_search_index_without_figures_or_provenance(built: Built) -> None:
    indexes = {
        lang: json.loads((built.site / _site_prefix(lang) / "search" / "search_index.json").read_text(encoding="utf-8"))
        for lang in LANGS
    }
    pages = {lang: {doc["location"].split("#")[0] for doc in index["docs"]} for lang, index in indexes.items()}
    assert pages["en"] == pages["zh-TW"] and len(pages["en"]) >= len(PAGES)  # the same pages, each in its folder
    assert not any(loc.startswith("zh-TW/") for loc in pages["en"])
    zh_text = " ".join(doc["text"] for doc in indexes["zh-TW"]["docs"])
    # the glossary lists each English term with its Chinese on purpose: the rest of en has none
    en_text = " ".join(doc["text"] for doc in indexes["en"]["docs"] if not doc["location"].startswith("glossary/"))
    assert "記憶體" in zh_text and "記憶體" not in en_text
    # figure text (an SVG's title) and provenance lines are not indexed
    assert "Bar chart" not in en_text and "長條圖" not in zh_text
    assert "Measured on" not in en_text


WORD_BREAK = re.compile(r"[\u4e00-\u9fff]\u200b[\u4e00-\u9fff]")  # jieba's break between two Chinese words


def test_the_published_chinese_search_is_segmented_into_words(built: Built) -> None:
    """A published build segments Chinese for the search index with jieba (lunr.js cannot), however
    `mkdocs serve` reuses its entries between rebuilds (attn_examples/site/serve_hooks.py)."""
    index = json.loads((built.site / "zh-TW" / "search" / "search_index.json").read_text(encoding="utf-8"))
    text = " ".join(doc["title"] + " " + doc["text"] for doc in index["docs"])
    assert len(WORD_BREAK.findall(text)) > 1000, "the zh-TW index is not segmented into words"


def test_no_external_fonts_scripts_or_styles(built: Built) -> None:
    offenders = []
    for html in built.site.rglob("*.html"):
        for tag, attrs in _tags(html):
            url = attrs.get("href") if tag == "link" else attrs.get("src") if tag == "script" else None
            if url and url.lower().startswith(("http:", "https:", "//")):
                offenders.append(f"{html.relative_to(built.site)}: <{tag}> {url}")
    assert not offenders, offenders


def test_notebook_cache_keeps_every_language(built: Built) -> None:
    """mkdocs-jupyter must not evict one language's entry in another's pass."""
    notebooks = {hashlib.sha256(p.read_bytes()).digest() for p in DOCS.rglob("*.ipynb")}
    assert len(list(built.cache.glob("*.json"))) == len(notebooks)
