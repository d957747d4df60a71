"""Named quantities over a snapshot: the one vocabulary of prose values and claims (no torch).

A key names one raw value:

- `<variant>.<metric>` with metric one of
  kernels, gpu_activities, memcpys, memsets, cpu_ops, transposes, launches (counts per forward),
  device_us, host_us, host_first_us (first call after a backend switch), compile_s, peak_memory_bytes,
  rel_error, available,
  main_name, main_short_name, main_registers, main_occupancy_pct, main_smem_bytes, main_threads,
  main_launch_api, main_dur_us, main_theoretical_occupancy_pct (the kernel with the largest median
  duration),
  tensor_core_kernels, cuda_core_kernels (kernels whose names say so),
  `op[<aten op>]` (calls of that host op per forward),
  `kernels_matching[<regex>]` (kernels whose name matches),
  `launch_api[<regex>]` (the launch call of the first kernel whose name matches)
- `ratio.<a>.<b>.<metric>`: a's metric over b's; `diff.<a>.<b>.<metric>`: a's minus b's
- `fastest.device_us`: the variant with the smallest device time; `slowest.device_us` likewise
- `dispatch.auto`: the backend an un-pinned SDPA call ran
- `sweep.…`, `training.…`, `occupancy.…`: see _sweep_metric, _training_metric, _occupancy_metric
- `counters.<variant>.<field of hardware.variant_totals()>|intensity_per_ridge|theoretical_vs_calculator`,
  `counters.ratio.<a>.<b>.<field>`, `counters.qkvo_bytes|score_bytes|tool|wall_s`: the Nsight Compute pass; `ceilings.<field of Ceilings>`: the roofline's measured roofs
- `device.name|cc|sms|torch|cuda|cudnn|date|kind|l2_bytes`
"""

from __future__ import annotations

import math
import re
from typing import Any

from attn_examples import views
from attn_examples.snapshot import Snapshot

_KEY = re.compile(r"^(?P<head>[^\[\]]+?)(?:\[(?P<arg>.+)\])?$")


class UnknownMetric(KeyError):
    """A key that names nothing in this snapshot (unknown, or its variant is unavailable)."""

    def __str__(self) -> str:
        return str(self.args[0])


def _kernels(snap: Snapshot, variant_id: str) -> list[dict[str, Any]]:
    return [r for r in views.kernel_rows(snap.variants[variant_id]) if r["kind"] == "kernel"]


def variant_metric(snap: Snapshot, variant_id: str, name: str, arg: str | None = None) -> Any:
    if variant_id not in snap.variants:
        raise UnknownMetric(f"variant {variant_id!r} is not in this snapshot")
    result = snap.variants[variant_id]
    if name == "available":
        return result.available
    if not result.available:
        raise UnknownMetric(f"variant {variant_id!r} is unavailable on {snap.provenance.device_name}: "
                            f"{result.unavailable_reason}")
    if arg is not None:
        if name == "op":
            step = result.profile.steps[0]
            return sum(op.count for op in step.cpu_ops if op.name == arg)
        if name == "kernels_matching":
            return sum(1 for r in _kernels(snap, variant_id) if re.search(arg, r["name"]))
        if name == "launch_api":
            for r in views.kernel_rows(result):
                if re.search(arg, r["name"]):
                    return r["launch_api"]
            raise UnknownMetric(f"no kernel of {variant_id!r} matches {arg!r}")
        raise UnknownMetric(f"metric {name!r} takes no [argument]")
    counts = views.counts(result)
    if name in counts:
        return counts[name]
    timing = result.timing
    plain = {"device_us": timing.device_us.median if timing.device_us else None,
             "host_us": timing.host_us.median if timing.host_us else None,
             "host_first_us": timing.host_first_us.median if timing.host_first_us else None,
             "compile_s": timing.compile_s,
             "peak_memory_bytes": timing.peak_memory_bytes, "rel_error": timing.rel_error}
    if name in plain:
        if plain[name] is None:
            raise UnknownMetric(f"{variant_id}.{name} was not measured on {snap.provenance.device_name}")
        return plain[name]
    if name in ("tensor_core_kernels", "cuda_core_kernels"):
        want = name == "tensor_core_kernels"
        return sum(1 for r in _kernels(snap, variant_id) if r["tensor_cores"] is want)
    if name.startswith("main_"):
        main = views.main_kernel(result)
        if main is None:
            raise UnknownMetric(f"variant {variant_id!r} has no kernels on {snap.provenance.device_name}")
        if name == "main_theoretical_occupancy_pct":
            from attn_examples import occupancy

            limits = snap.provenance.device_limits
            if limits is None:
                raise UnknownMetric("this snapshot has no device limits")
            return occupancy.theoretical(main, limits, int(snap.provenance.compute_capability.split(".")[0])).pct
        derived = {"name": main["name"], "short_name": views.short_kernel_name(main["name"]),
                   "registers": main["registers_per_thread"], "occupancy_pct": main["est_occupancy_pct"],
                   "smem_bytes": main["shared_memory_bytes"],
                   "threads": math.prod(main["block"]) if main["block"] else None,
                   "launch_api": main["launch_api"], "dur_us": main["dur_us"]}
        if name[len("main_"):] in derived:
            return derived[name[len("main_"):]]
    raise UnknownMetric(f"unknown metric {name!r} of variant {variant_id!r}")


