"""MkDocs hooks that make `mkdocs serve` rebuild in seconds without ever serving a stale page
(loaded by path from mkdocs.yml; configuration glue: no torch, only modules MkDocs has loaded).

`mkdocs serve` rebuilds the whole site, both languages, in one long-running process after every
edit. Most of that work gives the same result as last time; what is reused here, and what
invalidates it:

- **Search entries** (Material's HTML parse of every page and jieba's segmentation of its Chinese)
  are reused for a page whose HTML, title, URL, headings and front matter are unchanged. Serving
  only: `mkdocs build` indexes every page afresh.
- **Theme templates** are compiled once per process (Jinja checks each template's source before
  reusing it). Also in `mkdocs build`, whose second language pass used to compile them again.
- **Code blocks** (markdown-exec's Python: the measured tables and figures) are reused per block
  source while nothing they are computed from has changed. Serving only.
- **Pages' HTML** (Markdown converted, blocks run, links resolved) is reused for a page whose
  Markdown, place, and site files are unchanged, while nothing it is computed from has changed and
  the configuration file is the same; a conversion that logged anything is never reused (its
  warnings must fail a strict build again). Serving only: the page templates, the search index and
  every hook after the conversion still run for every page.

What the pages are computed from lies outside `docs/`: the package `attn_examples/` (its code and
`claims.d/`), `snippets/`, `snapshots/` (and the folder ATTN_EXAMPLES_SNAPSHOT names). mkdocs.yml's
`watch:` makes a change there start a rebuild; :func:`on_pre_build` then compares their files
(path, size, modification time) with the previous rebuild's:

- any change: the build's measurement forgets what it derived (`site.refresh`: the snapshot is read
  again, every claim checked again) and no code block output is reused (its key holds the inputs'
  signature);
- an edited module of the package: the package is imported afresh (its modules are dropped from
  `sys.modules`; a live measurement is carried over, and taken again only if the code that measures
  changed: `site.refresh`). The hook files themselves (`*_hooks.py`) are loaded once by MkDocs:
  editing one asks for a restart.
"""

from __future__ import annotations

import copy
import hashlib
import importlib
import json
import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import jinja2
import mkdocs.plugins
from mkdocs.config.defaults import MkDocsConfig

log = logging.getLogger("mkdocs.plugins.attn_examples.serve")

PACKAGE = "attn_examples"
ROOT = Path(__file__).resolve().parents[2]
WATCHED = (ROOT / PACKAGE, ROOT / "snippets", ROOT / "snapshots")
SNAPSHOT_ENV = "ATTN_EXAMPLES_SNAPSHOT"

Signature = tuple[tuple[str, int, int], ...]


class _State:
    serving: bool = False
    files: str = ""  # digest of this language pass's files: where links lead
    code: Signature | None = None  # the package's modules, hook files excluded
    hooks: Signature | None = None  # the hook files MkDocs loaded (read once per process)
    inputs: str = ""  # digest of every watched file: part of each block's cache key
    counts: ClassVar[dict[str, int]] = {}  # this rebuild's reuse, reported at its end


def _files(root: Path) -> list[tuple[str, int, int]]:
    """(path, mtime_ns, size) of every file under `root`, bytecode and hidden folders left out."""
    found = []
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = sorted(d for d in subfolders if d != "__pycache__" and not d.startswith("."))
        for name in sorted(names):
            path = os.path.join(folder, name)
            try:
                stat = os.stat(path)
            except FileNotFoundError:  # removed while we looked: the watcher rebuilds again
                continue
            found.append((path, stat.st_mtime_ns, stat.st_size))
    return found


def input_roots() -> list[Path]:
    """Every folder the pages are computed from, besides docs/."""
    roots = list(WATCHED)
    named = os.environ.get(SNAPSHOT_ENV)
    if named and not any(Path(named).resolve().is_relative_to(r) for r in roots):
        roots.append(Path(named).resolve())
    return roots


def signatures() -> tuple[Signature, Signature, str]:
    """(package modules, hook files, digest of all inputs) as they are on disk now."""
    everything = [entry for root in input_roots() for entry in _files(root)]
    package = str(ROOT / PACKAGE) + os.sep
    python = [e for e in everything if e[0].startswith(package) and e[0].endswith(".py")]
    hooks = tuple(e for e in python if e[0].endswith("_hooks.py"))
    code = tuple(e for e in python if not e[0].endswith("_hooks.py"))
    digest = hashlib.sha256(repr(everything).encode()).hexdigest()
    return code, hooks, digest


def reimport_package() -> None:
    """Drop the package's modules so the next import reads the edited code; carry a live
    measurement over (`site.refresh` then decides whether it still holds)."""
    site = sys.modules.get(f"{PACKAGE}.site.build")
    live = getattr(site, "_current", None)
    live = live if live is not None and live.live else None
    for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]:
        del sys.modules[name]
    importlib.invalidate_caches()
    if live is not None:
        importlib.import_module(f"{PACKAGE}.site.build").adopt_live(live.snapshot.root, live.stamp, live.reused)


