"""The Nsight Compute pass without a GPU: parsing ncu's CSV, and an honest 'unavailable'."""

from __future__ import annotations

import shutil

from attn_examples import counters
from attn_examples.cli import main
from attn_examples.snapshot import load_snapshot
from tests.conftest import REPO

FIXTURE = REPO / "tests" / "data" / "ncu-details.csv"


def test_ncu_details_csv_becomes_one_record_per_kernel():
    kernels = counters.parse_csv(FIXTURE.read_text())
    assert [k["name"][:26] for k in kernels] == ["void pytorch_flash::flash_", "Memset"]
    flash = kernels[0]
    assert flash["metrics"]["dram__bytes_read.sum"] == 1234567.0      # thousands separators removed
    assert flash["units"]["dram__bytes_read.sum"] == "byte"
    assert flash["block"] == "(128, 1, 1)" and flash["grid"] == "(8, 8, 16)"


def test_output_without_a_csv_is_an_error_that_keeps_ncus_words():
    try:
        counters.parse_csv("==ERROR== ERR_NVGPUCTRPERM - no permission\n")
    except counters.CountersError as exc:
        assert "ERR_NVGPUCTRPERM" in str(exc)
    else:
        raise AssertionError("parse_csv accepted output without a CSV")


def test_the_command_leaves_clocks_alone_flushes_caches_and_isolates_one_variant():
    cmd = counters.command("ncu", "snap", "sdpa_flash", ["dram__bytes_read.sum"], "python")
    assert cmd[cmd.index("--clock-control") + 1] == "none"
    assert cmd[cmd.index("--cache-control") + 1] == "all"
    assert cmd[cmd.index("--nvtx-include") + 1] == "sdpa_flash/"
    assert cmd[-5:] == ["python", "-m", "attn_examples.counters_driver", "snap", "sdpa_flash"]
    assert cmd[cmd.index("--metrics") + 1] == "dram__bytes_read.sum"


QUERY = """Device NVIDIA A100-SXM4-80GB (GA100)
----------------------------------------------------------------------------------------------
Metric Name                                   Metric Description
dram__bytes_read                              # of bytes read from DRAM
sm__pipe_tensor_op_hmma_cycles_active         # of cycles where HMMA tensor pipe was active
launch__registers_per_thread                  # of registers allocated per thread
"""


def test_metrics_a_gpu_does_not_offer_are_left_out_and_named():
    offered = counters.parse_query(QUERY)
    assert offered == {"dram__bytes_read", "sm__pipe_tensor_op_hmma_cycles_active", "launch__registers_per_thread"}
    wanted, missing = counters.split_metrics(offered)
    assert wanted == ["dram__bytes_read.sum", "launch__registers_per_thread",
                      "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"]
    assert "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active" in missing
    assert set(wanted) | set(missing) == set(counters.METRICS)


def test_when_ncu_will_not_list_its_metrics_every_metric_is_asked_for():
    assert counters.split_metrics(None) == (list(counters.METRICS), [])


def test_a_run_that_profiled_nothing_is_an_error():
    header = FIXTURE.read_text().splitlines()[3]
    try:
        counters.parse_csv("==PROF== Connected\n" + header + "\n==WARNING== No kernels were profiled.\n")
    except counters.CountersError as exc:
        assert "No kernels were profiled" in str(exc)
    else:
        raise AssertionError("parse_csv accepted a run without kernels")


def test_without_ncu_the_section_says_why(monkeypatch):
    monkeypatch.setattr(counters, "ncu_path", lambda: None)
    section = counters.collect("snap", ["sdpa_flash"])
    assert section["available"] is False and "not on this machine" in section["reason"]


def test_counters_command_on_a_cpu_snapshot_records_the_reason(tmp_path):
    shutil.copytree(REPO / "snapshots" / "cpu", tmp_path / "snap")
    assert main(["counters", str(tmp_path / "snap")]) == 0
    snap = load_snapshot(tmp_path / "snap")
    assert snap.counters is not None and not snap.counters.available
    assert "CUDA GPU" in snap.counters.reason
    assert snap.variants == load_snapshot(REPO / "snapshots" / "cpu").variants