def _sweep_metric(snap: Snapshot, parts: list[str]) -> Any:
    """sweep.matmul_peak_tflops | sweep.<variant>.<seq>.<head_dim>.<field> |
    sweep.<variant>.max_kernels|min_kernels|best_tflops_fraction"""
    if snap.sweep is None:
        raise UnknownMetric("this snapshot has no scaling sweep (measure --extended)")
    if parts == ["matmul_peak_tflops"]:
        return snap.sweep.matmul_peak_tflops
    points = [p for p in snap.sweep.points if p.variant == parts[0]]
    if not points:
        raise UnknownMetric(f"no sweep points for {parts[0]!r}")
    measured = [p for p in points if p.available]
    if len(parts) == 2:
        summary = {"max_kernels": lambda: max(p.kernels for p in measured),
                   "min_kernels": lambda: min(p.kernels for p in measured),
                   "best_tflops_fraction": lambda: max(p.tflops for p in measured) / snap.sweep.matmul_peak_tflops,
                   "longest_seq": lambda: max(p.seq_len for p in measured)}
        if parts[1] in summary and measured:
            return summary[parts[1]]()
    if len(parts) == 4:
        match = [p for p in points if str(p.seq_len) == parts[1] and str(p.head_dim) == parts[2]]
        if match:
            point = match[0]
            if parts[3] == "available":
                return point.available
            if not point.available:
                raise UnknownMetric(f"sweep point {'.'.join(parts[:3])} is unavailable: {point.reason}")
            if parts[3] == "tflops_fraction":
                return point.tflops / snap.sweep.matmul_peak_tflops
            if hasattr(point, parts[3]):
                return getattr(point, parts[3])
    raise UnknownMetric(f"unknown sweep key {'.'.join(['sweep', *parts])!r}")


def _training_metric(snap: Snapshot, parts: list[str]) -> Any:
    """training.<variant>.kernels|device_us|gpu_activities | training.inplace_raised|inplace_grad_diff|fastest"""
    if snap.training is None:
        raise UnknownMetric("this snapshot has no training pass (measure --extended)")
    t = snap.training
    if parts == ["inplace_raised"]:
        return t.inplace_autograd.raised
    if parts == ["inplace_grad_diff"] and t.inplace_autograd.max_abs_grad_diff is not None:
        return t.inplace_autograd.max_abs_grad_diff
    measured = {p.variant: p for p in t.points if p.available}
    if parts == ["fastest"]:
        return min(measured, key=lambda v: measured[v].device_us)
    if len(parts) == 2 and parts[0] in measured and parts[1] in ("kernels", "device_us", "gpu_activities"):
        return getattr(measured[parts[0]], parts[1])
    raise UnknownMetric(f"unknown training key {'.'.join(['training', *parts])!r}")


def _occupancy_metric(snap: Snapshot, parts: list[str]) -> Any:
    """occupancy.<field of occupancy.verdict()> over every kernel measured, sweep included."""
    from attn_examples import occupancy

    summary = occupancy.verdict(occupancy.evidence_rows(snap))
    if len(parts) == 1 and parts[0] in summary and summary["kernels"]:
        return summary[parts[0]]
    raise UnknownMetric(f"unknown occupancy key {'.'.join(['occupancy', *parts])!r} (or no device limits)")


