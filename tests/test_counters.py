"""The Nsight Compute pass without a GPU: parsing ncu's CSV, and an honest 'unavailable'."""

from __future__ import annotations

import json
import shutil
import sys

import pytest

from attn_examples.measure import counters
from attn_examples.render.hardware import base_name
from attn_examples.site.cli import main
from attn_examples.snapshot.schema import load_snapshot
from tests.conftest import REPO

FIXTURE = REPO / "tests" / "data" / "ncu-details.csv"


def test_ncu_details_csv_becomes_one_record_per_kernel():
    kernels = counters.parse_csv(FIXTURE.read_text())
    assert [k["name"][:26] for k in kernels] == ["void pytorch_flash::flash_", "Memset"]
    flash = kernels[0]
    assert flash["metrics"]["dram__bytes_read.sum"] == 1234567.0  # thousands separators removed
    assert flash["units"]["dram__bytes_read.sum"] == "byte"
    assert flash["block"] == "(128, 1, 1)" and flash["grid"] == "(8, 8, 16)"


def test_output_without_a_csv_is_an_error_that_keeps_ncus_words():
    try:
        counters.parse_csv("==ERROR== ERR_NVGPUCTRPERM - no permission\n")
    except counters.CountersError as exc:
        assert "ERR_NVGPUCTRPERM" in str(exc)
    else:
        raise AssertionError("parse_csv accepted output without a CSV")


def test_one_command_runs_every_variant_leaves_clocks_alone_flushes_caches_and_keeps_a_report():
    cmd = counters.command(
        "ncu", '{"seq_len": 1024}', ["sdpa_flash", "naive"], ["dram__bytes_read.sum"], "r.ncu-rep", "go.json", "python"
    )
    assert cmd[cmd.index("--clock-control") + 1] == "none"
    assert cmd[cmd.index("--cache-control") + 1] == "all"
    assert [cmd[i + 1] for i, a in enumerate(cmd) if a == "--nvtx-include"] == ["sdpa_flash/", "naive/"]
    assert cmd[-9:] == [
        "python",
        "-m",
        "attn_examples.measure.counters_driver",
        "--config",
        '{"seq_len": 1024}',
        "--go",
        "go.json",
        "sdpa_flash",
        "naive",
    ]
    assert cmd[cmd.index("--metrics") + 1] == "dram__bytes_read.sum"
    assert cmd[cmd.index("--export") + 1] == "r.ncu-rep"
    assert cmd[cmd.index("--import-sass") + 1] == "no"  # no embedded cubins: the snapshot keeps the report
    assert counters.import_command("ncu", "r.ncu-rep", True)[-2:] == ["--print-nvtx-rename", "kernel"]
    assert "--print-nvtx-rename" not in counters.import_command("ncu", "r.ncu-rep", False)


FLASH_NAME = "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4>>(Flash_fwd_params)"


def _renamed(first: str, second: str) -> str:
    """The fixture as ncu prints it with --print-nvtx-rename kernel: each kernel named after its range."""
    return FIXTURE.read_text().replace(FLASH_NAME, first).replace('"Memset"', f'"{second}"')


def test_each_kernel_belongs_to_the_variant_whose_nvtx_range_it_ran_in():
    owned = counters.by_variant(FIXTURE.read_text(), _renamed("sdpa_flash", "sdpa_cudnn"), ["sdpa_flash", "sdpa_cudnn"])
    assert [k["name"] for k in owned["sdpa_flash"]] == [FLASH_NAME]
    assert [k["name"] for k in owned["sdpa_cudnn"]] == ["Memset"]
    assert owned["sdpa_flash"][0]["metrics"]["dram__bytes_read.sum"] == 1234567.0
    both = counters.by_variant(FIXTURE.read_text(), _renamed("sdpa_flash/", "sdpa_flash"), ["sdpa_flash"])
    assert [k["name"] for k in both["sdpa_flash"]] == [FLASH_NAME, "Memset"]


