"""MkDocs hooks that give a reader the road (loaded by path from mkdocs.yml).

Material's ``navigation.footer`` links each page to the previous and next one in the nav. This
adds, above each page's title, where it sits on the article's path (the nav's first section:
"3 of 9") and how long it takes to read, computed from the words the page renders (its tables
and figure labels included, code and drawings left out). The nav stays the one list: the
numbering follows it. Configuration glue only: no torch, no measurement code.
"""

from __future__ import annotations

import html as html_lib
import math
import re
from typing import Any

import mkdocs.plugins
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.nav import Navigation, Section
from mkdocs.structure.pages import Page

# Silent reading rates (Brysbaert 2019, "How many words do we read per minute?"): English prose
# at 238 words a minute, Chinese at 255 characters a minute.
WORDS_PER_MINUTE = 238
CJK_PER_MINUTE = 255

_SKIPPED = re.compile(r"<(pre|svg|script|style|template)\b.*?</\1>", re.S | re.I)
_TAG = re.compile(r"<[^>]+>")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_WORD = re.compile(r"[A-Za-z0-9][\w'’.\-]*")

_ROAD = {
    "en": "{section} · {n} of {total} · about {minutes} min",
    "zh-TW": "{section}・第 {n} 篇，共 {total} 篇・約 {minutes} 分鐘",
}
_ALONE = {"en": "about {minutes} min to read", "zh-TW": "約 {minutes} 分鐘讀完"}


class _NavState:
    """The nav of the language pass being built (i18n builds one pass per language)."""

    nav: Navigation | None = None


def reading_minutes(html: str) -> int:
    """Minutes to read `html`'s words at the rates above, at least one."""
    text = html_lib.unescape(_TAG.sub(" ", _SKIPPED.sub(" ", html)))
    cjk = len(_CJK.findall(text))
    words = len(_WORD.findall(_CJK.sub(" ", text)))
    return max(1, math.ceil(words / WORDS_PER_MINUTE + cjk / CJK_PER_MINUTE))


def article_position(nav: Navigation, page: Any) -> tuple[str, int, int] | None:
    """(section title, 1-based position, pages) of `page` in the nav's first section, or None."""
    first = next((item for item in nav.items if isinstance(item, Section)), None)
    if first is None:
        return None
    uris = [child.file.src_uri for child in first.children if isinstance(child, Page)]
    for n, uri in enumerate(uris, start=1):
        if uri == page.file.src_uri:
            return first.title, n, len(uris)
    return None


def road_line(lang: str, minutes: int, position: tuple[str, int, int] | None) -> str:
    """The line above a page's title, in `lang` (English for a language without its own words)."""
    if position is None:
        text = _ALONE.get(lang, _ALONE["en"]).format(minutes=minutes)
    else:
        section, n, total = position
        text = _ROAD.get(lang, _ROAD["en"]).format(section=section, n=n, total=total, minutes=minutes)
    return f'<p class="attn-road" data-search-exclude data-rests-on="general">{html_lib.escape(text)}</p>'


@mkdocs.plugins.event_priority(-110)  # after i18n's on_nav (-100) translated the titles
def on_nav(nav: Navigation, config: MkDocsConfig, files: Files) -> Navigation:
    _NavState.nav = nav
    return nav


@mkdocs.plugins.event_priority(-200)  # last: the measured tables and words are in by then
def on_page_content(html: str, page: Any, config: MkDocsConfig, files: Files) -> str:
    if _NavState.nav is None or page.file.src_uri.endswith("site-map.md"):
        return html
    lang = str(config.theme.get("language") or "en")
    line = road_line(lang, reading_minutes(html), article_position(_NavState.nav, page))
    return line + html
