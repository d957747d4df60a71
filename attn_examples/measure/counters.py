"""Hardware counters from Nsight Compute (`ncu`), per variant (no torch import here).

Kineto's occupancy is a calculator's estimate; `ncu` reads the counters. One `ncu` process runs
every variant in turn (`attn_examples.measure.counters_driver`): after warm-up, one forward inside an NVTX
range named after the variant, and only those ranges are profiled, with `--clock-control none`
(the GPU's clocks are left alone) and `--cache-control all` (caches flushed before each replay pass,
so DRAM bytes are what one cold forward moves). The report is read back with NVIDIA's `ncu_report`
module (in a process of its own: `attn_examples.measure.ncu_reader`), each variant's kernels those of its
NVTX range; where that module is missing or fails, with ncu's CSV export, twice: once with the
kernels' own names and once renamed after their NVTX range, which says whose kernel each one is.
The section records which reader it came from, and the snapshot keeps the report itself.
Metrics this GPU does not offer (the Hopper-only GMMA pipe on an A100, say) are left out and listed
as such. Where `ncu` is missing or the counters are not permitted, the section records why and
everything else works without it.
"""

from __future__ import annotations

import csv
import functools
import io
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from attn_examples.snapshot.stages import stage
from attn_examples.snapshot.stamp import stamp

if TYPE_CHECKING:
    from attn_examples.snapshot.schema import Snapshot

# What we ask for, and why. Names are ncu's; the base name (before the first '.') of a hardware
# counter must be offered by the device (`ncu --query-metrics`), otherwise the metric is recorded as
# missing. Only what a fact reads is asked for: ncu replays every kernel once per pass, and the list
# sets the passes (on the H200, the SM speed-of-light percentage alone needed 9 and memory's 6, while
# the list without them needs fewer: benchmarks/ncu_passes.py). On the H200 (ncu 2025.3) one HMMA
# counter covers both mma.sync and wgmma; the GMMA instruction count tells them apart.
METRICS: dict[str, str] = {
    "dram__bytes_read.sum": "HBM bytes read",
    "dram__bytes_write.sum": "HBM bytes written",
    "sm__warps_active.avg.pct_of_peak_sustained_active": "achieved occupancy",
    "sm__maximum_warps_per_active_cycle_pct": "theoretical occupancy",
    "launch__occupancy_limit_registers": "blocks per SM allowed by registers",
    "launch__occupancy_limit_shared_mem": "blocks per SM allowed by shared memory",
    "launch__occupancy_limit_warps": "blocks per SM allowed by warps",
    "launch__occupancy_limit_blocks": "blocks per SM allowed by the block limit",
    "launch__registers_per_thread": "registers per thread at launch",
    "launch__shared_mem_per_block_dynamic": "dynamic shared memory per block at launch",
    "launch__shared_mem_per_block_static": "static shared memory per block at launch",
    "lts__t_sectors_op_read.sum": "L2 sectors read (32 B each)",
    "lts__t_sectors_op_write.sum": "L2 sectors written (32 B each)",
    "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active": "Tensor Core busy (HMMA and, on Hopper, HGMMA)",
    "sm__inst_executed_pipe_tensor_op_gmma.sum": "warpgroup (wgmma, GMMA) Tensor Core instructions (Hopper)",
    "sm__ops_path_tensor_src_bf16_dst_fp32.sum": "bf16 Tensor Core math operations",
    "sm__ops_path_tensor_src_fp16.sum": "fp16 Tensor Core math operations",
    "sm__ops_path_tensor_src_tf32_dst_fp32.sum": "tf32 Tensor Core math operations (float32 inputs)",
    "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": "FP32 fused multiply-adds (per thread)",
    "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum": "FP32 adds (per thread)",
    "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum": "FP32 multiplies (per thread)",
    "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active": "FMA pipe busy",
    "l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum": "bytes stored to local memory (register spills)",
    "l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum": "bytes loaded from local memory (register spills)",
    "gpu__time_duration.sum": "kernel duration",
}


class CountersError(RuntimeError):
    """ncu ran but produced nothing usable; the message keeps its own words."""


def ncu_path() -> str | None:
    return shutil.which("ncu") or shutil.which("/usr/local/cuda/bin/ncu")


@functools.cache
def ncu_version(ncu: str) -> str:
    done = subprocess.run([ncu, "--version"], capture_output=True, text=True, timeout=60)
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    return lines[-1].strip() if lines else "unknown"