def test_a_kernel_outside_the_variants_ranges_or_a_variant_without_kernels_is_an_error():
    for renamed, ids, words in (
        (_renamed("sdpa_flash", "mystery"), ["sdpa_flash"], "'mystery'"),
        (_renamed("sdpa_flash", "sdpa_flash"), ["sdpa_flash", "naive"], "no kernel of naive"),
    ):
        try:
            counters.by_variant(FIXTURE.read_text(), renamed, ids)
        except counters.CountersError as exc:
            assert words in str(exc)
        else:
            raise AssertionError(f"by_variant accepted {ids} with {words}")


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
    assert "dram__bytes_read.sum" in wanted and "dram__bytes_write.sum" in missing
    assert "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active" in wanted
    assert "sm__inst_executed_pipe_tensor_op_gmma.sum" in missing  # an A100 has no wgmma
    # launch statistics are computed, not counted: ncu does not list them, we ask anyway
    assert {"launch__occupancy_limit_shared_mem", "sm__maximum_warps_per_active_cycle_pct"} <= set(wanted)
    assert set(wanted) | set(missing) == set(counters.METRICS)


def test_every_metric_asked_for_is_read_by_a_fact():
    """ncu replays each kernel once per pass, and the metric list sets the passes (on the H200 the
    unread speed-of-light percentages needed 9 of the list's 15 alone: benchmarks/ncu_passes.py). So
    no metric is asked for that nothing reads."""
    from attn_examples.render import hardware

    read = set(hardware.M.values()) | set(hardware.TENSOR_OPS.values())
    read |= {f"launch__occupancy_limit_{name}" for name in hardware.LIMITERS}
    assert set(counters.METRICS) - read == set()


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
    section, report = counters.collect({"seq_len": 1024}, ["sdpa_flash"])
    assert section["available"] is False and "not on this machine" in section["reason"]
    assert report is None and section["report_file"] is None


def test_counters_command_on_a_cpu_snapshot_records_the_reason(tmp_path):
    shutil.copytree(REPO / "snapshots" / "cpu", tmp_path / "snap")
    assert main(["counters", str(tmp_path / "snap")]) == 0
    snap = load_snapshot(tmp_path / "snap")
    assert snap.counters is not None and not snap.counters.available
    assert "CUDA GPU" in snap.counters.reason
    assert snap.variants == load_snapshot(REPO / "snapshots" / "cpu").variants


# ---- what the counters say (hardware.py), on a snapshot with a synthetic counters section -------------


def _with_counters(kernel_metrics: list[dict[str, float]], variant: str = "sdpa_flash"):
    import json

    from attn_examples.snapshot.schema import snapshot_from_dict

    data = json.loads((REPO / "snapshots" / "nvidia-h200" / "snapshot.json").read_text())
    names = [a["name"] for a in data["variants"][variant]["profile"]["steps"][0]["gpu"] if a["kind"] == "kernel"]
    data["counters"] = {
        "available": True,
        "reason": None,
        "tool": "ncu test",
        "command": "ncu ...",
        "wall_s": 1.0,
        "missing_metrics": [],
        "measured_at": None,
        "git_commit": None,
        "variants": {
            variant: [
                {"name": name, "block": "(128, 1, 1)", "grid": "(1, 1, 1)", "metrics": m, "units": dict.fromkeys(m, "")}
                for name, m in zip(names, kernel_metrics)
            ]
        },
    }
    return snapshot_from_dict(data)


def test_hbm_bytes_and_flops_are_summed_and_set_against_the_shape():
    from attn_examples.render import hardware

    snap = _with_counters(
        [
            {
                "dram__bytes_read.sum": 3 * 2**24,
                "dram__bytes_write.sum": 2**24,
                "sm__ops_path_tensor_src_bf16_dst_fp32.sum": 2e9,
                "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": 1e6,
                "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum": 0.0,
                "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum": 0.0,
                "gpu__time_duration.sum": 1e5,
                "launch__occupancy_limit_registers": 2,
                "launch__occupancy_limit_shared_mem": 3,
                "launch__occupancy_limit_warps": 16,
                "launch__occupancy_limit_blocks": 32,
            }
        ]
    )
    totals = hardware.variant_totals(snap, "sdpa_flash")
    assert totals["dram_bytes"] == 4 * 2**24 and totals["dram_per_qkvo"] == 1.0  # [8,16,1024,64] bf16
    assert totals["flops"] == 2e9 + 2e6 and totals["main_limiter"] == "registers"
    assert totals["matched_kineto"] and totals["main_est_occupancy_pct"] is not None
    assert abs(totals["tflops"] - totals["flops"] / 1e-4 / 1e12) < 1e-9


