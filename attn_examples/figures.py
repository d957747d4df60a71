"""SVG figures drawn from a snapshot (stub: replaced by the real figures)."""

from __future__ import annotations

from attn_examples.snapshot import Snapshot

FIGURES = ("kernels", "device_time", "timeline", "registers_occupancy")


def figure_html(snap: Snapshot, name: str, variant_id: str | None, lang: str) -> str:
    if name not in FIGURES:
        raise KeyError(f"unknown figure {name!r}; known: {', '.join(FIGURES)}")
    return f'<figure class="attn-figure"><figcaption>{name} {variant_id or ""}</figcaption></figure>'
