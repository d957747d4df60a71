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


def test_the_command_leaves_clocks_alone_and_isolates_one_variant():
    cmd = counters.command("ncu", "sdpa_flash", "python")
    assert cmd[cmd.index("--clock-control") + 1] == "none"
    assert cmd[cmd.index("--nvtx-include") + 1] == "sdpa_flash/"
    assert cmd[-4:] == ["python", "-m", "attn_examples.counters_driver", "sdpa_flash"]
    assert "dram__bytes_read.sum" in cmd[cmd.index("--metrics") + 1]


def test_without_ncu_the_section_says_why(monkeypatch):
    monkeypatch.setattr(counters, "ncu_path", lambda: None)
    section = counters.collect(["sdpa_flash"])
    assert section["available"] is False and "not on this machine" in section["reason"]


def test_counters_command_on_a_cpu_snapshot_records_the_reason(tmp_path):
    shutil.copytree(REPO / "snapshots" / "cpu", tmp_path / "snap")
    assert main(["counters", str(tmp_path / "snap")]) == 0
    snap = load_snapshot(tmp_path / "snap")
    assert snap.counters is not None and not snap.counters.available
    assert "CUDA GPU" in snap.counters.reason
    assert snap.variants == load_snapshot(REPO / "snapshots" / "cpu").variants
