"""Theoretical occupancy from a kernel's launch record and the device's limits (no torch).

Kineto's `est. achieved occupancy %` comes from CUDA's occupancy calculator called with the
*default* shared-memory configuration (a 48 KiB ceiling per block) and capped by the grid's
blocks per SM. `kineto_estimate` reproduces that; `theoretical` uses the opt-in ceiling a kernel
that asks for more than 48 KiB really runs with. Setting the two side by side, with the launch
API, tests the two explanations of cuDNN's 0% reading: a driver-API launch that CUPTI does not
follow, or a calculator that refuses any block above 48 KiB.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from attn_examples.render import views
from attn_examples.render.arch import (
    DEFAULT_SMEM_PER_BLOCK,
    REG_ALLOC_UNIT,
    RESERVED_SMEM_PER_BLOCK,
    SMEM_GRANULARITY,
    arch,
)
from attn_examples.snapshot.schema import DeviceLimits, Snapshot

# The trace rounds the estimate to a whole percent: a kernel whose blocks, spread over every SM, fill
# less than half a percent of the warp slots reads 0 whatever its shared memory (an honest zero).
GRID_ZERO_PCT = 0.5


@dataclass(frozen=True)
class Occupancy:
    blocks_per_sm: int
    warps_per_sm: int
    pct: float
    # registers | shared memory | threads | blocks | grid | shared memory above the per-block ceiling;
    # resources that allow the same fewest blocks are all named, joined with '+' as Nsight Compute
    # joins them ('registers+shared memory': either alone would cap the SM there)
    limit: str


def _required(value: int | None, name: str) -> int:
    """A device limit occupancy is computed against; a snapshot whose device did not report it
    (DeviceLimits keeps None for what torch did not expose) cannot give occupancy."""
    if value is None:
        raise ValueError(f"the snapshot does not report its device's {name}: no theoretical occupancy without it")
    return value


def _blocks(
    regs: int, threads: int, smem: int, limits: DeviceLimits, smem_ceiling: int, max_blocks: int
) -> tuple[int, str]:
    warps = math.ceil(threads / limits.warp_size)
    by = {"blocks": max_blocks, "threads": _required(limits.max_threads_per_sm, "max_threads_per_sm") // threads}
    regs_per_warp = math.ceil(regs * limits.warp_size / REG_ALLOC_UNIT) * REG_ALLOC_UNIT
    if regs_per_warp:
        by["registers"] = _required(limits.regs_per_sm, "regs_per_sm") // (regs_per_warp * warps)
    if smem > smem_ceiling:
        return 0, "shared memory above the per-block ceiling"
    if smem:
        per_block = math.ceil((smem + RESERVED_SMEM_PER_BLOCK) / SMEM_GRANULARITY) * SMEM_GRANULARITY
        by["shared memory"] = _required(limits.smem_per_sm_bytes, "smem_per_sm_bytes") // per_block
    fewest = min(by.values())
    return fewest, "+".join(name for name, blocks in by.items() if blocks == fewest)


def _result(blocks: int, limit: str, threads: int, limits: DeviceLimits) -> Occupancy:
    warps = blocks * math.ceil(threads / limits.warp_size)
    max_warps = _required(limits.max_threads_per_sm, "max_threads_per_sm") // limits.warp_size
    return Occupancy(blocks, warps, 100.0 * warps / max_warps, limit)


def theoretical(row: dict[str, Any], limits: DeviceLimits, compute_capability: str | None) -> Occupancy:
    """Resident blocks per SM as the hardware allows them, with the opt-in shared-memory ceiling."""
    threads = math.prod(row["block"])
    blocks, limit = _blocks(
        row["registers_per_thread"],
        threads,
        row["shared_memory_bytes"] or 0,
        limits,
        _required(limits.smem_per_block_optin_bytes, "smem_per_block_optin_bytes"),
        arch(compute_capability).max_blocks_per_sm,
    )
    return _result(blocks, limit, threads, limits)


def kineto_estimate(
    row: dict[str, Any], limits: DeviceLimits, sm_count: int, compute_capability: str | None, opt_in: bool = False
) -> Occupancy:
    """What Kineto's calculator computes: the default 48 KiB ceiling, capped by grid blocks per SM.
    `opt_in`: the same with the ceiling the kernel really runs with, what the column would read if the
    calculator allowed the shared memory the kernel opted in to (below `GRID_ZERO_PCT`: the grid alone
    rounds the estimate to zero)."""
    threads = math.prod(row["block"])
    ceiling = DEFAULT_SMEM_PER_BLOCK
    if opt_in:
        ceiling = _required(limits.smem_per_block_optin_bytes, "smem_per_block_optin_bytes")
    blocks, limit = _blocks(
        row["registers_per_thread"],
        threads,
        row["shared_memory_bytes"] or 0,
        limits,
        ceiling,
        arch(compute_capability).max_blocks_per_sm,
    )
    grid_per_sm = math.prod(row["grid"]) / sm_count
    if blocks and grid_per_sm < blocks:
        warps = grid_per_sm * math.ceil(threads / limits.warp_size)
        pct = 100.0 * warps / (_required(limits.max_threads_per_sm, "max_threads_per_sm") // limits.warp_size)
        return Occupancy(blocks, int(warps), pct, "grid")
    return _result(blocks, limit, threads, limits)


def _launch_rows(snap: Snapshot) -> list[tuple[str, dict[str, Any]]]:
    """(where, kernel row) for every kernel of the default shape, and the main kernel of every
    sweep point (other shapes bring other launch configurations: the decisive cases)."""
    out = []
    for variant_id, result in snap.variants.items():
        if result.available:
            out += [(variant_id, row) for row in views.kernel_rows(result) if row["kind"] == "kernel"]
    if snap.sweep is not None:
        for p in snap.sweep.points:
            if p.available and p.main_threads and p.main_grid_blocks and p.main_registers is not None:
                out.append(
                    (
                        f"{p.variant} @ seq {p.seq_len}, d {p.head_dim}",
                        {
                            "name": p.main_kernel,
                            "launch_api": p.main_launch_api,
                            "block": [p.main_threads, 1, 1],
                            "grid": [p.main_grid_blocks, 1, 1],
                            "registers_per_thread": p.main_registers,
                            "shared_memory_bytes": p.main_smem_bytes,
                            "est_occupancy_pct": p.main_occupancy_pct,
                        },
                    )
                )
    return out


def evidence_rows(snap: Snapshot) -> list[dict[str, Any]]:
    """Every kernel measured: launch API, shared memory, Kineto's %, our two computations."""
    limits = snap.provenance.device_limits
    if limits is None or snap.provenance.compute_capability is None:
        return []
    cc = snap.provenance.compute_capability
    rows = []
    for variant_id, row in _launch_rows(snap):
        if row["registers_per_thread"] is None or not row["block"] or not row["grid"]:
            continue
        ours = theoretical(row, limits, cc)
        sm_count = _required(snap.provenance.sm_count, "sm_count")
        emulated = kineto_estimate(row, limits, sm_count, cc)
        grid_capped = kineto_estimate(row, limits, sm_count, cc, opt_in=True)
        rows.append(
            {
                "variant": variant_id,
                "name": row["name"],
                "launch_api": row["launch_api"],
                "driver_api": bool(row["launch_api"]) and not row["launch_api"].startswith("cuda"),
                "shared_memory_bytes": row["shared_memory_bytes"] or 0,
                "above_48k": (row["shared_memory_bytes"] or 0) > DEFAULT_SMEM_PER_BLOCK,
                "registers_per_thread": row["registers_per_thread"],
                "threads": math.prod(row["block"]),
                "grid_blocks": math.prod(row["grid"]),
                "kineto_pct": row["est_occupancy_pct"],
                "theoretical_pct": ours.pct,
                "theoretical_limit": ours.limit,
                "emulated_kineto_pct": emulated.pct,
                "grid_capped_pct": grid_capped.pct,
                "grid_zero": grid_capped.pct < GRID_ZERO_PCT,
            }
        )
    return rows