def test_surplus_work_is_read_as_a_band_along_the_diagonal_and_busy_time_as_duration_times_share():
    """Square tiles w wide add w / seq_len of the causal triangle, so (work / triangle - 1) * seq_len is
    the tile width the surplus implies; a padded head dimension is taken out first. The busy pipe's
    rate divides the Tensor Core FLOPs by duration times busy share."""
    from attn_examples.render import hardware

    assert [hardware.padded_head_dim(d) for d in (32, 64, 96, 128, 160)] == [64, 64, 128, 128, 192]
    causal = 2.0 * 8 * 16 * 1024**2 * 64  # [8,16,1024,64]
    snap = _with_counters(
        [
            {
                "sm__ops_path_tensor_src_bf16_dst_fp32.sum": causal * 1.125,  # tiles 128 wide
                "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active": 50.0,
                "lts__t_sectors_op_write.sum": 2 * 2**24 / hardware.SECTOR_BYTES,  # twice the output
                "l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum": 2**22,
                "gpu__time_duration.sum": 1e5,  # ns
            }
        ]
    )
    totals = hardware.variant_totals(snap, "sdpa_flash")
    assert totals["surplus_band_tokens"] == 128.0 and totals["padded_surplus_band_tokens"] == 128.0
    assert totals["l2_write_surplus_bytes"] == 2**24 and totals["l2_surplus_spill_share"] == 0.25
    assert abs(totals["busy_tensor_tflops"] - causal * 1.125 / (100e-6 * 0.5) / 1e12) < 1e-9


def test_a_flash_kernels_tiles_come_from_its_name_and_a_causal_loop_over_a_padded_sequence():
    """FlashAttention-2's name carries its head dimension and tile (query rows, key rows); a causal loop runs
    each row of tiles up to the key tile holding its last real query, over a sequence padded to whole tiles:
    at 1000 tokens, 64x256 tiles reach 40 of 64 (not the 256-token band of a sequence of whole tiles)."""
    from attn_examples.render import hardware

    name = "void pytorch_flash::flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<(int)64, (int)64, (int)256, (int)4, …"
    assert hardware.kernel_tiles(name) == (64, 64, 256)
    assert hardware.kernel_tiles("Flash_fwd_kernel_traits<128, 128, 64, 4, false>") == (128, 128, 64)
    assert hardware.kernel_tiles("cudnn_generated_fort_native_sdpa_sm90") is None
    assert hardware.causal_tiles(1000, 64, 256) == (40, 64)
    assert hardware.causal_tiles(1024, 128, 128) == (36, 64)  # 8 rows of tiles: 1 + 2 + … + 8
    assert hardware.causal_tiles(512, 128, 64) == (20, 32)  # taller than wide: 2 + 4 + 6 + 8
    assert hardware.causal_tiles(128, 128, 128) == (1, 1)


def test_kernels_that_do_not_line_up_with_kineto_get_no_estimate():
    from attn_examples.render import hardware

    snap = _with_counters([{"gpu__time_duration.sum": 1.0}])
    snap.counters.variants["sdpa_flash"][0].name = "void some_other_kernel<1>(int)"
    row = hardware.kernel_rows(snap, "sdpa_flash")[0]
    assert row["matched_kineto"] is False and row["kineto_est_occupancy_pct"] is None


def test_kernel_base_names_agree_across_the_two_demanglers():
    from attn_examples.render.hardware import base_name

    assert (
        base_name("void at::native::vectorized_elementwise_kernel<4, at::native::X>(int, T)")
        == base_name("void at::vectorized_elementwise_kernel<4, at::X>(int, T)")
        == "vectorized_elementwise_kernel"
    )
    assert base_name("void (anonymous namespace)::softmax_warp_forward<float>(float*)") == base_name(
        "void <unnamed>::softmax_warp_forward<float>(float*)"
    )


def test_a_measurement_without_counters_renders_and_says_why(tmp_path, monkeypatch):
    """No ncu on the builder: the counters page still renders, says why, and shows no counter value."""
    import json

    from attn_examples.site import build as site
    from attn_examples.site import measurement_hooks

    shutil.copytree(REPO / "snapshots" / "nvidia-h200", tmp_path / "snap")
    data = json.loads((tmp_path / "snap" / "snapshot.json").read_text())
    data["counters"] = counters.unavailable("ncu (Nsight Compute) is not on this machine")
    (tmp_path / "snap" / "snapshot.json").write_text(json.dumps(data))
    monkeypatch.setenv("ATTN_EXAMPLES_MEASURE", "snapshot")
    monkeypatch.setenv("ATTN_EXAMPLES_SNAPSHOT", str(tmp_path / "snap"))
    monkeypatch.setattr(site, "_current", None)

    class _File:
        src_uri = "en/counters.md"

    class _Page:
        file = _File()
        meta: dict = {}  # noqa: RUF012 (what on_page_markdown records about the page)

    page = (REPO / "docs" / "en" / "counters.md").read_text()
    out = measurement_hooks.on_page_markdown(page, _Page(), None, None)
    assert "{{" not in out and "{%" not in out
    assert "## Without counters" in out and "## HBM traffic" not in out
    assert "not on this machine" in site.en.counters_status()
    assert "not on this machine" in site.en.counters() and "這台機器上沒有 ncu" in site.zh_TW.figure("roofline")


