"""MkDocs hooks that make mkdocs-jupyter work under mkdocs-static-i18n.

Loaded through ``hooks:`` in ``mkdocs.yml`` by file path (``attn_examples/__init__.py``
is not run). Configuration glue only: no measurement code and no PyTorch here, so
the site builder can be replaced without touching the measurement package.
While MkDocs executes this file, ``attn_examples/`` is first on ``sys.path`` (its
``config.py`` would shadow same-named modules), so import only
modules that are already loaded by then: MkDocs and the configured plugins.

Two upstream problems are repaired (ultrabug/mkdocs-static-i18n#198; tests/test_site_build.py
guards both):

1. Notebook pages written as raw JSON. i18n's ``on_files`` (priority -100) runs
   after mkdocs-jupyter's and rebuilds every file as a plain ``File``. A plain
   ``.ipynb`` file is not a documentation page, so it is copied verbatim to its
   page URL and ``--strict`` does not notice. :func:`on_files` wraps those files
   again as mkdocs-jupyter's ``NotebookFile``, keeping i18n's localized
   destination and URL, replacing them *in* i18n's collection (a new ``Files``
   object would lose i18n's localized link resolution), and gives the notebook
   page its per-language alternates so the language switcher stays on the page.

2. Notebook cache thrashing. i18n builds each language as a full extra build in
   the same process. mkdocs-jupyter resets its "used cache entries" set in
   ``on_pre_build`` and deletes every unused entry in ``on_post_build``, so each
   language pass evicts the other languages' entries and every notebook is
   converted (or executed, with ``execute: true``) again on every build.
   :func:`on_pre_build` and :func:`on_post_build` share one set across the
   language passes of a build and keep eviction from running before the last one.

And one page is written from the nav: the site map (``site-map.md`` in each language) holds the
marker ``<!-- site-map -->``, which :func:`on_page_markdown` replaces with every section and page
of this language's nav, titles as translated (:func:`on_nav` runs after i18n's), as Markdown links
that MkDocs then resolves and checks like any other. ``mkdocs.yml``'s nav stays the one list.

And one request less per language and page: Material's JavaScript fetches ``sitemap.xml`` beside
every ``<link rel="alternate">`` of the head, expecting each to be a language's root; i18n points
them at the same page in the other language, so every page load asked for ``<page>/sitemap.xml``
twice and got two 404s. :func:`on_post_page` drops those head links; the language selector's
``<a hreflang>`` links, which readers use, are untouched (tests/test_browser.py follows them).
"""

from __future__ import annotations

import os
import posixpath
import re
from pathlib import Path
from typing import Any, ClassVar

import mkdocs.plugins
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.nav import Navigation
from mkdocs_jupyter.plugin import NotebookFile

_I18N = "i18n"
_JUPYTER = "mkdocs-jupyter"


class _BuildState:
    """Cache bookkeeping shared by the language passes of one ``mkdocs build``."""

    used_cache_paths: ClassVar[set[Path]] = set()
    passes_done: int = 0


def _plugin(config: MkDocsConfig, name: str) -> Any | None:
    return config.plugins.get(name)


def _page_dest_uri(dest_uri: str, use_directory_urls: bool) -> str:
    """Destination of a rendered page, from a file's (possibly localized) ``dest_uri``.

    i18n may hand us either a raw ``x.ipynb`` destination or the page destination
    mkdocs-jupyter computed earlier; mirror ``File._get_dest_path`` for the former.
    """
    if not dest_uri.endswith(".ipynb"):
        return dest_uri
    parent, filename = posixpath.split(dest_uri)
    stem = filename[: -len(".ipynb")]
    if not use_directory_urls or stem in ("index", "README"):
        return posixpath.join(parent, "index.html" if stem == "README" else stem + ".html")
    return posixpath.join(parent, stem, "index.html")


def _as_notebook(file: File, config: MkDocsConfig) -> NotebookFile:
    """Wrap an i18n-localized file as a notebook page, keeping its dest path and URL."""
    nb = NotebookFile(file, use_directory_urls=config.use_directory_urls, site_dir=config.site_dir)
    # NotebookFile derives dest/url from the *source* path (e.g. ``en/notebook/``);
    # override them with i18n's localized values (``notebook/``, ``zh-TW/notebook/``).
    nb.dest_uri = _page_dest_uri(file.dest_uri, config.use_directory_urls)
    nb.abs_dest_path = os.path.normpath(os.path.join(config.site_dir, nb.dest_uri))
    nb.url = nb._get_url(config.use_directory_urls)
    return nb


def _alternates(nb: NotebookFile, i18n: Any, config: MkDocsConfig) -> dict[str, File]:
    """Per-language versions of a notebook page, for the language switcher and sitemap.

    i18n treats ``.ipynb`` files as assets and records no alternates for them.
    """
    from mkdocs_static_i18n.folder import create_i18n_file

    alternates: dict[str, File] = {i18n.current_language: nb}
    norm_src_uri: str = getattr(nb.file, "norm_src_uri", nb.src_uri)
    for lang in i18n.build_languages:
        if lang == i18n.current_language:
            continue
        # Same fallback as i18n for pages: the default language's version.
        for src_lang in (lang, i18n.default_language):
            src_uri = posixpath.join(src_lang, norm_src_uri)
            if os.path.isfile(os.path.join(config.docs_dir, src_uri)):
                raw = File(src_uri, config.docs_dir, config.site_dir, config.use_directory_urls)
                localized = create_i18n_file(raw, lang, i18n.default_language, i18n.all_languages, config)
                alternates[lang] = _as_notebook(localized, config)
                break
    return alternates


