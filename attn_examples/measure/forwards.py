"""A registered variant as a callable forward (torch): the readers' snippet, over fixed inputs.

The registry (`attn_examples.snapshot.variants`) says what a variant is; binding it to tensors and
pinning its SDPA backend is measuring, so it lives here, where torch may be imported.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from attn_examples.snapshot.variants import Variant


def bind(variant: Variant, q: Any, k: Any, v: Any, mask: Any) -> Callable[[], Any]:
    """A zero-argument forward over fixed inputs. SDPA variants must run inside `pinned()`.

    Each id is named here: a new variant without its line fails loudly instead of running
    another variant's function."""
    if variant.family == "sdpa":
        from attn_examples.snippets.sdpa_attention import sdpa_attention

        return lambda: sdpa_attention(q, k, v)
    if variant.id in ("naive", "naive_inplace"):
        from attn_examples.snippets import naive_attention as naive

        fn = naive.naive_attention if variant.id == "naive" else naive.naive_attention_inplace
        return lambda: fn(q, k, v, mask)
    if variant.id == "flex":
        from attn_examples.snippets import compiled_attention as compiled

        block_mask = compiled.causal_block_mask(q.size(-2), q.device)
        return lambda: compiled.flex_causal(q, k, v, block_mask)
    if variant.id == "naive_compiled":
        from attn_examples.snippets import compiled_attention as compiled

        return lambda: compiled.naive_compiled(q, k, v, mask)
    raise KeyError(
        f"variant {variant.id!r} has no forward: add its branch to bind() in attn_examples/measure/forwards.py"
    )


def pinned(variant: Variant) -> Any:
    """Context manager that allows only this variant's backend (a no-op for naive ones)."""
    if variant.backend is None:
        return contextlib.nullcontext()
    from torch.nn.attention import SDPBackend, sdpa_kernel

    return sdpa_kernel(getattr(SDPBackend, variant.backend))