def parse_query(text: str) -> set[str]:
    """Base metric names from `ncu --query-metrics` (first word of each row that looks like one)."""
    return {
        line.split()[0]
        for line in text.splitlines()
        if line.strip() and "__" in line.split()[0] and not line.startswith("==")
    }


@functools.cache
def offered_metrics(ncu: str) -> set[str] | None:
    """The base names this GPU offers, or None when ncu would not say (then everything is asked for).
    Asked once per process (`CountersPass` asks from its own thread, beside the measurement)."""
    done = subprocess.run([ncu, "--query-metrics"], capture_output=True, text=True, timeout=120)
    names = parse_query(done.stdout)
    return names or None


# Launch statistics and occupancy's derived metrics are computed from the launch, not read from a
# counter, and `--query-metrics` does not list them: they are always asked for.
NOT_LISTED = ("launch__", "sm__maximum_warps_per_active_cycle_pct")


def split_metrics(offered: set[str] | None) -> tuple[list[str], list[str]]:
    """(metrics to request, metrics this device does not offer)."""
    if offered is None:
        return list(METRICS), []
    wanted = [m for m in METRICS if m.startswith(NOT_LISTED) or m.split(".")[0] in offered]
    return wanted, [m for m in METRICS if m not in wanted]


def command(
    ncu: str,
    config_json: str,
    variant_ids: list[str],
    metrics: list[str],
    report: str,
    go_file: str,
    python: str = sys.executable,
) -> list[str]:
    """One ncu run over every variant's forward (the driver wraps each in an NVTX range named after
    it), written to the report file `report` (.ncu-rep). The driver starts, warms up and waits for
    `go_file` (`CountersPass`).

    One report for all variants, not one per variant: ncu cannot filter a report it imports
    (`ncu -i r.ncu-rep --nvtx ...` says "Invalid option --nvtx specified for --import"), so a reader
    picks a variant by its NVTX range instead, and one ncu run per variant would pay ncu's start-up
    once per variant. `--import-sass no` leaves the kernels' SASS out of the report: with it ncu
    embeds whole libraries' cubins (a three-kernel report was 22 MB on the H200; 75 KB without), and
    the snapshot keeps the report."""
    ranges = [arg for v in variant_ids for arg in ("--nvtx-include", f"{v}/")]
    return [
        ncu,
        "--clock-control",
        "none",
        "--cache-control",
        "all",
        "--nvtx",
        *ranges,
        "--metrics",
        ",".join(metrics),
        "--import-sass",
        "no",
        "--export",
        report,
        "--force-overwrite",
        python,
        "-m",
        "attn_examples.measure.counters_driver",
        "--config",
        config_json,
        "--go",
        go_file,
        *variant_ids,
    ]


def import_command(ncu: str, report: str, by_range: bool) -> list[str]:
    """The report's details page as CSV, in base units (bytes, not ncu's choice of Mbyte or Gbyte);
    `by_range`: each kernel named after its NVTX range instead."""
    return [
        ncu,
        "--import",
        report,
        "--csv",
        "--page",
        "details",
        "--print-units",
        "base",
        *(["--print-nvtx-rename", "kernel"] if by_range else []),
    ]


def _number(text: str) -> float | None:
    cleaned = text.replace(",", "").strip()
    try:
        return float(cleaned)
    except ValueError:
        return None


def _rows(text: str) -> dict[str, dict[str, Any]]:
    """ncu's details CSV (one row per kernel and metric) into one dict per kernel, by ncu's ID."""
    lines = [line for line in text.splitlines() if not line.startswith("==")]
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        raise CountersError("no CSV in ncu's output: " + " | ".join(text.strip().splitlines()[-3:]))
    kernels: dict[str, dict[str, Any]] = {}
    for row in csv.DictReader(io.StringIO("\n".join(lines[start:]))):
        if not row.get("ID", "").isdigit():
            continue
        kernel = kernels.setdefault(
            row["ID"],
            {
                "name": row.get("Kernel Name", ""),
                "block": row.get("Block Size", ""),
                "grid": row.get("Grid Size", ""),
                "metrics": {},
                "units": {},
            },
        )
        name = row.get("Metric Name")
        if name:
            kernel["metrics"][name] = _number(row.get("Metric Value", ""))
            kernel["units"][name] = row.get("Metric Unit", "")
    if not kernels:
        raise CountersError(
            "ncu profiled no kernel (did the NVTX filter match?): " + " | ".join(text.strip().splitlines()[-3:])
        )
    return kernels