def on_startup(command: str, dirty: bool) -> None:
    _State.serving = command == "serve"
    if _State.serving:
        sys.dont_write_bytecode = True  # a .pyc written under attn_examples/ would start another rebuild
        _patch_search()
        _patch_code_blocks()
        _patch_page_render()


def on_serve(server: Any, config: MkDocsConfig, builder: Callable) -> Any:
    """A snapshot folder named outside snapshots/ is watched too (mkdocs.yml watches the rest)."""
    for root in input_roots():
        if root not in WATCHED and root.is_dir():
            server.watch(str(root))
    return server


def _first_pass(config: MkDocsConfig) -> bool:
    i18n = config.plugins.get("i18n")
    return i18n is None or not i18n.building


@mkdocs.plugins.event_priority(1000)  # before measurement_hooks takes the measurement (100)
def on_pre_build(config: MkDocsConfig) -> None:
    """Compare the inputs with the previous rebuild's; forget whatever a change makes stale."""
    if not _State.serving or not _first_pass(config):
        return
    _State.counts = dict.fromkeys(
        ("pages reused", "pages converted", "blocks reused", "blocks run", "search reused", "search indexed"), 0
    )
    code, hooks, digest = signatures()
    if _State.code is None:  # the first build: what this process loaded
        _State.code, _State.hooks, _State.inputs = code, hooks, digest
        return
    if hooks != _State.hooks:  # kept as loaded: every rebuild fails (strict) until a restart
        changed = sorted({p for p, *_ in set(hooks) ^ set(_State.hooks or ())})
        log.warning(
            "attn-examples: %s changed since `mkdocs serve` started; MkDocs reads hook files once: restart it",
            ", ".join(os.path.relpath(p, ROOT) for p in changed),
        )
    if code != _State.code:
        log.info("attn-examples: the package changed; importing it afresh")
        reimport_package()
    if digest != _State.inputs:
        importlib.import_module(f"{PACKAGE}.site.build").refresh()
        _BLOCKS.clear()
        _PAGES.clear()
    for cache in (_SEARCH, _PAGES):
        if len(cache) > 1000:  # old versions of edited pages
            cache.clear()
    _State.code, _State.inputs = code, digest


@mkdocs.plugins.event_priority(-2000)  # after i18n ran the other languages (-100)
def on_post_build(config: MkDocsConfig) -> None:
    """One line per rebuild: what was reused (tests/test_authoring.py reads it)."""
    if _State.serving and _first_pass(config):
        log.info("attn-examples: %s", ", ".join(f"{v} {k}" for k, v in _State.counts.items()))


def _count(what: str) -> None:
    _State.counts[what] = _State.counts.get(what, 0) + 1


# ---- theme templates, compiled once ---------------------------------------------------------------


class _CompiledTemplates(jinja2.BytecodeCache):
    """Compiled templates kept in memory, by name and source checksum. MkDocs makes a new Jinja
    environment for every build and i18n builds each language as one: every template was compiled
    again each time."""

    def __init__(self) -> None:
        self._code: dict[tuple, Any] = {}

    @staticmethod
    def _key(bucket: jinja2.bccache.Bucket) -> tuple:
        return bucket.key, bucket.checksum, tuple(sorted(bucket.environment.extensions))

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        bucket.code = self._code.get(self._key(bucket))

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self._code[self._key(bucket)] = bucket.code


_TEMPLATES = _CompiledTemplates()


def on_env(env: jinja2.Environment, config: MkDocsConfig, files: Any) -> jinja2.Environment:
    env.bytecode_cache = _TEMPLATES
    return env


# ---- search entries, per page ---------------------------------------------------------------------

_SEARCH: dict[str, list[dict]] = {}


def _toc(items: Any) -> list:
    return [[item.id, item.url, item.title, _toc(item.children)] for item in items]


def search_key(page: Any) -> str:
    """Everything Material's index entry for a page is made of."""
    meta = {k: page.meta.get(k) for k in ("search", "tags", "title")}
    parts = [page.url, str(page.title), page.content, _toc(page.toc), meta]
    return hashlib.sha256(json.dumps(parts, default=str, ensure_ascii=False).encode()).hexdigest()


def _patch_search() -> None:
    """Material's SearchIndex.add_entry_from_context, reusing a page's entries when its key is
    unchanged (the entries are copied: i18n edits the index after the last language)."""
    try:
        from material.plugins.search.plugin import SearchIndex
    except ImportError:
        return
    original = SearchIndex.add_entry_from_context
    if getattr(original, "attn_cached", False):
        return

    def add_entry_from_context(self: Any, page: Any) -> None:
        if not _State.serving:
            return original(self, page)
        key = search_key(page)
        if key not in _SEARCH:
            start = len(self.entries)
            original(self, page)
            _SEARCH[key] = copy.deepcopy(self.entries[start:])
            _count("search indexed")
        else:
            self.entries.extend(copy.deepcopy(_SEARCH[key]))
            _count("search reused")

    add_entry_from_context.attn_cached = True  # type: ignore[attr-defined]
    SearchIndex.add_entry_from_context = add_entry_from_context


