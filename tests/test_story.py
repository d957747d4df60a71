"""The article's path reads in about 25 minutes, and the site around it stays out of its way: a word
budget on the path, one provenance line per page, a site map generated from the nav, and Guess boxes
that ask before they answer."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from benchmarks import word_counts
from tests.conftest import REPO, Built, Sites

LANGS = ("en", "zh-TW")
_PROVENANCE = re.compile(r'<[a-z]+ class="attn-provenance"')


def _html(site: Path, lang: str, page: str) -> str:
    return word_counts.page_file(site, lang, page).read_text(encoding="utf-8")


def _article(html: str) -> str:
    match = re.search(r'<article class="md-content__inner md-typeset">(.*?)</article>', html, re.S)
    assert match, "no article body"
    return match.group(1)


def test_the_articles_path_reads_in_about_25_minutes(built: Built) -> None:
    words = {page: word_counts.page_words(built.site, "en", page) for page in word_counts.article_path()}
    assert len(words) == 9 and next(iter(words)) == "index.md" and list(words)[-1] == "takeaways.md", list(words)
    total = word_counts.path_words(built.site, "en")
    assert total == sum(words.values())
    assert total <= word_counts.BUDGET, f"{total} English words on the path (budget {word_counts.BUDGET}): {words}"


def test_the_word_count_reads_prose_only() -> None:
    html = (
        '<article class="md-content__inner md-typeset"><h1>Two words<a class="headerlink">¶</a></h1>'
        '<p>Flash runs <code>aten::bmm</code> here.</p><div class="highlight"><pre>x = 1</pre></div>'
        '<div class="attn-table"><table><tr><td>skipped cell</td></tr></table></div>'
        "<table><tr><td>hand typed</td></tr></table><figure><svg><title>no</title></svg></figure>"
        '<details class="attn-provenance"><summary>Measured on</summary></details>'
        "<details><summary>Answer</summary><p>folded text counts</p></details></article>"
    )
    assert word_counts.count(word_counts.article_text(html), "en") == 2 + 4 + 2 + 1 + 3
    assert word_counts.count("每次 forward 啟動 kernel。", "zh-TW") == 4 + 2


@pytest.mark.parametrize("lang", LANGS)
def test_each_page_has_at_most_one_provenance_line(sites: Sites, lang: str) -> None:
    """One compact line per page that shows a measured block, none on a page that shows none; every
    committed measurement's site (GPU and CPU alike)."""
    for name in sites.builds:
        site = sites.site(name)
        for page in word_counts.all_pages():
            body = _article(_html(site, lang, page))
            lines = len(_PROVENANCE.findall(body))
            # the devices table labels each row with its own measurement: it alone asks for no line
            measured = bool(re.search(r'class="attn-(?:table|figure|dispatch)"(?! data-kind="devices")', body))
            source = (REPO / "docs" / lang / page).read_text(encoding="utf-8")
            assert lines <= 1, (name or "top", lang, page, lines)
            if measured:
                assert lines == 1, (name or "top", lang, page, "a measured block without its provenance line")
            if 'exec="1"' not in source:
                assert lines == 0, (name or "top", lang, page, "a provenance line on a page that measures nothing")


def test_the_provenance_line_explains_the_check_marks_once(built: Built) -> None:
    for lang in LANGS:
        body = _article(_html(built.site, lang, "naive.md"))
        line = re.search(r'<details class="attn-provenance".*?</details>', body, re.S)
        assert line and "<summary" in line.group(0), lang
        assert re.search(r'href="[^"]*#marks"', line.group(0)), lang
        assert re.search(r'href="[^"]*about/#marks"', line.group(0)), lang
        about = _article(_html(built.site, lang, "about.md"))
        assert 'id="marks"' in about and "✓" in about and "✗" in about, lang


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a" and dict(attrs).get("href"):
            self.hrefs.append(dict(attrs)["href"])


@pytest.mark.parametrize("lang", LANGS)
def test_the_site_map_lists_every_page_of_the_nav(built: Built, lang: str) -> None:
    pages = word_counts.all_pages()
    assert "site-map.md" in pages
    parser = _Links()
    parser.feed(_article(_html(built.site, lang, "site-map.md")))
    here = word_counts.page_file(built.site, lang, "site-map.md").parent
    linked = {
        (here / href.split("#")[0] / "index.html").resolve()
        for href in parser.hrefs
        if not href.startswith(("http", "#"))
    }
    for page in pages:
        if page != "site-map.md":
            assert word_counts.page_file(built.site, lang, page).resolve() in linked, (lang, page)


def test_the_nav_has_three_sections_with_distinct_titles() -> None:
    nav = word_counts._nav()
    sections = [next(iter(entry)) for entry in nav if isinstance(next(iter(entry.values())), list)]
    assert sections == ["The article", "Beyond", "Reproduce"], sections
    titles = [title for section in nav for title in _titles(section)]
    assert len(titles) == len(set(titles)) and not any(t.startswith("Beyond:") for t in titles), titles
    assert sum("Guess" in t for t in titles) <= 1, titles


def _titles(entry) -> list[str]:
    title, value = next(iter(entry.items()))
    return [t for child in value for t in _titles(child)] if isinstance(value, list) else [title]


@pytest.mark.parametrize("lang", LANGS)
def test_guess_boxes_ask_and_keep_the_articles_answer_folded(built: Built, lang: str) -> None:
    """A Guess box asks the reader; the article's answer sits inside a closed <details>, so nothing the
    article measured shows before the reader has guessed."""
    seen = 0
    for page in word_counts.article_path():
        body = _article(_html(built.site, lang, page))
        for start in [m.end() for m in re.finditer(r'<div class="admonition question"[^>]*>', body)]:
            seen += 1
            box = _balanced_div(body, start)
            assert "?" in re.sub(r"<details.*?</details>", "", box, flags=re.S) or "？" in box, (page, box[:300])
            details = re.findall(r"<details[^>]*>.*?</details>", box, re.S)
            assert details and all(" open" not in d.split(">", 1)[0] for d in details), (page, box[:300])
            outside = re.sub(r"<details.*?</details>", "", box, flags=re.S)
            assert "attn-quoted" not in outside, (lang, page, "an article figure shown before the guess")
            assert any("attn-quoted" in d for d in details), (lang, page)
    assert seen >= 5


def _balanced_div(html: str, start: int) -> str:
    depth = 1
    for match in re.finditer(r"<(/?)div\b", html[start:]):
        depth += -1 if match.group(1) else 1
        if depth == 0:
            return html[start : start + match.start()]
    return html[start:]
