"""Shared fixtures. GPU tests carry `@pytest.mark.gpu` and are skipped when torch sees no CUDA."""

from __future__ import annotations

import importlib.util
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
