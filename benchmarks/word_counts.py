"""Words per page of the BUILT site: how long each page takes to read.

    python benchmarks/word_counts.py [SITE_DIR]      (default: site/; build it first)

What counts: the prose inside each page's <article> element, as the reader sees it: paragraphs,
lists, headings, admonitions, hand-written Markdown tables (the dispatcher's conditions, the backend
guide), inline `code`, and the text folded away inside <details> (a Guess box's answer is read by
whoever opens it, so it counts). What does not: code blocks (<pre>), measured tables
(<div class="attn-table">) with their captions and trace links, figures (<figure>, <svg>), the
provenance line (class attn-provenance), the road line above the title (class attn-road: where the
page sits and how long it reads), a statement's evidence mark and its popup (class attn-ev: the claims
it rests on, not the story), heading permalinks, scripts and styles.

How: English counts words, a word being a run of letters or digits joined by punctuation without a
space (`masked_fill_`, `aten::bmm`, `FP32` and `3.7` are one word each). Chinese counts CJK
characters one by one, plus the Latin words among them, by the same rule ("kernel" and `wgmma` are
words in a Chinese sentence too). Punctuation alone is not a word.

The article's path is the first section of mkdocs.yml's nav ("The article"); the tests hold its
English total to a budget with `path_words`, the same function this script prints.
"""

from __future__ import annotations

import json
import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import ClassVar

REPO = Path(__file__).resolve().parent.parent
LANGS = ("en", "zh-TW")
BUDGET = 8000  # English words on the article's path (about 25 minutes at 300 words a minute)

_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_WIDE = _CJK + r"\u3000-\u303f\uff00-\uffef"
_HAN = re.compile(f"[{_CJK}]")
# letters or digits, joined by punctuation that is neither a space nor a Chinese character
_LATIN = re.compile(rf"[^\W_]+(?:[^\s\w{_WIDE}]*_*[^\W_]+|_+[^\W_]*)*", re.U)
_SKIP_TAGS = {"pre", "script", "style", "svg", "figure"}
_SKIP_CLASSES = {"attn-ev", "attn-table", "attn-provenance", "attn-road", "attn-caption", "attn-trace", "headerlink"}


class _ArticleText(HTMLParser):
    """The text of <article>, without the parts that are not prose (see the module's docstring).
    Hand-written tables are prose: only tables inside a measured block are skipped."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._article = 0
        self._skip: list[str] = []  # the tags whose content is being skipped, innermost last
        self._measured = 0  # inside <div class="attn-table">

    _VOID: ClassVar[set[str]] = {"br", "img", "hr", "input", "meta", "link", "wbr", "source", "col"}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self._VOID:
            return
        classes = set((dict(attrs).get("class") or "").split())
        if tag == "article":
            self._article += 1
        if self._skip:
            self._skip.append(tag)
            return
        if classes & _SKIP_CLASSES or tag in _SKIP_TAGS:
            self._skip.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self._VOID:
            return
        if self._skip:
            self._skip.pop()
        if tag == "article":
            self._article -= 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        pass

    def handle_data(self, data: str) -> None:
        if self._article and not self._skip:
            self.parts.append(data)


def article_text(html: str) -> str:
    parser = _ArticleText()
    parser.feed(html)
    return " ".join(parser.parts)


def count(text: str, lang: str) -> int:
    """English: words. Chinese: CJK characters plus the Latin words among them."""
    if lang == "en":
        return len(_LATIN.findall(text))
    return len(_HAN.findall(text)) + len(_LATIN.findall(_HAN.sub(" ", text)))


def page_file(site: Path, lang: str, page: str) -> Path:
    """The built HTML of `page` (a source name such as 'naive.md' or 'notebook.ipynb')."""
    stem = page.rsplit(".", 1)[0]
    return site / ("" if lang == "en" else lang) / ("" if stem == "index" else stem) / "index.html"


def page_words(site: Path, lang: str, page: str) -> int:
    return count(article_text(page_file(site, lang, page).read_text(encoding="utf-8")), lang)


def _nav() -> list:
    """mkdocs.yml's nav, read without MkDocs (its other tags are not needed here)."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("", lambda loader, suffix, node: None)
    config = yaml.load((REPO / "mkdocs.yml").read_text(encoding="utf-8"), Loader=Loader)
    return config["nav"]


def _pages(entries: list) -> list[str]:
    out = []
    for entry in entries:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        out += _pages(value) if isinstance(value, list) else [value]
    return out


def article_path() -> list[str]:
    """The pages of the article's path: the nav's first section."""
    first = _nav()[0]
    value = next(iter(first.values())) if isinstance(first, dict) else first
    if not isinstance(value, list):
        raise ValueError("mkdocs.yml: the nav's first entry should be the section of the article's path")
    return _pages(value)


def all_pages() -> list[str]:
    return _pages(_nav())


def path_words(site: Path, lang: str = "en") -> int:
    return sum(page_words(site, lang, page) for page in article_path())


def table(site: Path) -> dict:
    path = set(article_path())
    rows = {page: {lang: page_words(site, lang, page) for lang in LANGS} for page in all_pages()}
    totals = {
        "path": {lang: sum(r[lang] for p, r in rows.items() if p in path) for lang in LANGS},
        "all": {lang: sum(r[lang] for r in rows.values()) for lang in LANGS},
    }
    return {"pages": rows, "totals": totals, "path": sorted(path, key=list(rows).index), "budget_en": BUDGET}


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    site = Path(args[0]) if args else REPO / "site"
    result = table(site)
    if "--json" in args:
        print(json.dumps(result, indent=1, ensure_ascii=False))
        return 0
    path = set(result["path"])
    print(f"{'page':<22}{'en words':>10}{'zh-TW chars':>13}")
    for page, row in result["pages"].items():
        mark = " *" if page in path else ""
        print(f"{page + mark:<22}{row['en']:>10,}{row['zh-TW']:>13,}")
    for name, row in result["totals"].items():
        label = "article's path (*)" if name == "path" else "all pages"
        print(f"{label:<22}{row['en']:>10,}{row['zh-TW']:>13,}")
    print(f"budget for the path: {BUDGET:,} English words")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
