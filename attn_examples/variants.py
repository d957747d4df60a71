"""The registry of attention variants: what is measured, by id (no torch import at module load).

Each variant names the reader-facing function it runs (in `snippets/`) and, for SDPA, the
backend it pins. `bind()` imports torch lazily and returns a zero-argument forward.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Variant:
    """One way of computing causal attention."""

    id: str
    title: str
    family: str                 # "naive" or "sdpa"
    snippet: str                # file in snippets/ holding the code readers see
    section: str                # snippet section marker inside that file
    backend: str | None = None  # SDPBackend member name for pinned SDPA

    @property
    def label(self) -> str:
        """The record_function label around the forward, as the article named them."""
        return "attn_fwd" if self.family == "naive" else "sdpa_fwd"

    def bind(self, q: Any, k: Any, v: Any, mask: Any) -> Callable[[], Any]:
        """A zero-argument forward over fixed inputs. SDPA variants must run inside `pin()`."""
        if self.family == "naive":
            from attn_examples.snippets import naive_attention as naive

            fn = naive.naive_attention if self.id == "naive" else naive.naive_attention_inplace
            return lambda: fn(q, k, v, mask)
        from attn_examples.snippets.sdpa_attention import sdpa_attention

        return lambda: sdpa_attention(q, k, v)

    def pin(self) -> Any:
        """Context manager that allows only this variant's backend (a no-op for naive ones)."""
        import contextlib

        if self.backend is None:
            return contextlib.nullcontext()
        from torch.nn.attention import SDPBackend, sdpa_kernel

        return sdpa_kernel(getattr(SDPBackend, self.backend))


VARIANTS: dict[str, Variant] = {
    v.id: v
    for v in (
        Variant("naive", "Naive (masked_fill)", "naive", "naive_attention.py", "naive"),
        Variant("naive_inplace", "Naive (masked_fill_)", "naive", "naive_attention.py", "naive_inplace"),
        Variant("sdpa_math", "SDPA: math", "sdpa", "sdpa_attention.py", "sdpa", "MATH"),
        Variant("sdpa_efficient", "SDPA: efficient", "sdpa", "sdpa_attention.py", "sdpa", "EFFICIENT_ATTENTION"),
        Variant("sdpa_flash", "SDPA: flash", "sdpa", "sdpa_attention.py", "sdpa", "FLASH_ATTENTION"),
        Variant("sdpa_cudnn", "SDPA: cuDNN", "sdpa", "sdpa_attention.py", "sdpa", "CUDNN_ATTENTION"),
    )
}

# The aten op an SDPA call dispatches to, per backend: how an un-pinned call's choice is read off a trace.
BACKEND_OPS: dict[str, tuple[str, ...]] = {
    "FLASH_ATTENTION": ("aten::_scaled_dot_product_flash_attention",
                        "aten::_scaled_dot_product_flash_attention_for_cpu"),
    "EFFICIENT_ATTENTION": ("aten::_scaled_dot_product_efficient_attention",),
    "CUDNN_ATTENTION": ("aten::_scaled_dot_product_cudnn_attention",),
    "MATH": ("aten::_scaled_dot_product_attention_math",),
}


def get_variant(variant_id: str) -> Variant:
    """Look a variant up by id, with an error that lists the valid ids."""
    try:
        return VARIANTS[variant_id]
    except KeyError:
        raise KeyError(f"unknown variant {variant_id!r}; known: {', '.join(VARIANTS)}") from None


def backend_of_op(op_name: str) -> str | None:
    for backend, ops in BACKEND_OPS.items():
        if op_name in ops:
            return backend
    return None