def test_with_counters_present_a_misspelt_counters_key_still_fails_the_build():
    from attn_examples.render import metrics

    snap = load_snapshot(REPO / "snapshots" / "nvidia-h200")
    assert snap.counters is not None and snap.counters.available
    try:
        metrics.metric(snap, "counters.naive.no_such_field")
    except metrics.UnknownMetric as exc:
        assert "no_such_field" in str(exc)
    else:
        raise AssertionError("a misspelt counters key was accepted")


def test_a_counter_the_gpu_did_not_give_is_unknown_not_zero():
    """No spill counter in the pass: 'cuDNN stores 0 B to local memory' must not pass by default."""
    from attn_examples.claims import check as claims
    from attn_examples.render import metrics

    snap = _with_counters(
        [{"dram__bytes_read.sum": 1.0, "dram__bytes_write.sum": 1.0, "gpu__time_duration.sum": 1.0}],
        variant="sdpa_cudnn",
    )
    try:
        metrics.metric(snap, "counters.sdpa_cudnn.local_store_bytes")
    except metrics.UnknownMetric:
        pass
    else:
        raise AssertionError("a missing counter read as a number")
    claim = next(c for c in claims.load_claims() if c.id == "cudnn-no-spills")
    verdict = claims.evaluate(claim, snap)
    assert verdict.status != "pass"  # an observation: not measured here, never observed by default


def test_a_truth_whose_counter_is_missing_fails_and_an_observation_does_not_apply():
    """Counters present but without HBM bytes: a truth on HBM traffic cannot hold by default; an
    observation on a counter the pass lacks is simply not made."""
    from attn_examples.claims import check as claims

    snap = _with_counters([{"gpu__time_duration.sum": 1.0}])
    by_id = {c.id: c for c in claims.load_claims()}
    truth = claims.evaluate(by_id["flash-hbm-below-one-score"], snap)
    assert by_id["flash-hbm-below-one-score"].kind == "truth"
    assert truth.status == "fail" and "cannot be measured" in truth.reason
    observation = claims.evaluate(by_id["flash-spills-registers"], snap)
    assert by_id["flash-spills-registers"].kind == "observation" and observation.status == "n/a"


@pytest.fixture
def fake_ncu(tmp_path, monkeypatch):
    """ncu replaced by tests/data/fake_ncu.py, which speaks the driver's protocol without a GPU."""
    script = tmp_path / "ncu"
    script.write_text(f"#!{sys.executable}\n" + (REPO / "tests" / "data" / "fake_ncu.py").read_text())
    script.chmod(0o755)
    monkeypatch.setattr(counters, "ncu_path", lambda: str(script))
    counters.offered_metrics.cache_clear()
    counters.ncu_version.cache_clear()
    return script


def test_the_pass_gets_ready_first_profiles_on_go_and_keeps_only_the_named_variants(fake_ncu, tmp_path):
    seen: list[str] = []
    run = counters.CountersPass(
        {"seq_len": 1024},
        ["naive", "sdpa_flash", "sdpa_cudnn"],
        timeout_s=60,
        log_dir=tmp_path / "log",
        progress=seen.append,
    )
    assert run.wait_ready(30)
    assert seen == []  # nothing profiled before go
    run.go(["sdpa_flash", "naive", "flex"])  # flex was no candidate: ignored
    section, report = run.finish()
    assert section["available"], section["reason"]
    assert report is not None
    assert seen == ["sdpa_flash", "naive"]
    assert {v: [k["name"] for k in ks] for v, ks in section["variants"].items()} == {
        "sdpa_flash": ["kernel_of_sdpa_flash"],
        "naive": ["kernel_of_naive"],
    }
    assert section["tool"].endswith("2099.1.0.0 (fake)")
    assert "<config>" in section["command"] and "--nvtx-include sdpa_flash/" in section["command"]
    assert (tmp_path / "log" / "details-by-range.csv").exists()


