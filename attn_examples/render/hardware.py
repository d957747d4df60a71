"""What the hardware counters say, as plain rows (no torch, no ncu): per kernel, per variant,
and as roofline points.

ncu profiles one forward per variant (each in its own NVTX range); its kernels are matched to the Kineto
profile of the snapshot by launch order, and the match is checked by the kernels' base names (the
two tools demangle differently: `at::` against `at::native::`, `<unnamed>` against
`(anonymous namespace)`). Values come straight from the counters; the only arithmetic is sums,
FLOPs (tensor ops for the input dtype, plus FP32 FMA counted twice, adds and multiplies) and their
ratios. A counter the snapshot lacks makes every quantity built on it None, never zero.
"""

from __future__ import annotations

import re
from typing import Any

from attn_examples.render import views
from attn_examples.snapshot.schema import CounterKernel, Counters, Snapshot

SECTOR_BYTES = 32
# Tensor Core math operations (an FMA counts 2) by input dtype; the pass asks for all three.
TENSOR_OPS = {
    "bfloat16": "sm__ops_path_tensor_src_bf16_dst_fp32.sum",
    "float16": "sm__ops_path_tensor_src_fp16.sum",
    "float32": "sm__ops_path_tensor_src_tf32_dst_fp32.sum",
}
LIMITERS = ("registers", "shared_mem", "warps", "blocks")
ROOFLINE_MIN_FLOPS = 1e6  # kernels doing less (copies, fills) have no place on a FLOP/s axis
# A kernel that pads the head dimension computes as if it were the next multiple of this (cuDNN's tile
# names show 64 for a head dimension of 32 and 128 for one of 96); the claims test it on the FLOPs.
HEAD_DIM_PAD = 64


