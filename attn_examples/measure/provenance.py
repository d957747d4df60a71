"""Where and with what a measurement was taken (imports torch: measurement side only)."""

from __future__ import annotations

import platform
import re
import shlex
import sys
from pathlib import Path

import torch

import attn_examples
from attn_examples.snapshot.stamp import git, now, run


def device_slug(device: str) -> str:
    """File-system name of a device class: 'cpu', or the GPU's name ('nvidia-h200')."""
    if device == "cpu":
        return "cpu"
    name = torch.cuda.get_device_name(torch.device(device))
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def collect(device: str, argv: list[str] | None = None) -> dict:
    """Provenance fields of the snapshot schema, for `device` ('cpu' or 'cuda[:N]')."""
    commit, dirty = git()
    info: dict = {
        "device_kind": "cpu" if device == "cpu" else "cuda",
        "device_name": _cpu_name(),
        "compute_capability": None,
        "sm_count": None,
        "total_memory_bytes": None,
        "device_limits": None,
        "driver": None,
        "cuda": None,
        "cudnn": None,
        "torch": torch.__version__,
        "python": platform.python_version(),
        "os": platform.platform(),
        "cpu": _cpu_name(),
        "git_commit": commit,
        "git_dirty": dirty,
        "measured_at": now(),
        "tool_version": attn_examples.__version__,
        "command": shlex.join(argv if argv is not None else ["attn-examples", *sys.argv[1:]]),
    }
    if device != "cpu":
        props = torch.cuda.get_device_properties(torch.device(device))
        driver = run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"])
        cudnn = torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None
        info.update(
            device_name=props.name,
            compute_capability=f"{props.major}.{props.minor}",
            sm_count=props.multi_processor_count,
            total_memory_bytes=props.total_memory,
            driver=driver.splitlines()[0] if driver else None,
            cuda=torch.version.cuda,
            cudnn=_cudnn_string(cudnn),
            device_limits={
                "warp_size": int(getattr(props, "warp_size", 32)),
                "regs_per_sm": getattr(props, "regs_per_multiprocessor", None),
                "max_threads_per_sm": getattr(props, "max_threads_per_multi_processor", None),
                "smem_per_sm_bytes": getattr(props, "shared_memory_per_multiprocessor", None),
                "smem_per_block_optin_bytes": getattr(props, "shared_memory_per_block_optin", None),
                "l2_bytes": getattr(props, "L2_cache_size", None),
            },
        )
    return info


def _cudnn_string(version: int | None) -> str | None:
    """cuDNN 9 reports e.g. 91900 for 9.19.0."""
    if version is None:
        return None
    major, rest = divmod(version, 10000)
    minor, patch = divmod(rest, 100)
    return f"{major}.{minor}.{patch}"