def verdict(rows: list[dict[str, Any]], tolerance_pct: float = 1.0) -> dict[str, Any]:
    """How well each explanation predicts which kernels Kineto reads as 0%.

    A kernel whose grid alone rounds the estimate to zero (`grid_zero`: too few blocks for every SM,
    even with the shared memory it opted in to) reads zero under either explanation: an honest zero
    that tells them nothing. The rules are scored, and the kinds of kernel they disagree on counted,
    over the other kernels."""

    def zero(r: dict[str, Any]) -> bool:
        return r["kineto_pct"] < GRID_ZERO_PCT

    read = [r for r in rows if r["kineto_pct"] is not None]
    matches = sum(1 for r in read if abs(r["emulated_kineto_pct"] - r["kineto_pct"]) <= tolerance_pct)
    scored = [r for r in read if not r["grid_zero"]]  # a grid large enough for a reading
    runtime_above = [r for r in scored if not r["driver_api"] and r["above_48k"]]
    driver_below = [r for r in scored if r["driver_api"] and not r["above_48k"]]
    return {
        "emulation_misses": len(rows) - matches,
        "kernels": len(rows),
        "zero_readings": sum(1 for r in read if zero(r)),
        "emulation_matches": matches,
        # the zeros by cause: a grid too small for a reading (honest), the default ceiling, neither
        "grid_zero_kernels": sum(1 for r in read if r["grid_zero"]),
        "grid_zero_readings": sum(1 for r in read if r["grid_zero"] and zero(r)),
        "ceiling_zero_readings": sum(1 for r in scored if r["above_48k"] and zero(r)),
        "unexplained_zero_readings": sum(1 for r in scored if not r["above_48k"] and zero(r)),
        # each explanation, as a rule over the kernels with a grid large enough for a reading: which
        # it predicts at 0%, and how many it gets wrong
        "scored_kernels": len(scored),
        "launch_api_rule_errors": sum(1 for r in scored if r["driver_api"] != zero(r)),
        "smem_rule_errors": sum(1 for r in scored if r["above_48k"] != zero(r)),
        # the two kinds of kernel the rules disagree on, and how they read
        "runtime_api_above_48k": len(runtime_above),
        "runtime_api_above_48k_read_zero": sum(1 for r in runtime_above if zero(r)),
        "driver_api_below_48k": len(driver_below),
        "driver_api_below_48k_read_nonzero": sum(1 for r in driver_below if not zero(r)),
        # the driver-API launches within the ceiling on any grid, the ones too small for a reading included
        "driver_api_below_48k_any_grid": sum(1 for r in read if r["driver_api"] and not r["above_48k"]),
        "decisive_kernels": len(runtime_above) + len(driver_below),
    }


