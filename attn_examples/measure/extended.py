"""Beyond the article's one shape and forward pass: a scaling sweep and training (imports torch).

The sweep profiles and times every variant from 512 to 16k tokens at head_dim 64 and 128, next
to a bf16 matmul measured on the same GPU in the same run (the ceiling for achieved TFLOP/s). The
inputs of a shape are drawn once, on the GPU, and shared by its variants; each point is timed until
its median is settled (`timing.time_cuda_until`), so the long naive and math forwards are not timed
thirty times over.
Shapes whose [seq, seq] score matrix would not fit are recorded as unavailable, with the
memory they would need. Training runs forward + backward per variant, and records what autograd
does with the in-place masked_fill_.
"""

from __future__ import annotations

import json
import time
import warnings
from typing import Any

import torch

from attn_examples.measure import timing
from attn_examples.measure.forwards import bind, pinned
from attn_examples.measure.workload import export_trace, make_inputs
from attn_examples.snapshot import kineto
from attn_examples.snapshot.config import AttnConfig
from attn_examples.snapshot.stages import stage
from attn_examples.snapshot.variants import ARTICLE_VARIANTS, VARIANTS, Variant
from attn_examples.snippets.profile_forward import profile_forward

SEQ_LENS = (512, 1024, 2048, 4096, 8192, 16384)
HEAD_DIMS = (64, 128)
MEMORY_FRACTION = 0.6  # refuse shapes whose naive/math intermediates exceed this share of free memory


def matmul_peak_tflops(size: int = 8192, repeats: int = 10, dtype: torch.dtype = torch.bfloat16) -> float:
    """A square matrix product on random data: bf16 is the Tensor Core ceiling of this GPU; fp32 (TF32
    off) is the ceiling of the CUDA cores' FFMA, where math's float32 GEMMs run."""
    a = torch.randn(size, size, device="cuda", dtype=dtype)
    b = torch.randn(size, size, device="cuda", dtype=dtype)
    previous = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False
    try:
        for _ in range(3):
            a @ b
        timed = timing.time_cuda({"mm": lambda: a @ b}, repeats)["mm"]
    finally:
        torch.backends.cuda.matmul.allow_tf32 = previous
    return 2 * size**3 / (timed["device_us"]["median"] * 1e-6) / 1e12


def copy_gbps(size_bytes: int = 2**31, repeats: int = 10) -> float:
    """Device-to-device copy of a large buffer: every byte read once and written once (the HBM roof)."""
    src = torch.empty(size_bytes, dtype=torch.uint8, device="cuda").random_()
    dst = torch.empty_like(src)
    for _ in range(3):
        dst.copy_(src)
    timed = timing.time_cuda({"copy": lambda: dst.copy_(src)}, repeats)["copy"]
    return 2 * size_bytes / (timed["device_us"]["median"] * 1e-6) / 1e9


def ceilings(copy_bytes: int = 2**31) -> dict[str, Any]:
    """The roofline's roofs, measured on this GPU in this run."""
    result = {
        "bf16_matmul_tflops": matmul_peak_tflops(dtype=torch.bfloat16),
        "fp32_matmul_tflops": matmul_peak_tflops(dtype=torch.float32),
        "copy_gbps": copy_gbps(copy_bytes),
        "copy_bytes": copy_bytes,
    }
    torch.cuda.empty_cache()
    return result


def _score_bytes(variant: Variant, config: AttnConfig) -> int:
    """Memory the [seq, seq] intermediates of naive and math need at once (about three of them)."""
    element = 4 if variant.id == "sdpa_math" else 2
    if variant.family == "naive" or variant.id == "sdpa_math":
        return 3 * config.batch * config.heads * config.seq_len**2 * element
    return 0


def _profile_counts(variant: Variant, forward, config: AttnConfig) -> dict[str, Any]:
    # the forward has just run once (the check that it runs); one warm-up step under the profiler, one recorded
    prof = profile_forward(forward, variant.label, cuda=True, warmup_calls=0, wait=0, warmup=1, active=1)
    steps = kineto.parse_trace(json.loads(export_trace(prof)), variant.label)["steps"]
    gpu = steps[0]["gpu"]
    kernels = [a for a in gpu if a["kind"] == "kernel"]
    main = max(kernels, key=lambda a: a["dur_us"]) if kernels else None
    return {
        "kernels": len(kernels),
        "gpu_activities": len(gpu),
        "main_kernel": main["name"] if main else None,
        "main_registers": main["registers_per_thread"] if main else None,
        "main_smem_bytes": main["shared_memory_bytes"] if main else None,
        "main_threads": (main["block"][0] * main["block"][1] * main["block"][2]) if main and main["block"] else None,
        "main_grid_blocks": (main["grid"][0] * main["grid"][1] * main["grid"][2]) if main and main["grid"] else None,
        "main_occupancy_pct": main["est_occupancy_pct"] if main else None,
        "main_launch_api": main["launch_api"] if main else None,
    }


def _unavailable(variant: Variant, seq: int, head_dim: int, reason: str) -> dict:
    return {
        "variant": variant.id,
        "seq_len": seq,
        "head_dim": head_dim,
        "available": False,
        "reason": reason,
        **dict.fromkeys(
            (
                "kernels",
                "gpu_activities",
                "main_kernel",
                "main_registers",
                "main_smem_bytes",
                "main_threads",
                "main_grid_blocks",
                "main_occupancy_pct",
                "main_launch_api",
                "device_us",
                "device_us_blocks",
                "peak_memory_bytes",
                "tflops",
            )
        ),
    }


