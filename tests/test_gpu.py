"""On a CUDA GPU: the full default measurement, and a refused backend recorded as data.

Skipped without CUDA (see conftest); run on the GPU builder by scripts/gpu-builder.sh.
"""

import gzip
import json

import pytest

from attn_examples.render import views
from attn_examples.snapshot.config import AttnConfig
from attn_examples.snapshot.schema import load_snapshot, write_snapshot
from attn_examples.snapshot.variants import VARIANTS

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def gpu_snapshot(tmp_path_factory):
    from attn_examples.measure.run import measure

    data, traces = measure(AttnConfig(timing_repeats=20), "cuda", progress=False, argv=["pytest"])
    out = tmp_path_factory.mktemp("gpu") / data["device_slug"]
    write_snapshot(data, traces, out)
    return load_snapshot(out)


def test_provenance_describes_the_gpu(gpu_snapshot):
    p = gpu_snapshot.provenance
    assert p.device_kind == "cuda" and p.compute_capability and p.sm_count > 0
    assert p.cuda and p.torch and gpu_snapshot.device_slug != "cpu"


def test_a_plain_measurement_records_the_ceilings_and_every_variant_a_regime(gpu_snapshot):
    """The roofs every regime is read against come with every CUDA measurement, not only --extended; each
    variant then has a regime (launch-bound exactly where its host time exceeds its device time), never none."""
    from attn_examples.render import regime

    c = gpu_snapshot.ceilings
    assert c is not None and c.bf16_matmul_tflops > c.fp32_matmul_tflops > 0 and c.copy_gbps > 0
    assert gpu_snapshot.sweep is None and gpu_snapshot.training is None  # still --extended's alone
    for variant_id, result in gpu_snapshot.variants.items():
        if result.available:
            found = regime.classify(gpu_snapshot, variant_id)
            assert found is not None and found.kind in regime.KINDS, variant_id
            host_over_device = result.timing.host_us.median / result.timing.device_us.median
            assert (found.kind == "launch") == (host_over_device > 1.0), variant_id


def test_every_variant_has_a_kernel_table(gpu_snapshot):
    assert set(gpu_snapshot.variants) == {v.id for v in VARIANTS.values() if v.in_article}
    for variant_id, result in gpu_snapshot.variants.items():
        if not result.available:
            assert result.unavailable_reason
            continue
        rows = views.kernel_rows(result)
        kernels = [r for r in rows if r["kind"] == "kernel"]
        assert kernels, f"{variant_id}: no kernels recorded"
        for row in kernels:
            assert row["registers_per_thread"] and row["grid"] and row["block"], row
            assert row["launch_api"], row
            assert row["dur_us"] > 0
        assert result.profile.consistent, result.profile.inconsistency
        t = result.timing
        assert t.device_us.median > 0 and t.host_us.median > 0 and t.peak_memory_bytes > 0
        assert t.rel_error < 2e-2
        with gzip.open(gpu_snapshot.trace_path(variant_id), "rt") as fh:
            assert any(e.get("cat") == "kernel" for e in json.load(fh)["traceEvents"])


def test_auto_dispatch_is_one_of_the_fused_backends(gpu_snapshot):
    assert gpu_snapshot.dispatch.auto_backend in {"FLASH_ATTENTION", "CUDNN_ATTENTION", "EFFICIENT_ATTENTION"}


def test_a_refused_backend_on_cuda_is_recorded_with_pytorchs_reason():
    from attn_examples.measure.run import measure

    config = AttnConfig(batch=1, heads=2, seq_len=128, dtype="float32", timing_repeats=3)
    data, traces = measure(config, "cuda", ["sdpa_flash"], progress=False, argv=["pytest"])
    result = data["variants"]["sdpa_flash"]
    assert not result["available"] and "sdpa_flash" not in traces
    assert "RuntimeError" in result["unavailable_reason"]
    assert "float" in result["unavailable_reason"].lower() or "dtype" in result["unavailable_reason"].lower()


