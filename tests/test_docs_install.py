"""The docs install (what `make serve` installs without a GPU) reads and builds without torch.

A real environment is made from uv.lock with the `docs` extra only, as the Makefile makes it, in a
temporary folder: torch must be absent from it, the site must build strictly from the committed
snapshot, and the CLI must read snapshots and refuse `measure` in one line. That needs uv (the
Makefile's .tools/bin/uv, ATTN_EXAMPLES_UV or one on PATH) and PyPI or a warm uv cache; without
them the tests skip, unless ATTN_EXAMPLES_REQUIRE_INSTALL=1 (CI) makes that a failure.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.install

DEFAULT_SNAPSHOT = REPO / "snapshots" / "nvidia-h200"


@dataclass
class DocsEnv:
    venv: Path
    env: dict[str, str]

    def run(self, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(a) for a in args], cwd=REPO, env=self.env, capture_output=True, text=True, timeout=timeout
        )


def _unavailable(reason: str) -> None:
    if os.environ.get("ATTN_EXAMPLES_REQUIRE_INSTALL") == "1":
        pytest.fail(f"{reason} (ATTN_EXAMPLES_REQUIRE_INSTALL=1)")
    pytest.skip(reason)


def _uv() -> str | None:
    for candidate in (os.environ.get("ATTN_EXAMPLES_UV"), str(REPO / ".tools" / "bin" / "uv"), shutil.which("uv")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def _pypi_answers() -> bool:
    """Checked first so that a machine without network goes straight to the cache, not to uv's retries."""
    try:
        socket.create_connection(("pypi.org", 443), timeout=5).close()
        return True
    except OSError:
        return False


@pytest.fixture(scope="module")
def docs_env(tmp_path_factory: pytest.TempPathFactory) -> DocsEnv:
    uv = _uv()
    if uv is None:
        _unavailable("no uv: run `make install` (it puts one in .tools/), or set ATTN_EXAMPLES_UV")
    venv = tmp_path_factory.mktemp("docs-install") / "venv"
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env.update(UV_PROJECT_ENVIRONMENT=str(venv), NO_MKDOCS_2_WARNING="1")
    made = subprocess.run(
        [uv, "venv", "--quiet", "--python", sys.executable, str(venv)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert made.returncode == 0, made.stderr
    sync = [uv, "sync", "--locked", "--quiet", "--extra", "docs"] + ([] if _pypi_answers() else ["--offline"])
    done = subprocess.run(sync, cwd=REPO, env=env, capture_output=True, text=True, timeout=900)
    if done.returncode != 0 and "--offline" in sync:
        _unavailable(f"PyPI does not answer and the uv cache lacks the docs install: {done.stderr.strip()[-300:]}")
    assert done.returncode == 0, done.stderr
    return DocsEnv(venv, env)


def test_the_docs_install_has_no_torch_and_this_checkout(docs_env: DocsEnv) -> None:
    torch = docs_env.run(docs_env.venv / "bin" / "python", "-c", "import torch")
    assert torch.returncode != 0 and "No module named 'torch'" in torch.stderr, torch.stdout + torch.stderr
    where = docs_env.run(docs_env.venv / "bin" / "python", "-c", "import attn_examples; print(attn_examples.__file__)")
    assert Path(where.stdout.strip()).parent == REPO / "attn_examples", where.stdout + where.stderr


def test_the_docs_install_builds_the_site_strictly(docs_env: DocsEnv, tmp_path: Path) -> None:
    """Built as `make build` does, from the committed snapshot; the overview's summary table carries
    that snapshot's values in both languages."""
    from attn_examples.render import views
    from attn_examples.snapshot.schema import load_snapshot

    env = dict(docs_env.env, ATTN_EXAMPLES_MEASURE="snapshot", MKDOCS_JUPYTER_CACHE_DIR=str(tmp_path / "nbcache"))
    env.pop("ATTN_EXAMPLES_SNAPSHOT", None)
    done = subprocess.run(
        [str(docs_env.venv / "bin" / "mkdocs"), "build", "--strict", "-d", str(tmp_path / "site")],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    rows = [r for r in views.summary_rows(load_snapshot(DEFAULT_SNAPSHOT)) if r["available"]]
    assert rows
    for prefix in ("", "zh-TW/"):
        page = tmp_path / "site" / prefix / "index.html"
        assert page.is_file(), page
        html = page.read_text(encoding="utf-8")
        table = html[html.index('<div class="attn-table"') :]
        for row in rows:
            assert f'<td class="num">{row["kernels"]}</td>' in table, (prefix, row["id"])
            assert f"{row['device_us']:,.0f} µs" in table or f"{row['device_us']:,.1f} µs" in table, (prefix, row["id"])


def test_the_docs_install_reads_snapshots_and_refuses_measure_in_one_line(docs_env: DocsEnv, tmp_path: Path) -> None:
    cli = docs_env.venv / "bin" / "attn-examples"
    for args in (
        ["show", DEFAULT_SNAPSHOT],
        ["diff", DEFAULT_SNAPSHOT, REPO / "snapshots" / "cpu"],
        ["check", DEFAULT_SNAPSHOT],
    ):
        done = docs_env.run(cli, *args)
        assert done.returncode == 0, (args, done.stdout[-2000:], done.stderr[-2000:])
    done = docs_env.run(cli, "measure", "--device", "cpu", "-o", tmp_path / "snap")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "measure` extra" in done.stderr and "Traceback" not in done.stderr, (
        done.stderr
    )
    assert not (tmp_path / "snap").exists()
