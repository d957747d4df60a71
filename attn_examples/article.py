"""What the original article reports (NVIDIA A100), kept as data so pages can quote it.

These are quoted figures, never measurements of ours: every page that shows one labels it as
quoted and links the source. Values from the article's own tables and prose.
"""

from __future__ import annotations

SOURCE = {
    "title": "Profiling in PyTorch (Part 3): Attention is all you profile",
    "publisher": "Hugging Face",
    "date": "2026-07-10",
    "url": "https://huggingface.co/blog/torch-attention-profile",
    "gpu": "NVIDIA A100-SXM4-80GB",
}

# GPU kernels per forward, as the article counts them (its naive count includes the Memcpy).
KERNELS = {"naive": 6, "naive_inplace": 5, "sdpa_math": 20, "sdpa_efficient": 1, "sdpa_flash": 1, "sdpa_cudnn": 1}

# Per-call device ("CUDA avg") and host ("CPU avg") time of the fused backends, microseconds.
DEVICE_US = {"sdpa_efficient": 277.9, "sdpa_flash": 146.8, "sdpa_cudnn": 186.3}
HOST_US = {"sdpa_efficient": 117.0, "sdpa_flash": 138.0, "sdpa_cudnn": 214.0}

# The math-vs-naive comparison: *_fwd CUDA time average, milliseconds; the stated slowdown.
FWD_CUDA_MS = {"sdpa_math": 7.239, "naive_inplace": 1.955}
MATH_SLOWDOWN = 3.7

# Every quoted per-call device time in microseconds, for tables that set them beside ours.
QUOTED_DEVICE_US = {**DEVICE_US, **{k: v * 1000 for k, v in FWD_CUDA_MS.items()}}

MAIN_KERNEL = {
    "sdpa_efficient": "fmha_cutlassF_bf16_aligned_64x64_rf_sm80",
    "sdpa_flash": "pytorch_flash::flash_fwd_kernel",
    "sdpa_cudnn": "cudnn_generated_fort_native_sdpa_sm80_flash_fprop_wmma_f16_knob_6_128x64x64_4x1x1_cga1x1x1_kernel0_0",
}
FLASH = {"registers": 255, "threads": 128, "occupancy_pct": 13, "blocks_per_sm": 2}
CUDNN = {"occupancy_pct": 0, "launch_api": "cuLaunchKernelEx", "sdpa_self_cpu_pct": 26}
TRANSPOSES = {"sdpa_efficient": 4, "sdpa_flash": 4, "sdpa_cudnn": 0}
