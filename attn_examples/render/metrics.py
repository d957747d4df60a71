"""Named quantities over a snapshot: the one vocabulary of prose values and claims (no torch).

A key names one raw value:

- `<variant>.<metric>` with metric one of
  kernels, gpu_activities, memcpys, memsets, cpu_ops, transposes, launches (counts per forward),
  device_us, host_us, host_first_us (first call after a backend switch), stream_us (what a call costs in a
  stream of identical calls: the longer of host and device time, round by round), compile_s, peak_memory_bytes,
  host_per_device, host_first_per_device (host time over device time), host_first_per_repeat (first call's
  host time over a repeated call's),
  rel_error, available,
  main_name, main_short_name, main_registers, main_occupancy_pct, main_smem_bytes, main_threads,
  main_launch_api, main_dur_us, main_theoretical_occupancy_pct (the kernel with the largest median
  duration),
  tensor_core_kernels, cuda_core_kernels (kernels whose names say so),
  main_blocks_per_sm, main_warps_per_block, main_resident_warps, main_theoretical_limit, main_grid_blocks,
  main_grid_per_sm (the same kernel against the device's limits), main_tiles_per_block (batch x heads x
  ceil(seq_len / 128) query tiles over its blocks), main_grid_slot_share (its blocks over those the SMs
  hold at once, main_blocks_per_sm on each: under 1 the grid caps the occupancy below the theoretical
  figure), main_grid_capped_pct (Kineto's estimate
  with the shared memory the kernel opted in to: its grid's own cap; under 0.5 the grid alone reads 0%),
  main_role (what the main kernel does: views.ROLES),
  gemm_kernels, gemm_launch_api, gemm_name (the matrix products, by name), gemm_share (their share of
  the kernel time), unavailable_reason, memcpy_bytes, memset_bytes, memcpy_per_score (copied bytes
  over one score matrix),
  gemm_name_last, gemm_launch_api_last (the last matrix product's), gemm_names, gemm_launch_apis (how
  many different names and launch calls the matrix products have), gemm_us (their kernel time per forward),
  longer_than_gemms (kernels other than matrix products that run longer than the shortest of them),
  memsets_not_before_gemm (memsets whose next GPU activity is not a matrix product),
  `memsets_outside_op[<regex>]` (memsets whose launch call no host op of that name encloses: the
  trace's nesting, first profiled step),
  peak_scores_beside_output (peak memory less one output tensor, over one score matrix),
  split_kv_partial_bytes (FlashAttention-2's split-KV partial results, as PyTorch's source allocates them,
  where a combine kernel ran), peak_per_split_kv_partials (peak memory less one output tensor, over them),
  `op[<aten op>]` (calls of that host op per forward), `op_share[<aten op>]` (that op's total time over the
  self time of every host op of the forward),
  `kernels_matching[<regex>]`, `kernels_not_matching[<regex>]` (kernels whose name does / does not match),
  `launch_api[<regex>]` (the launch call of the first kernel whose name matches),
  `main_name_match[<regex>]` (the part of the main kernel's name that matches),
  `role[<role>]` (kernels of that role: see views.ROLES), `role_us[<roles>]` (their kernel time per forward;
  the argument matches role names in full, "isneginf|reduce"), costliest_role, costliest_role_us (the role
  whose kernels take the most time, and that time),
  regime (launch | grid | memory | compute | busy: attn_examples.render.regime), longest_us (the
  forward's longest GPU activity), us_per_activity (device time over GPU activities), busy_share (the
  activities' own time over the device time), intensity_per_ridge (FLOP per HBM byte over the ridge of
  its roof), roof_share (the share of that roof its kernels reach under Nsight Compute), off_roof_share
  (the share of their time in kernels that each reach under half of every roof of their own: bytes,
  Tensor Core and FP32 arithmetic, regime.kernel_roof_shares)
- `regime.variants[<kind>]`: how many variants are in that regime; `regime.share[<kind>]`: their share of
  the variants with a regime; `regime.all[<kind>]`: whether every one is (launch-bound rests on a timed
  ratio per variant: these are decided on the intervals)
- `ratio.<a>.<b>.<metric>`: a's metric over b's; `diff.<a>.<b>.<metric>`: a's minus b's;
  `gap_share.<a>.<b>[<roles>]`: the share of a's GPU time beyond b's (activities in the trace) that a's kernels
  of those roles account for beyond b's (over 1 where a saves time elsewhere)
- `fastest.device_us`: the variant with the smallest device time; `slowest.device_us` likewise;
  `lowest.<metric>` and `highest.<metric>`: the variant with the smallest or largest value of any metric
  (`lowest.rel_error`), among the variants that have it;
  `winner` in place of a variant names that fastest one (`winner.peak_memory_bytes`);
  `fastest.stream_as_device`: whether the variant with the smallest device time also has the smallest
  stream_us (the cheapest call in a stream of identical calls, where the host may set the pace)
- `dispatch.auto`: the backend an un-pinned SDPA call ran; `dispatch.auto_variant`: the variant that pins it;
  `dispatch.auto_is_fastest`: whether that variant is the fastest measured
- `config.<field>`: the measured configuration (dtype, shape, batch, heads, seq_len, head_dim, and the
  sizes derived from it: tensor_bytes, qkv_bytes, qkvo_bytes, score_bytes, score_fp32_bytes;
  matches_article: the article's dtype and shape; rounding: the dtype's unit roundoff; score_per_l2,
  score_fp32_per_l2: a score matrix over the GPU's L2, at most 1 where it fits; head_dim_padded: the head
  dimension rounded up to a multiple of 64, head_dim_padding: that over the head dimension; on a GPU,
  split_kv_tiles: batch x heads x query tiles of 64 rows, and split_kv_fill_share: those over two blocks per
  SM, which PyTorch's FlashAttention-2 weighs splitting the keys under, below 0.8)
- `arch.<field>`: what the measured GPU allows per SM (the snapshot's device limits, else the table of
  `attn_examples.render.arch`): max_warps_per_sm, max_threads_per_sm, max_blocks_per_sm, regs_per_sm,
  smem_per_sm_bytes, smem_optin_per_block_bytes, default_smem_per_block_bytes, max_regs_per_thread
- `sweep.…`, `training.…`, `occupancy.…`: see _sweep_metric, _training_metric, _occupancy_metric
- `counters.<variant>.<field of hardware.variant_totals()>|intensity_per_ridge|theoretical_vs_calculator`
  (among the fields: surplus_band_tokens, the Tensor Core surplus over the causal triangle as a band along
  the diagonal, in tokens, and padded_surplus_band_tokens, the same over the triangle at head_dim_padded;
  busy_tensor_tflops, Tensor Core FLOPs per second of busy tensor pipe; l2_write_surplus_bytes, L2 writes
  beyond the output, and l2_surplus_spill_share, the local-memory stores over them;
  kernel_head_dim, the head dimension the main kernel is compiled for where its name says it, and
  kernel_padded_surplus_band_tokens, the surplus band at that head dimension; kernel_tiles and
  kernel_tiles_skipped, the main kernel's tiles (from its name) a causal loop reaches per batch and head,
  and the others, and kernel_tile_flops_share, the Tensor Core FLOPs over those of the reached tiles; hbm_write_share, the share of the kernels' L2 writes that reaches HBM within their replays),
  `counters.<variant>.dram_per_fp32_score|flops_per_causal`, `counters.<variant>.bandwidth_share[<roles>]` (its
  kernels of those roles, named in full as in role_us: HBM bytes per second over ceilings.copy_gbps),
  `counters.<variant>.tensor_busy_pct[<roles>]` (the share of those kernels' time their Tensor Core pipe
  is busy), `counters.<variant>.fp32_roof_share[<roles>]` (the same kernels' FP32 FLOPs per second over
  ceilings.fp32_matmul_tflops), `counters.<variant>.wgmma_kernel_share[<roles>]` (the share of those
  kernels that issue warpgroup (wgmma) instructions),
  `counters.ratio.<a>.<b>.<field>`, `counters.qkvo_bytes|score_bytes|tool|wall_s`: the Nsight Compute pass;
  `ceilings.<field of Ceilings>`: the roofline's measured roofs
- `device.name|cc|sms|torch|cuda|cudnn|date|kind|l2_bytes|arch|sm|mma|memory_bytes`
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from attn_examples.render import views
from attn_examples.snapshot import kineto
from attn_examples.snapshot.schema import Snapshot, SweepPoint, TrainingPoint, load_trace, recorded

if TYPE_CHECKING:
    from attn_examples.render.arch import Arch
    from attn_examples.render.occupancy import Occupancy
    from attn_examples.snapshot.schema import DeviceLimits

_KEY = re.compile(r"^(?P<head>[^\[\]]+?)(?:\[(?P<arg>.+)\])?$")
QUERY_TILE = 128  # query rows of a tile, at the most, in the fused kernels this site meets (main_tiles_per_block)
BACKEND_VARIANTS = {
    "MATH": "sdpa_math",
    "EFFICIENT_ATTENTION": "sdpa_efficient",
    "FLASH_ATTENTION": "sdpa_flash",
    "CUDNN_ATTENTION": "sdpa_cudnn",
}


class UnknownMetric(KeyError):
    """A key that names nothing in this snapshot (unknown, or its variant is unavailable)."""

    def __str__(self) -> str:
        return str(self.args[0])


def _kernels(snap: Snapshot, variant_id: str) -> list[dict[str, Any]]:
    return [r for r in views.kernel_rows(snap.variants[variant_id]) if r["kind"] == "kernel"]


def _limits(snap: Snapshot) -> tuple[DeviceLimits, Arch | None]:
    """The device's per-SM limits: as the snapshot read them, completed from the architecture table
    (the table's row is None for an architecture it does not know, when the snapshot read the limits)."""
    from attn_examples.render import arch
    from attn_examples.snapshot.schema import DeviceLimits

    p = snap.provenance
    if p.device_kind != "cuda":
        raise UnknownMetric(f"{p.device_name} is not a GPU: it has no per-SM limits")
    measured = p.device_limits
    try:
        row = arch.arch(p.compute_capability)
    except arch.UnknownArch as exc:
        if measured is None:
            raise UnknownMetric(str(exc)) from None
        return measured, None
    if measured is None:
        measured = DeviceLimits(
            32, row.regs_per_sm, row.max_threads_per_sm, row.smem_per_sm_bytes, row.smem_optin_per_block_bytes, None
        )
    return measured, row


def _arch_metric(snap: Snapshot, field_name: str) -> Any:
    from attn_examples.render import arch

    measured, row = _limits(snap)
    values = {
        "regs_per_sm": measured.regs_per_sm,
        "max_threads_per_sm": measured.max_threads_per_sm,
        "max_warps_per_sm": (measured.max_threads_per_sm // measured.warp_size)
        if measured.max_threads_per_sm
        else None,
        "smem_per_sm_bytes": measured.smem_per_sm_bytes,
        "smem_optin_per_block_bytes": measured.smem_per_block_optin_bytes,
        "max_blocks_per_sm": row.max_blocks_per_sm if row else None,
        "default_smem_per_block_bytes": arch.DEFAULT_SMEM_PER_BLOCK,
        "max_regs_per_thread": arch.MAX_REGS_PER_THREAD,
        "reg_alloc_unit": arch.REG_ALLOC_UNIT,
        "warp_size": measured.warp_size,
    }
    if values.get(field_name) is None:
        raise UnknownMetric(f"unknown or unmeasured arch key {field_name!r} on {snap.provenance.device_name}")
    return values[field_name]


def _main_occupancy(snap: Snapshot, variant_id: str, main: dict[str, Any]) -> Occupancy:
    from attn_examples.render import occupancy

    measured, _ = _limits(snap)
    if main["registers_per_thread"] is None or not main["block"]:
        raise UnknownMetric(f"the main kernel of {variant_id!r} has no launch record")
    return occupancy.theoretical(main, measured, snap.provenance.compute_capability)


def variant_metric(snap: Snapshot, variant_id: str, name: str, arg: str | None = None) -> Any:
    if variant_id not in snap.variants:
        raise UnknownMetric(f"variant {variant_id!r} is not in this snapshot")
    result = snap.variants[variant_id]
    if name == "available":
        return result.available
    if name == "unavailable_reason" and not result.available:
        return views.short_reason(result.unavailable_reason)
    if not result.available:
        raise UnknownMetric(
            f"variant {variant_id!r} is unavailable on {snap.provenance.device_name}: "
            f"{views.short_reason(result.unavailable_reason)}"
        )
    if arg is not None:
        if name == "op":
            step = recorded(result.profile, f"variants.{variant_id}.profile").steps[0]
            return sum(op.count for op in step.cpu_ops if op.name == arg)
        if name == "op_share":  # how much of the forward's host-op time one op takes, its children included
            step = recorded(result.profile, f"variants.{variant_id}.profile").steps[0]
            total = sum(op.self_us for op in step.cpu_ops)
            if not total:
                raise UnknownMetric(f"variant {variant_id!r} has no host-op time on {snap.provenance.device_name}")
            return sum(op.total_us for op in step.cpu_ops if op.name == arg) / total
        if name == "kernels_matching":
            return sum(1 for r in _kernels(snap, variant_id) if re.search(arg, r["name"], re.I))
        if name == "role":
            return sum(1 for r in _kernels(snap, variant_id) if views.kernel_role(r["name"]) == arg)
        if name == "role_us":  # kernel time per forward of the roles the argument names in full ("a|b": both)
            kernels = _kernels(snap, variant_id)
            if not kernels:
                raise UnknownMetric(f"variant {variant_id!r} has no kernels on {snap.provenance.device_name}")
            return sum(r["dur_us"] for r in kernels if re.fullmatch(arg, views.kernel_role(r["name"])))
        if name == "memsets_outside_op":  # the trace's host-op nesting: which operator issued each memset
            trace = load_trace(snap, variant_id, required=False)
            if trace is None:
                raise UnknownMetric(f"variant {variant_id!r} has no trace in this snapshot")
            try:
                launches = views.launch_host_ops(trace)
            except kineto.TraceError as exc:
                raise UnknownMetric(f"variant {variant_id!r}: {exc}") from None
            return sum(1 for kind, ops in launches if kind == "memset" and not any(re.fullmatch(arg, op) for op in ops))
        if name == "kernels_not_matching":
            return sum(1 for r in _kernels(snap, variant_id) if not re.search(arg, r["name"], re.I))
        if name == "launch_api":
            for r in views.kernel_rows(result):
                if re.search(arg, r["name"], re.I):
                    return r["launch_api"]
            raise UnknownMetric(f"no kernel of {variant_id!r} matches {arg!r}")
        if name == "main_name_match":
            main = views.main_kernel(result)
            found = re.search(arg, main["name"]) if main else None
            if found is None:
                raise UnknownMetric(f"the main kernel of {variant_id!r} has no part matching {arg!r}")
            return found.group(0)
        raise UnknownMetric(f"metric {name!r} takes no [argument]")
    counts = views.counts(result)
    if name in counts:
        return counts[name]
    if name in (
        "regime",
        "longest_us",
        "us_per_activity",
        "busy_share",
        "intensity_per_ridge",
        "roof_share",
        "off_roof_share",
    ):
        from attn_examples.render import regime

        limit = regime.classify(snap, variant_id)
        if limit is None:
            raise UnknownMetric(f"{variant_id} has no regime on {snap.provenance.device_name} (GPU kernels only)")
        value = limit.kind if name == "regime" else getattr(limit, name)
        if value is None:
            raise UnknownMetric(f"{variant_id}.{name} needs hardware counters and the measured ceilings")
        return value
    timing = recorded(result.timing, f"variants.{variant_id}.timing")
    plain = {
        "device_us": timing.device_us.median if timing.device_us else None,
        "host_us": timing.host_us.median if timing.host_us else None,
        "host_first_us": timing.host_first_us.median if timing.host_first_us else None,
        "compile_s": timing.compile_s,
        "peak_memory_bytes": timing.peak_memory_bytes,
        "rel_error": timing.rel_error,
    }
    if name == "stream_us":  # a call's cost in a stream: the longer of host and device, per round
        blocks = views.stream_blocks(result)
        if not blocks:
            raise UnknownMetric(f"{variant_id}.stream_us was not measured on {snap.provenance.device_name}")
        ordered = sorted(blocks)
        mid = len(ordered) // 2
        return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2
    if name in plain:
        if plain[name] is None:
            raise UnknownMetric(f"{variant_id}.{name} was not measured on {snap.provenance.device_name}")
        return plain[name]
    if name in ("host_per_device", "host_first_per_device", "host_first_per_repeat"):
        top, bottom = {
            "host_per_device": ("host_us", "device_us"),
            "host_first_per_device": ("host_first_us", "device_us"),
            "host_first_per_repeat": ("host_first_us", "host_us"),
        }[name]
        return variant_metric(snap, variant_id, top) / variant_metric(snap, variant_id, bottom)
    if name == "unavailable_reason":
        raise UnknownMetric(f"variant {variant_id!r} is available on {snap.provenance.device_name}")
    if name in ("gemm_kernels", "gemm_launch_api", "gemm_name", "gemm_launch_api_last", "gemm_name_last"):
        gemms = [r for r in _kernels(snap, variant_id) if views.is_gemm(r["name"])]
        if name == "gemm_kernels":
            return len(gemms)
        if not gemms:
            raise UnknownMetric(f"variant {variant_id!r} runs no GEMM kernel on {snap.provenance.device_name}")
        gemm = gemms[-1] if name.endswith("_last") else gemms[0]
        return gemm["launch_api"] if name.startswith("gemm_launch_api") else views.short_kernel_name(gemm["name"])
    if name == "longer_than_gemms":  # are the matrix products the longest kernels?
        kernels = _kernels(snap, variant_id)
        gemm_us = [r["dur_us"] for r in kernels if views.is_gemm(r["name"])]
        if not gemm_us:
            raise UnknownMetric(f"variant {variant_id!r} runs no GEMM kernel on {snap.provenance.device_name}")
        return sum(1 for r in kernels if not views.is_gemm(r["name"]) and r["dur_us"] > min(gemm_us))
    if name in ("gemm_names", "gemm_launch_apis", "gemm_us"):  # are the matrix products one kernel, one launch?
        gemms = [r for r in _kernels(snap, variant_id) if views.is_gemm(r["name"])]
        if not gemms:
            raise UnknownMetric(f"variant {variant_id!r} runs no GEMM kernel on {snap.provenance.device_name}")
        if name == "gemm_us":
            return sum(r["dur_us"] for r in gemms)
        return len({r["name" if name == "gemm_names" else "launch_api"] for r in gemms})
    if name in ("costliest_role", "costliest_role_us"):  # the role whose kernels take the most time per forward
        totals: dict[str, float] = {}
        for r in _kernels(snap, variant_id):
            role = views.kernel_role(r["name"])
            totals[role] = totals.get(role, 0.0) + r["dur_us"]
        if not totals:
            raise UnknownMetric(f"variant {variant_id!r} has no kernels on {snap.provenance.device_name}")
        costliest = max(totals, key=totals.__getitem__)
        return costliest if name == "costliest_role" else totals[costliest]
    if name == "memsets_not_before_gemm":  # a memset a library issues for its matrix product comes right before it
        rows = views.kernel_rows(result)
        return sum(
            1
            for i, r in enumerate(rows)
            if r["kind"] == "memset"
            and not (i + 1 < len(rows) and rows[i + 1]["kind"] == "kernel" and views.is_gemm(rows[i + 1]["name"]))
        )
    if name in ("split_kv_partial_bytes", "peak_per_split_kv_partials"):
        # FlashAttention-2's split-KV scratch as PyTorch's source allocates it (set_params_splitkv): per split,
        # a float32 output (head dimension rounded up to a multiple of 32, 256 above 192) and a float32
        # log-sum-exp per query row; the splits are the main kernel's blocks over its 64-row query tiles
        c = snap.config
        if variant_metric(snap, variant_id, "role", "combine") < 1:
            raise UnknownMetric(f"variant {variant_id!r} does not split its keys (no combine kernel)")
        splits = variant_metric(snap, variant_id, "main_grid_blocks") / (c.batch * c.heads * -(-c.seq_len // 64))
        rounded = -(-c.head_dim // 32) * 32 if c.head_dim <= 192 else 256
        partials = splits * c.batch * c.heads * c.seq_len * (rounded + 1) * 4
        if name == "split_kv_partial_bytes":
            return partials
        return (variant_metric(snap, variant_id, "peak_memory_bytes") - c.tensor_bytes) / partials
    if name == "peak_scores_beside_output":  # how many score matrices are alive at the peak, beside the output
        peak = variant_metric(snap, variant_id, "peak_memory_bytes")
        return (peak - snap.config.tensor_bytes) / snap.config.score_bytes
    if name == "gemm_share":
        kernels = _kernels(snap, variant_id)
        total = sum(r["dur_us"] for r in kernels)
        if not total:
            raise UnknownMetric(f"variant {variant_id!r} has no kernel time on {snap.provenance.device_name}")
        return sum(r["dur_us"] for r in kernels if views.is_gemm(r["name"])) / total
    if name == "memcpy_per_score":
        return variant_metric(snap, variant_id, "memcpy_bytes") / snap.config.score_bytes
    if name in ("memcpy_bytes", "memset_bytes"):
        sizes = [r["bytes"] for r in views.kernel_rows(result) if r["kind"] == name.split("_")[0] and r["bytes"]]
        if not sizes:
            raise UnknownMetric(f"variant {variant_id!r} has no {name.split('_')[0]} on {snap.provenance.device_name}")
        return sum(sizes)
    if name in ("tensor_core_kernels", "cuda_core_kernels"):
        want = name == "tensor_core_kernels"
        return sum(1 for r in _kernels(snap, variant_id) if r["tensor_cores"] is want)
    if name.startswith("main_"):
        main = views.main_kernel(result)
        if main is None:
            raise UnknownMetric(f"variant {variant_id!r} has no kernels on {snap.provenance.device_name}")
        if name in (
            "main_theoretical_occupancy_pct",
            "main_blocks_per_sm",
            "main_resident_warps",
            "main_theoretical_limit",
        ):
            occ = _main_occupancy(snap, variant_id, main)
            return {
                "main_theoretical_occupancy_pct": occ.pct,
                "main_blocks_per_sm": occ.blocks_per_sm,
                "main_resident_warps": occ.warps_per_sm,
                "main_theoretical_limit": occ.limit,
            }[name]
        if name == "main_grid_capped_pct":
            from attn_examples.render import occupancy

            limits, _ = _limits(snap)
            if main["registers_per_thread"] is None or not main["block"] or not main["grid"]:
                raise UnknownMetric(f"the main kernel of {variant_id!r} has no launch record")
            sms, cc = snap.provenance.sm_count, snap.provenance.compute_capability
            if sms is None:
                raise UnknownMetric(f"{snap.provenance.device_name} does not report its SM count")
            return occupancy.kineto_estimate(main, limits, sms, cc, opt_in=True).pct
        if name == "main_grid_slot_share":
            slots = variant_metric(snap, variant_id, "main_blocks_per_sm") * snap.provenance.sm_count
            if not slots:
                raise UnknownMetric(f"the main kernel of {variant_id!r} fits no block on an SM")
            return variant_metric(snap, variant_id, "main_grid_blocks") / slots
        if name in ("main_grid_blocks", "main_grid_per_sm", "main_warps_per_block", "main_tiles_per_block"):
            if not main["grid"] or not main["block"]:
                raise UnknownMetric(f"the main kernel of {variant_id!r} has no launch record")
            blocks = math.prod(main["grid"])
            c = snap.config
            return {
                "main_grid_blocks": blocks,
                "main_grid_per_sm": blocks / snap.provenance.sm_count,
                "main_warps_per_block": math.ceil(math.prod(main["block"]) / 32),
                # the query tiles of QUERY_TILE rows (per batch and head) there are for each block of the grid
                "main_tiles_per_block": c.batch * c.heads * math.ceil(c.seq_len / QUERY_TILE) / blocks,
            }[name]
        derived = {
            "name": main["name"],
            "short_name": views.short_kernel_name(main["name"]),
            "role": views.kernel_role(main["name"]),
            "registers": main["registers_per_thread"],
            "occupancy_pct": main["est_occupancy_pct"],
            "smem_bytes": main["shared_memory_bytes"],
            "threads": math.prod(main["block"]) if main["block"] else None,
            "launch_api": main["launch_api"],
            "dur_us": main["dur_us"],
        }
        if name[len("main_") :] in derived:
            return derived[name[len("main_") :]]
    raise UnknownMetric(f"unknown metric {name!r} of variant {variant_id!r}")


def _sweep_metric(snap: Snapshot, parts: list[str]) -> Any:
    """sweep.matmul_peak_tflops|batch|heads|seq_lens|head_dims (the lists measured)|split_seq (the first
    length whose batch·heads·S² score tensor, in the sweep's dtype, passes 32-bit indexing as PyTorch's
    TensorIterator checks it: more elements, or a largest byte offset, than an int32 holds; from the
    configuration)|split_seq_fp32 (the same for an FP32 score tensor)|split_seq_fp32_per_split (the one
    over the other) | sweep.<variant>.<seq>.<head_dim>.<field> (a point; main_short_name, main_role,
    main_grid_per_sm (its longest kernel's blocks over the SMs), and unavailable_reason for a skipped one) | sweep.<variant>.max_kernels|min_kernels|best_tflops_fraction|
    best_seq_len|best_head_dim (the point where it is reached)|
    longest_seq|kernel_growth (max - min kernels)|grows_at (the first length with more kernels than the
    shortest, at either head dimension)|grows_at_per_split|gemm_main_points (points whose longest kernel is a
    GEMM) | sweep.ratio.<variant>.<seq>.<head_dim>.<seq>.<head_dim>.<field>: one point's over another's"""
    sweep = snap.sweep
    if sweep is None:
        raise UnknownMetric("this snapshot has no scaling sweep (measure --extended)")
    if parts == ["matmul_peak_tflops"]:
        return sweep.matmul_peak_tflops
    if parts in (["batch"], ["heads"]):
        return getattr(sweep, parts[0])
    if parts in (["seq_lens"], ["head_dims"]):
        return sorted({getattr(p, parts[0][:-1]) for p in sweep.points})
    if parts in (["split_seq"], ["split_seq_fp32"]):
        from attn_examples.snapshot.config import ELEMENT_BYTES

        size = 4 if parts == ["split_seq_fp32"] else ELEMENT_BYTES[snap.config.dtype]
        limit = 2**31 - 1  # TensorIteratorBase::can_use_32bit_indexing: numel, and 1 + the largest byte offset
        over = [
            s
            for s in _sweep_metric(snap, ["seq_lens"])
            if (n := sweep.batch * sweep.heads * s * s) > limit or 1 + (n - 1) * size > limit
        ]
        if not over:
            raise UnknownMetric("no score tensor of the sweep passes 32-bit indexing")
        return over[0]
    if parts == ["split_seq_fp32_per_split"]:
        return _sweep_metric(snap, ["split_seq_fp32"]) / _sweep_metric(snap, ["split_seq"])
    if len(parts) == 7 and parts[0] == "ratio":
        return _sweep_metric(snap, parts[1:4] + parts[6:]) / _sweep_metric(snap, [parts[1], *parts[4:]])
    points = [p for p in sweep.points if p.variant == parts[0]]
    if not points:
        raise UnknownMetric(f"no sweep points for {parts[0]!r}")
    measured = [p for p in points if p.available]

    def kernels(p: SweepPoint) -> int:
        return recorded(p.kernels, f"sweep.points[{p.variant}, {p.seq_len}, {p.head_dim}].kernels")

    def tflops(p: SweepPoint) -> float:
        return recorded(p.tflops, f"sweep.points[{p.variant}, {p.seq_len}, {p.head_dim}].tflops")

    if len(parts) == 2:
        summary: dict[str, Callable[[], Any]] = {
            "max_kernels": lambda: max(kernels(p) for p in measured),
            "min_kernels": lambda: min(kernels(p) for p in measured),
            "best_tflops_fraction": lambda: max(tflops(p) for p in measured) / sweep.matmul_peak_tflops,
            "best_seq_len": lambda: max(measured, key=tflops).seq_len,
            "best_head_dim": lambda: max(measured, key=tflops).head_dim,
            "longest_seq": lambda: max(p.seq_len for p in measured),
            "kernel_growth": lambda: max(kernels(p) for p in measured) - min(kernels(p) for p in measured),
            "gemm_main_points": lambda: sum(1 for p in measured if p.main_kernel and views.is_gemm(p.main_kernel)),
        }
        if parts[1] in summary and measured:
            return summary[parts[1]]()
        if parts[1] in ("grows_at", "grows_at_per_split") and measured:
            grows = []
            for head_dim in {p.head_dim for p in measured}:
                row = sorted((p for p in measured if p.head_dim == head_dim), key=lambda p: p.seq_len)
                grows += [p.seq_len for p in row if kernels(p) > kernels(row[0])][:1]
            if not grows:
                raise UnknownMetric(f"the kernel count of {parts[0]!r} never grows in the sweep")
            first = min(grows)
            return first if parts[1] == "grows_at" else first / _sweep_metric(snap, ["split_seq"])
    if len(parts) == 4:
        match = [p for p in points if str(p.seq_len) == parts[1] and str(p.head_dim) == parts[2]]
        if match:
            point = match[0]
            if parts[3] == "available":
                return point.available
            if parts[3] == "unavailable_reason" and not point.available:
                return point.reason
            if parts[3] in ("main_short_name", "main_role") and point.main_kernel:
                name = point.main_kernel
                return views.short_kernel_name(name) if parts[3] == "main_short_name" else views.kernel_role(name)
            if not point.available:
                raise UnknownMetric(f"sweep point {'.'.join(parts[:3])} is unavailable: {point.reason}")
            if parts[3] == "tflops_fraction":
                return tflops(point) / sweep.matmul_peak_tflops
            if parts[3] == "main_grid_per_sm" and point.main_grid_blocks and snap.provenance.sm_count:
                return point.main_grid_blocks / snap.provenance.sm_count  # the longest kernel's blocks per SM
            if hasattr(point, parts[3]):
                return getattr(point, parts[3])
    raise UnknownMetric(f"unknown sweep key {'.'.join(['sweep', *parts])!r}")


def _training_metric(snap: Snapshot, parts: list[str]) -> Any:
    """training.<variant>.kernels|device_us|gpu_activities|step_per_forward (a step's device time over the
    forward's) | training.diff.<a>.<b>.<field> | training.inplace_raised|inplace_grad_diff|fastest|
    fastest_as_forward (the fastest step belongs to the fastest forward among the variants trained)"""
    if snap.training is None:
        raise UnknownMetric("this snapshot has no training pass (measure --extended)")
    t = snap.training
    if parts == ["inplace_raised"]:
        return t.inplace_autograd.raised
    if parts == ["inplace_grad_diff"] and t.inplace_autograd.max_abs_grad_diff is not None:
        return t.inplace_autograd.max_abs_grad_diff
    measured = {p.variant: p for p in t.points if p.available}

    def device_us(p: TrainingPoint) -> float:
        return recorded(p.device_us, f"training.points[{p.variant}].device_us")

    if parts == ["fastest"]:
        return min(measured, key=lambda v: device_us(measured[v]))
    if parts == ["fastest_as_forward"] and measured:
        forward = {v: variant_metric(snap, v, "device_us") for v in measured}
        return min(measured, key=lambda v: device_us(measured[v])) == min(forward, key=forward.__getitem__)
    if len(parts) == 2 and parts[0] in measured and parts[1] in ("kernels", "device_us", "gpu_activities"):
        return getattr(measured[parts[0]], parts[1])
    if len(parts) == 2 and parts[0] in measured and parts[1] == "step_per_forward":
        return device_us(measured[parts[0]]) / variant_metric(snap, parts[0], "device_us")
    if len(parts) == 4 and parts[0] == "diff":
        return _training_metric(snap, parts[1:2] + parts[3:]) - _training_metric(snap, parts[2:])
    raise UnknownMetric(f"unknown training key {'.'.join(['training', *parts])!r}")


def _occupancy_metric(snap: Snapshot, parts: list[str]) -> Any:
    """occupancy.<field of occupancy.verdict()> over every kernel measured, sweep included."""
    from attn_examples.render import occupancy

    summary = occupancy.verdict(occupancy.evidence_rows(snap))
    if len(parts) == 1 and parts[0] in summary and summary["kernels"]:
        return summary[parts[0]]
    raise UnknownMetric(f"unknown occupancy key {'.'.join(['occupancy', *parts])!r} (or no device limits)")


def _counters_metric(snap: Snapshot, parts: list[str]) -> Any:
    """counters.<variant>.<field> | counters.ratio.<a>.<b>.<field> | counters.qkvo_bytes|score_bytes|tool|wall_s"""
    from attn_examples.render import hardware

    sizes = {"qkvo_bytes": 4 * snap.config.tensor_bytes, "score_bytes": snap.config.score_bytes}
    if len(parts) == 1 and parts[0] in sizes:  # from the shape: known with or without counters
        return sizes[parts[0]]
    counters = hardware.measured_counters(snap)
    if counters is None:
        raise UnknownMetric(f"no hardware counters: {hardware.why_unavailable(snap)}")
    run = {"tool": hardware.tool_name(snap), "wall_s": counters.wall_s}
    if len(parts) == 1 and run.get(parts[0]) is not None:
        return run[parts[0]]
    if len(parts) == 4 and parts[0] == "ratio":  # counters.ratio.<a>.<b>.<field>: a's over b's
        return _counters_metric(snap, [parts[1], parts[3]]) / _counters_metric(snap, [parts[2], parts[3]])
    if len(parts) == 2:
        totals = hardware.variant_totals(snap, parts[0])
        if totals is None:
            raise UnknownMetric(f"no counters for variant {parts[0]!r} in this snapshot")
        if parts[1] in totals and totals[parts[1]] is not None:
            return totals[parts[1]]
        if parts[1] == "intensity_per_ridge":  # > 1: past the ridge of the measured bf16 roofline
            ceilings = _ceilings_metric
            ridge = ceilings(snap, ["bf16_matmul_tflops"]) * 1e12 / (ceilings(snap, ["copy_gbps"]) * 1e9)
            return totals["intensity"] / ridge
        if parts[1] == "theoretical_vs_calculator" and totals["main_theoretical_occupancy_pct"] is not None:
            # ncu's theoretical occupancy minus our calculator's (occupancy.py) for the same kernel
            return totals["main_theoretical_occupancy_pct"] - variant_metric(
                snap, parts[0], "main_theoretical_occupancy_pct"
            )
        if parts[1] == "dram_per_fp32_score" and totals["dram_bytes"] is not None:
            # HBM bytes over one float32 score matrix (math keeps its scores in float32 whatever the input dtype)
            return totals["dram_bytes"] / metric(snap, "config.score_fp32_bytes")
        if parts[1] == "flops_per_causal" and totals["flops"] is not None:  # every FLOP, Tensor Core and FP32
            return totals["flops"] / snap.config.causal_flops
    raise UnknownMetric(f"unknown counters key {'.'.join(['counters', *parts])!r}")


def _counters_role_share(snap: Snapshot, variant_id: str, roles: str, field: str) -> float:
    """counters.<variant>.bandwidth_share[<roles>] | fp32_roof_share[<roles>] | tensor_busy_pct[<roles>] |
    wgmma_kernel_share[<roles>]: what the variant's kernels of those roles (views.ROLES, the argument
    matching role names in full: "scale|mask") reached under ncu, taken together: their HBM bytes over
    their time as a share of the measured copy bandwidth, their FP32 FLOPs over their time as a share of
    the measured FP32 matrix product, their Tensor Core busy share, or the share of them that issue wgmma."""
    from attn_examples.render import hardware

    if not hardware.available(snap):
        raise UnknownMetric(f"no hardware counters: {hardware.why_unavailable(snap)}")
    rows = [r for r in hardware.kernel_rows(snap, variant_id) if re.fullmatch(roles, views.kernel_role(r["name"]))]
    if field == "wgmma_kernel_share":  # the share of those kernels that issue warpgroup (wgmma) instructions
        if not rows or any(r["gmma_instructions"] is None for r in rows):
            raise UnknownMetric(f"no {roles!r} kernel of {variant_id!r} with a wgmma count in the counters")
        return sum(1 for r in rows if r["gmma_instructions"] > 0) / len(rows)
    if field == "tensor_busy_pct":  # the share of their time the Tensor Core pipe is busy, time-weighted
        if not rows or any(r["tensor_busy_pct"] is None or not r["duration_us"] for r in rows):
            raise UnknownMetric(f"no {roles!r} kernel of {variant_id!r} with a Tensor Core busy share in the counters")
        return sum(r["tensor_busy_pct"] * r["duration_us"] for r in rows) / sum(r["duration_us"] for r in rows)
    amount = "dram_bytes" if field == "bandwidth_share" else "fp32_flops"
    if not rows or any(r[amount] is None or not r["duration_us"] for r in rows):
        raise UnknownMetric(f"no {roles!r} kernel of {variant_id!r} with {amount} and a duration in the counters")
    rate = sum(r[amount] for r in rows) / (sum(r["duration_us"] for r in rows) * 1e-6)
    if field == "bandwidth_share":
        return rate / 1e9 / _ceilings_metric(snap, ["copy_gbps"])
    return rate / 1e12 / _ceilings_metric(snap, ["fp32_matmul_tflops"])


def _ceilings_metric(snap: Snapshot, parts: list[str]) -> Any:
    if snap.ceilings is None:
        raise UnknownMetric("this snapshot has no measured ceilings (measure on a GPU)")
    if len(parts) == 1 and hasattr(snap.ceilings, parts[0]):
        return getattr(snap.ceilings, parts[0])
    raise UnknownMetric(f"unknown ceilings key {'.'.join(['ceilings', *parts])!r}")


def _winner(snap: Snapshot, name: str) -> str:
    """`winner` stands for the variant with the smallest device time, in any variant key
    (`winner.peak_memory_bytes`, `ratio.naive_inplace.winner.device_us`)."""
    if name != "winner":
        return name
    return metric(snap, "fastest.device_us")


def metric(snap: Snapshot, key: str) -> Any:
    """The raw value a key names; raises UnknownMetric with the reason."""
    match = _KEY.match(key)
    if not match:
        raise UnknownMetric(f"malformed key {key!r}")
    head, arg = match.group("head"), match.group("arg")
    parts = head.split(".")
    p = snap.provenance
    if parts[0] == "device" and len(parts) == 2 and arg is None:
        fields = {
            "name": p.device_name,
            "cc": p.compute_capability,
            "sms": p.sm_count,
            "torch": p.torch,
            "cuda": p.cuda,
            "cudnn": p.cudnn,
            "date": p.measured_at[:10],
            "kind": p.device_kind,
            "l2_bytes": p.device_limits.l2_bytes if p.device_limits else None,
            "memory_bytes": p.total_memory_bytes,
        }
        if parts[1] in ("arch", "sm", "mma"):
            from attn_examples.render import arch

            if p.device_kind != "cuda":
                raise UnknownMetric(f"{p.device_name} is not a GPU")
            try:
                row = arch.arch(p.compute_capability)
            except arch.UnknownArch as exc:
                raise UnknownMetric(str(exc)) from None
            return {"arch": row.family, "sm": row.sm, "mma": row.mma}[parts[1]]
        if fields.get(parts[1]) is not None:
            return fields[parts[1]]
    elif parts[0] == "config" and len(parts) == 2 and arg is None:
        c = snap.config
        from attn_examples.render import article

        sizes = {
            "tensor_bytes": c.tensor_bytes,
            "qkv_bytes": 3 * c.tensor_bytes,
            "qkvo_bytes": 4 * c.tensor_bytes,
            "matches_article": c.dtype == article.QUOTES["dtype"].text
            and "[" + ", ".join(map(str, c.shape)) + "]" == article.QUOTES["shape"].text,
            "rounding": {"bfloat16": 2.0**-8, "float16": 2.0**-11, "float32": 2.0**-24}[c.dtype],
            "score_bytes": c.score_bytes,
            "score_fp32_bytes": c.batch * c.heads * c.seq_len**2 * 4,
            "shape": tuple(c.shape),
            "causal_flops": c.causal_flops,
        }
        if parts[1] in ("head_dim_padded", "head_dim_padding"):  # rounded up to a multiple of 64, and over it
            from attn_examples.render.hardware import padded_head_dim

            padded = padded_head_dim(c.head_dim)
            return padded if parts[1] == "head_dim_padded" else padded / c.head_dim
        if parts[1] in sizes:
            return sizes[parts[1]]
        if parts[1] in ("split_kv_tiles", "split_kv_fill_share"):
            # FlashAttention-2's split-KV heuristic as PyTorch's source has it (set_params_splitkv): the
            # batch x heads x 64-row query tiles, against two 128-thread blocks per SM; under 0.8 of them it
            # weighs splitting each tile's keys among several blocks
            if p.device_kind != "cuda" or not p.sm_count:
                raise UnknownMetric(f"{p.device_name} is not a GPU that reports its SM count")
            tiles = c.batch * c.heads * -(-c.seq_len // 64)
            return tiles if parts[1] == "split_kv_tiles" else tiles / (2 * p.sm_count)
        if parts[1] in ("score_per_l2", "score_fp32_per_l2"):  # the score matrix over the GPU's L2: <= 1 fits
            if not (p.device_limits and p.device_limits.l2_bytes):
                raise UnknownMetric(f"{p.device_name} reports no L2 size")
            scores = c.score_bytes if parts[1] == "score_per_l2" else c.batch * c.heads * c.seq_len**2 * 4
            return scores / p.device_limits.l2_bytes
        if hasattr(c, parts[1]):
            return getattr(c, parts[1])
    elif parts[0] == "arch" and len(parts) == 2 and arg is None:
        return _arch_metric(snap, parts[1])
    elif parts[0] == "sweep" and arg is None:
        return _sweep_metric(snap, parts[1:])
    elif parts[0] == "training" and arg is None:
        return _training_metric(snap, parts[1:])
    elif parts[0] == "occupancy" and arg is None:
        return _occupancy_metric(snap, parts[1:])
    elif (
        parts[0] == "counters"
        and len(parts) == 3
        and parts[2] in ("bandwidth_share", "fp32_roof_share", "tensor_busy_pct", "wgmma_kernel_share")
        and arg
    ):
        return _counters_role_share(snap, parts[1], arg, parts[2])
    elif parts[0] == "counters" and arg is None:
        return _counters_metric(snap, [_winner(snap, x) if i < 3 else x for i, x in enumerate(parts[1:])])
    elif parts[0] == "ceilings" and arg is None:
        return _ceilings_metric(snap, parts[1:])
    elif head in ("regime.variants", "regime.all", "regime.share") and arg is not None:
        from attn_examples.render import regime

        if arg not in regime.KINDS:
            raise UnknownMetric(f"no regime {arg!r}: one of {', '.join(regime.KINDS)}")
        kinds = [k.kind for v in snap.variants if (k := regime.classify(snap, v)) is not None]
        if not kinds:
            raise UnknownMetric(f"no variant has a regime on {p.device_name} (GPU kernels only)")
        if head == "regime.share":
            return kinds.count(arg) / len(kinds)
        return kinds.count(arg) if head == "regime.variants" else all(k == arg for k in kinds)
    elif head in ("dispatch.auto", "dispatch.auto_variant") and arg is None:
        if snap.dispatch.auto_backend is None:
            raise UnknownMetric("the un-pinned SDPA backend was not identified in this snapshot")
        if head == "dispatch.auto":
            return snap.dispatch.auto_backend
        variant = BACKEND_VARIANTS.get(snap.dispatch.auto_backend)
        if variant is None:
            raise UnknownMetric(f"no variant pins backend {snap.dispatch.auto_backend!r}")
        return variant
    elif head == "dispatch.auto_is_fastest" and arg is None:
        return metric(snap, "dispatch.auto_variant") == metric(snap, "fastest.device_us")
    elif head == "fastest.stream_as_device" and arg is None:
        # the variant the GPU runs soonest is also the cheapest call in a stream (where the host can pace it)
        return metric(snap, "fastest.stream_us") == metric(snap, "fastest.device_us")
    elif parts[0] in ("fastest", "slowest", "lowest", "highest") and len(parts) == 2 and arg is None:
        measured: dict[str, Any] = {}
        for v, r in snap.variants.items():
            try:
                value = variant_metric(snap, v, parts[1]) if r.available else None
            except UnknownMetric:  # a variant without this metric takes no part in the ranking
                value = None
            if value is not None:
                measured[v] = value
        if not measured:
            raise UnknownMetric(f"no variant has {parts[1]!r} in this measurement")
        pick = min if parts[0] in ("fastest", "lowest") else max
        return pick(measured, key=measured.__getitem__)
    elif parts[0] == "gap_share" and len(parts) == 3 and arg is not None:
        # gap_share.<a>.<b>[<roles>]: of a's GPU time per forward beyond b's (the trace's activities, summed), the
        # share that a's kernels of those roles account for beyond b's (role_us); over 1 where a saves elsewhere
        a_id, b_id = _winner(snap, parts[1]), _winner(snap, parts[2])
        totals = [sum(r["dur_us"] for r in views.kernel_rows(snap.variants[v])) for v in (a_id, b_id)]
        if totals[0] <= totals[1]:
            raise UnknownMetric(f"{a_id} takes no more GPU time than {b_id} on {p.device_name}")
        roles = [variant_metric(snap, v, "role_us", arg) for v in (a_id, b_id)]
        return (roles[0] - roles[1]) / (totals[0] - totals[1])
    elif parts[0] in ("ratio", "diff") and len(parts) == 4:
        a_id, b_id = _winner(snap, parts[1]), _winner(snap, parts[2])
        a = variant_metric(snap, a_id, parts[3], arg)
        b = variant_metric(snap, b_id, parts[3], arg)
        return a / b if parts[0] == "ratio" else a - b
    elif len(parts) == 2:
        return variant_metric(snap, _winner(snap, parts[0]), parts[1], arg)
    raise UnknownMetric(f"unknown key {key!r}")
