"""What a measurement runs on (torch): the device, the inputs, the float64 reference, and the
profiler's trace as text. Shared by the measurement (run.py), the sweep and training
(extended.py) and the counters' driver, so none of them imports another.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import torch

from attn_examples.snapshot.config import AttnConfig
from attn_examples.snippets.naive_attention import causal_mask, naive_attention


def resolve_device(device: str) -> str:
    """'auto' means the first CUDA GPU when there is one, else the CPU."""
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cpu":
        return device
    if not device.startswith("cuda"):
        raise ValueError(f"device {device!r}: expected auto, cpu, cuda or cuda:N")
    if not torch.cuda.is_available():
        raise RuntimeError(f"device {device!r} asked for, but torch {torch.__version__} sees no CUDA GPU")
    index = torch.device(device).index
    return f"cuda:{torch.cuda.current_device() if index is None else index}"


class DoesNotFit(RuntimeError):
    """The configuration needs more memory than the device has free; nothing was allocated."""


def free_memory_bytes(device: str) -> int:
    """Memory this measurement could still allocate: the GPU's free memory, or the host's available."""
    if device != "cpu":
        return int(torch.cuda.mem_get_info(torch.device(device))[0])
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def check_fits(config: AttnConfig, device: str) -> None:
    """Refuse, before allocating anything, a shape whose estimated peak exceeds the free memory."""
    need, free = config.memory_needed_bytes, free_memory_bytes(device)
    if need > free:
        raise DoesNotFit(
            f"shape {list(config.shape)} in {config.dtype} needs about {need / 2**30:.1f} GiB "
            f"(the float64 reference holds two [seq, seq] score matrices per head), but {device} "
            f"has {free / 2**30:.1f} GiB free; choose a smaller batch, heads or seq-len"
        )


def make_inputs(config: AttnConfig, device: str, on_device: bool = False) -> tuple[torch.Tensor, ...]:
    """q, k, v from torch.randn (never zeros: they can run faster than real data) and the mask.

    By default drawn on the CPU, so every device gets the same numbers (the error against float64
    is comparable across devices); `on_device` draws them with the device's own generator, seconds
    faster for the sweep's largest shapes, where only time and kernels are kept."""
    generator = torch.Generator(device=device if on_device else "cpu").manual_seed(config.seed)
    dtype = getattr(torch, config.dtype)
    q, k, v = (
        torch.randn(config.shape, generator=generator, dtype=torch.float32, device=device if on_device else "cpu").to(
            device=device, dtype=dtype
        )
        for _ in range(3)
    )
    return q, k, v, causal_mask(config.seq_len, device)


def reference_output(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """The same attention in float64, the yardstick for every variant's error."""
    return naive_attention(q.double(), k.double(), v.double(), mask)


def export_trace(prof: Any) -> str:
    """The profile as a Chrome trace (Kineto's JSON), the text the snapshot keeps and kineto.py parses."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "trace.json"
        prof.export_chrome_trace(str(path))
        return path.read_text(encoding="utf-8")