def _triple(text: str) -> list[int]:
    """ncu's '(128, 1, 1)' as [128, 1, 1]."""
    return [int(part) for part in text.strip("()[] ").split(",") if part.strip()]


def against_ncu(snap: Snapshot) -> list[dict[str, Any]]:
    """`theoretical` beside Nsight Compute's own theoretical occupancy, for every kernel the counters
    pass profiled: the calculator checked on the launches ncu recorded (registers, shared memory,
    block). Empty without counters or device limits."""
    from attn_examples.render import hardware

    limits, cc = snap.provenance.device_limits, snap.provenance.compute_capability
    counters = hardware.measured_counters(snap)
    if counters is None or limits is None or cc is None:
        return []
    rows = []
    for variant_id in counters.variants:
        for r in hardware.kernel_rows(snap, variant_id):
            if r["registers"] is None or not r["block"]:
                continue
            ours = theoretical(
                {
                    "block": _triple(r["block"]),
                    "registers_per_thread": r["registers"],
                    "shared_memory_bytes": r["shared_memory_bytes"],
                },
                limits,
                cc,
            )
            rows.append(
                {
                    "variant": variant_id,
                    "name": r["name"],
                    "ours_pct": ours.pct,
                    "ours_limit": ours.limit,
                    "ncu_pct": r["theoretical_occupancy_pct"],
                    "ncu_limit": r["limiter"],
                }
            )
    return rows
