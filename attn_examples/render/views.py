"""Tables derived from a snapshot, as plain rows (no torch import, no formatting).

The terminal (`attn-examples show`), the site and the claims all read these rows, so a number
is derived in one place only.
"""

from __future__ import annotations

import functools
import re
import statistics
from typing import Any

from attn_examples.snapshot import kineto
from attn_examples.snapshot.schema import Snapshot, VariantResult

# Kernel-name fragments that mean a Tensor Core (MMA) path, and ones that mean CUDA-core FP32.
_TENSOR_CORE = re.compile(
    r"(s16816|h16816|s1688|h1688|gmma|wgmma|nvjet_sm\d+_|tensorop|xmma|hmma|_sm\d+_.*(bf16|f16)|"
    r"flash_fwd|fmha_cutlass|cudnn_generated|sm90_xmma|cutlass.*(bf16|f16))",
    re.I,
)
_CUDA_CORE = re.compile(r"(sgemm|gemv2T|gemvx|_ffma_|_f32f32_f32f32_f32_)", re.I)


@functools.lru_cache(maxsize=4096)  # a page asks about the same few dozen names thousands of times
def uses_tensor_cores(kernel_name: str) -> bool | None:
    """Read off the kernel's name: True for MMA kernels, False for FP32 CUDA-core GEMMs,
    None when the name says nothing (element-wise kernels, softmax, copies)."""
    if _CUDA_CORE.search(kernel_name):
        return False
    if _TENSOR_CORE.search(kernel_name):
        return True
    return None


_GEMM = re.compile(r"(gemm|gemv|nvjet|s16816|h16816|s1688|h1688|cutlass_.*tensorop)", re.I)


@functools.lru_cache(maxsize=4096)
def is_gemm(kernel_name: str) -> bool:
    """A library matrix product (cuBLAS, CUTLASS), read off its name; fused attention kernels are not."""
    return bool(_GEMM.search(kernel_name))


# What a kernel does, read off its name: the first pattern that matches names the role.
ROLES: tuple[tuple[str, re.Pattern], ...] = tuple(
    (role, re.compile(pattern, re.I))
    for role, pattern in (
        ("combine", r"splitkv_combine|combine_kernel"),
        ("attention", r"flash_fwd|fmha_|cudnn_generated|triton_tem|flex_attention|attention_kernel"),
        ("gemm", _GEMM.pattern),
        ("fused", r"^triton_(per|poi|red)"),
        ("convert", r"copy_kernel"),
        ("scale", r"MulFunctor"),
        ("fill", r"FillFunctor"),
        ("mask", r"triu_tril|masked_fill"),
        ("where", r"where_kernel"),
        ("add", r"add_kernel|AddFunctor|CUDAFunctor_add"),
        ("softmax", r"softmax"),
        ("isneginf", r"isneginf"),
        ("splitk", r"splitKreduce|splitK_reduce"),  # cuBLAS's sum of a split-K GEMM's partial products
        ("reduce", r"reduce_kernel"),
    )
)


def kernel_role(kernel_name: str) -> str:
    for role, pattern in ROLES:
        if pattern.search(kernel_name):
            return role
    return "other"


# The coarser grouping a timeline colours GPU activities by: each role belongs to one family.
FAMILIES = ("attention", "gemm", "softmax", "elementwise", "reduce", "fused", "memcpy", "memset", "other")
_ROLE_FAMILY = {
    "attention": "attention",
    "combine": "attention",
    "gemm": "gemm",
    "fused": "fused",
    "convert": "elementwise",
    "scale": "elementwise",
    "fill": "elementwise",
    "mask": "elementwise",
    "where": "elementwise",
    "add": "elementwise",
    "isneginf": "elementwise",
    "softmax": "softmax",
    "splitk": "gemm",
    "reduce": "reduce",
}


def kernel_family(name: str, kind: str = "kernel") -> str:
    """The family of one GPU activity: copies and memsets by their kind, kernels by their role
    (an element-wise kernel whose operation has no role of its own is still element-wise)."""
    if kind in ("memcpy", "memset"):
        return kind
    family = _ROLE_FAMILY.get(kernel_role(name))
    if family is None:
        family = "elementwise" if "elementwise_kernel" in name else "other"
    return family


def role_rows(result: VariantResult) -> list[dict[str, Any]]:
    """The kernels of one forward grouped by role, in the order each role first appears."""
    groups: dict[str, dict[str, Any]] = {}
    for row in kernel_rows(result):
        if row["kind"] != "kernel":
            continue
        role = kernel_role(row["name"])
        group = groups.setdefault(
            role, {"role": role, "kernels": 0, "positions": [], "dur_us": 0.0, "names": [], "shown": set()}
        )
        group["kernels"] += 1
        group["positions"].append(row["position"])
        group["dur_us"] += row["dur_us"]
        short = short_kernel_name(row["name"], 10_000)  # one entry per kernel, whatever its template arguments
        if short not in group["shown"]:
            group["shown"].add(short)
            group["names"].append(row["name"])
    return [{k: v for k, v in g.items() if k != "shown"} for g in groups.values()]