def _counters_metric(snap: Snapshot, parts: list[str]) -> Any:
    """counters.<variant>.<field> | counters.ratio.<a>.<b>.<field> | counters.qkvo_bytes|score_bytes|tool|wall_s"""
    from attn_examples import hardware

    sizes = {"qkvo_bytes": 4 * snap.config.tensor_bytes, "score_bytes": snap.config.score_bytes}
    if len(parts) == 1 and parts[0] in sizes:   # from the shape: known with or without counters
        return sizes[parts[0]]
    if not hardware.available(snap):
        raise UnknownMetric(f"no hardware counters: {hardware.why_unavailable(snap)}")
    run = {"tool": hardware.tool_name(snap), "wall_s": snap.counters.wall_s}
    if len(parts) == 1 and run.get(parts[0]) is not None:
        return run[parts[0]]
    if len(parts) == 4 and parts[0] == "ratio":   # counters.ratio.<a>.<b>.<field>: a's over b's
        return _counters_metric(snap, [parts[1], parts[3]]) / _counters_metric(snap, [parts[2], parts[3]])
    if len(parts) == 2:
        totals = hardware.variant_totals(snap, parts[0])
        if totals is None:
            raise UnknownMetric(f"no counters for variant {parts[0]!r} in this snapshot")
        if parts[1] in totals and totals[parts[1]] is not None:
            return totals[parts[1]]
        if parts[1] == "intensity_per_ridge":      # > 1: past the ridge of the measured bf16 roofline
            ceilings = _ceilings_metric
            ridge = ceilings(snap, ["bf16_matmul_tflops"]) * 1e12 / (ceilings(snap, ["copy_gbps"]) * 1e9)
            return totals["intensity"] / ridge
        if parts[1] == "theoretical_vs_calculator" and totals["main_theoretical_occupancy_pct"] is not None:
            # ncu's theoretical occupancy minus our calculator's (occupancy.py) for the same kernel
            return totals["main_theoretical_occupancy_pct"] - variant_metric(
                snap, parts[0], "main_theoretical_occupancy_pct")
    raise UnknownMetric(f"unknown counters key {'.'.join(['counters', *parts])!r}")


def _ceilings_metric(snap: Snapshot, parts: list[str]) -> Any:
    if snap.ceilings is None:
        raise UnknownMetric("this snapshot has no measured ceilings (measure --extended on a GPU)")
    if len(parts) == 1 and hasattr(snap.ceilings, parts[0]):
        return getattr(snap.ceilings, parts[0])
    raise UnknownMetric(f"unknown ceilings key {'.'.join(['ceilings', *parts])!r}")


def metric(snap: Snapshot, key: str) -> Any:
    """The raw value a key names; raises UnknownMetric with the reason."""
    match = _KEY.match(key)
    if not match:
        raise UnknownMetric(f"malformed key {key!r}")
    head, arg = match.group("head"), match.group("arg")
    parts = head.split(".")
    p = snap.provenance
    if parts[0] == "device" and len(parts) == 2 and arg is None:
        fields = {"name": p.device_name, "cc": p.compute_capability, "sms": p.sm_count, "torch": p.torch,
                  "cuda": p.cuda, "cudnn": p.cudnn, "date": p.measured_at[:10], "kind": p.device_kind,
                  "l2_bytes": p.device_limits.l2_bytes if p.device_limits else None}
        if fields.get(parts[1]) is not None:
            return fields[parts[1]]
    elif parts[0] == "sweep" and arg is None:
        return _sweep_metric(snap, parts[1:])
    elif parts[0] == "training" and arg is None:
        return _training_metric(snap, parts[1:])
    elif parts[0] == "occupancy" and arg is None:
        return _occupancy_metric(snap, parts[1:])
    elif parts[0] == "counters" and arg is None:
        return _counters_metric(snap, parts[1:])
    elif parts[0] == "ceilings" and arg is None:
        return _ceilings_metric(snap, parts[1:])
    elif head == "dispatch.auto" and arg is None:
        if snap.dispatch.auto_backend is None:
            raise UnknownMetric("the un-pinned SDPA backend was not identified in this snapshot")
        return snap.dispatch.auto_backend
    elif parts[0] in ("fastest", "slowest") and len(parts) == 2 and arg is None:
        measured = {v: variant_metric(snap, v, parts[1]) for v, r in snap.variants.items() if r.available}
        pick = min if parts[0] == "fastest" else max
        return pick(measured, key=measured.get)
    elif parts[0] in ("ratio", "diff") and len(parts) == 4:
        a = variant_metric(snap, parts[1], parts[3], arg)
        b = variant_metric(snap, parts[2], parts[3], arg)
        return a / b if parts[0] == "ratio" else a - b
    elif len(parts) == 2:
        return variant_metric(snap, parts[0], parts[1], arg)
    raise UnknownMetric(f"unknown key {key!r}")
