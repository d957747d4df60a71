"""MkDocs hooks that publish a site only when its build passes (loaded by path from mkdocs.yml).

`mkdocs build` writes pages as it goes, and `--strict` fails only at the end: a failed build would
leave half a site in the output folder (pages with errors in them), and whatever uploads that
folder would publish it. Here `mkdocs build` writes into a fresh folder beside the output folder,
and only a build that ends without an error, strict warnings included, replaces the output folder
with it, in two renames. A failed build leaves the output folder as it was and removes its own.

`mkdocs serve` (which builds into a temporary folder of its own), `gh-deploy` and `--dirty` builds
are left alone. Configuration glue only: no torch, and only modules MkDocs has loaded already.
"""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path

import mkdocs.plugins
from mkdocs.config.defaults import MkDocsConfig

log = logging.getLogger("mkdocs.plugins.attn_examples.publish")


class _State:
    command: str | None = None
    dirty: bool = False
    target: Path | None = None  # where the site belongs
    staging: Path | None = None  # where this build writes it
    failed: bool = False  # a build error, the strict check's among them (on_build_error)
    depth: int = 0  # builds under way: i18n runs each language's inside the first's
    completed: bool = False  # the outermost build reached its end


def _staging_for(target: Path) -> Path:
    return target.parent / f".{target.name}.building-{os.getpid()}"


def _remove_stale(target: Path) -> None:
    """Folders left by builds that were killed (their process is gone)."""
    for folder in target.parent.glob(f".{target.name}.building-*"):
        pid = folder.name.rsplit("-", 1)[-1]
        if pid.isdigit() and int(pid) != os.getpid() and not Path(f"/proc/{pid}").exists():
            shutil.rmtree(folder, ignore_errors=True)


def on_startup(command: str, dirty: bool) -> None:
    _State.command, _State.dirty = command, dirty
    _State.target = _State.staging = None
    _State.failed = _State.completed = False
    _State.depth = 0


@mkdocs.plugins.event_priority(1000)  # before every plugin that reads site_dir (i18n's runs at -100)
def on_config(config: MkDocsConfig) -> MkDocsConfig:
    if _State.command != "build" or _State.dirty:
        return config
    if _State.target is None:  # the first of i18n's passes; the others reuse the config
        _State.target = Path(config.site_dir).resolve()
        _State.staging = _staging_for(_State.target)
        _remove_stale(_State.target)
        shutil.rmtree(_State.staging, ignore_errors=True)
    config.site_dir = str(_State.staging)
    return config


def on_pre_build(config: MkDocsConfig) -> None:
    _State.depth += 1


@mkdocs.plugins.event_priority(-1000)  # after i18n's on_post_build (-100), which runs the other languages
def on_post_build(config: MkDocsConfig) -> None:
    _State.depth -= 1
    _State.completed = _State.depth == 0


def on_build_error(error: Exception) -> None:
    """Called for every exception in a build, the strict mode's final abort included."""
    _State.failed = True


def on_shutdown() -> None:
    """Swap the finished site in, or throw the attempt away (an error, an interrupted build)."""
    target, staging = _State.target, _State.staging
    if target is None or staging is None:
        return
    if _State.failed or not _State.completed or not staging.is_dir():
        shutil.rmtree(staging, ignore_errors=True)
        log.error(f"attn-examples: the build failed; {target} is left as it was")
        return
    old = target.parent / f".{target.name}.old-{os.getpid()}"
    if target.exists():
        target.rename(old)
    staging.rename(target)
    shutil.rmtree(old, ignore_errors=True)