def test_extended_measurement_pieces_on_cuda():
    """A sweep point, a skipped shape, a training point and the in-place autograd capture."""
    from attn_examples.measure import extended
    from attn_examples.snapshot.variants import VARIANTS

    small = AttnConfig(batch=1, heads=2, seq_len=256, head_dim=128)
    point = extended.sweep_point(VARIANTS["sdpa_flash"], small, max_calls=12)
    assert 6 <= len(point["device_us_blocks"]) <= 12
    assert point["available"] and point["kernels"] >= 1 and point["tflops"] > 0 and point["main_smem_bytes"]
    huge = AttnConfig(batch=64, heads=64, seq_len=65536, head_dim=64)
    skipped = extended.sweep_point(VARIANTS["naive"], huge)
    assert not skipped["available"] and "GiB" in skipped["reason"]
    train = extended._training_point(VARIANTS["sdpa_flash"], small, max_calls=12)
    assert train["available"] and train["kernels"] > 1
    captured = extended.inplace_autograd(small)
    assert captured["raised"] or captured["max_abs_grad_diff"] is not None


def test_ceilings_are_measured_and_ordered():
    from attn_examples.measure import extended

    c = extended.ceilings(copy_bytes=2**28)
    assert c["bf16_matmul_tflops"] > c["fp32_matmul_tflops"] > 0 and c["copy_gbps"] > 100


def test_counters_pass_reads_one_fused_kernel(tmp_path):
    """ncu over flash at a small shape: one kernel, q+k+v read from HBM, the launch as ncu saw it.
    Skipped (not faked) when this GPU builder has no ncu."""
    from attn_examples.measure import counters
    from attn_examples.measure.run import measure
    from attn_examples.render import hardware

    if counters.ncu_path() is None:
        pytest.skip("ncu (Nsight Compute) is not installed on this GPU builder")
    config = AttnConfig(batch=4, heads=8, seq_len=1024, head_dim=64, timing_repeats=5)
    data, traces = measure(config, "cuda", ["sdpa_flash"], progress=False, argv=["pytest"])
    write_snapshot(data, traces, tmp_path / "snap")
    _, section = counters.add_to_snapshot(load_snapshot(tmp_path / "snap"), ["sdpa_flash"], log_dir=tmp_path / "log")
    assert section["available"], section["reason"]
    snap = load_snapshot(tmp_path / "snap")
    totals = hardware.variant_totals(snap, "sdpa_flash")
    assert totals["kernels"] == 1 and totals["matched_kineto"]
    assert 0.9 < totals["dram_read_per_qkv"] < 1.5
    assert totals["main_registers"] and totals["main_theoretical_occupancy_pct"] > 0
    assert 0 < totals["main_achieved_occupancy_pct"] <= totals["main_theoretical_occupancy_pct"] + 1


def test_the_measurement_key_is_stable_and_needs_no_torch_import():
    """The key a warm `mkdocs serve` looks its measurement up by: the same twice, and computed without
    importing torch where cuDNN is a pip package (else it asks torch, and says so)."""
    import subprocess
    import sys

    from attn_examples.site import live_cache

    probe = (
        "import sys; from attn_examples.site import live_cache; "
        "k = live_cache.current_key('{}', 'full'); print(k.digest(), k.cudnn, 'torch' in sys.modules)"
    )
    runs = [
        subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.split()
        for _ in range(2)
    ]
    assert runs[0][0] == runs[1][0]
    if not runs[0][1].startswith("nvidia-cudnn"):
        pytest.skip(f"cuDNN is not a pip package here ({runs[0][1]}): the key asks torch for its version")
    assert runs[0][-1] == "False", "computing the key imported torch"
    assert live_cache.current_key("{}", "full") != live_cache.current_key("{}", "core")


