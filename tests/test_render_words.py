"""The small formatters that put measured words into sentences: lists in both languages and a
backend's refusal quoted inside a sentence."""

from __future__ import annotations

from attn_examples import render, views


def test_lists_read_naturally_in_both_languages() -> None:
    assert render.join_words(["a", "b", "c"], "en") == "a, b and c"
    assert render.join_words(["8,192", "16,384"], "zh-TW") == "8,192 與 16,384"          # a space beside digits
    assert render.join_words(["1（flash）", "2（cuDNN）"], "zh-TW") == "1（flash）與 2（cuDNN）"  # none beside a bracket
    assert render.join_words(["手寫版", "math"], "zh-TW") == "手寫版與 math"
    assert render.join_words(["only"], "zh-TW") == "only"


def test_a_refusal_is_quoted_short_with_the_whole_message_on_hover() -> None:
    reason = ("Expected query, key and value to all be of dtype: {Half, BFloat16}. Got Query dtype: float, "
              "Key dtype: float, and Value dtype: float instead.")
    html = render.reason_html(reason)
    assert html.startswith('<q class="attn-reason" lang="en" title="Expected query')
    assert ">Expected query, key and value to all be of dtype: {Half, BFloat16}.</q>" in html
    long = render.reason_html("x " * 200)
    assert long.endswith("…</q>") and len(long.split(">", 1)[1]) < 130
    assert "&lt;script&gt;" in render.reason_html("<script>alert(1)</script>")


def test_pytorchs_no_viable_backend_preamble_is_not_the_reason() -> None:
    cpu = ("RuntimeError: No viable backend for scaled_dot_product_attention was found. This is likely due to "
           "turning off both the math kernel and the fused kernels. | EFFICIENT_ATTENTION has no CPU "
           "implementation in torch 2.13.0+cpu (SDPA on CPU offers MATH and FLASH_ATTENTION)")
    assert views.short_reason(cpu).startswith("EFFICIENT_ATTENTION has no CPU implementation")
