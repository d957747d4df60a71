"""What limits a variant on one measurement: launches, an underfilled grid, memory or arithmetic (no torch).

The article reads one shape on one GPU, where the fused kernels are long and the story is bytes and
occupancy. At a small shape the same forward costs the host more to issue than the GPU takes to run,
and the story is launches. The pages tell each measurement's story in its own regime, decided here
from the measurement alone, in this order:

- **launch-bound**: the host's time per repeated call (Python, PyTorch's dispatcher, the kernel
  launches: `host_us`) exceeds the GPU's (`device_us`). In a stream of identical calls the GPU then
  waits for the host, whatever the kernels do; fewer launches (fusion, batching work into fewer calls,
  CUDA graphs, compiling the Python away) are what help. A timed ratio (`host_per_device`): decided at
  both ends of its interval (`attn_examples.claims.plausible`).
- **grid-bound**: otherwise, where the longest kernel's grid gives fewer than half of the SMs a block
  (`GRID_FLOOR`): most of the GPU idles while it runs, whatever the kernel does inside.
- otherwise, with hardware counters and the measured ceilings, the side of the roofline: the
  forward's FLOPs per HBM byte against the ridge of its roof (the bf16 matrix product for Tensor Core
  work, the fp32 one for CUDA-core work): **memory-bound** below it, **compute-bound** above. The side
  is an average over the forward's kernels: it says which roof caps the forward as a whole, not what
  each kernel is held by, nor that it reaches that roof: `roof_share` is how much of it the kernels
  reach under Nsight Compute (which flushes the caches before each kernel, so a working set that fits
  in L2 is counted as if it came from HBM). The roof holds the forward back (`held`) only where its
  kernels reach at least half of it (`ROOF_NEAR`) on average and spend most of their time at half or
  more of a roof: an average can clear half with most of the time in kernels off every roof
  (`off_roof_share`), a fast kernel near the roof hiding slow ones far from it. Each kernel is held
  to the roofs that apply to it, not to the forward's: its HBM bytes to the copy roof, its Tensor
  Core FLOPs to the bf16 matrix product, its FP32 FLOPs to the fp32 one (math's FP32 GEMMs, on the
  memory side as a forward, run near the fp32 roof). Elsewhere the pages name only the side: what
  takes the time is held by latency (too little in flight) or its instructions' own lower roof, not
  by a roof's bandwidth or arithmetic throughput.
- otherwise **busy**: the GPU's work sets the pace on a full grid, but no counters tell bytes from
  arithmetic.

The trace's own figures stay beside the regime as values: the longest GPU activity (`longest_us`),
the share of the device time the activities run (`busy_share`), the grid. A CPU measurement has no
regime (no kernels, no SMs).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from attn_examples.render import hardware, views
from attn_examples.snapshot.schema import Snapshot

GRID_FLOOR = 0.5  # blocks of the longest kernel per SM under which most of the GPU idles
ROOF_NEAR = 0.5  # the share of its roof under which a forward, or a kernel, is only on that side, not held by it
MOST = 0.5  # the share of a forward's kernel time that kernels off every roof (ROOF_NEAR) may not reach if it is held
KINDS = ("launch", "grid", "memory", "compute", "busy")


@dataclass(frozen=True)
class Regime:
    """One variant's regime on one measurement, with the numbers that decided it."""

    kind: str  # launch | grid | memory | compute | busy
    longest_us: float  # the forward's longest GPU activity, in the trace
    us_per_activity: float  # device time over GPU activities (kernels, copies, memsets) per forward
    busy_share: float  # the activities' own time over the device time
    grid_per_sm: float | None  # blocks of the longest kernel per SM
    intensity_per_ridge: float | None  # FLOP per HBM byte over the ridge of its roof (counters)
    roof: str | None  # bf16 | fp32: the matrix product whose ridge it was held to
    roof_share: float | None  # the share of the roof on its side that its kernels reach (counters)
    off_roof_share: float | None = None  # its kernel time in kernels under ROOF_NEAR of every roof of theirs (counters)

    @property
    def reach(self) -> str | None:
        """How close a memory or compute forward comes to its roof: `held` where its kernels reach at
        least ROOF_NEAR of it on average and kernels at ROOF_NEAR of a roof of their own take most of its
        kernel time (those off every roof, less than MOST); `mixed` where the average clears ROOF_NEAR but
        kernels off every roof take most of the time; `below` where the average does not. None without
        the counters' shares."""
        if self.kind not in ("memory", "compute") or self.roof_share is None or self.off_roof_share is None:
            return None
        if self.roof_share < ROOF_NEAR:
            return "below"
        return "held" if self.off_roof_share < MOST else "mixed"

    @property
    def held(self) -> bool:
        """The roof on its side holds the forward back (`reach` is `held`): a page may call it memory-
        or compute-bound."""
        return self.reach == "held"


