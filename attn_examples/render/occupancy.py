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


@dataclass(frozen=True)
class Occupancy:
    blocks_per_sm: int
    warps_per_sm: int
    pct: float
    limit: str  # registers | shared memory | threads | blocks | grid | shared memory (48 KiB default)


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
    limit = min(by, key=by.__getitem__)
    return by[limit], limit


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
    row: dict[str, Any], limits: DeviceLimits, sm_count: int, compute_capability: str | None
) -> Occupancy:
    """What Kineto's calculator computes: the default 48 KiB ceiling, capped by grid blocks per SM."""
    threads = math.prod(row["block"])
    blocks, limit = _blocks(
        row["registers_per_thread"],
        threads,
        row["shared_memory_bytes"] or 0,
        limits,
        DEFAULT_SMEM_PER_BLOCK,
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
        emulated = kineto_estimate(row, limits, _required(snap.provenance.sm_count, "sm_count"), cc)
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
            }
        )
    return rows


def verdict(rows: list[dict[str, Any]], tolerance_pct: float = 1.0) -> dict[str, Any]:
    """How well each explanation predicts which kernels Kineto reads as 0%."""
    zero = [r for r in rows if r["kineto_pct"] is not None and r["kineto_pct"] < 0.5]
    matches = sum(
        1
        for r in rows
        if r["kineto_pct"] is not None and abs(r["emulated_kineto_pct"] - r["kineto_pct"]) <= tolerance_pct
    )
    return {
        "emulation_misses": len(rows) - matches,
        "runtime_api_above_48k_read_zero": sum(
            1
            for r in rows
            if not r["driver_api"] and r["above_48k"] and r["kineto_pct"] is not None and r["kineto_pct"] < 0.5
        ),
        "driver_api_below_48k_read_nonzero": sum(
            1
            for r in rows
            if r["driver_api"] and not r["above_48k"] and r["kineto_pct"] is not None and r["kineto_pct"] >= 0.5
        ),
        "kernels": len(rows),
        "zero_readings": len(zero),
        "emulation_matches": matches,
        # each explanation, as a rule: which kernels it predicts at 0%, and how many it gets wrong
        "launch_api_rule_errors": sum(
            1 for r in rows if r["kineto_pct"] is not None and (r["driver_api"] != (r["kineto_pct"] < 0.5))
        ),
        "smem_rule_errors": sum(
            1 for r in rows if r["kineto_pct"] is not None and (r["above_48k"] != (r["kineto_pct"] < 0.5))
        ),
        "driver_api_below_48k": sum(1 for r in rows if r["driver_api"] and not r["above_48k"]),
        "runtime_api_above_48k": sum(1 for r in rows if not r["driver_api"] and r["above_48k"]),
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