# ---- code blocks, per source ----------------------------------------------------------------------

_BLOCKS: dict[str, str] = {}


def block_key(code: str) -> str:
    """A block's source, the inputs' digest and the measurement it renders."""
    site = importlib.import_module(f"{PACKAGE}.site.build")
    m = site.current()
    parts = [
        code,
        _State.inputs,
        str(m.snapshot.root),
        m.stamp,
        m.live,
        sorted((k, v) for k, v in os.environ.items() if k.startswith("ATTN_EXAMPLES_")),
    ]
    return hashlib.sha256(repr(parts).encode()).hexdigest()


def _patch_code_blocks() -> None:
    """markdown-exec's Python runner, reusing a block's printed output. A block that raises is not
    kept (it is run again, and fails again, on every rebuild); sessions share state between blocks
    and are never reused."""
    try:
        from markdown_exec._internal.formatters import python as runner
    except ImportError:
        log.warning("attn-examples: markdown-exec's runner moved; code blocks are not reused while serving")
        return
    original = runner._run_python
    if getattr(original, "attn_cached", False):
        return

    def _run_python(
        code: str, returncode: int | None = None, session: str | None = None, id: str | None = None, **extra: str
    ) -> str:
        if session or not _State.serving:
            return original(code, returncode=returncode, session=session, id=id, **extra)
        key = block_key(code + repr(sorted(extra.items())))
        if key not in _BLOCKS:
            _BLOCKS[key] = original(code, returncode=returncode, session=session, id=id, **extra)
            _count("blocks run")
        else:
            _count("blocks reused")
        return _BLOCKS[key]

    _run_python.attn_cached = True  # type: ignore[attr-defined]
    runner._run_python = _run_python


# ---- pages' HTML, per page ------------------------------------------------------------------------

_PAGES: dict[str, dict[str, Any]] = {}


@mkdocs.plugins.event_priority(-1000)  # after i18n (-100) and the other hooks settled the files
def on_files(files: Any, config: MkDocsConfig) -> Any:
    """Where every file of this language pass lies: a link on a page resolves against it."""
    if _State.serving:
        where = sorted((f.src_uri, f.dest_uri, f.url, str(f.inclusion)) for f in files)
        _State.files = hashlib.sha256(repr(where).encode()).hexdigest()
    return files


def render_key(page: Any, config: MkDocsConfig) -> str:
    """Everything a page's conversion reads: its Markdown (after the templates), its place, the site's
    files, the inputs outside docs/ (snippets, the package, snapshots) and the configuration file."""
    stat = os.stat(config.config_file_path) if config.config_file_path else None
    parts = [
        page.markdown,
        page.file.src_uri,
        page.file.dest_uri,
        page.url,
        _State.files,
        _State.inputs,
        (stat.st_mtime_ns, stat.st_size) if stat else None,
    ]
    return hashlib.sha256(repr(parts).encode()).hexdigest()


class _Logged(logging.Handler):
    """Counts what is logged while a page is converted (at INFO and above)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.seen: set[int] = set()

    def emit(self, record: logging.LogRecord) -> None:
        self.seen.add(id(record))


def _patch_page_render() -> None:
    """MkDocs's Page.render (Markdown to HTML), reusing a page's result by :func:`render_key`."""
    from mkdocs.structure.pages import Page

    original = Page.render
    if getattr(original, "attn_cached", False):
        return

    def render(self: Any, config: MkDocsConfig, files: Any) -> None:
        if not _State.serving:
            return original(self, config, files)
        key = render_key(self, config)
        kept = _PAGES.get(key)
        if kept is not None:
            links = {files.get_file_from_path(uri): dict(anchors) for uri, anchors in kept["links"].items()}
            if None not in links:
                self.content, self.toc = kept["content"], copy.deepcopy(kept["toc"])
                self._title_from_render = kept["title"]
                self.present_anchor_ids = set(kept["anchors"])
                self.links_to_anchors = links if kept["has_links"] else self.links_to_anchors
                _count("pages reused")
                return
        _count("pages converted")
        logged = _Logged()
        loggers = [logging.getLogger(), logging.getLogger("mkdocs")]
        for logger in loggers:
            logger.addHandler(logged)
        try:
            original(self, config, files)
        finally:
            for logger in loggers:
                logger.removeHandler(logged)
        if not logged.seen:
            _PAGES[key] = {
                "content": self.content,
                "toc": copy.deepcopy(self.toc),
                "title": self._title_from_render,
                "anchors": set(self.present_anchor_ids or ()),
                "has_links": self.links_to_anchors is not None,
                "links": {f.src_uri: dict(a) for f, a in (self.links_to_anchors or {}).items()},
            }

    render.attn_cached = True  # type: ignore[attr-defined]
    # a deliberate patch of MkDocs's method, which mypy refuses as an assignment to a method
    Page.render = render  # type: ignore[method-assign]