def test_an_aborted_pass_leaves_no_process(fake_ncu, monkeypatch):
    original = counters.command
    monkeypatch.setattr(counters, "command", lambda *a, **k: original(*a, **k) + ["--hang"])
    run = counters.CountersPass({"seq_len": 1024}, ["naive"], timeout_s=60)
    assert run.wait_ready(30)
    run.go(["naive"])
    run.abort()
    assert run._proc is not None and run._proc.poll() is not None


REAL = REPO / "tests" / "data" / "ncu-h200"  # one ncu run on the H200 (command.txt), the CSV it read back


def test_a_real_h200_report_reads_as_the_committed_counters_and_in_base_units():
    """The two readings of a real report (ncu 2025.3, H200, the article's six variants): every variant
    gets the kernels the committed snapshot's counters name, every metric asked for is there, and
    every unit is a base unit (bytes, not ncu's choice of Mbyte or Gbyte)."""
    import gzip

    named = gzip.decompress((REAL / "details.csv.gz").read_bytes()).decode()
    ranged = gzip.decompress((REAL / "details-by-range.csv.gz").read_bytes()).decode()
    snap = load_snapshot(REPO / "snapshots" / "nvidia-h200")
    ids = list(snap.counters.variants)
    variants = counters.by_variant(named, ranged, ids)
    # by the function's own name: the committed counters are read with ncu_report, whose demangled
    # names spell template arguments as ncu's CSV does not (`<(int)8, ...>` against `<8, ...>`)
    for variant_id in ids:
        csv_names = [base_name(k["name"]) for k in variants[variant_id]]
        assert csv_names == [base_name(k.name) for k in snap.counters.variants[variant_id]]
    kernels = [k for rows in variants.values() for k in rows]
    assert all(set(counters.METRICS) <= set(k["metrics"]) for k in kernels)
    units = {u for k in kernels for u in k["units"].values()}
    assert "byte" in units and not units & {"Kbyte", "Mbyte", "Gbyte", "KB", "MB", "GB", "usecond", "msecond"}
    flash = variants["sdpa_flash"][0]
    assert flash["block"] == "(128, 1, 1)" and flash["metrics"]["dram__bytes_read.sum"] > 1e6


# ---- which reader reads the report: ncu_report first, the CSV where it cannot --------------------------


def _real_readings(ids: list[str]) -> dict[str, list[dict]]:
    """The real H200 report's kernels per variant, as a stand-in for what ncu_report would read."""
    import gzip

    named = gzip.decompress((REAL / "details.csv.gz").read_bytes()).decode()
    ranged = gzip.decompress((REAL / "details-by-range.csv.gz").read_bytes()).decode()
    every = counters.by_variant(
        named, ranged, list(load_snapshot(REPO / "snapshots" / "nvidia-h200").counters.variants)
    )
    return {v: every[v] for v in ids}


@pytest.fixture
def ncu_report_reads(fake_ncu, monkeypatch, tmp_path):
    """ncu_report "installed" beside the fake ncu, its child-process reader replaced: it returns the
    real H200 readings and records each call; the CSV imports are counted."""
    calls: dict[str, list] = {"read": [], "csv": []}

    def read(ncu, report, ids, metrics, timeout_s=300):
        calls["read"].append((report, list(ids)))
        return _real_readings(ids)

    original = counters.import_command
    monkeypatch.setattr(counters, "ncu_report_folder", lambda ncu: tmp_path)
    monkeypatch.setattr(counters, "read_in_child", read)
    monkeypatch.setattr(counters, "import_command", lambda *a: calls["csv"].append(a) or original(*a))
    return calls


def _pass(ids: list[str], log_dir=None) -> tuple[dict, bytes | None]:
    run = counters.CountersPass({"seq_len": 1024}, ids, timeout_s=60, log_dir=log_dir)
    assert run.wait_ready(30)
    run.go(ids)
    return run.finish()


