"""Stage 1: run every variant on one device and produce a snapshot dict plus traces (torch).

Per variant: check it runs (an unavailable backend is recorded with PyTorch's reason), profile
it the article's way (`snippets/profile_forward.py`), then time it apart from the profiler.
"""

from __future__ import annotations

import contextlib
import functools
import json
import time
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import torch

from attn_examples.measure import provenance, timing
from attn_examples.measure.forwards import bind, pinned
from attn_examples.measure.workload import check_fits, export_trace, make_inputs, reference_output, resolve_device
from attn_examples.snapshot import kineto
from attn_examples.snapshot.config import AttnConfig
from attn_examples.snapshot.schema import SCHEMA_VERSION, compress_trace, snapshot_home
from attn_examples.snapshot.stages import stage
from attn_examples.snapshot.variants import VARIANTS, Variant, backend_of_op
from attn_examples.snippets.profile_forward import profile_forward

ProgressHook = Callable[[str], None]


def _refusal_reason(variant: Variant, q: torch.Tensor, exc: Exception, caught: list[warnings.WarningMessage]) -> str:
    """PyTorch's own words on why a backend refused these inputs."""
    said = [str(w.message).strip() for w in caught]
    checker = {
        "FLASH_ATTENTION": "can_use_flash_attention",
        "EFFICIENT_ATTENTION": "can_use_efficient_attention",
        "CUDNN_ATTENTION": "can_use_cudnn_attention",
    }.get(variant.backend or "")
    if q.is_cuda and checker and hasattr(torch.backends.cuda, checker):
        with warnings.catch_warnings(record=True) as more:
            warnings.simplefilter("always")
            try:
                params = torch.backends.cuda.SDPAParams(q, q, q, None, 0.0, True, False)
                getattr(torch.backends.cuda, checker)(params, True)
            except (TypeError, RuntimeError):
                pass
        said += [str(w.message).strip() for w in more if str(w.message).strip() not in said]
    if not q.is_cuda and variant.backend in ("EFFICIENT_ATTENTION", "CUDNN_ATTENTION"):
        said.append(
            f"{variant.backend} has no CPU implementation in torch {torch.__version__} "
            "(SDPA on CPU offers MATH and FLASH_ATTENTION)"
        )
    first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return f"{type(exc).__name__}: {first_line}" + ("".join(f" | {s}" for s in said) if said else "")