@mkdocs.plugins.event_priority(-110)  # after i18n's on_files (-100)
def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Re-wrap i18n's plain ``.ipynb`` files as notebook pages, in place."""
    jupyter = _plugin(config, _JUPYTER)
    if jupyter is None:
        return files
    i18n = _plugin(config, _I18N)
    for file in list(files):
        if isinstance(file, NotebookFile) or not jupyter.should_include(file):
            continue
        nb = _as_notebook(file, config)
        if i18n is not None:
            nb.alternates = _alternates(nb, i18n, config)
        files.remove(file)
        files.append(nb)
    if i18n is not None:
        # i18n stored its page list (used by its sitemap) before the repair.
        i18n.i18n_files_per_language[i18n.current_language] = files.documentation_pages()
    return files


def _is_first_pass(config: MkDocsConfig) -> bool:
    i18n = _plugin(config, _I18N)
    # i18n sets ``building`` while it runs the extra language builds.
    return i18n is None or not i18n.building


def _pass_count(config: MkDocsConfig) -> int:
    i18n = _plugin(config, _I18N)
    return 1 if i18n is None else len(i18n.build_languages)


@mkdocs.plugins.event_priority(-110)  # after mkdocs-jupyter's on_pre_build (0) reset its set
def on_pre_build(config: MkDocsConfig) -> None:
    """Make every language pass record its used cache entries into one shared set."""
    jupyter = _plugin(config, _JUPYTER)
    if jupyter is None:
        return
    if _is_first_pass(config):
        _BuildState.used_cache_paths = set()
        _BuildState.passes_done = 0
    jupyter._used_cache_paths = _BuildState.used_cache_paths


@mkdocs.plugins.event_priority(10)  # before mkdocs-jupyter's on_post_build (0) evicts
def on_post_build(config: MkDocsConfig) -> None:
    """Protect every cache entry from eviction until the last language pass.

    In earlier passes mkdocs-jupyter is shown a copy of the shared set plus all
    existing entries; in the last pass it sees the shared set, so only entries
    that no language used are deleted.
    """
    jupyter = _plugin(config, _JUPYTER)
    if jupyter is None or not jupyter.config["cache"]:
        return
    _BuildState.passes_done += 1
    if _BuildState.passes_done < _pass_count(config):
        existing = set(Path(jupyter.config["cache_dir"]).glob("*.json"))
        jupyter._used_cache_paths = _BuildState.used_cache_paths | existing
    else:
        jupyter._used_cache_paths = _BuildState.used_cache_paths


# ---- the site map, from the nav ------------------------------------------------------------------

SITE_MAP_MARKER = "<!-- site-map -->"


class _NavState:
    """This language pass's nav (i18n builds each language with its own, translated)."""

    nav: Navigation | None = None


@mkdocs.plugins.event_priority(-110)  # after i18n's on_nav (-100) translated the titles
def on_nav(nav: Navigation, config: MkDocsConfig, files: Files) -> Navigation:
    _NavState.nav = nav
    return nav


def _map_lines(items: list, here: str, level: int) -> list[str]:
    lines: list[str] = []
    for item in items:
        if getattr(item, "children", None):  # a section: a heading, then its pages
            lines += ["", f"{'#' * level} {item.title}", ""] + _map_lines(item.children, here, level + 1)
        elif getattr(item, "file", None) is not None:
            lines.append(f"- [{item.title}]({posixpath.relpath(item.file.src_uri, here)})")
    return lines


def site_map(nav: Navigation, page_src_uri: str) -> str:
    """Every section and page of `nav` as Markdown, linked relative to the page at `page_src_uri`."""
    return "\n".join(_map_lines(nav.items, posixpath.dirname(page_src_uri), 2)).strip() + "\n"


def on_page_markdown(markdown: str, page: Any, config: MkDocsConfig, files: Files) -> str:
    if SITE_MAP_MARKER not in markdown or _NavState.nav is None:
        return markdown
    return markdown.replace(SITE_MAP_MARKER, site_map(_NavState.nav, page.file.src_uri))


_HEAD_ALTERNATE = re.compile(r'[ \t]*<link rel="alternate" href="[^"]*" hreflang="[^"]*">\n?')


# The heading anchors' title is Python-Markdown's toc option, one for every language.
_PERMALINK_TITLES = {"zh-TW": "永久連結"}
# Chinese emphasis is dots under the characters (docs/stylesheets/attn.css); a Latin word keeps italics.
_LATIN_EM = re.compile(r"<em>(?=[^<]*</em>)(?![^<]*[\u3400-\u9fff])")


def on_post_page(output: str, page: Any, config: MkDocsConfig) -> str:
    """The page without the head's language alternates (see the module's docstring), its heading
    anchors titled in the page's language, and on a Chinese page its emphasised Latin words marked."""
    head_end = output.find("</head>")
    if head_end >= 0:
        output = _HEAD_ALTERNATE.sub("", output[:head_end]) + output[head_end:]
    title = _PERMALINK_TITLES.get(str(config.theme.get("language") or ""))
    if title:
        output = re.sub(r'(<a class="headerlink" href="[^"]*") title="Permanent link"', rf'\1 title="{title}"', output)
        output = _LATIN_EM.sub('<em class="attn-latin">', output)
    return output