def is_launch_call(name: str) -> bool:
    """Host calls that put work on the GPU (kernel launches, copies, memsets), as opposed to other
    runtime calls Kineto records (cudaStreamIsCapturing, cudaFuncSetAttribute, ...)."""
    return bool(re.match(r"^(cuda|cu)(LaunchKernel|Memcpy|Memset)", name))


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else 0.0


def kernel_rows(result: VariantResult) -> list[dict[str, Any]]:
    """One row per GPU activity of one forward, in launch order; durations are the median
    over the active steps (steps are checked to launch the same activities)."""
    if result.profile is None or not result.profile.steps:
        return []
    steps = result.profile.steps
    rows = []
    for position, activity in enumerate(steps[0].gpu):
        durations = [
            s.gpu[position].dur_us for s in steps if position < len(s.gpu) and s.gpu[position].name == activity.name
        ]
        rows.append(
            {
                "position": position + 1,
                "kind": activity.kind,
                "name": activity.name,
                "launch_api": activity.launch_api,
                "grid": activity.grid,
                "block": activity.block,
                "registers_per_thread": activity.registers_per_thread,
                "shared_memory_bytes": activity.shared_memory_bytes,
                "est_occupancy_pct": activity.est_occupancy_pct,
                "bytes": activity.bytes,
                "dur_us": _median(durations),
                "tensor_cores": uses_tensor_cores(activity.name) if activity.kind == "kernel" else None,
            }
        )
    return rows


def launch_host_ops(trace: dict) -> list[tuple[str, list[str]]]:
    """Each GPU activity the first profiled step launched, as (its kind, the host ops enclosing its
    launch call, innermost first): the trace's nesting on the launching thread, tied to the activity
    by its correlation id. The trace names the operators, never the library code inside them."""
    complete = kineto.complete_events(trace)
    _, step = kineto.profiler_steps(complete)[0]
    host = [
        e
        for e in complete
        if e.get("cat") in ("cpu_op", "user_annotation", *kineto.LAUNCH_CATEGORIES)
        and e.get("tid") == step.tid
        and step.ts <= e["ts"] <= step.end
    ]
    spans = [kineto.Span(str(e.get("name")), e["ts"], float(e.get("dur") or 0.0), e.get("tid")) for e in host]
    parents = kineto.parents(spans)
    launch_of = {
        e["args"]["correlation"]: i
        for i, e in enumerate(host)
        if e.get("cat") in kineto.LAUNCH_CATEGORIES and isinstance(e.get("args"), dict) and "correlation" in e["args"]
    }
    out = []
    for e in sorted((e for e in complete if e.get("cat") in kineto.GPU_CATEGORIES), key=lambda e: e["ts"]):
        args = e.get("args")
        index = launch_of.get(args.get("correlation")) if isinstance(args, dict) else None
        if index is None:
            continue
        chain = []
        parent = parents[index]
        while parent is not None:
            if host[parent].get("cat") == "cpu_op":
                chain.append(spans[parent].name)
            parent = parents[parent]
        out.append((kineto.GPU_CATEGORIES[e["cat"]], chain))
    return out


def cpu_op_rows(result: VariantResult, limit: int | None = None) -> list[dict[str, Any]]:
    """Host-side aten ops of one forward (first active step), largest self time first."""
    if result.profile is None or not result.profile.steps:
        return []
    ops = sorted(result.profile.steps[0].cpu_ops, key=lambda op: -op.self_us)
    rows = [{"name": op.name, "count": op.count, "total_us": op.total_us, "self_us": op.self_us} for op in ops]
    return rows[:limit] if limit else rows


def counts(result: VariantResult) -> dict[str, int]:
    """Per-forward counts of one variant, from its first active step."""
    if result.profile is None or not result.profile.steps:
        return {}
    step = result.profile.steps[0]
    kinds = [a.kind for a in step.gpu]
    return {
        "gpu_activities": len(kinds),
        "kernels": kinds.count("kernel"),
        "memcpys": kinds.count("memcpy"),
        "memsets": kinds.count("memset"),
        "cpu_ops": sum(op.count for op in step.cpu_ops),
        "transposes": step.transposes,
        "launches": sum(launch.count for launch in step.launches if is_launch_call(launch.name)),
    }


def stream_blocks(result: VariantResult) -> list[float] | None:
    """What one call costs in a stream of identical calls, round by round: the longer of the host's time
    to issue it and the GPU's to run it (the two clocks read the same calls, block by block). Without a
    host time (a CPU measurement) the device time alone."""
    timing = result.timing
    if timing is None or timing.device_us is None:
        return None
    if timing.host_us is None or len(timing.host_us.blocks) != len(timing.device_us.blocks):
        return list(timing.device_us.blocks)
    return [max(h, d) for h, d in zip(timing.host_us.blocks, timing.device_us.blocks)]