def detect_auto_backend(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> dict:
    """Which backend an un-pinned SDPA call runs: read from the aten op it dispatches to."""
    from torch.profiler import ProfilerActivity, profile

    from attn_examples.snippets.sdpa_attention import sdpa_attention

    choice = None
    if hasattr(torch, "_fused_sdp_choice"):
        try:
            from torch.nn.attention import SDPBackend

            choice = SDPBackend(torch._fused_sdp_choice(q, k, v, is_causal=True)).name
        except (RuntimeError, ValueError, TypeError):
            choice = None
    with torch.no_grad():
        sdpa_attention(q, k, v)
        with profile(activities=[ProfilerActivity.CPU]) as prof:
            sdpa_attention(q, k, v)
    for event in prof.events():
        backend = backend_of_op(event.name)
        if backend:
            return {"auto_backend": backend, "evidence": event.name, "fused_sdp_choice": choice}
    return {"auto_backend": None, "evidence": None, "fused_sdp_choice": choice}


@dataclass
class FirstCall:
    """A variant's first call: a compiled variant compiles on it (its wall time is `compile_s`), an
    SDPA backend may refuse the inputs on it (the error, and PyTorch's warnings, say why)."""

    forward: Callable[[], torch.Tensor] | None
    out: torch.Tensor | None
    seconds: float
    error: Exception | None = None
    caught: list[warnings.WarningMessage] = field(default_factory=list)


def first_call(variant: Variant, inputs: tuple[torch.Tensor, ...]) -> FirstCall:
    """Bind the variant to the inputs and call it once (synchronised), recording PyTorch's warnings.
    (Taking the compiled variants' first calls on a thread beside the set-up was tried once on the
    H200: the set-up waited for them until about 14 s after they started, against 8.9 s inline, and
    the timing after it took 3.7 s longer in that run: no gain, and a published compile time that
    would have measured the contention.)"""
    q, k, v, mask = inputs
    started = time.perf_counter()
    with torch.no_grad(), pinned(variant), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            forward = bind(variant, q, k, v, mask)
            out = forward()
            if q.is_cuda:
                torch.cuda.synchronize()
        except Exception as exc:
            return FirstCall(None, None, time.perf_counter() - started, exc, list(caught))
    return FirstCall(forward, out, time.perf_counter() - started, None, list(caught))


def measure_variant(
    variant: Variant,
    config: AttnConfig,
    inputs: tuple[torch.Tensor, ...],
    reference: torch.Tensor,
    on_stage: ProgressHook | None = None,
) -> tuple[dict, bytes | None]:
    """One variant's entry of the snapshot (timing still empty), and its gzipped trace (None when
    unavailable)."""
    q = inputs[0]
    cuda = q.is_cuda
    entry: dict = {
        "id": variant.id,
        "title": variant.title,
        "available": True,
        "unavailable_reason": None,
        "profile": None,
        "timing": None,
    }
    note = on_stage or (lambda _stage: None)
    kind = "cuda" if cuda else "cpu"
    if kind not in variant.devices:
        entry.update(
            available=False,
            unavailable_reason=(
                f"not measured on {kind}: {variant.title} is compiled on its first call, which takes minutes "
                f"on a small CPU; this project measures it on CUDA only"
            ),
        )
        return entry, None
    if variant.family == "compiled":
        note("compiling")
    first = first_call(variant, inputs)
    if first.error is not None:
        entry.update(available=False, unavailable_reason=_refusal_reason(variant, q, first.error, first.caught))
        return entry, None
    forward, out, first_call_s = first.forward, first.out, first.seconds
    if forward is None or out is None:  # first_call leaves them None only beside an error, returned above
        raise RuntimeError(f"{variant.id}: its first call gave neither an output nor an error")
    rel_error = timing.relative_error(out, reference)
    del out
    del first
    with torch.no_grad(), pinned(variant):
        note("profiling")
        prof = profile_forward(
            forward,
            variant.label,
            cuda=cuda,
            warmup_calls=config.warmup_calls,
            wait=config.profile_wait,
            warmup=config.profile_warmup,
            active=config.profile_active,
        )
        trace_text = export_trace(prof)
        parsed = kineto.parse_trace(json.loads(trace_text), variant.label)
        problem = kineto.consistency(parsed["steps"])

        peak = timing.peak_memory_cuda(forward) if cuda else None
    entry["profile"] = {
        "trace_file": "",
        "steps": parsed["steps"],
        "consistent": problem is None,
        "inconsistency": problem,
        "unattributed_gpu": parsed["unattributed_gpu"],
    }
    # device_us / host_us are filled by time_variants(), which times all variants together
    entry["timing"] = {
        "timer": "",
        "device_us": None,
        "host_us": None,
        "host_first_us": None,
        "peak_memory_bytes": peak,
        "rel_error": rel_error,
        "compile_s": first_call_s if variant.family == "compiled" else None,
    }
    return entry, compress_trace(trace_text)


CUDA_TIMER = (
    "CUDA events around each call queued behind torch.cuda._sleep; host: perf_counter around "
    "the call; variants take turns in blocks of 10 calls, the first call of each block "
    "(right after the backend switch) kept apart as host_first_us"
)
CPU_TIMER = "torch.utils.benchmark blocked_autorange (CPU wall time), one variant after another"


def time_variants(
    entries: dict[str, dict], variants: list[Variant], config: AttnConfig, inputs: tuple[torch.Tensor, ...]
) -> None:
    """Fill the timing of every available variant, apart from the profiler."""
    available = [v for v in variants if entries[v.id]["available"]]
    q, k, v, mask = inputs
    forwards = {variant.id: bind(variant, q, k, v, mask) for variant in available}
    with torch.no_grad():
        if q.is_cuda:
            timed = timing.time_cuda(
                forwards, config.timing_repeats, {x.id: functools.partial(pinned, x) for x in available}
            )
            for name, measured in timed.items():
                entries[name]["timing"].update(timer=CUDA_TIMER, **measured)
            return
        for variant in available:
            with pinned(variant):
                device_us = timing.time_cpu(forwards[variant.id], config.cpu_min_run_time_s)
            entries[variant.id]["timing"].update(timer=CPU_TIMER, device_us=device_us)


def measure(
    config: AttnConfig,
    device: str = "auto",
    variant_ids: Iterable[str] | None = None,
    progress: bool = True,
    argv: list[str] | None = None,
    extended: bool = False,
    before_profiling: Callable[[], None] | None = None,
) -> tuple[dict, dict[str, bytes]]:
    """Measure the chosen variants; returns the snapshot dict and {variant id: gzipped trace}.
    On CUDA the roofline's ceilings (bf16 and fp32 matmul, copy bandwidth) are measured too: the
    regimes are read against them. `extended` (CUDA only) adds the scaling sweep and the training pass. `before_profiling` runs
    after the set-up, before anything is profiled or timed (a live build waits there for the
    counters' driver to be idle: `counters.CountersPass`)."""
    device = resolve_device(device)
    # The compiled variants take tens of seconds to compile: part of --extended, or asked for by name.
    ids = list(variant_ids) if variant_ids else [v.id for v in VARIANTS.values() if extended or v.in_article]
    variants = [VARIANTS[i] for i in ids]  # KeyError names the bad id via get_variant upstream
    if device != "cpu":
        torch.cuda.set_device(torch.device(device))
    check_fits(config, device)
    with stage("setup"):  # inputs (the first CUDA call initialises it), the float64 reference, SDPA's own pick
        with stage("setup.inputs"):
            inputs = make_inputs(config, device)
        with stage("setup.reference"):
            reference = reference_output(*inputs)
        with stage("setup.dispatch"):
            dispatch = detect_auto_backend(*inputs[:3])
    if before_profiling is not None:
        with stage("wait"):
            before_profiling()

    results: dict[str, dict] = {}
    traces: dict[str, bytes] = {}
    with _progress(progress, len(variants) + 1) as advance:
        for variant in variants:

            def on_stage(what: str, v: Variant = variant) -> None:  # v bound per variant, by the default
                advance(f"{v.id}: {what}", 0)

            with stage("variants"), stage(f"variants.{variant.id}"):
                entry, blob = measure_variant(
                    variant,
                    config,
                    inputs,
                    reference,
                    on_stage=on_stage,
                )
            results[variant.id] = entry
            if blob is not None:
                traces[variant.id] = blob
            advance(f"{variant.id}: profiled", 1)
        advance("timing all variants", 0)
        with stage("timing"):
            time_variants(results, variants, config, inputs)
        advance("timed", 1)
        extra: dict = {}
        if device != "cpu":  # the roofs every regime is read against: about a second on an H200
            from attn_examples.measure import extended as ext

            del inputs, reference
            torch.cuda.empty_cache()
            advance("ceilings: bf16 and fp32 matmul, copy", 0)
            with stage("ceilings"):
                extra["ceilings"] = ext.ceilings()
        if extended and device != "cpu":
            with stage("sweep"):
                extra["sweep"] = ext.sweep(
                    config, extra["ceilings"]["bf16_matmul_tflops"], progress=lambda d: advance(d, 0)
                )
            with stage("training"):
                extra["training"] = ext.training(config, progress=lambda d: advance(d, 0))
    data = {
        "schema_version": SCHEMA_VERSION,
        "device_slug": provenance.device_slug(device),
        "provenance": provenance.collect(device, argv),
        "config": config.to_dict(),
        "dispatch": dispatch,
        "variants": results,
        "sweep": None,
        "training": None,
        "ceilings": None,
        "counters": None,  # every field written
        **extra,
    }
    return data, traces


@contextlib.contextmanager
def _progress(enabled: bool, total: int) -> Iterator[Callable[[str, int], None]]:
    """A rich progress bar on stderr; `advance(description, steps)` updates it."""
    if not enabled:
        yield lambda _description, _steps: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (
        TextColumn("[bold]measure[/]"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.description}"),
    )
    with Progress(*columns, console=Console(stderr=True), transient=False) as bar:
        task = bar.add_task("starting", total=total)
        yield lambda description, steps: bar.update(task, description=description, advance=steps)


def default_output(device_slug: str) -> Path:
    """snapshots/<device-slug>/ (see snapshot_home)."""
    return snapshot_home() / device_slug