def parse_csv(text: str) -> list[dict[str, Any]]:
    """ncu's details CSV into one dict per kernel, in launch order.

    ncu's own log lines (`==PROF==`, `==WARNING==`) and the program's output are skipped."""
    kernels = _rows(text)
    return [kernels[key] for key in sorted(kernels, key=int)]


def by_variant(named: str, renamed: str, variant_ids: list[str]) -> dict[str, list[dict[str, Any]]]:
    """Each variant's kernels, in launch order: `named` is the report's CSV with the kernels' names,
    `renamed` the same report with each kernel named after its NVTX range (a variant's id)."""
    kernels, ranges = _rows(named), _rows(renamed)
    if set(kernels) != set(ranges):
        raise CountersError("the two readings of the report list different kernels")
    result: dict[str, list[dict[str, Any]]] = {v: [] for v in variant_ids}
    for key in sorted(kernels, key=int):
        owner = ranges[key]["name"].strip().strip("/").split("/")[0]
        if owner not in result:
            raise CountersError(
                f"kernel {key} ({kernels[key]['name'][:60]}) ran under the NVTX range "
                f"{ranges[key]['name']!r}, which is none of {', '.join(variant_ids)}"
            )
        result[owner].append(kernels[key])
    return require_kernels(result, variant_ids)


def require_kernels(
    variants: dict[str, list[dict[str, Any]]], variant_ids: list[str]
) -> dict[str, list[dict[str, Any]]]:
    """`variants` when every variant asked for has kernels; CountersError naming those without."""
    empty = [v for v in variant_ids if not variants.get(v)]
    if empty:
        raise CountersError(f"ncu profiled no kernel of {', '.join(empty)} (did the NVTX filter match?)")
    return variants


def ncu_report_folder(ncu: str) -> Path | None:
    """Where NVIDIA's own reader of .ncu-rep files lives (`ncu_report`, in extras/python of the Nsight
    Compute that `ncu` belongs to), or None. CUDA's bin/ncu is often a wrapper script around
    /opt/nvidia/nsight-compute/<version>/ncu: the folder named after ncu's own version comes first."""
    import glob
    import re

    home = Path(os.path.realpath(ncu)).parent
    found = [
        Path(p)
        for pattern in (str(home.parent / "nsight-compute*"), "/opt/nvidia/nsight-compute/*")
        for p in sorted(glob.glob(pattern), reverse=True)
    ]
    version = re.search(r"(\d{4}\.\d+\.\d+)", ncu_version(ncu))
    found.sort(key=lambda p: version is None or version.group(1) not in p.name)  # ncu's own version first
    candidates = [home / "extras" / "python", *(p / "extras" / "python" for p in found)]
    return next((folder for folder in candidates if (folder / "ncu_report.py").is_file()), None)


def ncu_report_module(ncu: str) -> Any | None:
    """`ncu_report` itself, or None where it is not installed or will not load. Its native library
    crashes a process that has loaded torch's CUDA libraries: import it only in a process without
    torch (`attn_examples.measure.ncu_reader`)."""
    import importlib

    folder = ncu_report_folder(ncu)
    if folder is None:
        return None
    sys.path.insert(0, str(folder))
    try:
        return importlib.import_module("ncu_report")
    except Exception:  # a module that will not load is a module we do not have
        return None
    finally:
        sys.path.remove(str(folder))


def _dims(action: Any, prefix: str) -> str:
    """A launch dimension as ncu's CSV writes it, '(128, 1, 1)', from launch__{prefix}_dim_{x,y,z}."""
    values = []
    for axis in "xyz":
        metric = action.metric_by_name(f"launch__{prefix}_dim_{axis}")
        if metric is None:
            return ""
        values.append(str(metric.as_uint64()))
    return f"({', '.join(values)})"