def test_nvidias_ncu_report_reads_the_report_as_the_csv_does(tmp_path):
    """The counters' report read two ways: ncu's CSV import (what the snapshot holds) and NVIDIA's
    `ncu_report` module. Same kernels, names, launch dimensions and values: the CSV prints a value
    with two decimals (0.31 where the report holds 0.3067, seen on the H200), so they agree within
    half a hundredth, or a thousandth of a large count. Skipped (not faked) where the GPU builder's
    Nsight Compute has no ncu_report."""
    import math

    from attn_examples.measure import counters
    from attn_examples.render import hardware

    ncu = counters.ncu_path()
    if ncu is None or counters.ncu_report_folder(ncu) is None:  # never imported here: this process has torch
        pytest.skip("no ncu, or its ncu_report module, on this GPU builder")
    ids = ["naive", "sdpa_flash"]
    config = AttnConfig(batch=2, heads=4, seq_len=512, head_dim=64).to_dict()
    section, _ = counters.collect(config, ids, log_dir=tmp_path)
    assert section["available"], section["reason"]
    metrics = [m for m in counters.METRICS if m not in section["missing_metrics"]]
    theirs = counters.read_in_child(ncu, str(tmp_path / "counters.ncu-rep"), ids, metrics)
    for variant_id in ids:
        ours = section["variants"][variant_id]
        # ncu's CSV prints a shortened demangling (no `native::`, no `(int)` casts): base names agree
        assert [hardware.base_name(k["name"]) for k in theirs[variant_id]] == [
            hardware.base_name(k["name"]) for k in ours
        ]
        assert [(k["block"], k["grid"]) for k in theirs[variant_id]] == [(k["block"], k["grid"]) for k in ours]
        for mine, nvidia in zip(ours, theirs[variant_id]):
            for name in metrics:
                a, b = mine["metrics"][name], nvidia["metrics"][name]
                assert (a is None) == (b is None) and (a is None or math.isclose(a, b, rel_tol=1e-3, abs_tol=0.005)), (
                    variant_id,
                    mine["name"][:40],
                    name,
                    a,
                    b,
                )


def test_the_counters_pass_keeps_its_report_and_ncu_report_opens_the_published_one(tmp_path):
    """Two variants at a small shape, measured, then counted as `attn-examples counters` does: the
    section is read by ncu_report where it is installed (the CSV otherwise), the snapshot keeps ncu's
    report, small (`--import-sass no`), and the plain .ncu-rep the site publishes loads in ncu_report
    with kernels in each variant's NVTX range. Skipped (not faked) without ncu."""
    from attn_examples.measure import counters
    from attn_examples.measure.run import measure
    from attn_examples.render import blocks as render
    from attn_examples.snapshot.schema import load_report

    ncu = counters.ncu_path()
    if ncu is None:
        pytest.skip("ncu (Nsight Compute) is not installed on this GPU builder")
    ids = ["naive", "sdpa_flash"]
    config = AttnConfig(batch=1, heads=4, seq_len=512, head_dim=64, timing_repeats=5)
    data, traces = measure(config, "cuda", ids, progress=False, argv=["pytest"])
    write_snapshot(data, traces, tmp_path / "snap")
    _, section = counters.add_to_snapshot(load_snapshot(tmp_path / "snap"), ids)
    assert section["available"], section["reason"]
    installed = counters.ncu_report_folder(ncu) is not None  # never imported here: this process has torch
    assert section["reader"] == ("ncu_report" if installed else "csv"), section["reader_fallback"]
    snap = load_snapshot(tmp_path / "snap")
    payload = load_report(snap)
    assert payload is not None and 0 < len(payload) < 4 * 2**20, None if payload is None else len(payload)
    # where and what the build publishes (measurement_hooks._publish_report; its CPU test checks the hook)
    published = tmp_path / "site" / render.published_report(snap)
    published.parent.mkdir(parents=True)
    published.write_bytes(payload)
    if not installed:
        pytest.skip("ncu_report is not installed beside this ncu: the published report was not opened")
    opened = counters.read_in_child(ncu, str(published), ids, ["gpu__time_duration.sum"])
    for variant_id in ids:
        assert opened[variant_id], f"no kernel in the NVTX range {variant_id}"
        assert all(k["metrics"]["gpu__time_duration.sum"] > 0 for k in opened[variant_id])
        assert [k["name"] for k in opened[variant_id]] == [k.name for k in snap.counters.variants[variant_id]]