def short_reason(reason: str | None) -> str:
    """PyTorch's refusal without its noise: the pinned backend's own message, not the notes about
    the other backends being disabled (we disabled them) or where in ATen the warning was raised."""
    if not reason:
        return "no reason recorded"
    parts = [re.sub(r"\s*\(Triggered internally at [^)]*\)\.?", "", part).strip() for part in reason.split(" | ")]
    # "No viable backend ... turning off both the math kernel and the fused kernels": PyTorch's wording
    # when the one backend we pinned has no implementation on this device, not a reason of its own
    noise = re.compile(
        r"has been runtime disabled|kernel not used because:?$|^RuntimeError: No (available kernel|viable backend)"
    )
    kept = [p for p in parts if p and not noise.search(p)]
    seen: list[str] = []
    for part in kept:
        if part not in seen:
            seen.append(part)
    return " ".join(seen) if seen else parts[0]


def main_kernel(result: VariantResult) -> dict[str, Any] | None:
    """The kernel with the largest median duration: the one the variant's time is about."""
    kernels = [row for row in kernel_rows(result) if row["kind"] == "kernel"]
    return max(kernels, key=lambda row: row["dur_us"]) if kernels else None


def summary_rows(snapshot: Snapshot) -> list[dict[str, Any]]:
    """The cross-variant summary: one row per variant, unavailable ones included."""
    rows = []
    for variant_id, result in snapshot.variants.items():
        row: dict[str, Any] = {
            "id": variant_id,
            "title": result.title,
            "available": result.available,
            "unavailable_reason": result.unavailable_reason,
        }
        if result.available and result.timing is not None:
            main = main_kernel(result)
            kernels = [r for r in kernel_rows(result) if r["kind"] == "kernel"]
            flags = {r["tensor_cores"] for r in kernels if r["tensor_cores"] is not None}
            launch_apis = sorted({r["launch_api"] for r in kernel_rows(result) if r["launch_api"]})
            row.update(counts(result))
            row.update(
                device_us=result.timing.device_us.median if result.timing.device_us else None,
                device_iqr_us=result.timing.device_us.iqr if result.timing.device_us else None,
                host_us=result.timing.host_us.median if result.timing.host_us else None,
                peak_memory_bytes=result.timing.peak_memory_bytes,
                rel_error=result.timing.rel_error,
                main_kernel=main["name"] if main else None,
                main_registers=main["registers_per_thread"] if main else None,
                main_occupancy_pct=main["est_occupancy_pct"] if main else None,
                main_shared_memory_bytes=main["shared_memory_bytes"] if main else None,
                tensor_cores=(True in flags) if flags else None,
                launch_apis=launch_apis,
                consistent=result.profile.consistent if result.profile else None,
            )
        rows.append(row)
    return rows


# ---- names --------------------------------------------------------------------------------------


def short_kernel_name(name: str, limit: int = 72) -> str:
    """Kernel names run to hundreds of characters of template arguments: keep the head.

    'void (anonymous namespace)::softmax_warp_forward<float, ...>(float*, ...)' → 'softmax_warp_forward<…>'
    """
    head = name.replace("(anonymous namespace)::", "")
    if head.startswith("void "):
        head = head[len("void ") :]
    depth, cut = 0, len(head)
    for i, ch in enumerate(head):  # the first '(' outside template brackets opens the parameters
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "(" and depth == 0:
            cut = i
            break
    head = head[:cut]
    base = head.split("<")[0]
    inner = head[len(base) + 1 : -1] if head.endswith(">") else ""
    if base in _WRAPPER_KERNELS and re.fullmatch(r"[A-Za-z0-9_]+", inner):  # the wrapped kernel is the name
        head = f"{base}<{inner}>"
    else:
        head = base + ("<…>" if "<" in head else "")
    if base.rsplit("::", 1)[-1] in _GENERIC_KERNELS:  # name the operation the generic kernel runs
        op = next((m for m in _OPERATION.findall(head_args(name)) if m not in _NOT_OPERATIONS), None)
        if op:
            head = f"{head} {op}"
    head = head.strip()
    return head if len(head) <= limit else head[: limit - 1] + "…"


_WRAPPER_KERNELS = {"cutlass::Kernel", "cutlass::Kernel2"}  # CUTLASS's entry points: the argument names the kernel
_GENERIC_KERNELS = {
    "elementwise_kernel",
    "vectorized_elementwise_kernel",
    "unrolled_elementwise_kernel",
    "reduce_kernel",
    "index_elementwise_kernel",
}
_OPERATION = re.compile(r"([A-Za-z0-9_]*(?:Functor[A-Za-z0-9_]*|_kernel_cuda|_kernel_impl|_kernel))\b")
_NOT_OPERATIONS = _GENERIC_KERNELS | {
    "gpu_kernel_impl_nocast",
    "gpu_kernel_impl",
    "AUnaryFunctor",
    "BUnaryFunctor",
    "BinaryFunctor",
    "func_wrapper_t",
}


def head_args(name: str) -> str:
    return name.replace("(anonymous namespace)::", "")
