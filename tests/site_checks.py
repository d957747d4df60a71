"""Checks over a built site's HTML, shared by the tests and by the test that breaks a copy on
purpose (each check must be able to fail). Stdlib only."""

from __future__ import annotations

import posixpath
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

LANGS = ("en", "zh-TW")


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.imgs: list[dict[str, str]] = []
        self.tables = 0
        self.table_heads = 0
        self.headings: list[int] = []
        self.svgs: list[dict[str, str]] = []
        self.lang = ""
        self._in_article = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "html":
            self.lang = a.get("lang", "")
        if tag == "a" and "href" in a:
            self.links.append(a["href"])
        if tag == "article":
            self._in_article += 1
        if not self._in_article:
            return
        if tag == "img":
            self.imgs.append(a)
        elif tag == "table":
            self.tables += 1
        elif tag == "th":
            self.table_heads += 1
        elif tag == "svg" and "attn-figure" not in a.get("class", ""):
            self.svgs.append(a)
        elif re.fullmatch(r"h[1-6]", tag):
            self.headings.append(int(tag[1]))

    def handle_endtag(self, tag: str) -> None:
        if tag == "article":
            self._in_article -= 1


def parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def pages(site: Path) -> list[Path]:
    return sorted(p for p in site.rglob("index.html") if "assets" not in p.parts and "search" not in p.parts)


def broken_links(site: Path) -> list[str]:
    """Internal links whose target file or #anchor does not exist."""
    problems, parsed = [], {p: parse(p) for p in pages(site)}
    for path, page in parsed.items():
        for href in page.links:
            parts = urlsplit(href)
            if parts.scheme or parts.netloc or href.startswith(("mailto:", "javascript:")):
                continue
            if parts.path.startswith("/"):  # root-absolute (the language switcher's home links)
                target = site / unquote(parts.path).lstrip("/")
            else:
                target = path if not parts.path else (path.parent / unquote(parts.path))
            if target.is_dir() or not target.suffix:
                target = target / "index.html"
            target = Path(posixpath.normpath(str(target)))
            if not target.exists():
                problems.append(f"{path.relative_to(site)}: link to missing {href}")
                continue
            if parts.fragment and target.suffix == ".html":
                ids = parsed[target].ids if target in parsed else parse(target).ids
                if unquote(parts.fragment) not in ids:
                    problems.append(f"{path.relative_to(site)}: link to missing anchor {href}")
    return problems


def _local(rel: Path) -> tuple[Path, Path]:
    """A page's site and its path inside it: the top site, or one built per committed snapshot
    under snapshots/<name>/ (attn_examples.site.sites), each with its own language folders."""
    if len(rel.parts) > 2 and rel.parts[0] == "snapshots":
        return Path(*rel.parts[:2]), Path(*rel.parts[2:])
    return Path(), rel


def accessibility(site: Path) -> list[str]:
    """Alt text on images, a label on figures, headers on tables, heading levels in order, lang."""
    problems = []
    for path in pages(site):
        page, rel = parse(path), path.relative_to(site)
        want = "zh-TW" if _local(rel)[1].parts[0] == "zh-TW" else "en"
        if page.lang != want:
            problems.append(f"{rel}: <html lang={page.lang!r}>, expected {want!r}")
        problems += [f"{rel}: <img> without alt" for img in page.imgs if not img.get("alt", "").strip()]
        problems += [
            f"{rel}: figure <svg> without role=img and aria-label"
            for svg in page.svgs
            if svg.get("role") == "img" and not svg.get("aria-label", "").strip()
        ]
        if page.tables and page.table_heads < page.tables:
            problems.append(f"{rel}: a table without header cells")
        for before, after in zip(page.headings, page.headings[1:]):
            if after > before + 1:
                problems.append(f"{rel}: heading level jumps from h{before} to h{after}")
                break
    return problems


def missing_translations(site: Path) -> list[str]:
    """Every English page has its zh-TW twin and the other way round."""
    local = [_local(p.relative_to(site)) for p in pages(site)]
    en = {root / rel for root, rel in local if rel.parts[0] != "zh-TW"}
    zh = {root / Path(*rel.parts[1:]) for root, rel in local if rel.parts[0] == "zh-TW"}
    return [f"no zh-TW page for {p}" for p in sorted(en - zh)] + [f"no English page for {p}" for p in sorted(zh - en)]
