"""A real measurement on the CPU: every variant recorded, unavailable ones with PyTorch's reason."""

import gzip
import json

import pytest

from attn_examples.render import views
from attn_examples.snapshot.schema import load_snapshot
from attn_examples.snapshot.variants import VARIANTS

pytestmark = pytest.mark.measure


def test_every_variant_is_recorded(cpu_snapshot_dir):
    snap = load_snapshot(cpu_snapshot_dir)
    assert list(snap.variants) == [v.id for v in VARIANTS.values() if v.in_article]
    assert snap.device_slug == "cpu" and snap.provenance.device_kind == "cpu"
    assert snap.provenance.command == "pytest"


def test_cuda_only_backends_are_data_not_crashes(cpu_snapshot_dir):
    snap = load_snapshot(cpu_snapshot_dir)
    for variant_id in ("sdpa_efficient", "sdpa_cudnn"):
        result = snap.variants[variant_id]
        assert not result.available and result.profile is None and result.timing is None
        assert "No viable backend" in result.unavailable_reason  # PyTorch's own words
        assert "no CPU implementation" in result.unavailable_reason


def test_compiled_variants_are_recorded_as_cuda_only_on_the_cpu(small_config):
    from attn_examples.measure.run import measure

    data, traces = measure(small_config, "cpu", ["flex", "naive_compiled"], progress=False, argv=["pytest"])
    for variant_id in ("flex", "naive_compiled"):
        result = data["variants"][variant_id]
        assert not result["available"] and "CUDA only" in result["unavailable_reason"]
    assert traces == {}


def test_cpu_variants_are_profiled_timed_and_accurate(cpu_snapshot_dir):
    snap = load_snapshot(cpu_snapshot_dir)
    for variant_id in ("naive", "naive_inplace", "sdpa_math", "sdpa_flash"):
        result = snap.variants[variant_id]
        assert result.available and result.profile.consistent
        assert len(result.profile.steps) == snap.config.profile_active
        assert result.profile.steps[0].cpu_ops, "the CPU has no kernel events, but aten ops are recorded"
        assert result.timing.device_us.median > 0 and result.timing.device_us.n >= 1
        assert result.timing.rel_error < 2e-2  # bf16 inputs against a float64 reference
        with gzip.open(snap.trace_path(variant_id), "rt") as fh:
            assert "traceEvents" in json.load(fh)


def test_the_hidden_copy_of_masked_fill_shows_on_the_cpu_too(cpu_snapshot_dir):
    snap = load_snapshot(cpu_snapshot_dir)
    ops = {
        v: {op["name"]: op["count"] for op in views.cpu_op_rows(snap.variants[v])} for v in ("naive", "naive_inplace")
    }
    assert ops["naive"].get("aten::clone", 0) == ops["naive_inplace"].get("aten::clone", 0) + 1


def test_auto_dispatch_is_recorded_with_evidence(cpu_snapshot_dir):
    snap = load_snapshot(cpu_snapshot_dir)
    assert snap.dispatch.auto_backend in {"FLASH_ATTENTION", "MATH"}
    assert snap.dispatch.evidence.startswith("aten::_scaled_dot_product")
