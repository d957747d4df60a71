"""Figures quoted from the original article (NVIDIA A100) and from the papers the site cites.

These are quotations, never measurements of ours. Pages reach them only through keys
(`{{ article.device_us.sdpa_flash }}`, `{{ paper.fa3.bf16_tflops }}`), and every value renders
labelled as quoted, so no figure of someone else's is retyped in a page. Claims name the article's
value by the same keys (`article:` in `claims.d/*.yml`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Quote:
    """A figure as its source printed it: `text` keeps the source's precision, `unit` its unit."""

    text: str
    unit: str = ""

    @property
    def value(self) -> float | int | str:
        """The number (or the name) the text stands for, for comparisons with our measurement."""
        plain = self.text.replace(",", "")
        try:
            return int(plain)
        except ValueError:
            try:
                return float(plain)
            except ValueError:
                return self.text

    def display(self) -> str:
        if not self.unit:
            return self.text
        if self.unit in ("%", "×"):
            return f"{self.text}{self.unit}"
        return f"{self.text} {self.unit}"


SOURCE = {
    "title": "Profiling in PyTorch (Part 3): Attention is all you profile",
    "publisher": "Hugging Face",
    "date": "2026-07-10",
    "url": "https://huggingface.co/blog/torch-attention-profile",
    "gpu": "NVIDIA A100-SXM4-80GB",
}

_VARIANTS = ("naive", "naive_inplace", "sdpa_math", "sdpa_efficient", "sdpa_flash", "sdpa_cudnn")

QUOTES: dict[str, Quote] = {
    "gpu": Quote("NVIDIA A100"),
    "gpu_short": Quote("A100"),
    "compute_capability": Quote("8.0"),
    "sm": Quote("sm80"),
    "date": Quote("2026-07-10"),
    "dtype": Quote("bfloat16"),
    "shape": Quote("[8, 16, 1024, 64]"),
    # GPU work per forward, as the article counts it (its naive count includes the Memcpy)
    **{f"kernels.{v}": Quote(str(n)) for v, n in zip(_VARIANTS, (6, 5, 20, 1, 1, 1))},
    "memcpys.naive": Quote("1"),
    "memcpys.naive_inplace": Quote("0"),
    "memsets.naive": Quote("0"),
    "clones_removed": Quote("1"),
    # per-call device ("CUDA avg") and host ("CPU avg") time of the fused backends
    "device_us.sdpa_efficient": Quote("277.9", "µs"),
    "device_us.sdpa_flash": Quote("146.8", "µs"),
    "device_us.sdpa_cudnn": Quote("186.3", "µs"),
    "host_us.sdpa_efficient": Quote("117", "µs"),
    "host_us.sdpa_flash": Quote("138", "µs"),
    "host_us.sdpa_cudnn": Quote("214", "µs"),
    # math against naive in place: *_fwd CUDA time average, and the slowdown the article states
    "fwd_cuda_ms.sdpa_math": Quote("7.239", "ms"),
    "fwd_cuda_ms.naive_inplace": Quote("1.955", "ms"),
    "math_slowdown": Quote("3.7", "×"),
    "fastest": Quote("sdpa_flash"),
    # kernels and their launch
    "gemm_fragment": Quote("s16816"),  # in the naive GEMMs' names: Ampere's bf16 Tensor Core MMA
    "math_gemm_fragment": Quote("sgemm"),  # math's FP32 GEMMs, by name
    "math_cuda_core_gemms": Quote("2"),
    "math_tensor_core_kernels": Quote("0"),
    "math_mask_kernels": Quote("1"),
    "math_safe_softmax_calls": Quote("1"),
    "launch_api": Quote("cudaLaunchKernel"),  # every kernel the article saw, except cuDNN's
    "main_kernel.sdpa_efficient": Quote("fmha_cutlassF_bf16_aligned_64x64_rf_sm80"),
    "main_kernel.sdpa_flash": Quote("pytorch_flash::flash_fwd_kernel"),
    "main_kernel.sdpa_cudnn": Quote(
        "cudnn_generated_fort_native_sdpa_sm80_flash_fprop_wmma_f16_knob_6_128x64x64_4x1x1_cga1x1x1_kernel0_0"
    ),
    "launch_api.sdpa_cudnn": Quote("cuLaunchKernelEx"),
    # pieces of that cuDNN kernel's name, for reading ours piece by piece beside it
    "cudnn.mma": Quote("wmma"),
    "cudnn.type": Quote("f16"),
    "cudnn.knob": Quote("knob_6"),
    "cudnn.tile": Quote("128x64x64"),
    "cudnn.cluster": Quote("cga1x1x1"),
    # flash's footprint and occupancy, and the article's arithmetic for it
    "flash.registers": Quote("255"),
    "flash.threads": Quote("128"),
    "flash.occupancy_pct": Quote("13", "%"),
    "flash.blocks_per_sm": Quote("2"),
    # cuDNN: the 0% reading, the article's own estimate, its host cost
    "cudnn.occupancy_pct": Quote("0", "%"),
    "cudnn.registers": Quote("240"),
    "cudnn.threads": Quote("256"),
    "cudnn.blocks_per_sm": Quote("1"),
    "cudnn.theoretical_pct": Quote("12.5", "%"),
    "cudnn.sdpa_self_cpu_pct": Quote("26", "%"),
    **{f"transposes.{v}": Quote(n) for v, n in (("sdpa_efficient", "4"), ("sdpa_flash", "4"), ("sdpa_cudnn", "0"))},
    "runtime_launches_reading_zero": Quote("0"),
}