def classify(snap: Snapshot, variant_id: str, host_per_device: float | None = None) -> Regime | None:
    """The variant's regime, with its medians' host time over device time or the ratio given (an end
    of its interval); None where there is none (a CPU, an unavailable variant, a variant without GPU
    activities or a device time)."""
    if snap.provenance.device_kind != "cuda":
        return None
    result = snap.variants.get(variant_id)
    if result is None or not result.available or result.timing is None or result.timing.device_us is None:
        return None
    rows = views.kernel_rows(result)
    if not rows:
        return None
    device = result.timing.device_us.median
    main = views.main_kernel(result)
    grid = math.prod(main["grid"]) / snap.provenance.sm_count if main and main["grid"] else None
    longest = max(r["dur_us"] for r in rows)
    intensity, roof, share, off = _roofline(snap, variant_id)
    if host_per_device is None and result.timing.host_us is not None:
        host_per_device = result.timing.host_us.median / device
    if host_per_device is not None and host_per_device > 1.0:
        kind = "launch"
    elif grid is not None and grid < GRID_FLOOR:
        kind = "grid"
    elif intensity is None:
        kind = "busy"
    else:
        kind = "compute" if intensity >= 1.0 else "memory"
    busy = sum(r["dur_us"] for r in rows) / device
    return Regime(kind, longest, device / len(rows), busy, grid, intensity, roof, share, off)


def _roofline(snap: Snapshot, variant_id: str) -> tuple[float | None, str | None, float | None, float | None]:
    """FLOP per HBM byte over the ridge of the variant's roof (Tensor Core work held to the bf16 matrix
    product, CUDA-core work to the fp32 one), the roof, the share of it the kernels reach (HBM bytes
    per second over the copy roof below the ridge, FLOP/s over the matrix product's above it: all of
    them over all their time, so each kernel weighs by its time), and the share of their time in
    kernels that each reach under ROOF_NEAR of every roof that applies to them (kernel_roof_shares)."""
    ceilings = snap.ceilings
    totals = hardware.variant_totals(snap, variant_id) if hardware.available(snap) else None
    if ceilings is None or totals is None or not totals.get("intensity") or totals.get("tensor_flop_share") is None:
        return None, None, None, None
    roof = "bf16" if totals["tensor_flop_share"] >= 0.5 else "fp32"
    peak = ceilings.bf16_matmul_tflops if roof == "bf16" else ceilings.fp32_matmul_tflops
    ridge = peak * 1e12 / (ceilings.copy_gbps * 1e9)
    per_ridge = totals["intensity"] / ridge
    seconds = (totals.get("duration_us") or 0.0) * 1e-6
    share = off = None
    compute = per_ridge >= 1.0
    if seconds > 0:
        if compute and totals.get("flops"):
            share = totals["flops"] / seconds / (peak * 1e12)
        elif not compute and totals.get("dram_bytes"):
            share = totals["dram_bytes"] / seconds / (ceilings.copy_gbps * 1e9)
    if share is not None:
        rows = hardware.kernel_rows(snap, variant_id)
        under = sum(r["duration_us"] for r in rows if r["duration_us"] and max(kernel_roof_shares(snap, r)) < ROOF_NEAR)
        off = under / totals["duration_us"]
    return per_ridge, roof, share, off


def kernel_roof_shares(snap: Snapshot, row: dict) -> tuple[float, float, float]:
    """One kernel (a row of hardware.kernel_rows) against each roof that applies to it: its HBM bytes per
    second over the copy roof, its Tensor Core FLOPs per second over the bf16 matrix product's, its FP32
    FLOPs per second over the fp32 one's (a count the counters lack reaches nothing). The snapshot must
    have its ceilings and the row a duration."""
    ceilings = snap.ceilings
    assert ceilings is not None and row["duration_us"]
    seconds = row["duration_us"] * 1e-6
    return (
        (row["dram_bytes"] or 0.0) / seconds / (ceilings.copy_gbps * 1e9),
        (row["tensor_flops"] or 0.0) / seconds / (ceilings.bf16_matmul_tflops * 1e12),
        (row["fp32_flops"] or 0.0) / seconds / (ceilings.fp32_matmul_tflops * 1e12),
    )


def variants_in(snap: Snapshot, kind: str) -> list[str]:
    """The variants of this measurement in one regime, in registry order."""
    return [v for v in snap.variants if (r := classify(snap, v)) is not None and r.kind == kind]