def sweep_point(variant: Variant, config: AttnConfig, inputs: tuple | None = None, max_calls: int = 30) -> dict:
    """One variant at one shape: does it run, its kernels (one profiled step), device time, peak
    memory. `inputs` (q, k, v, mask of this shape) are shared by the shape's variants; without them
    they are drawn here, after the memory check."""
    seq, head_dim = config.seq_len, config.head_dim
    need = _score_bytes(variant, config)
    free, _ = torch.cuda.mem_get_info()
    if need > MEMORY_FRACTION * free:
        return _unavailable(
            variant,
            seq,
            head_dim,
            f"skipped: its [seq, seq] intermediates need about "
            f"{need / 2**30:.0f} GiB, more than {MEMORY_FRACTION:.0%} of the "
            f"{free / 2**30:.0f} GiB free",
        )
    q, k, v, mask = inputs if inputs is not None else make_inputs(config, "cuda", on_device=True)
    try:
        with torch.no_grad(), pinned(variant):
            forward = bind(variant, q, k, v, mask)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    forward()
                    torch.cuda.synchronize()
                except RuntimeError as exc:
                    return _unavailable(variant, seq, head_dim, f"{type(exc).__name__}: {str(exc).splitlines()[0]}")
            with stage("sweep.profile"):
                counts = _profile_counts(variant, forward, config)
            with stage("sweep.timing"):
                timed = timing.time_cuda_until(forward, max_calls=max_calls)
            with stage("sweep.peak_memory"):
                peak = timing.peak_memory_cuda(forward)
    except torch.OutOfMemoryError as exc:
        return _unavailable(variant, seq, head_dim, f"OutOfMemoryError: {str(exc).splitlines()[0]}")
    finally:
        del q, k, v, mask
        torch.cuda.empty_cache()
    device_us = timed["device_us"]["median"]
    return {
        "variant": variant.id,
        "seq_len": seq,
        "head_dim": head_dim,
        "available": True,
        "reason": None,
        **counts,
        "device_us": device_us,
        "device_us_blocks": timed["device_us"]["blocks"],
        "peak_memory_bytes": peak,
        "tflops": config.causal_flops / (device_us * 1e-6) / 1e12,
    }


def sweep(base: AttnConfig, bf16_peak_tflops: float, progress=None) -> dict:
    """`bf16_peak_tflops` comes from `ceilings()`, measured once per run."""
    started = time.perf_counter()
    peak = bf16_peak_tflops
    points = []
    for head_dim in HEAD_DIMS:
        for seq in SEQ_LENS:
            config = AttnConfig(
                batch=base.batch, heads=base.heads, seq_len=seq, head_dim=head_dim, dtype=base.dtype, seed=base.seed
            )
            with stage("sweep.inputs"):
                inputs = make_inputs(config, "cuda", on_device=True)
            for variant in ARTICLE_VARIANTS:
                if progress:
                    progress(f"sweep {variant.id} seq {seq} d {head_dim}")
                points.append(sweep_point(variant, config, inputs))
            del inputs
            torch.cuda.empty_cache()
    return {
        "batch": base.batch,
        "heads": base.heads,
        "matmul_peak_tflops": peak,
        "wall_s": time.perf_counter() - started,
        "points": points,
    }


def _training_point(variant: Variant, config: AttnConfig, max_calls: int = 30) -> dict:
    q, k, v, mask = make_inputs(config, "cuda")
    q, k, v = (t.requires_grad_(True) for t in (q, k, v))
    empty = {
        "variant": variant.id,
        "available": False,
        "kernels": None,
        "gpu_activities": None,
        "device_us": None,
        "device_us_blocks": None,
    }
    with pinned(variant):
        forward = bind(variant, q, k, v, mask)

        def step():
            q.grad = k.grad = v.grad = None
            forward().sum().backward()

        try:
            step()
            torch.cuda.synchronize()
        except RuntimeError as exc:
            return {**empty, "reason": f"{type(exc).__name__}: {str(exc).splitlines()[0]}"}
        # the step has just run once; one warm-up step under the profiler, one recorded
        prof = profile_forward(step, "train_step", cuda=True, warmup_calls=0, wait=0, warmup=1, active=1)
        gpu = kineto.parse_trace(json.loads(export_trace(prof)), "train_step")["steps"][0]["gpu"]
        timed = timing.time_cuda_until(step, max_calls=max_calls)
    return {
        "variant": variant.id,
        "available": True,
        "reason": None,
        "kernels": sum(1 for a in gpu if a["kind"] == "kernel"),
        "gpu_activities": len(gpu),
        "device_us": timed["device_us"]["median"],
        "device_us_blocks": timed["device_us"]["blocks"],
    }


def inplace_autograd(config: AttnConfig) -> dict:
    """Backward through naive_attention_inplace: the exception if autograd raises one, else how far
    its gradients are from the out-of-place version's."""
    q, k, v, mask = make_inputs(config, "cuda")
    grads: list[torch.Tensor] = []
    for variant_id in ("naive", "naive_inplace"):
        leaf = q.detach().clone().requires_grad_(True)
        try:
            bind(VARIANTS[variant_id], leaf, k, v, mask)().float().square().sum().backward()
        except RuntimeError as exc:
            return {"raised": True, "error": f"{type(exc).__name__}: {exc}", "max_abs_grad_diff": None}
        if leaf.grad is None:  # q feeds the output, so backward always fills its gradient
            raise RuntimeError(f"{variant_id}: backward left no gradient on q")
        grads.append(leaf.grad)
    return {"raised": False, "error": None, "max_abs_grad_diff": float((grads[0] - grads[1]).abs().max())}


def training(base: AttnConfig, progress=None) -> dict:
    points = []
    for variant in ARTICLE_VARIANTS:
        if progress:
            progress(f"training {variant.id}")
        points.append(_training_point(variant, base))
        torch.cuda.empty_cache()
    return {"points": points, "inplace_autograd": inplace_autograd(base)}
