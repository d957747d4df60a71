"""Shared fixtures. GPU tests carry `@pytest.mark.gpu` and are skipped when torch sees no CUDA."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _cuda_available() -> bool:
    if importlib.util.find_spec("torch") is None:
        return False
    import torch

    return torch.cuda.is_available()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if _cuda_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU (run on the GPU builder)")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def small_config():
    from attn_examples.config import AttnConfig

    return AttnConfig(batch=1, heads=2, seq_len=128, head_dim=64, timing_repeats=5, cpu_min_run_time_s=0.05)


@pytest.fixture(scope="session")
def cpu_snapshot_dir(tmp_path_factory: pytest.TempPathFactory, small_config) -> Path:
    """One real CPU measurement, written with the project's own writer, shared by the tests."""
    from attn_examples.measure import measure
    from attn_examples.snapshot import write_snapshot

    data, traces = measure(small_config, "cpu", progress=False, argv=["pytest"])
    out = tmp_path_factory.mktemp("snap") / "cpu"
    write_snapshot(data, traces, out)
    return out


@dataclass
class Built:
    site: Path
    cache: Path
    log: str


# The build runs with torch made unimportable: a snapshot build must never import it.
_BUILD = """
import sys, runpy
sys.modules["torch"] = None
sys.argv = ["mkdocs", "build", "--strict", "-d", sys.argv[1]]
runpy.run_module("mkdocs", run_name="__main__")
"""


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """One strict snapshot build of the whole site, shared by every site test."""
    tmp = tmp_path_factory.mktemp("site-build")
    site, cache = tmp / "site", tmp / "nbcache"
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", MKDOCS_JUPYTER_CACHE_DIR=str(cache),
               ATTN_EXAMPLES_MEASURE="snapshot")
    env.pop("ATTN_EXAMPLES_SNAPSHOT", None)
    proc = subprocess.run([sys.executable, "-c", _BUILD, str(site)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=600)
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log
    return Built(site, cache, log)
