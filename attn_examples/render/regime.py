"""What limits a variant on one measurement: launches, memory or arithmetic (no torch).

The article reads one shape on one GPU, where the fused kernels are long and the story is bytes and
occupancy. At a small shape the same kernels finish in a few microseconds, and what a forward costs
is mostly starting them and the SMs they leave idle. The pages tell each measurement's story in its
own regime, decided here from the measurement alone:

- **launch-bound**: a GPU activity lasts on average less than `LAUNCH_US` of device time (starting a
  kernel and filling the GPU costs a few microseconds, comparable to such a kernel's work), or the
  variant's longest kernel gives fewer than half of the GPU's SMs a block (`GRID_FLOOR`). Fewer,
  larger launches are what help here: fusion, batching, CUDA graphs.
- otherwise, with hardware counters and the roofline's measured ceilings, the variant's FLOPs per HBM
  byte against the ridge of its roof (the bf16 matrix product for Tensor Core work, the fp32 one
  for CUDA-core work): below it **memory-bound**, above it **compute-bound**;
- otherwise **busy**: the kernels keep the GPU busy, but without counters this measurement cannot
  tell bytes from arithmetic.

A CPU measurement has no regime (no kernels, no SMs). The average activity time rests on the device
time, a timed quantity: `classify` takes the device time to use, so that a claim on the regime is
decided at both ends of its interval (`attn_examples.claims.plausible`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from attn_examples.render import hardware, views
from attn_examples.snapshot.schema import Snapshot

LAUNCH_US = 10.0  # µs of device time per GPU activity under which launching is a large part of the cost
GRID_FLOOR = 0.5  # blocks of the longest kernel per SM under which most of the GPU idles
KINDS = ("launch", "memory", "compute", "busy")


@dataclass(frozen=True)
class Regime:
    """One variant's regime on one measurement, with the numbers that decided it."""

    kind: str  # launch | memory | compute | busy
    us_per_activity: float  # device time over GPU activities (kernels, copies, memsets) per forward
    busy_share: float  # the activities' own time over the device time
    grid_per_sm: float | None  # blocks of the longest kernel per SM
    intensity_per_ridge: float | None  # FLOP per HBM byte over the ridge of its roof (counters)
    roof: str | None  # bf16 | fp32: the matrix product whose ridge it was held to

    @property
    def short_kernels(self) -> bool:
        return self.us_per_activity < LAUNCH_US

    @property
    def underfilled(self) -> bool:
        return self.grid_per_sm is not None and self.grid_per_sm < GRID_FLOOR


def classify(snap: Snapshot, variant_id: str, device_us: float | None = None) -> Regime | None:
    """The variant's regime, with its median device time or the one given; None where there is none
    (a CPU, an unavailable variant, a variant without GPU activities or a device time)."""
    if snap.provenance.device_kind != "cuda":
        return None
    result = snap.variants.get(variant_id)
    if result is None or not result.available or result.timing is None or result.timing.device_us is None:
        return None
    rows = views.kernel_rows(result)
    if not rows:
        return None
    device = device_us if device_us is not None else result.timing.device_us.median
    main = views.main_kernel(result)
    grid = math.prod(main["grid"]) / snap.provenance.sm_count if main and main["grid"] else None
    busy = sum(r["dur_us"] for r in rows) / device
    per_activity = device / len(rows)
    intensity, roof = _intensity(snap, variant_id)
    if per_activity < LAUNCH_US or (grid is not None and grid < GRID_FLOOR):
        kind = "launch"
    elif intensity is None:
        kind = "busy"
    else:
        kind = "compute" if intensity >= 1.0 else "memory"
    return Regime(kind, per_activity, busy, grid, intensity, roof)


def _intensity(snap: Snapshot, variant_id: str) -> tuple[float | None, str | None]:
    """FLOP per HBM byte over the ridge of the variant's roof: Tensor Core work is held to the
    bf16 matrix product, CUDA-core work to the fp32 one."""
    ceilings = snap.ceilings
    totals = hardware.variant_totals(snap, variant_id) if hardware.available(snap) else None
    if ceilings is None or totals is None or not totals.get("intensity") or totals.get("tensor_flop_share") is None:
        return None, None
    roof = "bf16" if totals["tensor_flop_share"] >= 0.5 else "fp32"
    peak = ceilings.bf16_matmul_tflops if roof == "bf16" else ceilings.fp32_matmul_tflops
    ridge = peak * 1e12 / (ceilings.copy_gbps * 1e9)
    return totals["intensity"] / ridge, roof


def variants_in(snap: Snapshot, kind: str) -> list[str]:
    """The variants of this measurement in one regime (at their median times), in registry order."""
    return [v for v in snap.variants if (r := classify(snap, v)) is not None and r.kind == kind]
