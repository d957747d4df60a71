"""What a site generator made of this site: the five checks of docs-dev/decisions/0001-site-generator.md.

    python3 scripts/check_generated_site.py SITE_DIR [--docs DOCS_DIR]

Reads the built HTML and search index only (stdlib, no generator imported), so the same checks apply
to MkDocs, ProperDocs and Zensical output. Prints one line per check, `yes`/`no`/`partly` and what
was found. Exit status 0 when every check says yes, else 1. Used by scripts/try-generator.sh.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

LANGS = ("en", "zh-TW")
ZH_SITE_NAME = "剖析 Attention"  # mkdocs.yml: the i18n plugin's zh-TW site_name
CJK = re.compile(r"[\u4e00-\u9fff]")
WORD_BREAK = re.compile(r"[\u4e00-\u9fff]\u200b[\u4e00-\u9fff]")  # jieba's break between two Chinese words
TEMPLATE = re.compile(r"\{%\s*(if|elif|else|endif)\b|\{\{\s*(claim|article|paper)\.")
LANG_ATTR = re.compile(r"<html[^>]*\blang=\"([^\"]*)\"")
TITLE = re.compile(r"<title>([^<]*)</title>")
MEASURED_MARK = "<!-- attn:measured -->"  # attn_examples.render.blocks.MEASURED_MARK
SITE_ROOT = "@root@/"  # attn_examples.render.blocks.SITE_ROOT


def page_names(docs: Path) -> list[str]:
    """The pages of the English source tree, as URL folders ('' for the home page)."""
    names = []
    for src in sorted((docs / "en").iterdir()):
        if src.suffix in (".md", ".ipynb"):
            names.append("" if src.stem == "index" else src.stem)
    return names


def html(site: Path, prefix: str, name: str) -> str | None:
    path = site / prefix / name / "index.html"
    return path.read_text(encoding="utf-8") if path.is_file() else None


def english_prefix(site: Path) -> str:
    """Where the English pages are: the site root (mkdocs-static-i18n) or en/ (a plain folder tree)."""
    return "" if (site / "index.html").is_file() else "en"


def check_languages(site: Path, names: list[str]) -> tuple[str, str]:
    en = english_prefix(site)
    found = {lang: [n for n in names if html(site, en if lang == "en" else lang, n) is not None] for lang in LANGS}
    zh_home = html(site, "zh-TW", "") or ""
    zh_lang = (LANG_ATTR.search(zh_home) or [None, "?"])[1]
    zh_title = (TITLE.search(zh_home) or [None, "?"])[1]
    # the language switcher of a page, pointing at the same page in the other language
    switch = 'href="../../naive/" hreflang="en"' in (html(site, "zh-TW", "naive") or "")
    ok = (
        not en
        and all(len(found[lang]) == len(names) for lang in LANGS)
        and zh_lang.startswith("zh")
        and ZH_SITE_NAME in zh_title
        and switch
    )
    detail = (
        f"en {len(found['en'])}/{len(names)} pages at /{en + '/' if en else ''}, "
        f'zh-TW {len(found["zh-TW"])}/{len(names)} at /zh-TW/; zh-TW home: lang="{zh_lang}", '
        f'title "{zh_title.strip()}"; switcher zh-TW/naive -> naive: {"yes" if switch else "no"}'
    )
    partly = any(found[lang] for lang in LANGS)
    return ("yes" if ok else "partly" if partly else "no"), detail


def check_markdown_exec(site: Path, docs: Path) -> tuple[str, str]:
    en = english_prefix(site)
    total = ran = 0
    for lang in LANGS:
        for src in sorted((docs / lang).glob("*.md")):
            if 'exec="1"' not in src.read_text(encoding="utf-8"):
                continue
            total += 1
            name = "" if src.stem == "index" else src.stem
            page = html(site, en if lang == "en" else lang, name)
            if page is not None and 'exec="1"' not in page and "from attn_examples.site.build import" not in page:
                ran += 1
    return (
        "yes" if ran == total else "partly" if ran else "no"
    ), f"{ran}/{total} pages with exec blocks show their output, not the code"


def check_notebook(site: Path) -> tuple[str, str]:
    en = english_prefix(site)
    rendered = []
    for lang in LANGS:
        page = html(site, en if lang == "en" else lang, "notebook")
        rendered.append(page is not None and "jupyter-wrapper" in page)
    raw = sorted(str(p.relative_to(site)) for p in site.rglob("notebook.ipynb"))
    detail = f"rendered page (jupyter-wrapper): en {'yes' if rendered[0] else 'no'}, zh-TW {'yes' if rendered[1] else 'no'}; .ipynb files copied: {', '.join(raw) or 'none'}"
    return ("yes" if all(rendered) else "partly" if any(rendered) else "no"), detail


def _index_docs(path: Path) -> tuple[list[dict], dict]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return data.get("docs") or data.get("items") or [], data.get("config", {})


def check_search(site: Path) -> tuple[str, str]:
    indexes = sorted(
        p for p in site.rglob("*.json") if p.name in ("search_index.json", "search.json") and "assets" not in p.parts
    )
    if not indexes:
        return "no", "no search index found"
    notes, zh_ok = [], False
    for path in indexes:
        docs, config = _index_docs(path)
        zh = sum(1 for d in docs if CJK.search(d.get("title", "") + d.get("text", "")))
        breaks = sum(len(WORD_BREAK.findall(d.get("text", ""))) for d in docs)
        notes.append(
            f"{path.relative_to(site)}: {len(docs)} entries, {zh} Chinese, {breaks} jieba word breaks, "
            f"lang={config.get('lang')}"
        )
        if docs and zh >= 0.9 * len(docs) and breaks > 1000:
            zh_ok = True
    # yes: one index holds the Chinese pages alone (>= 90% of its entries), segmented into words
    return ("yes" if zh_ok else "no"), "; ".join(notes)


def check_hooks(site: Path, names: list[str]) -> tuple[str, str]:
    """Each of our hooks leaves a trace that only it can leave: measurement_hooks renders the page
    templates and replaces the measured-block mark with one provenance line, its on_post_page resolves
    the @root@/ links; site_hooks writes the site map; search_hooks splits the index (check_search)."""
    en = english_prefix(site)
    pages = [(lang, n, html(site, en if lang == "en" else lang, n)) for lang in LANGS for n in names]
    pages = [(f"{lang}/{n or 'index'}", p) for lang, n, p in pages if p is not None]
    raw = [name for name, p in pages if TEMPLATE.search(p)]
    marks = [name for name, p in pages if MEASURED_MARK in p or SITE_ROOT in p]
    site_map = html(site, en, "site-map") or ""
    mapped = "<!-- site-map -->" not in site_map and 'href="../naive/"' in site_map
    ok = bool(pages) and not raw and not marks and mapped
    detail = (
        f"{len(raw)}/{len(pages)} pages with unrendered templates"
        f"{' (' + ', '.join(raw[:3]) + ', ...)' if raw else ''}; "
        f"{len(marks)} with the measured mark or @root@/ left in; site map generated: {'yes' if mapped else 'no'}"
    )
    return ("yes" if ok else "no"), detail


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("--docs", type=Path, default=Path("docs"))
    args = parser.parse_args(argv)
    names = page_names(args.docs)
    results = {
        "both languages": check_languages(args.site, names),
        "markdown-exec": check_markdown_exec(args.site, args.docs),
        "notebook": check_notebook(args.site),
        "Chinese search": check_search(args.site),
        "hooks": check_hooks(args.site, names),
    }
    for name, (status, detail) in results.items():
        print(f"{name:15} {status:7} {detail}")
    return 0 if all(status == "yes" for status, _ in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