def read_report(
    module: Any, report: str, variant_ids: list[str], metrics: list[str]
) -> dict[str, list[dict[str, Any]]]:
    """Each variant's kernels, in launch order, read from the .ncu-rep with `ncu_report`: the kernels
    of the NVTX range named after the variant, with the same fields the CSV reading gives."""
    context = module.load_report(report)
    result: dict[str, list[dict[str, Any]]] = {v: [] for v in variant_ids}
    for index in range(context.num_ranges()):
        profiled = context.range_by_idx(index)
        for variant_id in variant_ids:
            for position in sorted(profiled.actions_by_nvtx([f"{variant_id}/"], [])):
                action = profiled.action_by_idx(position)
                values, units = {}, {}
                for name in metrics:
                    metric = action.metric_by_name(name)
                    values[name] = None if metric is None else metric.as_double()
                    units[name] = "" if metric is None else metric.unit()
                result[variant_id].append(
                    {
                        "name": action.name(module.IAction.NameBase_DEMANGLED),
                        "block": _dims(action, "block"),
                        "grid": _dims(action, "grid"),
                        "metrics": values,
                        "units": units,
                    }
                )
    return result


def read_in_child(
    ncu: str, report: str, variant_ids: list[str], metrics: list[str], timeout_s: int = 300
) -> dict[str, list[dict[str, Any]]]:
    """Each variant's kernels as `read_report` gives them, read by `attn_examples.measure.ncu_reader` in a
    fresh Python (ncu_report's native library crashes a process that loaded torch); raises
    CountersError with the child's last words when it fails."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "attn_examples.measure.ncu_reader",
            ncu,
            report,
            json.dumps(variant_ids),
            json.dumps(metrics),
        ],
        capture_output=True,
        text=True,
        timeout=timeout_s,
    )
    if done.returncode != 0:
        tail = " | ".join((done.stderr or done.stdout).strip().splitlines()[-3:])
        raise CountersError(f"ncu_report could not read {report}: {tail}")
    variants = json.loads(done.stdout)
    if not isinstance(variants, dict):
        raise CountersError(f"ncu_report's reader printed {type(variants).__name__}, not kernels by variant")
    return variants


NO_NCU = "ncu (Nsight Compute) is not on this machine"


def keep_measured(snap: Snapshot, reason: str, replace: bool) -> None:
    """Refuse to overwrite counters a snapshot holds with their absence, unless asked to."""
    if snap.counters is not None and snap.counters.available and not replace:
        raise RuntimeError(
            f"no counters here ({reason}); {snap.root} keeps the counters it holds "
            "(--replace records their absence instead)"
        )


def unavailable(reason: str) -> dict[str, Any]:
    return {
        "available": False,
        "reason": reason,
        "tool": None,
        "command": None,
        "missing_metrics": [],
        "wall_s": None,
        "variants": {},
        "reader": None,
        "reader_fallback": None,
        "report_file": None,
        **stamp(),
    }


NO_NCU_REPORT = "ncu_report (Nsight Compute's Python reader) is not installed beside this ncu"


class CountersPass:
    """One ncu run, started before the measurement it annotates so that its start-up (ncu, Python,
    torch, CUDA, cuDNN: about as long as the profiling itself) overlaps the measurement's own.

    The driver (`attn_examples.measure.counters_driver`) imports torch, draws the inputs of `config`, calls
    each candidate variant once (libraries loaded, no kernel profiled: ncu profiles only inside the
    NVTX ranges), says `ready`, and waits, without touching the GPU, for `go()` to name the variants
    to profile. The measurement waits for `ready` before it profiles or times anything
    (`wait_ready`), so nothing of the driver's runs beside it. `finish()` returns the snapshot's
    counters section, or why there is none.
    """

    def __init__(
        self,
        config: dict,
        candidates: list[str],
        timeout_s: int = 600,
        log_dir: Path | None = None,
        progress: Callable[[str], None] | None = None,
    ) -> None:
        import tempfile
        import threading

        self._ncu = ncu_path()
        self._config = json.dumps(config, sort_keys=True)
        self._candidates = list(candidates)
        self._timeout_s = timeout_s
        self._log_dir = log_dir
        self._progress = progress
        self._tmp = Path(tempfile.mkdtemp(prefix="attn-ncu-"))
        self._report = str(self._tmp / "counters.ncu-rep")
        self._go = self._tmp / "go.json"
        self._ready = threading.Event()  # set on the driver's `ready`, or when ncu ends without it
        self._proc: subprocess.Popen | None = None
        self._lines: list[str] = []
        self._problem: str | None = None
        self._cmd: list[str] = []
        self._metrics: list[str] = []
        self._missing: list[str] = []
        self._ids: list[str] = []
        self._gone = False
        self._started = time.perf_counter()
        self._thread = threading.Thread(target=self._run, name="ncu", daemon=True)
        if self._ncu is None:
            self._problem = NO_NCU
            self._ready.set()
        else:
            self._thread.start()

    def _run(self) -> None:
        from attn_examples.measure.counters_driver import READY, STARTED

        try:
            ncu = self._ncu
            if ncu is None:  # __init__ starts this thread only with an ncu
                self._problem = NO_NCU
                return
            self._metrics, self._missing = split_metrics(offered_metrics(ncu))
            self._cmd = command(ncu, self._config, self._candidates, self._metrics, self._report, str(self._go))
            # its own process group: abort() stops ncu and the Python under it together
            self._proc = subprocess.Popen(
                self._cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True
            )
            assert self._proc.stdout is not None
            for line in self._proc.stdout:
                self._lines.append(line)
                if line.startswith(READY):
                    self._ready.set()
                elif self._progress and line.startswith(STARTED):
                    self._progress(line[len(STARTED) :].strip())
            self._proc.wait()
        except OSError as exc:
            self._problem = f"ncu could not be started: {exc}"
        finally:
            self._ready.set()

    def wait_ready(self, timeout_s: float = 300.0) -> bool:
        """Block until the driver is warm and idle (or ncu has ended); False if it timed out."""
        return self._ready.wait(timeout_s)

    def go(self, variant_ids: list[str]) -> None:
        """Profile these variants now (written atomically; the driver polls for the file)."""
        self._ids = [v for v in variant_ids if v in self._candidates]
        self._gone = True
        tmp = self._go.with_suffix(".tmp")
        tmp.write_text(json.dumps(self._ids))
        tmp.replace(self._go)

    def abort(self) -> None:
        """Stop ncu and its driver if they still run (a measurement that failed), and clean up."""
        import os
        import signal

        if self._proc is not None and self._proc.poll() is None:
            try:
                os.killpg(self._proc.pid, signal.SIGKILL)
            except OSError:
                pass
            self._proc.wait()
        shutil.rmtree(self._tmp, ignore_errors=True)

    def finish(self) -> tuple[dict[str, Any], bytes | None]:
        """Wait for ncu and read its report back: the snapshot's counters section, and the report
        itself, gzipped, for the snapshot to keep (None where no counters were read). The report is
        read before `abort()` removes the temporary folder that holds it."""
        try:
            section = self._finish()
            return section, self._report_blob(section)
        finally:
            self.abort()

    def _report_blob(self, section: dict[str, Any]) -> bytes | None:
        from attn_examples.snapshot.schema import compress_blob

        report = Path(self._report)
        if not section["available"] or not report.is_file():
            return None
        return compress_blob(report.read_bytes())

    def _finish(self) -> dict[str, Any]:
        if self._problem and self._proc is None:  # ncu missing, or it could not be started
            return unavailable(self._problem)
        if not self._gone:
            self.go([])
        with stage("counters.ncu"):
            self._thread.join(self._timeout_s)
        if self._thread.is_alive():
            return unavailable(f"ncu did not finish within {self._timeout_s} s")
        if self._problem:
            return unavailable(self._problem)
        output = "".join(self._lines)
        if "ERR_NVGPUCTRPERM" in output:
            return unavailable("the GPU's performance counters are not permitted for this user (ERR_NVGPUCTRPERM)")
        ncu = self._ncu
        if ncu is None:  # without an ncu, _problem is NO_NCU and was returned above
            return unavailable(NO_NCU)
        variants, fallback = self._read_with_ncu_report(ncu)
        if variants is None or self._log_dir is not None:  # ncu_report could not; or kept for debugging
            readings = self._import_csv(ncu)
            self._keep_log(output, readings)
            if variants is None:
                try:
                    variants = by_variant(readings[0], readings[1], self._ids)
                except CountersError as exc:
                    tail = " | ".join(output.strip().splitlines()[-2:])
                    reason = f"{exc} (ncu said: {tail})" if tail else str(exc)
                    return unavailable(reason if fallback == NO_NCU_REPORT else f"{reason}; {fallback}")
        shown = command("ncu", "<config>", self._ids, self._metrics, "counters.ncu-rep", "<go>", "python")
        return {
            "available": True,
            "reason": None,
            "tool": ncu_version(ncu),
            "command": " ".join(shown),
            "missing_metrics": self._missing,
            "wall_s": time.perf_counter() - self._started,
            "variants": variants,
            "reader": "csv" if fallback else "ncu_report",
            "reader_fallback": fallback,
            "report_file": None,  # named by write_snapshot, which stores the report
            **stamp(),
        }

    def _read_with_ncu_report(self, ncu: str) -> tuple[dict[str, list[dict[str, Any]]] | None, str | None]:
        """Each variant's kernels as NVIDIA's `ncu_report` reads the report, in a process without torch
        (`read_in_child`); or None and why not (not installed, or it failed)."""
        if ncu_report_folder(ncu) is None:
            return None, NO_NCU_REPORT
        try:
            with stage("counters.import"):
                variants = read_in_child(ncu, self._report, self._ids, self._metrics, self._timeout_s)
            return require_kernels(variants, self._ids), None
        except (CountersError, subprocess.SubprocessError, OSError, ValueError) as exc:
            return None, f"ncu_report could not read the report: {exc}"

    def _import_csv(self, ncu: str) -> tuple[str, str]:
        """The report as ncu's CSV: kernels by their own names, then by their NVTX range."""
        readings = []
        for by_range in (False, True):
            with stage("counters.import"):
                done = subprocess.run(
                    import_command(ncu, self._report, by_range),
                    capture_output=True,
                    text=True,
                    timeout=self._timeout_s,
                )
            readings.append(done.stdout)
        return readings[0], readings[1]

    def _keep_log(self, output: str, readings: tuple[str, str]) -> None:
        """ncu's log, the two CSV readings and the report, for whoever debugs the run."""
        log_dir = self._log_dir
        if log_dir is None:
            return
        log_dir.mkdir(parents=True, exist_ok=True)
        (log_dir / "ncu.log").write_text(" ".join(self._cmd) + "\n" + output)
        (log_dir / "details.csv").write_text(readings[0])
        (log_dir / "details-by-range.csv").write_text(readings[1])
        if Path(self._report).exists():
            shutil.copyfile(self._report, log_dir / "counters.ncu-rep")