# Figures the extended-perspectives page quotes from papers, each on the paper's own hardware.
PAPERS: dict[str, Quote] = {
    "fa3.gpu": Quote("H100"),
    "fa3.fa2_utilization_pct": Quote("35", "%"),
    "fa3.speedup_low": Quote("1.5", "×"),
    "fa3.speedup_high": Quote("2.0", "×"),
    "fa3.bf16_tflops": Quote("840", "TFLOP/s"),
    "fa3.bf16_peak_pct": Quote("85", "%"),
    "fa3.fp8_pflops": Quote("1.3", "PFLOP/s"),
    "fa3.v1_fp16_tflops": Quote("740", "TFLOP/s"),
    "fa3.v1_fp16_peak_pct": Quote("75", "%"),
    "fa3.v1_fp8_pflops": Quote("1.2", "PFLOP/s"),
    "dooly.ttft_error_pct": Quote("5", "%"),
    "dooly.tpot_error_pct": Quote("8", "%"),
    "dooly.gpu_hours_saved_pct": Quote("56.4", "%"),
    "dooly.models": Quote("12"),
}


class UnknownQuote(KeyError):
    def __str__(self) -> str:
        return str(self.args[0])


def quote(key: str) -> Quote:
    """`article.<key>` or `paper.<key>`, as pages and claims name them."""
    space, _, rest = key.partition(".")
    table = {"article": QUOTES, "paper": PAPERS}.get(space)
    if table is None or rest not in table:
        raise UnknownQuote(f"no quoted figure {key!r} in attn_examples/render/article.py")
    return table[rest]


def _per_variant(prefix: str) -> dict[str, float | int]:
    out: dict[str, float | int] = {}
    for k, q in QUOTES.items():
        if k.startswith(prefix + "."):
            value = q.value
            if isinstance(value, str):  # these tables hold counts and times; a name here is a typo in QUOTES
                raise TypeError(f"article quote {k!r} is not a number: {q.text!r}")
            out[k.split(".", 1)[1]] = value
    return out


# Views for the tables that set the article's figures beside ours.
KERNELS = _per_variant("kernels")
DEVICE_US = _per_variant("device_us")
HOST_US = _per_variant("host_us")
QUOTED_DEVICE_US = {**DEVICE_US, **{k: v * 1000 for k, v in _per_variant("fwd_cuda_ms").items()}}
