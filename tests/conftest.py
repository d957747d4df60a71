"""Shared fixtures. GPU tests carry `@pytest.mark.gpu` and are skipped when torch sees no CUDA.

Tests that measure (they need torch, the `measure` extra) carry `@pytest.mark.measure`, or use the
`cpu_snapshot_dir` fixture, which marks them: a docs-only install runs the rest and skips these.
CI sets ATTN_EXAMPLES_REQUIRE_TORCH=1, so there a missing torch is an error, not a quiet skip.
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


HAS_TORCH = importlib.util.find_spec("torch") is not None


def _cuda_available() -> bool:
    if not HAS_TORCH:
        return False
    import torch

    return torch.cuda.is_available()


def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get("ATTN_EXAMPLES_REQUIRE_TORCH") == "1" and not HAS_TORCH:
        raise pytest.UsageError(
            "ATTN_EXAMPLES_REQUIRE_TORCH=1 but torch is not importable: install the `measure` extra (`make test` does)"
        )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if "cpu_snapshot_dir" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.measure)
    if not HAS_TORCH:
        skip = pytest.mark.skip(reason="needs torch: install the `measure` extra")
        for item in items:
            if "measure" in item.keywords:
                item.add_marker(skip)
    if _cuda_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU (run on the GPU builder)")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def small_config():
    from attn_examples.snapshot.config import AttnConfig

    return AttnConfig(batch=1, heads=2, seq_len=128, head_dim=64, timing_repeats=5, cpu_min_run_time_s=0.05)


@pytest.fixture(scope="session")
def cpu_snapshot_dir(tmp_path_factory: pytest.TempPathFactory, small_config) -> Path:
    """One real CPU measurement, written with the project's own writer, shared by the tests."""
    from attn_examples.measure.run import measure
    from attn_examples.snapshot.schema import write_snapshot

    data, traces = measure(small_config, "cpu", progress=False, argv=["pytest"])
    out = tmp_path_factory.mktemp("snap") / "cpu"
    write_snapshot(data, traces, out)
    return out


@dataclass
class Built:
    site: Path
    cache: Path
    log: str


@dataclass
class Sites:
    """The top site and one site per committed snapshot, built once per test session."""

    root: Path
    cache: Path
    builds: dict[str, object]  # folder name ("" for the top site) -> attn_examples.site.sites.Build

    def site(self, name: str) -> Path:
        return self.root if name == "" else self.root / "snapshots" / name


@pytest.fixture(scope="session")
def sites(tmp_path_factory: pytest.TempPathFactory) -> Sites:
    """Every site strictly built from its snapshot, as publishing does (`python -m attn_examples.site.sites`):
    the top one from the default snapshot, then one per committed snapshot. Snapshot builds run with
    torch made unimportable."""
    from attn_examples.site import sites as site_builder

    tmp = tmp_path_factory.mktemp("sites")
    os.environ.pop("ATTN_EXAMPLES_SNAPSHOT", None)
    env_before = os.environ.get("ATTN_EXAMPLES_MEASURE")
    os.environ["ATTN_EXAMPLES_MEASURE"] = "snapshot"
    try:
        results = site_builder.build_all(tmp / "site", jobs=2, progress=lambda _: None, cache_root=tmp / "nbcache")
    finally:
        if env_before is None:
            os.environ.pop("ATTN_EXAMPLES_MEASURE", None)
        else:
            os.environ["ATTN_EXAMPLES_MEASURE"] = env_before
    failed = [r for r in results if not r.ok]
    assert not failed, "\n\n".join(f"--- {r.name or 'top'}:\n{r.log[-3000:]}" for r in failed)
    return Sites(tmp / "site", tmp / "nbcache", {r.name: r for r in results})


@pytest.fixture(scope="session")
def built(sites: Sites) -> Built:
    """The top site (from the default committed snapshot), shared by the site tests."""
    top = sites.builds[""]
    return Built(sites.root, sites.cache / "top", top.log)