def test_the_pass_reads_the_report_with_ncu_report_where_it_is_installed(ncu_report_reads):
    import gzip

    section, report = _pass(["sdpa_flash", "naive"])
    assert section["available"], section["reason"]
    assert section["reader"] == "ncu_report" and section["reader_fallback"] is None
    assert [ids for _, ids in ncu_report_reads["read"]] == [["sdpa_flash", "naive"]]
    assert ncu_report_reads["csv"] == []  # no CSV import without a log folder
    assert section["variants"] == _real_readings(["sdpa_flash", "naive"])
    assert report is not None and json.loads(gzip.decompress(report)) == ["sdpa_flash", "naive"]  # fake ncu's report


def test_a_log_folder_still_gets_the_csv_readings_beside_ncu_reports(ncu_report_reads, tmp_path):
    section, _ = _pass(["naive"], log_dir=tmp_path / "log")
    assert section["reader"] == "ncu_report"
    assert len(ncu_report_reads["csv"]) == 2
    assert {p.name for p in (tmp_path / "log").iterdir()} >= {"details.csv", "details-by-range.csv", "counters.ncu-rep"}


def test_when_ncu_report_fails_the_csv_reads_the_report_and_the_section_says_why(ncu_report_reads, monkeypatch):
    def broken(*args, **kwargs):
        raise counters.CountersError("ncu_report could not read r.ncu-rep: Segmentation fault")

    monkeypatch.setattr(counters, "read_in_child", broken)
    section, report = _pass(["sdpa_flash", "naive"])
    assert section["available"], section["reason"]
    assert section["reader"] == "csv" and "Segmentation fault" in section["reader_fallback"]
    assert {v: [k["name"] for k in ks] for v, ks in section["variants"].items()} == {
        "sdpa_flash": ["kernel_of_sdpa_flash"],
        "naive": ["kernel_of_naive"],
    }
    assert len(ncu_report_reads["csv"]) == 2 and report is not None


def test_a_variant_ncu_report_finds_no_kernel_of_sends_the_pass_to_the_csv(ncu_report_reads, monkeypatch):
    monkeypatch.setattr(
        counters, "read_in_child", lambda *a, **k: {"sdpa_flash": _real_readings(["sdpa_flash"])["sdpa_flash"]}
    )
    section, _ = _pass(["sdpa_flash", "naive"])
    assert section["reader"] == "csv" and "no kernel of naive" in section["reader_fallback"]


def test_without_ncu_report_the_csv_reads_the_report(fake_ncu, monkeypatch):
    monkeypatch.setattr(counters, "ncu_report_folder", lambda ncu: None)
    section, _ = _pass(["naive"])
    assert section["available"] and section["reader"] == "csv"
    assert section["reader_fallback"] == counters.NO_NCU_REPORT


def test_the_counters_command_keeps_the_report_and_a_failed_pass_keeps_the_old_one(
    ncu_report_reads, tmp_path, monkeypatch
):
    """`attn-examples counters` over the H200 snapshot with the fake ncu: the section from ncu_report,
    the report stored gzipped in the snapshot. Then, with no ncu, the pass refuses to drop them;
    --replace records the absence, report and all."""
    from attn_examples.snapshot import schema as snapshot_module

    shutil.copytree(REPO / "snapshots" / "nvidia-h200", tmp_path / "snap")
    assert main(["counters", str(tmp_path / "snap")]) == 0
    snap = load_snapshot(tmp_path / "snap")
    assert snap.counters.reader == "ncu_report" and snap.counters.report_file is not None
    report = snapshot_module.load_report(snap)
    assert report is not None and set(json.loads(report)) == set(snap.counters.variants)
    stored = tmp_path / "snap" / snap.counters.report_file

    monkeypatch.setattr(counters, "ncu_path", lambda: None)
    assert main(["counters", str(tmp_path / "snap")]) == 2
    assert load_snapshot(tmp_path / "snap") == snap and stored.is_file()
    assert main(["counters", str(tmp_path / "snap"), "--replace"]) == 0
    assert load_snapshot(tmp_path / "snap").counters.report_file is None and not stored.exists()


def test_the_child_reader_failing_is_a_counters_error_with_its_last_words(tmp_path):
    """No ncu_report here: the child process `read_in_child` starts fails, and says so in one error."""
    fake = tmp_path / "ncu"
    fake.write_text(f"#!{sys.executable}\nprint('Version 2099.1.0.0 (fake)')\n")
    fake.chmod(0o755)
    with pytest.raises(counters.CountersError, match=r"ncu_report could not read r\.ncu-rep: "):
        counters.read_in_child(str(fake), "r.ncu-rep", ["naive"], ["dram__bytes_read.sum"], timeout_s=60)
