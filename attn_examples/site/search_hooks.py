"""MkDocs hooks that give each language its own search index (loaded by path from mkdocs.yml).

Material's search builds one index, and mkdocs-static-i18n merges every language's pages into it:
an English query ranks Chinese pages first, and the reverse. After the last language pass,
:func:`on_post_build` splits the index, one per language under its own folder (``search/`` for the
default language, ``zh-TW/search/``), with each page's location relative to that folder, and
:func:`on_post_page` points a page's search at its language's folder (Material reads the index
from ``__config.base``). Figures and provenance lines are kept out of the index where they are
rendered (``data-search-exclude``); a figure's drawing is taken out before Material's indexer reads
the page (:func:`indexed_html`), which otherwise parses every SVG element only to skip it.
Configuration glue only: no torch, no measurement code.
"""

from __future__ import annotations

import json
import posixpath
import re
from pathlib import Path
from typing import Any

import mkdocs.plugins
from mkdocs.config.defaults import MkDocsConfig

_EXCLUDED_FIGURE = re.compile(r"(<figure\b[^>]*\sdata-search-exclude\b[^>]*>).*?</figure>", re.S)


def indexed_html(content: str) -> str:
    """A page's HTML as the search index reads it: each excluded <figure> kept, empty. Material skips
    everything inside one (its entries are the same), but only after parsing it: the inline SVGs of
    the figures and timelines were most of the HTML it parsed."""
    return _EXCLUDED_FIGURE.sub(lambda m: m.group(1) + "</figure>", content)


class _Indexed:
    """A page as the indexer sees it: its own attributes, with `content` trimmed."""

    def __init__(self, page: Any, content: str) -> None:
        self._page, self.content = page, content

    def __getattr__(self, name: str) -> Any:
        return getattr(self._page, name)


def _index_trimmed() -> None:
    """Material's SearchIndex.add_entry_from_context, given the page with :func:`indexed_html`."""
    try:
        from material.plugins.search.plugin import SearchIndex
    except ImportError:
        return
    original = SearchIndex.add_entry_from_context
    if getattr(original, "attn_trimmed", False):
        return

    def add_entry_from_context(self: Any, page: Any) -> None:
        trimmed = indexed_html(page.content)
        return original(self, page if trimmed == page.content else _Indexed(page, trimmed))

    add_entry_from_context.attn_trimmed = True  # type: ignore[attr-defined]
    SearchIndex.add_entry_from_context = add_entry_from_context


_index_trimmed()

_CONFIG_BASE = re.compile(r'(<script id="__config" type="application/json">.*?"base":\s*")([^"]*)(")', re.S)


def _language(config: MkDocsConfig, url: str) -> str | None:
    """The non-default language folder a URL lies in ('zh-TW'), or None."""
    i18n = config.plugins.get("i18n")
    if i18n is None:
        return None
    head = url.split("/", 1)[0]
    return head if head in i18n.build_languages and head != i18n.default_language else None


def on_post_page(output: str, page: Any, config: MkDocsConfig) -> str:
    lang = _language(config, page.url or "")
    if lang is None:
        return output
    base = posixpath.relpath(lang, page.url.rstrip("/") or ".")
    return _CONFIG_BASE.sub(lambda m: m.group(1) + base + m.group(3), output, count=1)


@mkdocs.plugins.event_priority(-200)  # after i18n's on_post_build (-100) merged every language's entries
def on_post_build(config: MkDocsConfig) -> None:
    i18n = config.plugins.get("i18n")
    index_path = Path(config.site_dir) / "search" / "search_index.json"
    if i18n is None or i18n.building or not index_path.is_file():
        return
    index = json.loads(index_path.read_text(encoding="utf-8"))
    by_lang: dict[str | None, list] = {}
    for doc in index.get("docs", []):
        lang = _language(config, doc.get("location", ""))
        if lang is not None:
            doc = {**doc, "location": doc["location"][len(lang) + 1 :]}
        by_lang.setdefault(lang, []).append(doc)
    for lang in [None, *(lang for lang in i18n.build_languages if lang != i18n.default_language)]:
        target = index_path if lang is None else Path(config.site_dir) / lang / "search" / "search_index.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(
            json.dumps({**index, "docs": by_lang.get(lang, [])}, ensure_ascii=False, separators=(",", ":")),
            encoding="utf-8",
        )
