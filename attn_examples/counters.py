"""Hardware counters from Nsight Compute (`ncu`), per variant (no torch import here).

Kineto's occupancy is a calculator's estimate; `ncu` reads the counters. For each variant one
`ncu` process profiles one forward, after warm-up, inside an NVTX range named after the variant,
with `--clock-control none` (the GPU's clocks are left alone). Where `ncu` is missing or the
counters are not permitted, the section records why and everything else works without it.

Status: written and tested against ncu's documented CSV layout; not yet run on the H200.
"""

from __future__ import annotations

import csv
import io
import shutil
import subprocess
import sys
from typing import Any

# Per kernel: DRAM traffic, achieved and theoretical occupancy with the limiting factors, the launch
# as the hardware saw it, Tensor Core pipe activity (Hopper: HMMA and GMMA pipes), throughput, time.
METRICS = (
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "sm__maximum_warps_per_active_cycle_pct",
    "launch__occupancy_limit_registers",
    "launch__occupancy_limit_shared_mem",
    "launch__occupancy_limit_warps",
    "launch__occupancy_limit_blocks",
    "launch__registers_per_thread",
    "launch__shared_mem_per_block_dynamic",
    "launch__shared_mem_per_block_static",
    "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
    "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
    "gpu__time_duration.sum",
)


class CountersError(RuntimeError):
    """ncu ran but produced nothing usable; the message keeps its own words."""


def ncu_path() -> str | None:
    return shutil.which("ncu") or (shutil.which("/usr/local/cuda/bin/ncu"))


def ncu_version(ncu: str) -> str:
    done = subprocess.run([ncu, "--version"], capture_output=True, text=True, timeout=60)
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    return lines[-1].strip() if lines else "unknown"


def command(ncu: str, variant_id: str, python: str = sys.executable) -> list[str]:
    """One ncu run over one variant's forward (the driver wraps it in an NVTX range)."""
    return [ncu, "--csv", "--clock-control", "none", "--nvtx", "--nvtx-include", f"{variant_id}/",
            "--metrics", ",".join(METRICS), python, "-m", "attn_examples.counters_driver", variant_id]


def _number(text: str) -> float | None:
    cleaned = text.replace(",", "").strip()
    try:
        return float(cleaned)
    except ValueError:
        return None


def parse_csv(text: str) -> list[dict[str, Any]]:
    """ncu's details CSV (one row per kernel and metric) into one dict per kernel, in launch order.

    Lines before the header (ncu's own log lines, the program's output) are skipped."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        raise CountersError("no CSV header in ncu's output: " + " | ".join(lines[-3:]))
    kernels: dict[str, dict[str, Any]] = {}
    for row in csv.DictReader(io.StringIO("\n".join(lines[start:]))):
        kernel = kernels.setdefault(row["ID"], {"name": row.get("Kernel Name", ""),
                                                "block": row.get("Block Size", ""),
                                                "grid": row.get("Grid Size", ""), "metrics": {}, "units": {}})
        name = row.get("Metric Name")
        if name:
            kernel["metrics"][name] = _number(row.get("Metric Value", ""))
            kernel["units"][name] = row.get("Metric Unit", "")
    return [kernels[key] for key in sorted(kernels, key=lambda k: int(k))]


def unavailable(reason: str) -> dict[str, Any]:
    return {"available": False, "reason": reason, "tool": None, "command": None, "variants": {}}


def collect(variant_ids: list[str], timeout_s: int = 300) -> dict[str, Any]:
    """Run ncu once per variant; the section of the snapshot, or why there is none."""
    ncu = ncu_path()
    if ncu is None:
        return unavailable("ncu (Nsight Compute) is not on this machine")
    variants: dict[str, list[dict[str, Any]]] = {}
    for variant_id in variant_ids:
        cmd = command(ncu, variant_id)
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
        output = done.stdout + done.stderr
        if "ERR_NVGPUCTRPERM" in output:
            return unavailable("the GPU's performance counters are not permitted for this user (ERR_NVGPUCTRPERM)")
        try:
            variants[variant_id] = parse_csv(done.stdout)
        except CountersError as exc:
            return unavailable(f"{variant_id}: {exc}")
    return {"available": True, "reason": None, "tool": ncu_version(ncu),
            "command": " ".join(command("ncu", "<variant>", "python")), "variants": variants}