def collect(
    config: dict,
    variant_ids: list[str],
    timeout_s: int = 600,
    log_dir: Path | None = None,
    progress: Callable[[str], None] | None = None,
) -> tuple[dict[str, Any], bytes | None]:
    """One ncu run over the variants of a measurement of `config`, now: the snapshot's counters
    section, or why there is none, and the report, gzipped (`CountersPass.finish`). `log_dir` keeps
    the run's whole output (ncu's log, the two CSV readings and the .ncu-rep report) for whoever
    debugs it."""
    run = CountersPass(config, variant_ids, timeout_s, log_dir, progress)
    run.go(variant_ids)
    return run.finish()


def default_variants(snap: Snapshot) -> list[str]:
    """The article's variants that were measured (the compiled ones would compile again under ncu)."""
    from attn_examples.snapshot.variants import VARIANTS

    return [v for v, r in snap.variants.items() if r.available and VARIANTS[v].in_article]


def add_to_snapshot(
    snap: Snapshot,
    variant_ids: list[str] | None = None,
    output: str | Path | None = None,
    log_dir: Path | None = None,
    progress: Callable[[str], None] | None = None,
    replace: bool = False,
) -> tuple[Path, dict[str, Any]]:
    """Run the pass over a snapshot and write it back (or to `output`) with its counters section and
    ncu's report. A pass that could not read counters never overwrites one that did, unless `replace`:
    a machine without ncu must not erase what a GPU builder measured (nor the report it kept)."""
    from attn_examples.snapshot.schema import write_snapshot

    data = snap.to_dict()
    report: bytes | None = None
    if snap.provenance.device_kind != "cuda":
        data["counters"] = unavailable("hardware counters need a CUDA GPU; this snapshot is of a CPU")
    else:
        ids = variant_ids if variant_ids is not None else default_variants(snap)
        data["counters"], report = collect(snap.config.to_dict(), ids, log_dir=log_dir, progress=progress)
    if not data["counters"]["available"]:
        keep_measured(snap, data["counters"]["reason"], replace)  # which keeps the report it had, too
    traces = snap.trace_blobs()
    target = output or snap.root
    if target is None:  # a snapshot built in memory, not loaded from a folder
        raise ValueError("the snapshot has no folder to be written back to: give an output")
    return write_snapshot(data, traces, target, report), data["counters"]
