"""The reader's road: each page of the article's path numbered and timed, previous/next links at
every page's foot, the theme's own words in the page's language, and no head link that makes the
browser ask for a file the site does not have."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from attn_examples.site import road_hooks
from benchmarks import word_counts
from tests.conftest import Built

LANGS = ("en", "zh-TW")


def _html(built: Built, lang: str, src: str) -> str:
    prefix = "" if lang == "en" else f"{lang}/"
    rel = "" if src == "index.md" else f"{Path(src).stem}/"
    return (built.site / prefix / rel / "index.html").read_text(encoding="utf-8")


def test_reading_minutes_count_words_and_chinese_characters_but_not_code() -> None:
    words = " ".join(["word"] * road_hooks.WORDS_PER_MINUTE * 3)
    assert road_hooks.reading_minutes(f"<p>{words}</p>") == 3
    assert road_hooks.reading_minutes(f"<p>{words}</p><pre>{words} {words}</pre><svg>{words}</svg>") == 3
    assert road_hooks.reading_minutes("<p>" + "字" * road_hooks.CJK_PER_MINUTE * 2 + "</p>") == 2
    assert road_hooks.reading_minutes("") == 1


@pytest.mark.parametrize("lang", LANGS)
def test_every_article_page_says_where_it_sits_and_links_on(built: Built, lang: str) -> None:
    path = word_counts.article_path()
    assert len(path) >= 5, path
    for n, src in enumerate(path, start=1):
        html = _html(built, lang, src)
        road = re.search(r'<p class="attn-road"[^>]*>(.*?)</p>\s*<h1', html)
        assert road, f"{lang}/{src}: no road line above the title"
        assert re.search(rf"(?<!\d){n}(?!\d)\D+(?<!\d){len(path)}(?!\d)", road.group(1)), (src, road.group(1))
        assert re.search(r"\d+ (min|分鐘)", road.group(1)), road.group(1)
        assert ("md-footer__link--prev" in html) == (n > 1), f"{lang}/{src}: previous link"
        assert "md-footer__link--next" in html, f"{lang}/{src}: next link"


@pytest.mark.parametrize("lang", LANGS)
def test_pages_beyond_the_article_are_timed_but_not_numbered(built: Built, lang: str) -> None:
    html = _html(built, lang, "occupancy.md")
    road = re.search(r'<p class="attn-road"[^>]*>(.*?)</p>', html)
    assert road and not re.search(r"\bof\b|共", road.group(1)), road


def test_chinese_pages_carry_the_themes_words_in_chinese(built: Built) -> None:
    for src in ("index.md", "flash.md", "occupancy.md"):
        html = _html(built, "zh-TW", src)
        for english in ("Permanent link", "Switch to dark mode", "Switch to light mode"):
            assert english not in html, (src, english)


@pytest.mark.parametrize("lang", LANGS)
def test_no_head_link_sends_the_browser_to_a_missing_sitemap(built: Built, lang: str) -> None:
    """Material fetches sitemap.xml beside each head alternate; the language selector still links on."""
    html = _html(built, lang, "flash.md")
    head = html[: html.index("</head>")]
    assert 'rel="alternate"' not in head
    assert re.search(r'<a href="[^"]*flash/" hreflang="(en|zh-TW)" class="md-select__link">', html)
