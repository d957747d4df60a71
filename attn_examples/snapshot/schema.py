"""The on-disk form of a measurement: schema, validation, atomic writes (no torch import).

A snapshot is a folder: `snapshot.json` plus one gzipped Kineto trace per measured variant
under `traces/`, and, where the hardware counters were read, Nsight Compute's gzipped report under
`counters/`. These files are named by content hash and written before the JSON, and the
JSON is swapped in with one `os.replace`, so a reader sees the old snapshot or the new one,
never a mix. Loading checks every field and names the file and field when one is wrong.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import functools
import gzip
import hashlib
import json
import math
import os
import re
import tempfile
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar, overload

from attn_examples.snapshot.config import AttnConfig
from attn_examples.snapshot.variants import VARIANTS

SCHEMA_VERSION = 2  # 2: timing keeps its blocks (claims' intervals); every field is written, none defaults
SNAPSHOT_FILE = "snapshot.json"
TRACE_DIR = "traces"
REPORT_DIR = "counters"
READERS = ("ncu_report", "csv")  # how a counters section was read from ncu's report


class SnapshotError(ValueError):
    """A snapshot that cannot be used; the message names the file and the field."""


_T = TypeVar("_T")


def recorded(value: _T | None, where: str) -> _T:
    """A field that measuring always fills for an available variant or point, though the schema lets it be
    null (snapshot_from_dict checks an available variant's profile and timing; extended.py fills the sweep's
    and training's counts and times): a snapshot that leaves it null is refused here, by name, rather than
    failing later in arithmetic."""
    if value is None:
        raise SnapshotError(f"field {where!r}: null in an available measurement")
    return value


@dataclass
class Stats:
    """Summary of repeated timings, in the unit its field name says."""

    median: float
    iqr: float
    min: float
    max: float
    n: int
    blocks: list[float]  # in time order, what an interval is computed from (see timing.time_cuda)


@dataclass
class GpuActivity:
    name: str
    kind: str  # kernel | memcpy | memset
    dur_us: float
    grid: list[int] | None
    block: list[int] | None
    registers_per_thread: int | None
    shared_memory_bytes: int | None  # static + dynamic, as Kineto reports it
    est_occupancy_pct: float | None  # Kineto's calculator estimate, not a counter
    launch_api: str | None  # cudaLaunchKernel, cuLaunchKernelEx, cudaMemcpyAsync, ...
    bytes: int | None  # memcpy / memset size
    stream: int | None


@dataclass
class CpuOp:
    name: str
    count: int
    total_us: float
    self_us: float


@dataclass
class LaunchCount:
    name: str
    count: int


@dataclass
class Step:
    step: int
    gpu: list[GpuActivity]
    cpu_ops: list[CpuOp]
    launches: list[LaunchCount]
    transposes: int
    host_span_us: float | None
    gpu_span_us: float | None


@dataclass
class Profile:
    trace_file: str
    steps: list[Step]
    consistent: bool
    inconsistency: str | None
    unattributed_gpu: int  # GPU work in the trace launched before the first active step


@dataclass
class Timing:
    timer: str
    device_us: Stats | None
    host_us: Stats | None
    peak_memory_bytes: int | None
    rel_error: float | None
    host_first_us: Stats | None  # first call after entering the backend pin (CUDA only)
    compile_s: float | None  # compiled variants: wall time of the first call (compiling)


@dataclass
class VariantResult:
    id: str
    title: str
    available: bool
    unavailable_reason: str | None
    profile: Profile | None
    timing: Timing | None


@dataclass
class Dispatch:
    """Which backend an un-pinned SDPA call used, and how we know."""

    auto_backend: str | None
    evidence: str | None
    fused_sdp_choice: str | None


@dataclass
class DeviceLimits:
    """Per-SM resources read from the device: what occupancy is computed against."""

    warp_size: int
    regs_per_sm: int | None
    max_threads_per_sm: int | None
    smem_per_sm_bytes: int | None
    smem_per_block_optin_bytes: int | None
    l2_bytes: int | None


@dataclass
class Provenance:
    device_kind: str  # cuda | cpu
    device_name: str
    compute_capability: str | None
    sm_count: int | None
    total_memory_bytes: int | None
    driver: str | None
    cuda: str | None
    cudnn: str | None
    torch: str
    python: str
    os: str
    cpu: str
    git_commit: str | None
    git_dirty: bool | None
    measured_at: str  # UTC, ISO 8601
    tool_version: str
    command: str
    device_limits: DeviceLimits | None  # GPUs only


@dataclass
class SweepPoint:
    """One variant at one shape of the scaling sweep."""

    variant: str
    seq_len: int
    head_dim: int
    available: bool
    reason: str | None
    kernels: int | None
    gpu_activities: int | None
    main_kernel: str | None
    main_registers: int | None
    main_smem_bytes: int | None
    main_threads: int | None
    main_grid_blocks: int | None
    main_occupancy_pct: float | None
    main_launch_api: str | None
    device_us: float | None
    device_us_blocks: list[float] | None  # every timed call, in time order (the median's interval)
    peak_memory_bytes: int | None
    tflops: float | None


@dataclass
class Sweep:
    batch: int
    heads: int
    matmul_peak_tflops: float  # bf16 8192^3 matmul, same GPU, same run
    wall_s: float
    points: list[SweepPoint]


@dataclass
class TrainingPoint:
    """Forward + backward of one variant (inputs require grad)."""

    variant: str
    available: bool
    reason: str | None
    kernels: int | None  # GPU kernels per forward + backward
    gpu_activities: int | None
    device_us: float | None  # median, forward + backward
    device_us_blocks: list[float] | None  # every timed call, in time order (the median's interval)


@dataclass
class InplaceAutograd:
    """What autograd does with masked_fill_ in the naive forward, captured rather than paraphrased."""

    raised: bool
    error: str | None
    max_abs_grad_diff: float | None  # against the out-of-place version, when no error


@dataclass
class Training:
    points: list[TrainingPoint]
    inplace_autograd: InplaceAutograd


@dataclass
class CounterKernel:
    """One kernel as Nsight Compute read it: metric name -> value (units beside)."""

    name: str
    block: str
    grid: str
    metrics: dict[str, float | None]
    units: dict[str, str]


@dataclass
class Counters:
    """The optional hardware-counter pass (`attn-examples counters`), or why there is none."""

    available: bool
    reason: str | None
    tool: str | None  # ncu's version line
    command: str | None  # the exact ncu command, with <snapshot> and <variant> for the arguments
    variants: dict[str, list[CounterKernel]]
    missing_metrics: list[str]  # asked for, not offered by this GPU
    wall_s: float | None  # the whole pass, every variant
    measured_at: str | None  # the pass may run after `measure`, at another commit
    git_commit: str | None
    # Optional: snapshots written before these fields lack them.
    reader: str | None = None  # READERS: NVIDIA's ncu_report module, or ncu's CSV export
    reader_fallback: str | None = None  # why the CSV was read where ncu_report was not
    report_file: str | None = None  # the .ncu-rep, gzipped, under counters/ (measured passes only)


@dataclass
class Ceilings:
    """What this GPU reaches on simple work, measured in the same run: the roofline's roofs."""

    bf16_matmul_tflops: float  # 8192^3 bf16 matmul (Tensor Cores)
    fp32_matmul_tflops: float  # 8192^3 fp32 matmul, TF32 off (FFMA on CUDA cores)
    copy_gbps: float  # device-to-device copy of copy_bytes, read + write counted
    copy_bytes: int


@dataclass
class Snapshot:
    schema_version: int
    device_slug: str
    provenance: Provenance
    config: AttnConfig
    dispatch: Dispatch
    variants: dict[str, VariantResult]
    sweep: Sweep | None  # `measure --extended` only
    training: Training | None  # `measure --extended` only
    counters: Counters | None  # `attn-examples counters` only
    ceilings: Ceilings | None  # every CUDA measurement (older snapshots: `measure --extended` only)
    root: Path | None = field(default=None, compare=False)

    def variant(self, variant_id: str) -> VariantResult:
        return self.variants[variant_id]

    def trace_path(self, variant_id: str) -> Path | None:
        result = self.variants[variant_id]
        if result.profile is None or self.root is None:
            return None
        return self.root / result.profile.trace_file

    def trace_blobs(self) -> dict[str, bytes]:
        """Every profiled variant's gzipped trace as stored, by variant id (to write the snapshot again)."""
        blobs = {}
        for variant_id, result in self.variants.items():
            if result.profile is not None:
                path = self.trace_path(variant_id)
                if path is None:  # a profile without a path: a snapshot built in memory, not loaded from a folder
                    raise SnapshotError(f"variant {variant_id!r}: its trace has no file (the snapshot has no folder)")
                blobs[variant_id] = path.read_bytes()
        return blobs

    def report_path(self) -> Path | None:
        """The gzipped Nsight Compute report of the counters pass, when the snapshot keeps one."""
        if self.counters is None or self.counters.report_file is None or self.root is None:
            return None
        return self.root / self.counters.report_file

    def report_blob(self) -> bytes | None:
        """The gzipped report as stored (to write the snapshot again), or None when there is none."""
        if self.counters is not None and self.counters.report_file is not None and self.root is None:
            raise SnapshotError("field 'counters.report_file': the report has no file (the snapshot has no folder)")
        path = self.report_path()
        return None if path is None else path.read_bytes()

    def to_dict(self) -> dict:
        data = dataclasses.asdict(self)
        data.pop("root")
        return data


# ---- validation -------------------------------------------------------------------------------

# A snapshot comes from outside (a reader's measurement, a pull request): its numbers are checked
# for what they can be. Times and rates are positive; every other number (counts, sizes, ids,
# percentages, spreads) is at least zero; nothing is NaN or infinite. Nsight Compute's readings keep
# their own signs and are only required to be finite.
_POSITIVE = {
    "dur_us",
    "median",
    "min",
    "max",
    "blocks",
    "device_us",
    "device_us_blocks",
    "host_span_us",
    "gpu_span_us",
    "compile_s",
    "wall_s",
    "tflops",
    "matmul_peak_tflops",
    "bf16_matmul_tflops",
    "fp32_matmul_tflops",
    "copy_gbps",
}
_SIGNED = ("counters.",)
_SLUG = re.compile(r"[a-z0-9][a-z0-9._-]{0,99}")
_TRACE = re.compile(re.escape(TRACE_DIR) + r"/[A-Za-z0-9_][A-Za-z0-9_.-]{0,199}\.json\.gz")
_REPORT = re.compile(re.escape(REPORT_DIR) + r"/[A-Za-z0-9_][A-Za-z0-9_.-]{0,199}\.ncu-rep\.gz")
_CC = re.compile(r"[0-9]{1,2}\.[0-9]{1,2}")


def _check_number(value: float | int, where: str) -> None:
    name = where.rsplit(".", 1)[-1].split("[")[0]
    if not math.isfinite(value):
        raise SnapshotError(f"field '{where}': {value!r} is not a finite number")
    if where.startswith(_SIGNED):
        return
    if name in _POSITIVE and value <= 0:
        raise SnapshotError(f"field '{where}': {value!r}; a time or rate must be positive")
    if value < 0:
        raise SnapshotError(f"field '{where}': {value!r}; must not be negative")


def _check_paths(snap: Snapshot) -> None:
    """Names that become paths stay plain: a slug is one folder name, a trace lies under traces/."""
    if not _SLUG.fullmatch(snap.device_slug) or ".." in snap.device_slug:
        raise SnapshotError(
            f"field 'device_slug': {snap.device_slug!r} is not a plain folder name "
            "(lowercase letters, digits, '.', '_' and '-')"
        )
    cc = snap.provenance.compute_capability
    if cc is not None and not _CC.fullmatch(cc):
        raise SnapshotError(f"field 'provenance.compute_capability': {cc!r} is not major.minor")
    for key, result in snap.variants.items():
        if result.profile is not None and (
            not _TRACE.fullmatch(result.profile.trace_file) or ".." in result.profile.trace_file
        ):
            raise SnapshotError(
                f"field 'variants.{key}.profile.trace_file': {result.profile.trace_file!r} "
                f"must be a file directly under {TRACE_DIR}/ named *.json.gz"
            )
    report = snap.counters.report_file if snap.counters is not None else None
    if report is not None and (not _REPORT.fullmatch(report) or ".." in report):
        raise SnapshotError(
            f"field 'counters.report_file': {report!r} must be a file directly under {REPORT_DIR}/ named *.ncu-rep.gz"
        )


def _check_counters(counters: Counters | None, root: Path | None) -> None:
    """How the section was read, and its report: only a pass that read counters keeps one, and the
    file it names exists."""
    if counters is None:
        return
    if counters.reader is not None and counters.reader not in READERS:
        raise SnapshotError(f"field 'counters.reader': {counters.reader!r}; known: {', '.join(READERS)}")
    if counters.report_file is None:
        return
    if not counters.available:
        raise SnapshotError("field 'counters.report_file': a pass that read no counters keeps no report")
    if root is not None and not (root / counters.report_file).is_file():
        raise SnapshotError(f"field 'counters.report_file': {counters.report_file} does not exist")


@functools.cache
def _schema(tp: type) -> tuple[dict[str, Any], dict[str, dataclasses.Field]]:
    """A dataclass's resolved type hints and its JSON fields, once per class: resolving the hints
    (typing.get_type_hints) was two thirds of loading a snapshot, and the site loads every committed
    one per language."""
    fields = {f.name: f for f in dataclasses.fields(tp) if f.init and f.name != "root"}
    return typing.get_type_hints(tp), fields


def _build(tp: Any, value: Any, where: str) -> Any:
    """Turn JSON `value` into type `tp`, or raise SnapshotError naming the field `where`."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        options = typing.get_args(tp)
        if value is None:
            if type(None) in options:
                return None
            raise SnapshotError(f"field '{where}': must not be null")
        (inner,) = [o for o in options if o is not type(None)]
        return _build(inner, value, where)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):  # a schema class (never an instance)
        if not isinstance(value, dict):
            raise SnapshotError(f"field '{where}': expected an object, got {type(value).__name__}")
        hints, fields = _schema(tp)
        unknown = sorted(set(value) - set(fields))
        if unknown:
            raise SnapshotError(f"field '{where}.{unknown[0]}': unknown field")
        kwargs = {}
        for name, f in fields.items():
            sub = f"{where}.{name}" if where else name
            if name not in value:
                if f.default is not dataclasses.MISSING:
                    continue
                raise SnapshotError(f"field '{sub}': missing")
            kwargs[name] = _build(hints[name], value[name], sub)
        try:
            return tp(**kwargs)
        except (TypeError, ValueError) as exc:
            raise SnapshotError(f"field '{where}': {exc}") from None
    if origin is list:
        if not isinstance(value, list):
            raise SnapshotError(f"field '{where}': expected a list, got {type(value).__name__}")
        (inner,) = typing.get_args(tp)
        return [_build(inner, item, f"{where}[{i}]") for i, item in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            raise SnapshotError(f"field '{where}': expected an object, got {type(value).__name__}")
        _, inner = typing.get_args(tp)
        return {key: _build(inner, item, f"{where}.{key}") for key, item in value.items()}
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise SnapshotError(f"field '{where}': expected a number, got {value!r}")
        _check_number(value, where)
        return float(value)
    if tp in (int, str, bool):
        if type(value) is not tp:
            raise SnapshotError(f"field '{where}': expected {tp.__name__}, got {value!r}")
        if tp is int:
            _check_number(value, where)
        return value
    raise TypeError(f"schema type {tp!r} at {where} is not supported")  # a bug in this module


def snapshot_from_dict(data: Any, root: Path | None = None) -> Snapshot:
    """Validate a parsed snapshot.json; raises SnapshotError naming the field."""
    if not isinstance(data, dict):
        raise SnapshotError("top level: expected an object")
    version = data.get("schema_version")
    if version != SCHEMA_VERSION:
        raise SnapshotError(
            f"field 'schema_version': this code reads version {SCHEMA_VERSION}, "
            f"the file has {version!r}; re-measure with `attn-examples measure`"
        )
    snap = _build(Snapshot, data, "")
    _check_paths(snap)
    _check_counters(snap.counters, root)
    if not snap.variants:
        raise SnapshotError("field 'variants': empty; a measurement records every variant it tried")
    for key, result in snap.variants.items():
        if key not in VARIANTS:
            raise SnapshotError(f"field 'variants.{key}': unknown variant {key!r}; known: {', '.join(VARIANTS)}")
        if result.id != key:
            raise SnapshotError(f"field 'variants.{key}.id': is {result.id!r}, must equal its key")
        if result.available and (result.profile is None or result.timing is None):
            raise SnapshotError(f"field 'variants.{key}': available but has no profile/timing")
        if result.profile is not None and not result.profile.steps:
            raise SnapshotError(f"field 'variants.{key}.profile.steps': empty; a profile holds at least one step")
        if not result.available and not result.unavailable_reason:
            raise SnapshotError(f"field 'variants.{key}.unavailable_reason': missing for an unavailable variant")
        if root is not None and result.profile is not None and not (root / result.profile.trace_file).is_file():
            raise SnapshotError(
                f"field 'variants.{key}.profile.trace_file': {result.profile.trace_file} does not exist"
            )
    snap.root = root
    return snap


def snapshot_home() -> Path:
    """Where committed snapshots live: snapshots/ in the project (ATTN_EXAMPLES_SNAPSHOTS overrides)."""
    default = Path(__file__).resolve().parents[2] / "snapshots"
    return Path(os.environ.get("ATTN_EXAMPLES_SNAPSHOTS", default))


def snapshot_file(path: str | os.PathLike) -> Path:
    path = Path(path)
    return path / SNAPSHOT_FILE if path.is_dir() or path.suffix != ".json" else path


def load_snapshot(path: str | os.PathLike) -> Snapshot:
    """Load and validate a snapshot folder (or its snapshot.json)."""
    file = snapshot_file(path)
    try:
        text = file.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        raise SnapshotError(f"{file}: no such snapshot file") from None
    except IsADirectoryError:
        raise SnapshotError(f"{file}: a folder, not a snapshot file") from None
    except UnicodeDecodeError as exc:
        raise SnapshotError(f"{file}: not UTF-8 text (byte {exc.start})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SnapshotError(f"{file}: not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    try:
        snap = snapshot_from_dict(data, root=file.parent)
    except SnapshotError as exc:
        raise SnapshotError(f"{file}: {exc}") from None
    for variant_id in snap.variants:  # a corrupt trace is named now, not while a figure is drawn
        load_trace(snap, variant_id, required=False)
    return snap


_TRACES: dict[tuple[str, int, int], dict] = {}  # (path, mtime_ns, size) -> parsed trace, per process


def read_trace(path: Path, label: str) -> dict:
    """A gzipped Kineto trace, checked: gzip, UTF-8 JSON, an object whose `traceEvents` list holds
    objects and the variant's `label` (record_function) among their names. Raises SnapshotError
    naming the file."""
    stat = path.stat()
    key = (str(path), stat.st_mtime_ns, stat.st_size)
    if key in _TRACES:
        return _TRACES[key]
    try:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            trace = json.load(fh)
    except (OSError, EOFError) as exc:  # gzip.BadGzipFile is an OSError
        raise SnapshotError(f"{path}: not a readable gzip file ({exc})") from None
    except UnicodeDecodeError as exc:
        raise SnapshotError(f"{path}: not UTF-8 text once decompressed (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise SnapshotError(f"{path}: not valid JSON once decompressed ({exc.msg} at line {exc.lineno})") from None
    events = trace.get("traceEvents") if isinstance(trace, dict) else None
    if not isinstance(events, list) or not all(isinstance(e, dict) for e in events):
        raise SnapshotError(f"{path}: not a Kineto trace (expected an object with a 'traceEvents' list of objects)")
    if not any(e.get("name") == label for e in events):
        raise SnapshotError(f"{path}: no event named {label!r}: not the trace of this variant's profiled forward")
    _TRACES[key] = trace
    return trace


@overload
def load_trace(snapshot: Snapshot, variant_id: str, required: Literal[True] = True) -> dict: ...
@overload
def load_trace(snapshot: Snapshot, variant_id: str, required: bool) -> dict | None: ...
def load_trace(snapshot: Snapshot, variant_id: str, required: bool = True) -> dict | None:
    """The variant's full Kineto trace, decompressed and checked (`read_trace`)."""
    path = snapshot.trace_path(variant_id)
    if path is None:
        if required:
            raise SnapshotError(f"variant {variant_id!r} has no trace in this snapshot")
        return None
    return read_trace(path, VARIANTS[variant_id].label)


# A report with every kernel's SASS embedded ran to 22 MB for three kernels on the H200; without it
# (`--import-sass no`) 75 KB. A stored report that inflates past this is not one the pass wrote.
MAX_REPORT_BYTES = 256 * 2**20


def load_report(snapshot: Snapshot) -> bytes | None:
    """The counters pass's Nsight Compute report, decompressed (Nsight Compute opens only a plain
    .ncu-rep), or None when the snapshot keeps none. Raises SnapshotError naming the file when it is
    not gzip or inflates past MAX_REPORT_BYTES."""
    path = snapshot.report_path()
    if path is None:
        return None
    try:
        with gzip.open(path, "rb") as fh:
            payload = fh.read(MAX_REPORT_BYTES + 1)
    except (OSError, EOFError) as exc:  # gzip.BadGzipFile is an OSError
        raise SnapshotError(f"{path}: field 'counters.report_file': not a readable gzip file ({exc})") from None
    if len(payload) > MAX_REPORT_BYTES:
        raise SnapshotError(
            f"{path}: field 'counters.report_file': larger than {MAX_REPORT_BYTES // 2**20} MiB once decompressed"
        )
    return payload


# ---- writing -----------------------------------------------------------------------------------


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _atomic_write(path: Path, payload: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp's 0600 would hide a snapshot from everyone else
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def compress_trace(trace_text: str) -> bytes:
    """Gzip deterministically (no timestamp in the header), so equal traces hash equally."""
    return compress_blob(trace_text.encode("utf-8"))


def compress_blob(payload: bytes) -> bytes:
    """Gzip bytes deterministically (no timestamp in the header), so equal files hash equally."""
    return gzip.compress(payload, compresslevel=9, mtime=0)


LOCK_FILE = ".lock"


@contextlib.contextmanager
def _locked(folder: Path):
    """One writer at a time per snapshot folder: a writer's clean-up removes trace files its JSON does
    not name, which, interleaved with another writer, would delete the other's traces. Blocks until
    the folder is free; the last complete write wins."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / LOCK_FILE, "a+b") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def _name_traces(data: dict, traces: dict[str, bytes]) -> dict[str, str]:
    """Each trace's content-hash name, filled into its variant's profile."""
    names: dict[str, str] = {}
    for variant_id, blob in traces.items():
        digest = hashlib.sha256(blob).hexdigest()[:12]
        names[variant_id] = f"{TRACE_DIR}/{variant_id}-{digest}.json.gz"
        profile = data["variants"][variant_id].get("profile")
        if profile is None:
            raise SnapshotError(f"variant {variant_id!r} has a trace but no profile")
        profile["trace_file"] = names[variant_id]
    return names


def _name_report(data: dict, report: bytes | None) -> str | None:
    """The report's content-hash name, filled into the counters section. A section that names a
    report while none is given is refused: writing it would delete the file it names."""
    counters = data.get("counters")
    if report is None:
        if isinstance(counters, dict) and counters.get("report_file") is not None:
            raise SnapshotError("field 'counters.report_file': names a report, but no report was given to write")
        return None
    if not isinstance(counters, dict) or not counters.get("available"):
        raise SnapshotError("field 'counters.report_file': a report was given, but no counters were read")
    name = f"{REPORT_DIR}/counters-{hashlib.sha256(report).hexdigest()[:12]}.ncu-rep.gz"
    counters["report_file"] = name
    return name


def write_snapshot(
    data: dict, traces: dict[str, bytes], out_dir: str | os.PathLike, report: bytes | None = None
) -> Path:
    """Write `data` (a snapshot dict whose trace_file and report_file fields are filled here), its
    traces and its counters' report.

    `traces` maps variant id to gzipped trace bytes; `report` is the counters pass's .ncu-rep,
    gzipped (`compress_blob`), or None. Validation happens before anything is written; the JSON goes
    last, with an atomic replace; stale trace and report files are removed after.
    """
    out = Path(out_dir)
    data = json.loads(json.dumps(data))  # a private, JSON-clean copy
    names = _name_traces(data, traces)
    report_name = _name_report(data, report)
    snapshot_from_dict(data)  # refuse to write what could not be read back
    text = json.dumps(data, indent=1, ensure_ascii=False, sort_keys=False) + "\n"
    blobs = {names[v]: blob for v, blob in traces.items()}
    if report is not None and report_name is not None:
        blobs[report_name] = report
    with _locked(out):
        for name, blob in blobs.items():
            target = out / name
            if not target.exists():
                _atomic_write(target, blob)
        _atomic_write(out / SNAPSHOT_FILE, text.encode("utf-8"))
        keep = {out / name for name in blobs}
        stale = [*(out / TRACE_DIR).glob("*.json.gz"), *(out / REPORT_DIR).glob("*.ncu-rep.gz")]
        for path in stale:
            if path not in keep:
                path.unlink()
        for leftover in out.glob("**/.*.tmp"):  # a writer killed between its write and its rename
            leftover.unlink(missing_ok=True)
    return out / SNAPSHOT_FILE