def padded_head_dim(head_dim: int) -> int:
    """The head dimension rounded up to a multiple of HEAD_DIM_PAD."""
    return -(-head_dim // HEAD_DIM_PAD) * HEAD_DIM_PAD


def kernel_head_dim(name: str) -> int | None:
    """The head dimension a kernel is compiled for, where its name carries it: FlashAttention-2's
    `Flash_fwd_kernel_traits<96, 128, 64, 4, …>` starts with it (a head dimension of 80 runs as 96)."""
    match = re.search(r"kernel_traits<\s*(?:\(int\))?\s*(\d+)\s*,", name)
    return int(match.group(1)) if match else None


def kernel_tiles(name: str) -> tuple[int, int, int] | None:
    """(head dimension, query rows, key rows) of a tile, where a kernel's name carries them:
    FlashAttention-2's `Flash_fwd_kernel_traits<64, 64, 256, 4, …>` (its split-KV kernel's tiles are 64
    query rows by 256 key rows)."""
    number = r"\s*(?:\(int\))?\s*(\d+)\s*"
    match = re.search(rf"kernel_traits<{number},{number},{number},", name)
    return None if match is None else (int(match.group(1)), int(match.group(2)), int(match.group(3)))


def causal_tiles(seq_len: int, rows: int, cols: int) -> tuple[int, int]:
    """(tiles a causal kernel computes, tiles in all) per batch and head, for tiles of `rows` queries by
    `cols` keys over a sequence padded up to whole tiles: each row of tiles runs up to the key tile
    that holds its last (real) query, as FlashAttention-2's causal loop bounds it."""
    row_tiles, col_tiles = -(-seq_len // rows), -(-seq_len // cols)
    computed = sum(-(-min(seq_len, (i + 1) * rows) // cols) for i in range(row_tiles))
    return computed, row_tiles * col_tiles


def _band(flops_per_triangle: float | None, seq_len: int) -> float | None:
    """The surplus over the causal triangle as a band along the diagonal, in tokens: square tiles of
    width w whose masked halves lie along the diagonal add (w / seq_len) of the triangle, so a surplus
    of (r - 1) triangles is the masked part of tiles (r - 1) * seq_len wide."""
    return None if flops_per_triangle is None else (flops_per_triangle - 1.0) * seq_len


M = {  # short names for the counters this module reads
    "read": "dram__bytes_read.sum",
    "write": "dram__bytes_write.sum",
    "l2_read": "lts__t_sectors_op_read.sum",
    "l2_write": "lts__t_sectors_op_write.sum",
    "achieved": "sm__warps_active.avg.pct_of_peak_sustained_active",
    "theoretical": "sm__maximum_warps_per_active_cycle_pct",
    "registers": "launch__registers_per_thread",
    "smem_dynamic": "launch__shared_mem_per_block_dynamic",
    "smem_static": "launch__shared_mem_per_block_static",
    "tensor_busy": "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
    "fma_busy": "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
    "local_store": "l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum",
    "local_load": "l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum",
    "gmma": "sm__inst_executed_pipe_tensor_op_gmma.sum",
    "ffma": "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
    "fadd": "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
    "fmul": "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum",
    "duration_ns": "gpu__time_duration.sum",
}


def measured_counters(snap: Snapshot) -> Counters | None:
    """The snapshot's hardware-counter pass when it has one that ran (`available`); None otherwise."""
    return snap.counters if snap.counters is not None and snap.counters.available else None


def available(snap: Snapshot) -> bool:
    return measured_counters(snap) is not None


def why_unavailable(snap: Snapshot) -> str:
    if snap.counters is None:
        return "this snapshot has no hardware-counter pass (attn-examples counters)"
    return snap.counters.reason or ""


def tool_name(snap: Snapshot) -> str:
    """'Nsight Compute 2025.3.1.0' from ncu's version line. The snapshot must have a counters pass."""
    if snap.counters is None:
        raise ValueError("this snapshot has no hardware-counter pass: it names no tool")
    match = re.search(r"Version\s+(\S+)", snap.counters.tool or "")
    return f"Nsight Compute {match.group(1)}" if match else (snap.counters.tool or "ncu")


def base_name(kernel_name: str) -> str:
    """The function's own name: `void at::native::foo<8, ...>(...)` -> `foo`."""
    name = re.sub(r"\(anonymous namespace\)|<unnamed>", "anon", kernel_name)
    name = re.sub(r"^void\s+", "", name)
    depth, head = 0, []
    for ch in name:  # drop template arguments and the parameter list
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        elif depth == 0:
            head.append(ch)
    return "".join(head).split("::")[-1].strip()


def _value(kernel: CounterKernel, short: str) -> float | None:
    return kernel.metrics.get(M[short])


def _limiter(kernel: CounterKernel) -> str | None:
    """The launch limit that allows the fewest blocks per SM (ties joined with '+')."""
    read = {name: kernel.metrics.get(f"launch__occupancy_limit_{name}") for name in LIMITERS}
    limits = {k: v for k, v in read.items() if v is not None}
    if not limits:
        return None
    low = min(limits.values())
    return "+".join(k for k, v in limits.items() if v == low)


def _sum(*values: float | None) -> float | None:
    """A sum that stays unknown when one of its terms was not measured (a metric the GPU lacks)."""
    known = [v for v in values if v is not None]
    return None if len(known) < len(values) else float(sum(known))


def _div(a: float | None, b: float | None) -> float | None:
    return None if a is None or not b else a / b


def kernel_rows(snap: Snapshot, variant_id: str) -> list[dict[str, Any]]:
    """One row per kernel ncu profiled in the variant's forward, with Kineto's estimate beside it.
    A quantity whose counter is missing from the snapshot is None, never a silent zero."""
    counters = measured_counters(snap)
    if counters is None or variant_id not in counters.variants:
        return []
    measured = counters.variants[variant_id]
    result = snap.variants.get(variant_id)
    kineto = [r for r in views.kernel_rows(result) if r["kind"] == "kernel"] if result else []
    same = len(kineto) == len(measured) and all(
        base_name(a["name"]) == base_name(b.name) for a, b in zip(kineto, measured)
    )
    tensor_metric = TENSOR_OPS[snap.config.dtype]
    rows = []
    for position, kernel in enumerate(measured):
        v = {short: _value(kernel, short) for short in M}
        tensor = kernel.metrics.get(tensor_metric)
        fp32 = _sum(*(None if (x := v[k]) is None else x * (2 if k == "ffma" else 1) for k in ("ffma", "fadd", "fmul")))
        dram = _sum(v["read"], v["write"])
        seconds = None if v["duration_ns"] is None else v["duration_ns"] * 1e-9
        flops = _sum(tensor, fp32)
        smem = None if v["smem_dynamic"] is None else int(v["smem_dynamic"] + (v["smem_static"] or 0))
        rows.append(
            {
                "position": position + 1,
                "name": kernel.name,
                "block": kernel.block,
                "grid": kernel.grid,
                "kineto_name": kineto[position]["name"] if same else None,
                "kineto_est_occupancy_pct": kineto[position]["est_occupancy_pct"] if same else None,
                "achieved_occupancy_pct": v["achieved"],
                "theoretical_occupancy_pct": v["theoretical"],
                "limiter": _limiter(kernel),
                "registers": None if v["registers"] is None else int(v["registers"]),
                "shared_memory_bytes": smem,
                "dram_read_bytes": v["read"],
                "dram_write_bytes": v["write"],
                "dram_bytes": dram,
                "l2_write_bytes": None if v["l2_write"] is None else v["l2_write"] * SECTOR_BYTES,
                "local_store_bytes": v["local_store"],
                "local_load_bytes": v["local_load"],
                "tensor_busy_pct": v["tensor_busy"],
                "fma_busy_pct": v["fma_busy"],
                "gmma_instructions": v["gmma"],
                "tensor_flops": tensor,
                "fp32_flops": fp32,
                "flops": flops,
                "duration_us": None if seconds is None else seconds * 1e6,
                "intensity": _div(flops, dram),
                "tflops": None if (rate := _div(flops, seconds)) is None else rate / 1e12,
                "matched_kineto": same,
            }
        )
    return rows


def _longest(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return max(rows, key=lambda r: r["duration_us"] or 0.0)


def main_row(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The kernel with the longest duration under ncu (the same choice views.main_kernel makes)."""
    return _longest(rows) if rows else None


def variant_totals(snap: Snapshot, variant_id: str) -> dict[str, Any] | None:
    """One forward of one variant, summed over its kernels; ratios to the sizes that matter."""
    rows = kernel_rows(snap, variant_id)
    if not rows:
        return None
    c = snap.config
    total = {
        key: _sum(*(r[key] for r in rows))
        for key in (
            "dram_read_bytes",
            "dram_write_bytes",
            "dram_bytes",
            "l2_write_bytes",
            "tensor_flops",
            "fp32_flops",
            "flops",
            "gmma_instructions",
            "duration_us",
            "local_store_bytes",
            "local_load_bytes",
        )
    }
    busy_time = _sum(
        *(
            None
            if r["tensor_busy_pct"] is None or r["duration_us"] is None
            else r["tensor_busy_pct"] * r["duration_us"]
            for r in rows
        )
    )
    seconds = None if total["duration_us"] is None else total["duration_us"] * 1e-6
    main = _longest(rows)  # main_row, for rows known not to be empty
    per_causal = _div(total["tensor_flops"], c.causal_flops)
    padding = padded_head_dim(c.head_dim) / c.head_dim
    kernel_dim = kernel_head_dim(main["name"])
    tiles = kernel_tiles(main["name"])
    reached: int | None = None  # the main kernel's own tiles a causal loop reaches, per batch and head
    skipped: int | None = None
    tile_flops: float | None = None  # those tiles' Tensor Core FLOPs, in full at its head dimension
    if tiles is not None:
        reached, all_tiles = causal_tiles(c.seq_len, tiles[1], tiles[2])
        skipped = all_tiles - reached
        tile_flops = 4.0 * c.batch * c.heads * reached * tiles[1] * tiles[2] * tiles[0]
    # what the kernels write into L2 beyond their output, and the share of it their local-memory stores
    # (register spills, counted before L1 keeps any of them) could make up at the most
    l2_surplus = None if total["l2_write_bytes"] is None else total["l2_write_bytes"] - c.tensor_bytes
    # Tensor Core FLOPs per second of busy tensor pipe (each kernel's duration times its busy share): the
    # arithmetic a busy pipe gets through, whatever share of the run it is busy
    busy_rate = _div(total["tensor_flops"], None if busy_time is None else busy_time / 100 * 1e-6)
    return {
        **total,
        "kernels": len(rows),
        "qkvo_bytes": 4 * c.tensor_bytes,
        "score_bytes": c.score_bytes,
        "dram_per_qkvo": _div(total["dram_bytes"], 4 * c.tensor_bytes),
        "dram_per_score": _div(total["dram_bytes"], c.score_bytes),
        # what is left beyond reading q, k, v and writing the output once, in score matrices: a whole
        # score matrix written to HBM would put it above one, at any shape (at a small one q, k, v and
        # the output alone can outweigh a score matrix, so dram_per_score cannot tell)
        "dram_beyond_qkvo_per_score": _div(
            None if total["dram_bytes"] is None else total["dram_bytes"] - 4 * c.tensor_bytes, c.score_bytes
        ),
        "dram_read_per_qkv": _div(total["dram_read_bytes"], 3 * c.tensor_bytes),
        "dram_write_per_output": _div(total["dram_write_bytes"], c.tensor_bytes),
        "l2_write_per_output": _div(total["l2_write_bytes"], c.tensor_bytes),
        # what reaches HBM of what the kernels write into L2, within each replay: a write that stays in L2
        # (rewritten there, or still there when the kernel ends) is never counted, so under one the HBM
        # bytes (and the shares and sides built on them) may leave out part of what the kernels write
        "hbm_write_share": _div(total["dram_write_bytes"], total["l2_write_bytes"]),
        "tensor_flops_per_causal": per_causal,
        "surplus_band_tokens": _band(per_causal, c.seq_len),
        "padded_surplus_band_tokens": _band(None if per_causal is None else per_causal / padding, c.seq_len),
        # the head dimension a kernel is built for, where its name says it (flash's kernel traits: 96 for
        # 80), and its surplus over the triangle at that head dimension
        "kernel_head_dim": kernel_dim,
        "kernel_head_dim_padding": None if kernel_dim is None else kernel_dim / c.head_dim,
        "kernel_padded_surplus_band_tokens": None
        if kernel_dim is None or per_causal is None
        else _band(per_causal * c.head_dim / kernel_dim, c.seq_len),
        # the measured Tensor Core FLOPs over those of the reached tiles: 1 where the kernel skips every
        # tile above the diagonal and nothing else
        "kernel_tiles": reached,
        "kernel_tiles_skipped": skipped,
        "kernel_tile_flops_share": _div(total["tensor_flops"], tile_flops),
        "l2_write_surplus_bytes": l2_surplus,
        "l2_surplus_spill_share": None
        if l2_surplus is None or l2_surplus <= 0
        else _div(total["local_store_bytes"], l2_surplus),
        "fp32_flops_per_causal": _div(total["fp32_flops"], c.causal_flops),
        "tensor_flop_share": _div(total["tensor_flops"], total["flops"]),
        "intensity": _div(total["flops"], total["dram_bytes"]),
        "tflops": None if (rate := _div(total["flops"], seconds)) is None else rate / 1e12,
        "tensor_busy_pct": _div(busy_time, total["duration_us"]),
        "busy_tensor_tflops": None if busy_rate is None else busy_rate / 1e12,
        "uses_gmma": None if total["gmma_instructions"] is None else total["gmma_instructions"] > 0,
        "main_name": main["name"],
        "main_achieved_occupancy_pct": main["achieved_occupancy_pct"],
        "main_theoretical_occupancy_pct": main["theoretical_occupancy_pct"],
        "main_est_occupancy_pct": main["kineto_est_occupancy_pct"],
        "main_limiter": main["limiter"],
        "main_tensor_busy_pct": main["tensor_busy_pct"],
        "main_fma_busy_pct": main["fma_busy_pct"],
        "main_registers": main["registers"],
        "main_shared_memory_bytes": main["shared_memory_bytes"],
        "main_duration_us": main["duration_us"],
        "matched_kineto": all(r["matched_kineto"] for r in rows),
    }


def roofline_points(snap: Snapshot) -> list[dict[str, Any]]:
    """Every kernel that does real arithmetic, as (FLOP per HBM byte, TFLOP/s), with its variant."""
    points = []
    counters = measured_counters(snap)
    for variant_id in counters.variants if counters is not None else []:
        for row in kernel_rows(snap, variant_id):
            if (row["flops"] or 0.0) >= ROOFLINE_MIN_FLOPS and row["intensity"] and row["tflops"]:
                points.append({"variant": variant_id, **row})
    return points
