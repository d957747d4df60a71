"""A failed build leaves the output folder as it was (attn_examples/site/publish_hooks.py).

The failure is the one that used to publish tracebacks: a code block that raises renders its error
into the page, MkDocs writes every page, and only then does `--strict` abort. The build runs from a
copy of the docs with one such block added, through a copy of mkdocs.yml whose paths point back
into the repository.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _config(tmp: Path, docs: Path, with_publish_hook: bool = True) -> Path:
    text = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    text = text.replace("docs_dir: docs", f"docs_dir: {docs}")
    text = re.sub(
        r"^  - attn_examples/(\S+\.py)$", lambda m: f"  - {REPO / 'attn_examples' / m.group(1)}", text, flags=re.M
    )
    text = re.sub(
        r"^  - (attn_examples|snippets|snapshots)$", lambda m: f"  - {REPO / m.group(1)}", text, flags=re.M
    )  # watched by `mkdocs serve`; MkDocs checks that they exist
    if not with_publish_hook:
        text = text.replace(f"  - {REPO / 'attn_examples' / 'site' / 'publish_hooks.py'}\n", "")
    text = text.replace("base_path: [snippets]", f"base_path: [{REPO / 'snippets'}]")
    path = tmp / "mkdocs.yml"
    path.write_text(text, encoding="utf-8")
    return path


def _broken_docs(tmp: Path) -> Path:
    docs = tmp / "docs"
    shutil.copytree(REPO / "docs", docs)
    about = docs / "en" / "about.md"
    about.write_text(
        about.read_text(encoding="utf-8")
        + '\n\n```python exec="1"\nraise RuntimeError("injected into the page")\n```\n',
        encoding="utf-8",
    )
    return docs


def _build(config: Path, site: Path, tmp: Path) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "ATTN_EXAMPLES_MEASURE": "snapshot",
        "NO_MKDOCS_2_WARNING": "1",
        "MKDOCS_JUPYTER_CACHE_DIR": str(tmp / "nbcache"),
    }
    env.pop("ATTN_EXAMPLES_SNAPSHOT", None)
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=REPO,
        env=env,
    )


def test_a_failed_strict_build_leaves_the_output_folder_as_it_was(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "published.html").write_text("the site that was there")
    done = _build(_config(tmp_path, _broken_docs(tmp_path)), site, tmp_path)
    assert done.returncode != 0, done.stderr[-3000:]
    assert "injected into the page" in done.stderr
    assert sorted(p.name for p in site.iterdir()) == ["published.html"], sorted(p.name for p in site.iterdir())
    assert not list(tmp_path.glob(".site.*")), "the build's own folder was left behind"
    assert "is left as it was" in done.stderr
