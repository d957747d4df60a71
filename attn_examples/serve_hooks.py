"""MkDocs hooks that keep `mkdocs serve` from serving a stale page (loaded by path from mkdocs.yml;
configuration glue: no torch, only modules MkDocs has loaded).

`mkdocs serve` rebuilds the whole site, both languages, in one long-running process after every
edit, and MkDocs watches only `docs/` and `mkdocs.yml`.

What the pages are computed from lies outside `docs/`: the package `attn_examples/` (its code and
`claims.d/`), `snippets/`, `snapshots/` (and the folder ATTN_EXAMPLES_SNAPSHOT names). mkdocs.yml's
`watch:` makes a change there start a rebuild; :func:`on_pre_build` then compares their files
(path, size, modification time) with the previous rebuild's:

- any change: the build's measurement forgets what it derived (`site.refresh`: the snapshot is read
  again, every claim checked again);
- an edited module of the package: the package is imported afresh (its modules are dropped from
  `sys.modules`; a live measurement is carried over, never taken twice). The hook files themselves
  (`*_hooks.py`) are loaded once by MkDocs: editing one asks for a restart.
"""

from __future__ import annotations

import hashlib
import importlib
import logging
import os
import sys
from pathlib import Path
from typing import Any, Callable

import mkdocs.plugins
from mkdocs.config.defaults import MkDocsConfig

log = logging.getLogger("mkdocs.plugins.attn_examples.serve")

PACKAGE = "attn_examples"
ROOT = Path(__file__).resolve().parent.parent
WATCHED = (ROOT / PACKAGE, ROOT / "snippets", ROOT / "snapshots")
SNAPSHOT_ENV = "ATTN_EXAMPLES_SNAPSHOT"

Signature = tuple[tuple[str, int, int], ...]


class _State:
    serving: bool = False
    code: Signature | None = None       # the package's modules, hook files excluded
    hooks: Signature | None = None      # the hook files MkDocs loaded (read once per process)
    inputs: str = ""                    # digest of every watched file


def _files(root: Path) -> list[tuple[str, int, int]]:
    """(path, mtime_ns, size) of every file under `root`, bytecode and hidden folders left out."""
    found = []
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = sorted(d for d in subfolders if d != "__pycache__" and not d.startswith("."))
        for name in sorted(names):
            path = os.path.join(folder, name)
            try:
                stat = os.stat(path)
            except FileNotFoundError:   # removed while we looked: the watcher rebuilds again
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
    measurement over (it is taken once per process)."""
    site = sys.modules.get(f"{PACKAGE}.site")
    live = getattr(site, "_current", None)
    live = live if live is not None and live.live else None
    for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]:
        del sys.modules[name]
    importlib.invalidate_caches()
    if live is not None:
        importlib.import_module(f"{PACKAGE}.site").adopt_live(live.snapshot.root, live.stamp)


def on_startup(command: str, dirty: bool) -> None:
    _State.serving = command == "serve"
    if _State.serving:
        sys.dont_write_bytecode = True   # a .pyc written under attn_examples/ would start another rebuild


def on_serve(server: Any, config: MkDocsConfig, builder: Callable) -> Any:
    """A snapshot folder named outside snapshots/ is watched too (mkdocs.yml watches the rest)."""
    for root in input_roots():
        if root not in WATCHED and root.is_dir():
            server.watch(str(root))
    return server


def _first_pass(config: MkDocsConfig) -> bool:
    i18n = config.plugins.get("i18n")
    return i18n is None or not i18n.building


@mkdocs.plugins.event_priority(1000)   # before measurement_hooks takes the measurement (100)
def on_pre_build(config: MkDocsConfig) -> None:
    """Compare the inputs with the previous rebuild's; forget whatever a change makes stale."""
    if not _State.serving or not _first_pass(config):
        return
    code, hooks, digest = signatures()
    if _State.code is None:   # the first build: what this process loaded
        _State.code, _State.hooks, _State.inputs = code, hooks, digest
        return
    if hooks != _State.hooks:   # kept as loaded: every rebuild fails (strict) until a restart
        changed = sorted({p for p, *_ in set(hooks) ^ set(_State.hooks or ())})
        log.warning("attn-examples: %s changed since `mkdocs serve` started; MkDocs reads hook files once: "
                    "restart it", ", ".join(os.path.relpath(p, ROOT) for p in changed))
    if code != _State.code:
        log.info("attn-examples: the package changed; importing it afresh")
        reimport_package()
    if digest != _State.inputs:
        importlib.import_module(f"{PACKAGE}.site").refresh()
    _State.code, _State.inputs = code, digest
