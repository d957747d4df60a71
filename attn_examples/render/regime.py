"""What limits a variant on one measurement: launches, an underfilled grid, memory or arithmetic (no torch).

The article reads one shape on one GPU, where the fused kernels are long and the story is bytes and
occupancy. At a small shape the same kernels finish in a few microseconds, and what a forward costs
is mostly starting them and the SMs they leave idle. The pages tell each measurement's story in its
own regime, decided here from the measurement alone, in this order:

- **launch-bound**: every GPU activity of the forward (kernels, copies, memsets: their own durations
  in the trace) lasts less than `LAUNCH_US`. Starting a kernel and filling the GPU costs a few
  microseconds, as much as such a kernel's work; the forward is a string of launches, and fewer,
  larger ones (fusion, batching, CUDA graphs) are what help.
- **grid-bound**: a longer kernel, but the longest one's grid gives fewer than half of the SMs a block
  (`GRID_FLOOR`): most of the GPU idles while it runs, whatever the kernel does inside.
- otherwise, with hardware counters and the measured ceilings, the side of the roofline: the
  variant's FLOPs per HBM byte against the ridge of its roof (the bf16 matrix product for Tensor
  Core work, the fp32 one for CUDA-core work): **memory-bound** below it, **compute-bound** above. The
  side says which roof caps the variant, not that it reaches it: `roof_share` is how much of that
  roof its kernels reach under Nsight Compute (which flushes the caches before each kernel, so a
  working set that fits in L2 is counted as if it came from HBM).
- otherwise **busy**: long kernels on a full grid, but no counters to tell bytes from arithmetic.

Apart from the regime, a variant is **host-bound** where the host's time per repeated call exceeds
the device's: in a stream of identical calls the GPU then waits for the host, whatever the kernels
do (`host_per_device`, a timed ratio, decided on its interval by `attn_examples.claims.plausible`).

A CPU measurement has no regime (no kernels, no SMs). The regime rests on the trace's durations and
launch records, not on the timed device time, so it is exact.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from attn_examples.render import hardware, views
from attn_examples.snapshot.schema import Snapshot

LAUNCH_US = 10.0  # µs: a GPU activity shorter than this costs about as much to start as to run
GRID_FLOOR = 0.5  # blocks of the longest kernel per SM under which most of the GPU idles
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


def classify(snap: Snapshot, variant_id: str) -> Regime | None:
    """The variant's regime; None where there is none (a CPU, an unavailable variant, a variant
    without GPU activities or a device time)."""
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
    intensity, roof, share = _roofline(snap, variant_id)
    if longest < LAUNCH_US:
        kind = "launch"
    elif grid is not None and grid < GRID_FLOOR:
        kind = "grid"
    elif intensity is None:
        kind = "busy"
    else:
        kind = "compute" if intensity >= 1.0 else "memory"
    busy = sum(r["dur_us"] for r in rows) / device
    return Regime(kind, longest, device / len(rows), busy, grid, intensity, roof, share)


def _roofline(snap: Snapshot, variant_id: str) -> tuple[float | None, str | None, float | None]:
    """FLOP per HBM byte over the ridge of the variant's roof (Tensor Core work held to the bf16 matrix
    product, CUDA-core work to the fp32 one), the roof, and the share of it the kernels reach: HBM bytes
    per second over the copy roof below the ridge, FLOP/s over the matrix product's above it."""
    ceilings = snap.ceilings
    totals = hardware.variant_totals(snap, variant_id) if hardware.available(snap) else None
    if ceilings is None or totals is None or not totals.get("intensity") or totals.get("tensor_flop_share") is None:
        return None, None, None
    roof = "bf16" if totals["tensor_flop_share"] >= 0.5 else "fp32"
    peak = ceilings.bf16_matmul_tflops if roof == "bf16" else ceilings.fp32_matmul_tflops
    ridge = peak * 1e12 / (ceilings.copy_gbps * 1e9)
    per_ridge = totals["intensity"] / ridge
    seconds = (totals.get("duration_us") or 0.0) * 1e-6
    share = None
    if seconds > 0:
        if per_ridge >= 1.0 and totals.get("flops"):
            share = totals["flops"] / seconds / (peak * 1e12)
        elif totals.get("dram_bytes"):
            share = totals["dram_bytes"] / seconds / (ceilings.copy_gbps * 1e9)
    return per_ridge, roof, share


def variants_in(snap: Snapshot, kind: str) -> list[str]:
    """The variants of this measurement in one regime, in registry order."""
    return [v for v in snap.variants if (r := classify(snap, v)) is not None and r.kind == kind]
