"""SVG figures drawn from a snapshot with matplotlib (no torch import).

Each figure is drawn per language (its words come from i18n) and in two layouts: a wide one for
the reading column on a desktop and a narrow, taller one for a phone, so no text renders below
about 11 px on either (the page swaps them with a media query). Every mark carries a <title>
with its exact value, so hovering shows it. Text and axes are drawn in a marker colour that
becomes `currentColor` in the inline SVG, so the figure follows the page's light or dark scheme.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import html
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from dataclasses import dataclass, field
from typing import Any

from attn_examples import article, hardware, views
from attn_examples.i18n import t, title
from attn_examples.render import colon, short_title
from attn_examples.snapshot import Snapshot

FIGURES = ("kernels", "device_time", "registers_occupancy", "scaling_time", "scaling_tflops",
           "scaling_memory", "hbm_traffic", "roofline")
COUNTER_FIGURES = ("hbm_traffic", "roofline")   # drawn from the Nsight Compute pass
INK = "#010101"  # replaced by currentColor
COLORS = {  # Okabe-Ito, readable on light and dark backgrounds
    "naive": "#D55E00", "naive_inplace": "#E69F00", "sdpa_math": "#CC79A7",
    "sdpa_efficient": "#009E73", "sdpa_flash": "#0072B2", "sdpa_cudnn": "#56B4E9",
    "flex": "#44AA99", "naive_compiled": "#DDCC77",
}
KIND_COLORS = {"kernel": "#0072B2", "memcpy": "#D55E00", "memset": "#E69F00"}


@dataclass
class Layout:
    """One rendering of a figure: its language, its width in inches, and the hover texts of its
    marks (gid -> text), collected while drawing and written as <title> elements afterwards."""

    lang: str
    narrow: bool
    titles: dict[str, str] = field(default_factory=dict)

    @property
    def width(self) -> float:
        # The wide layout fills a ~900 px column (1.8 px per pt); the narrow one a ~360 px phone
        # column (1.3 px per pt): the smallest text below, 7 pt and 8.5 pt, renders at 11+ px.
        return 3.8 if self.narrow else 7.0

    @property
    def small(self) -> float:
        return 8.5 if self.narrow else 7.0

    def name(self, variant_id: str) -> str:
        """The variant as tables name it; the short form where a phone has no room."""
        return short_title(self.lang, variant_id) if self.narrow else title(self.lang, variant_id)

    def words(self, key: str, **values: Any) -> str:
        return t(self.lang, key).format(**values)

    def axis(self, key: str) -> str:
        """An axis label, wrapped to the narrow figure's width (a CJK character is about two Latin ones)."""
        import textwrap

        text = self.words(key)
        if not self.narrow:
            return text
        if self.lang == "en":
            return textwrap.fill(text, 40)
        return "\n".join(text[i:i + 20] for i in range(0, len(text), 20))

    def bottom(self, key: str) -> float:
        """Inches below the axes: tick labels plus the axis label's lines."""
        return 0.3 + 0.17 * (self.axis(key).count("\n") + 1)

    def mark(self, artist: Any, text: str) -> None:
        gid = f"m{len(self.titles)}"
        artist.set_gid(gid)
        self.titles[gid] = text


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib import font_manager

    # Chinese labels need a CJK face for matplotlib to measure them; the browser draws the text
    # with its own fonts (svg.fonttype none). Without one installed, the layout estimates widths.
    import warnings

    warnings.filterwarnings("ignore", message="Glyph .* missing from font")   # no CJK face: estimated widths
    installed = {f.name for f in font_manager.fontManager.ttflist}
    cjk = [name for name in ("Noto Sans CJK TC", "Noto Sans CJK JP", "Noto Sans CJK SC") if name in installed][:1]
    plt.rcParams.update({
        "svg.fonttype": "none", "font.size": 9, "font.family": "sans-serif",
        "font.sans-serif": ["DejaVu Sans", *cjk],
        "text.color": INK, "axes.labelcolor": INK, "axes.edgecolor": INK, "xtick.color": INK,
        "ytick.color": INK, "axes.facecolor": "none", "figure.facecolor": "none",
        "savefig.transparent": True, "axes.spines.top": False, "axes.spines.right": False,
        "legend.frameon": False, "svg.hashsalt": "attn", "axes.formatter.use_mathtext": False,
    })
    return plt


def _margins(fig: Any, left: float, bottom: float, top: float, right: float = 0.15) -> None:
    """Margins in inches around the axes, room for tick labels, axis labels and legends."""
    width, height = fig.get_size_inches()
    fig.subplots_adjust(left=left / width, right=1 - right / width, bottom=bottom / height, top=1 - top / height)


def _plain(value: float, _position: int) -> str:
    """Tick labels as plain numbers (10, 100, 1,000): cheaper than mathtext and easier to read."""
    return f"{value:,.0f}" if value >= 1 else f"{value:g}"


def _log_axis(axis: Any) -> None:
    """Log-scale ticks as plain numbers (10, 100, 1,000), no minor labels."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    axis.set_major_formatter(FuncFormatter(_plain))
    axis.set_minor_formatter(NullFormatter())


def _few_ticks(axis: Any, lay: Layout, integer: bool = False) -> None:
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    axis.set_major_locator(MaxNLocator(nbins=4 if lay.narrow else 8, integer=integer))
    axis.set_major_formatter(FuncFormatter(_plain))


def _svg(fig: Any, salt: str, lay: Layout | None = None) -> str:
    """The figure as inline SVG: no XML prolog, no fixed size, unique ids, themed ink, and a
    <title> inside every mark the drawing named."""
    plt = _pyplot()
    if lay is not None:
        salt = f"{salt}{lay.lang}{'n' if lay.narrow else 'w'}"
    plt.rcParams["svg.hashsalt"] = salt
    buffer = io.StringIO()
    # Fixed margins (see _margins) instead of bbox_inches="tight": the tight box draws every figure
    # twice, 40% of the drawing time on this site.
    fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    plt.close(fig)
    svg = buffer.getvalue()
    svg = svg[svg.index("<svg"):]
    svg = re.sub(r'<svg([^>]*?) width="[^"]+" height="[^"]+"', r"<svg\1", svg, count=1)
    svg = svg.replace(INK, "currentColor")
    if lay is not None:
        for gid, text in lay.titles.items():
            svg = svg.replace(f'<g id="{gid}">', f'<g id="{gid}" class="attn-mark"><title>{html.escape(text)}</title>', 1)
    # matplotlib's ids are per document; prefix them so several figures can share a page.
    prefix = re.sub(r"[^A-Za-z0-9]", "", salt)
    svg = re.sub(r'id="([^"]+)"', rf'id="{prefix}-\1"', svg)
    svg = re.sub(r"url\(#([^)]+)\)", rf"url(#{prefix}-\1)", svg)
    svg = re.sub(r'xlink:href="#([^"]+)"', rf'xlink:href="#{prefix}-\1"', svg)
    return re.sub(r"<!--.*?-->", "", svg, flags=re.S).strip()


def _labels(snap: Snapshot) -> list[str]:
    return [v for v, r in snap.variants.items() if r.available]


def _room(lay: Layout, entries: int) -> float:
    """Inches above the axes for the legend: one row on a desktop, one entry per row on a phone."""
    return 0.25 + 0.24 * entries if lay.narrow else 0.4


def _legend(ax: Any, lay: Layout, handles: list | None = None, wide_cols: int = 4) -> None:
    """Above the axes at the right on a desktop; on a phone, one entry per row at the figure's top
    left, so no entry runs off the figure."""
    if handles is None:
        handles, _ = ax.get_legend_handles_labels()
    if lay.narrow:
        ax.figure.legend(handles=handles, loc="upper left", bbox_to_anchor=(0.01, 0.995), ncols=1,
                         fontsize=lay.small + 0.5)
    else:
        ax.legend(handles=handles, loc="lower right", ncols=wide_cols, bbox_to_anchor=(1.0, 1.0),
                  fontsize=lay.small + 0.5)


def _us(value: float) -> str:
    return f"{value:,.0f} µs" if value >= 100 else f"{value:,.1f} µs"


def draw_kernels(snap: Snapshot, lay: Layout) -> str:
    plt = _pyplot()
    ids = _labels(snap)
    counts = [views.counts(snap.variants[v]) for v in ids]
    rows = 0.5 if lay.narrow else 0.45
    top = _room(lay, 4)
    fig, ax = plt.subplots(figsize=(lay.width, rows * len(ids) + 0.6 + top))
    _margins(fig, left=1.05 if lay.narrow else 1.85, bottom=lay.bottom("fig_gpu_activities_axis"), top=top,
             right=0.3)
    y = list(range(len(ids)))[::-1]
    left = [0] * len(ids)
    for kind, key in (("kernel", "kernels"), ("memcpy", "memcpys"), ("memset", "memsets")):
        widths = [c.get(key, 0) for c in counts]
        bars = ax.barh(y, widths, left=left, color=KIND_COLORS[kind], label=lay.words(f"fig_{kind}"), height=0.6)
        for bar, v, w in zip(bars, ids, widths):
            if w:
                lay.mark(bar, f"{title(lay.lang, v)}: {w} {lay.words(f'fig_{kind}')}")
        left = [a + b for a, b in zip(left, widths)]
    for yi, total in zip(y, left):
        ax.text(total + 0.3, yi, str(total), va="center")
    ax.set_xlim(0, max(left + [article.KERNELS.get(v, 0) for v in ids]) * 1.12 + 0.5)
    quoted = [(yi, v, article.KERNELS[v]) for yi, v in zip(y, ids) if v in article.KERNELS]
    for yi, v, q in quoted:
        point = ax.scatter([q], [yi + 0.38], marker="v", color=INK, s=22, zorder=3,
                           label=lay.words("fig_article_quoted") if (yi, v, q) == quoted[0] else None)
        lay.mark(point, f"{title(lay.lang, v)}: {q} ({lay.words('fig_article_quoted')})")
    ax.set_yticks(y, [lay.name(v) for v in ids])
    _few_ticks(ax.xaxis, lay, integer=True)   # a count has no tick at 2.5
    ax.set_xlabel(lay.axis("fig_gpu_activities_axis"))
    _legend(ax, lay)
    return _svg(fig, "kernels", lay)


def draw_device_time(snap: Snapshot, lay: Layout) -> str:
    """Device and host time per call on a linear axis (bar lengths are compared), exact values
    written beside the bars and on hover."""
    from matplotlib.patches import Patch

    plt = _pyplot()
    ids = _labels(snap)
    rows = {r["id"]: r for r in views.summary_rows(snap)}
    top = _room(lay, 2)
    fig, ax = plt.subplots(figsize=(lay.width, 0.6 * len(ids) + 0.6 + top))
    _margins(fig, left=1.05 if lay.narrow else 1.85, bottom=lay.bottom("fig_time_axis"), top=top, right=0.2)
    y = list(range(len(ids)))[::-1]
    device = [rows[v]["device_us"] for v in ids]
    iqr = [rows[v]["device_iqr_us"] or 0 for v in ids]
    bars = ax.barh([yi + 0.18 for yi in y], device, height=0.34, xerr=[[i / 2 for i in iqr], [i / 2 for i in iqr]],
                   color=[COLORS[v] for v in ids], ecolor=INK)
    for bar, v, d in zip(bars, ids, device):
        lay.mark(bar, f"{title(lay.lang, v)}: {lay.words('fig_device_time')} {_us(d)}")
    host = [rows[v]["host_us"] for v in ids]
    handles = [Patch(facecolor="#999999", label=lay.words("fig_device_time"))]
    if all(h is not None for h in host):
        hbars = ax.barh([yi - 0.18 for yi in y], host, height=0.34, color="none", edgecolor=INK, hatch="///",
                        linewidth=0.6)
        for bar, v, h in zip(hbars, ids, host):
            lay.mark(bar, f"{title(lay.lang, v)}: {lay.words('fig_host_time')} {_us(h)}")
        handles.append(Patch(facecolor="none", edgecolor=INK, hatch="///", label=lay.words("fig_host_time")))
    end = max(device + [h for h in host if h is not None])
    for yi, d in zip(y, device):
        ax.text(d + end * 0.015, yi + 0.18, _us(d), va="center", fontsize=lay.small)
    ax.set_xlim(0, end * (1.3 if lay.narrow else 1.15))
    _few_ticks(ax.xaxis, lay)
    ax.set_yticks(y, [lay.name(v) for v in ids])
    ax.set_xlabel(lay.axis("fig_time_axis"))
    _legend(ax, lay, handles=handles, wide_cols=2)
    return _svg(fig, "device_time", lay)


def views_short(name: str) -> str:
    from attn_examples.render import short_kernel_name

    return short_kernel_name(name, 40)


MARKERS = {"naive": "o", "naive_inplace": "s", "sdpa_math": "D", "sdpa_efficient": "^", "sdpa_flash": "v",
           "sdpa_cudnn": "P", "flex": "X", "naive_compiled": "*"}


def draw_registers_occupancy(snap: Snapshot, lay: Layout) -> str:
    """Registers per thread against Kineto's occupancy estimate, one marker per kernel; the fused
    backends are drawn last so a math marker never hides them."""
    plt = _pyplot()
    order = sorted(_labels(snap), key=lambda v: v in ("sdpa_efficient", "sdpa_flash", "sdpa_cudnn"))
    top = _room(lay, len(order)) if lay.narrow else 0.75
    fig, ax = plt.subplots(figsize=(lay.width, 3.4 + top if lay.narrow else 3.8 + top))
    _margins(fig, left=0.6, bottom=lay.bottom("fig_registers_axis"), top=top)
    for variant_id in order:
        rows = [r for r in views.kernel_rows(snap.variants[variant_id]) if r["kind"] == "kernel"
                and r["registers_per_thread"] is not None and r["est_occupancy_pct"] is not None]
        fused = variant_id in ("sdpa_efficient", "sdpa_flash", "sdpa_cudnn")
        for i, r in enumerate(rows):
            point = ax.scatter([r["registers_per_thread"]], [r["est_occupancy_pct"]],
                               s=18 + min(r["dur_us"], 600) / 3, color=COLORS[variant_id], alpha=0.9 if fused else 0.6,
                               marker=MARKERS[variant_id], label=lay.name(variant_id) if i == 0 else None,
                               edgecolors=INK, linewidths=0.6 if fused else 0.3, zorder=4 if fused else 2)
            lay.mark(point, f"{title(lay.lang, variant_id)} · {views_short(r['name'])}: "
                            f"{r['registers_per_thread']} {lay.words('fig_registers_short')}, "
                            f"{r['est_occupancy_pct']:g}% · {_us(r['dur_us'])}")
    ax.set_xlabel(lay.axis("fig_registers_axis"))
    ax.set_ylabel(lay.axis("fig_occupancy_axis"))
    ax.set_ylim(-5, 105)
    ax.set_xlim(0, 270)
    _few_ticks(ax.xaxis, lay, integer=True)
    _legend(ax, lay, wide_cols=4)
    return _svg(fig, "registers_occupancy", lay)


def _draw_scaling(snap: Snapshot, field: str, lay: Layout) -> str:
    """One panel per head dimension: `field` of every sweep point against sequence length. Side
    by side on a desktop, stacked on a phone."""
    plt = _pyplot()
    from matplotlib.ticker import NullLocator
    if snap.sweep is None:
        raise KeyError("this snapshot has no scaling sweep (measure --extended)")
    ylabel = lay.axis({"device_us": "fig_scaling_time", "tflops_fraction": "fig_scaling_tflops",
                        "peak_memory_bytes": "fig_scaling_memory"}[field])
    log_y = field != "tflops_fraction"
    head_dims = sorted({p.head_dim for p in snap.sweep.points})
    n = len(head_dims)
    if lay.narrow:
        entries = len([v for v in snap.variants if any(p.variant == v and p.available for p in snap.sweep.points)])
        top = 0.3 + 0.24 * ((entries + 1) // 2)
        fig, axes = plt.subplots(n, 1, figsize=(lay.width, 2.6 * n + 0.5 + top), sharex=True, squeeze=False)
        _margins(fig, left=0.95, bottom=0.5, top=top)
        fig.subplots_adjust(hspace=0.25)
    else:
        fig, axes = plt.subplots(1, n, figsize=(lay.width, 3.8), sharey=True, squeeze=False)
        _margins(fig, left=0.75, bottom=0.5, top=0.75)
        fig.subplots_adjust(wspace=0.12)
    axes = list(axes.flat)
    peak = snap.sweep.matmul_peak_tflops
    seqs = sorted({p.seq_len for p in snap.sweep.points})
    for ax, head_dim in zip(axes, head_dims):
        for variant_id in snap.variants:
            points = sorted((p for p in snap.sweep.points if p.variant == variant_id and p.head_dim == head_dim
                             and p.available), key=lambda p: p.seq_len)
            if not points:
                continue
            values = [p.tflops / peak if field == "tflops_fraction" else getattr(p, field) for p in points]
            if field == "peak_memory_bytes":
                values = [v / 2**20 for v in values]
            ax.plot([p.seq_len for p in points], values, color=COLORS[variant_id], linewidth=1.2)
            for i, (p, value) in enumerate(zip(points, values)):
                dot = ax.plot([p.seq_len], [value], marker=MARKERS[variant_id], color=COLORS[variant_id],
                              markersize=4, linestyle="none",
                              label=lay.name(variant_id) if i == 0 and ax is axes[0] else None)[0]
                shown = (_us(value) if field == "device_us" else f"{value:.0%}" if field == "tflops_fraction"
                         else f"{value:,.0f} MiB")
                lay.mark(dot, f"{title(lay.lang, variant_id)} · head_dim {head_dim} · seq {p.seq_len:,}: {shown}")
        ax.set_xscale("log", base=2)
        ax.set_xticks(seqs, [f"{s // 1024}k" if s >= 1024 else str(s) for s in seqs])
        ax.xaxis.set_minor_locator(NullLocator())
        if log_y:
            ax.set_yscale("log")
            _log_axis(ax.yaxis)
        # y given: matplotlib then skips placing the title above the tick labels (none are on top), a
        # tight box of every axis, a fifth of the drawing time
        ax.set_title(f"head_dim {head_dim}", fontsize=9, y=1.0)
        if ax is axes[-1] or not lay.narrow:
            ax.set_xlabel(lay.axis("fig_seq_len"))
        if ax is axes[0] or lay.narrow:
            ax.set_ylabel(ylabel)
        if field == "tflops_fraction":
            ax.set_ylim(0, 1)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncols=2 if lay.narrow else 6, fontsize=lay.small + 0.5,
               bbox_to_anchor=(0.5, 1.0))
    return _svg(fig, f"scaling{field}", lay)


def _require_counters(snap: Snapshot) -> None:
    if not hardware.available(snap):
        raise KeyError(f"no hardware counters in this snapshot: {hardware.why_unavailable(snap)}")


def draw_hbm_traffic(snap: Snapshot, lay: Layout) -> str:
    """HBM bytes per forward (read and written, from the counters) against the two sizes that
    matter: q, k, v and the output together, and one score matrix. A linear axis: the bars are
    compared by length, and the exact sizes are written beside them."""
    from matplotlib.patches import Patch

    plt = _pyplot()
    _require_counters(snap)
    totals = {v: hardware.variant_totals(snap, v) for v in snap.counters.variants}
    ids = [v for v, s in totals.items() if s and s["dram_read_bytes"] is not None and s["dram_write_bytes"] is not None]
    top = _room(lay, 4) if lay.narrow else 0.7
    fig, ax = plt.subplots(figsize=(lay.width, 0.55 * len(ids) + 0.6 + top))
    _margins(fig, left=1.05 if lay.narrow else 1.85, bottom=lay.bottom("fig_hbm_axis"), top=top, right=0.2)
    y = list(range(len(ids)))[::-1]
    mib = 2**20
    read = [totals[v]["dram_read_bytes"] / mib for v in ids]
    write = [totals[v]["dram_write_bytes"] / mib for v in ids]
    rbars = ax.barh(y, read, color=[COLORS[v] for v in ids], height=0.6)
    wbars = ax.barh(y, write, left=read, color="none", edgecolor=[COLORS[v] for v in ids], hatch="///", height=0.6,
                    linewidth=0.8)
    end = max(r + w for r, w in zip(read, write))
    for bar, wbar, yi, v, r, w in zip(rbars, wbars, y, ids, read, write):
        s = totals[v]
        lay.mark(bar, f"{title(lay.lang, v)}: {lay.words('fig_hbm_read')} {r:,.1f} MiB")
        lay.mark(wbar, f"{title(lay.lang, v)}: {lay.words('fig_hbm_written')} {w:,.1f} MiB")
        ax.text(r + w + end * 0.015, yi, f"{r + w:,.0f} MiB" + ("\n" if lay.narrow else " · ")
                + f"{s['dram_per_score']:.2f}× {lay.words('fig_scores_short')}", va="center", fontsize=lay.small,
                linespacing=1.0)
    qkvo, scores = totals[ids[0]]["qkvo_bytes"] / mib, totals[ids[0]]["score_bytes"] / mib
    from matplotlib.lines import Line2D

    lines = []
    for x, style, key in ((qkvo, ":", "fig_qkvo"), (scores, "--", "fig_one_score")):
        ax.axvline(x, color=INK, linestyle=style, linewidth=0.8)
        lines.append(Line2D([], [], color=INK, linestyle=style, linewidth=0.8,
                            label=f"{lay.words(key)}{colon(lay.lang)}{x:,.0f} MiB"))
    ax.set_xlim(0, max(end, scores) * (1.6 if lay.narrow else 1.5))
    _few_ticks(ax.xaxis, lay)
    ax.set_yticks(y, [lay.name(v) for v in ids])
    ax.set_xlabel(lay.axis("fig_hbm_axis"))
    handles = [Patch(facecolor="#999999", label=lay.words("fig_hbm_read")),
               Patch(facecolor="none", edgecolor=INK, hatch="///", label=lay.words("fig_hbm_written")), *lines]
    _legend(ax, lay, handles=handles, wide_cols=2)
    return _svg(fig, "hbm_traffic", lay)


def draw_roofline(snap: Snapshot, lay: Layout) -> str:
    """Every kernel that computes, on roofs measured on the same GPU: copy bandwidth, the FP32
    (FFMA) matmul and the bf16 Tensor Core matmul. Log-log, as rooflines are read, with every
    roof labelled at its value."""
    plt = _pyplot()
    _require_counters(snap)
    c = snap.ceilings   # None when the snapshot was not measured with --extended: points without roofs
    points = hardware.roofline_points(snap)
    entries = len({p["variant"] for p in points})
    top = _room(lay, entries) if lay.narrow else 0.75
    fig, ax = plt.subplots(figsize=(lay.width, 4.0 + top))
    _margins(fig, left=0.7, bottom=lay.bottom("fig_intensity_axis"), top=top, right=0.2)
    low, high = 0.05, 5000.0
    if c is not None:
        slope = c.copy_gbps / 1000   # TFLOP/s per (FLOP/byte) along the bandwidth roof
        for peak, key, style in ((c.bf16_matmul_tflops, "fig_bf16_roof", "-"),
                                 (c.fp32_matmul_tflops, "fig_fp32_roof", "--")):
            ridge = peak / slope
            ax.plot([low, ridge, high], [low * slope, peak, peak], color=INK, linewidth=0.9, linestyle=style)
            ax.text(high, peak * 1.08, lay.words(key, value=f"{peak:,.0f}") + " ", ha="right", va="bottom",
                    fontsize=lay.small)
        if not lay.narrow:   # on a phone the slope's label would sit on the points: it goes above the chart
            ax.text(low * 1.3, low * 1.3 * slope * 1.5, lay.words("fig_copy_roof", value=f"{c.copy_gbps:,.0f}"),
                    rotation=28, fontsize=lay.small, va="bottom")
        else:
            fig.text(0.98, 1 - 0.1 / fig.get_size_inches()[1], lay.words("fig_copy_roof", value=f"{c.copy_gbps:,.0f}"),
                     ha="right", va="top", fontsize=lay.small)
    seen = set()
    fused = ("sdpa_efficient", "sdpa_flash", "sdpa_cudnn")
    for p in sorted(points, key=lambda p: p["variant"] in fused):
        dot = ax.scatter(p["intensity"], p["tflops"], color=COLORS[p["variant"]], marker=MARKERS[p["variant"]],
                         s=20 + min(p["duration_us"], 600) / 4, edgecolors=INK, linewidths=0.3, alpha=0.85,
                         label=None if p["variant"] in seen else lay.name(p["variant"]),
                         zorder=4 if p["variant"] in fused else 3)
        lay.mark(dot, f"{title(lay.lang, p['variant'])} · {views_short(p['name'])}: "
                      f"{p['intensity']:,.1f} FLOP/B, {p['tflops']:,.2f} TFLOP/s · {_us(p['duration_us'])}")
        seen.add(p["variant"])
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(low, high)
    ax.set_ylim(0.05, (c.bf16_matmul_tflops if c else max(p["tflops"] for p in points)) * 3)
    _log_axis(ax.xaxis)
    _log_axis(ax.yaxis)
    ax.set_xlabel(lay.axis("fig_intensity_axis"))
    ax.set_ylabel(lay.axis("fig_tflops_axis"))
    _legend(ax, lay, wide_cols=4)
    return _svg(fig, "roofline", lay)


CACHE_DIR = Path(os.environ.get("ATTN_EXAMPLES_FIGURE_CACHE", Path(__file__).resolve().parent.parent / ".cache" / "figures"))


def _draw(snap: Snapshot, name: str, lang: str, narrow: bool) -> str:
    lay = Layout(lang, narrow)
    scaling = {"scaling_time": "device_us", "scaling_tflops": "tflops_fraction", "scaling_memory": "peak_memory_bytes"}
    if name in scaling:
        return _draw_scaling(snap, scaling[name], lay)
    return {"kernels": draw_kernels, "device_time": draw_device_time,
            "registers_occupancy": draw_registers_occupancy, "hbm_traffic": draw_hbm_traffic,
            "roofline": draw_roofline}[name](snap, lay)


@functools.lru_cache(maxsize=1)
def _code_fingerprint() -> str:
    """Changes whenever the drawing code, its words or matplotlib change, so stale figures are never reused."""
    import importlib.metadata

    from attn_examples import i18n

    source = b"".join(Path(m.__file__).read_bytes() for m in (article, hardware, views, i18n)) + Path(__file__).read_bytes()
    return hashlib.sha256(source + importlib.metadata.version("matplotlib").encode()).hexdigest()[:16]


def _cache_key(snap: Snapshot, name: str, lang: str, narrow: bool) -> str:
    """Content of the snapshot (its JSON) + the code that draws + the language and layout."""
    digest = hashlib.sha256((snap.root / "snapshot.json").read_bytes() if snap.root else b"")
    digest.update(f"{name}|{lang}|{narrow}|{_code_fingerprint()}".encode())
    return digest.hexdigest()[:24]


_memory: dict[str, str] = {}


def figure_svg(snap: Snapshot, name: str, lang: str = "en", narrow: bool = False) -> str:
    """The SVG for one figure in one language and layout. Drawn once per snapshot content and code
    version: kept in memory, and on disk (.cache/figures) for the next build or serve reload.
    (The per-variant timeline is not drawn here: attn_examples.timeline renders it per language.)"""
    if name not in FIGURES:
        raise KeyError(f"unknown figure {name!r}; known: {', '.join(FIGURES)}")
    key = _cache_key(snap, name, lang, narrow)
    if key in _memory:
        return _memory[key]
    path = _path(snap, name, lang, narrow)
    svg = path.read_text(encoding="utf-8") if path.is_file() else None
    if svg is None and _helper is not None:
        svg = _helper.wait_for(snap, (name, lang, narrow), path)
    if svg is None:
        svg = _draw(snap, name, lang, narrow)
        _store(path, svg)
    _memory[key] = svg
    return svg


def _path(snap: Snapshot, name: str, lang: str, narrow: bool) -> Path:
    return CACHE_DIR / f"{name}-{lang}-{'narrow' if narrow else 'wide'}-{_cache_key(snap, name, lang, narrow)}.svg"


def _store(path: Path, svg: str) -> None:
    """Written whole or not at all: a reader (the build, or the process drawing beside it) never
    sees half a figure."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(svg, encoding="utf-8")
    os.replace(tmp, path)


# ---- drawing beside the build ----------------------------------------------------------------------
# A cold build draws every figure in both languages and layouts: about as long as the rest of the
# build. A second process draws them meanwhile, in the order the pages ask for them; the build takes
# a figure from the cache when it is there, and while it waits for one it draws from the end of the
# list itself. A figure is claimed before it is drawn (a file created exclusively), so none is drawn
# twice; a figure the helper could not draw is drawn by the build, which then raises its error.

Job = tuple[str, str, bool]   # figure, language, narrow
HELPER_ENV = "ATTN_EXAMPLES_FIGURE_HELPER"   # 0: draw every figure in the build's own process


class _Helper:
    def __init__(self, root: Path, jobs: list[Job], claims: Path, process: Any = None) -> None:
        self.root, self.jobs, self.claims, self.process = root, jobs, claims, process

    def _mark(self, job: Job, suffix: str = "") -> Path:
        return self.claims / f"{self.jobs.index(job)}{suffix}"

    def claim(self, job: Job) -> bool:
        """True for the one caller that may draw `job`."""
        try:
            os.close(os.open(self._mark(job), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            return True
        except FileExistsError:
            return False

    def draw(self, snap: Snapshot, job: Job) -> None:
        """Draw a claimed job into the cache; a failure is marked, for the build to draw (and raise)."""
        try:
            _store(_path(snap, *job), _draw(snap, *job))
        except Exception:   # noqa: BLE001 - the build draws it again and reports the error itself
            self._mark(job, ".failed").touch()

    def wait_for(self, snap: Snapshot, job: Job, path: Path) -> str | None:
        """The figure from the helper, or None: the build draws it (unclaimed, failed, helper gone)."""
        if snap.root is None or snap.root.resolve() != self.root or job not in self.jobs or self.claim(job):
            return None
        while not path.is_file():
            if self._mark(job, ".failed").exists() or self.process.poll() is not None:
                return path.read_text(encoding="utf-8") if path.is_file() else None
            spare = next((j for j in reversed(self.jobs) if self.claim(j)), None)
            if spare is not None:
                self.draw(snap, spare)
            else:
                time.sleep(0.01)
        return path.read_text(encoding="utf-8")


_helper: _Helper | None = None


def draw_ahead(snap: Snapshot, wanted: list[tuple[str, str]]) -> int:
    """Start a second process drawing the figures `wanted` ((figure, language) in the order the pages
    ask for them, both layouts each) that the cache lacks; the number of drawings it has to do.
    Nothing starts with one core, without a snapshot folder, or with ATTN_EXAMPLES_FIGURE_HELPER=0."""
    global _helper
    finish()
    if snap.root is None or (os.cpu_count() or 1) < 2 or os.environ.get(HELPER_ENV, "1") == "0":
        return 0
    jobs = list(dict.fromkeys((name, lang, narrow) for name, lang in wanted if _drawable(snap, name)
                              for narrow in (False, True)))
    jobs = [job for job in jobs if not _path(snap, *job).is_file()]
    if not jobs:
        return 0
    claims = Path(tempfile.mkdtemp(prefix="attn-figures-"))
    env = dict(os.environ, ATTN_EXAMPLES_FIGURE_CACHE=str(CACHE_DIR),
               PYTHONPATH=os.pathsep.join([str(Path(__file__).resolve().parent.parent),
                                           *filter(None, [os.environ.get("PYTHONPATH")])]))
    process = subprocess.Popen([sys.executable, "-m", "attn_examples.figures", str(snap.root.resolve()), str(claims),
                                json.dumps(jobs)], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    _helper = _Helper(snap.root.resolve(), jobs, claims, process)
    atexit.register(finish)   # a failed build ends without its post_build
    return len(jobs)


def _drawable(snap: Snapshot, name: str) -> bool:
    """The pages show a table instead where the snapshot lacks what the figure needs."""
    if name in COUNTER_FIGURES:
        return hardware.available(snap)
    return name in FIGURES and (not name.startswith("scaling") or snap.sweep is not None)


def finish() -> None:
    """Stop the helper (its figures are in the cache, or no page asked for them) and forget its claims."""
    global _helper
    helper, _helper = _helper, None
    if helper is None:
        return
    if helper.process.poll() is None:
        helper.process.terminate()
        helper.process.wait()
    shutil.rmtree(helper.claims, ignore_errors=True)


def _helper_main(root: str, claims: str, jobs: str) -> None:
    """The second process: every job it can claim, in order."""
    import gc

    from attn_examples.snapshot import snapshot_from_dict

    folder = Path(root)
    snap = snapshot_from_dict(json.loads((folder / "snapshot.json").read_text(encoding="utf-8")), root=folder)
    helper = _Helper(folder, [tuple(job) for job in json.loads(jobs)], Path(claims))
    _pyplot()
    gc.freeze()   # the snapshot and matplotlib's modules: no collection needs to walk them again
    for job in helper.jobs:
        if helper.claim(job):
            helper.draw(snap, job)


if __name__ == "__main__":
    _helper_main(*sys.argv[1:4])


def takeaway(snap: Snapshot, name: str, lang: str) -> str:
    """The figure's point in one sentence, computed from the snapshot: extremes and their ratio,
    never a word typed for one device. Empty where a figure has no single point to make."""
    from attn_examples.render import fmt_ratio, fmt_us

    ids = _labels(snap)
    if not ids:
        return ""
    if name == "kernels":
        from attn_examples.render import join_words

        totals = {v: views.counts(snap.variants[v])["gpu_activities"] for v in ids}
        if max(totals.values()) == 0:   # a CPU: no GPU activities to compare
            return ""
        fewest, most = min(totals.values()), max(totals.values())
        low = join_words([title(lang, v) for v in ids if totals[v] == fewest], lang)
        high = join_words([title(lang, v) for v in ids if totals[v] == most], lang)
        return t(lang, "take_kernels").format(low=low, n=fewest, high=high, m=most)
    if name == "device_time":
        rows = {r["id"]: r["device_us"] for r in views.summary_rows(snap) if r["available"] and r["device_us"]}
        low, high = min(rows, key=rows.get), max(rows, key=rows.get)
        return t(lang, "take_time").format(low=title(lang, low), t_low=fmt_us(rows[low]), high=title(lang, high),
                                           t_high=fmt_us(rows[high]), ratio=fmt_ratio(rows[high] / rows[low]))
    if name == "hbm_traffic" and hardware.available(snap):
        ratio = {v: s["dram_per_score"] for v in snap.counters.variants
                 if (s := hardware.variant_totals(snap, v)) and s.get("dram_per_score") is not None}
        if ratio:
            low, high = min(ratio, key=ratio.get), max(ratio, key=ratio.get)
            return t(lang, "take_hbm").format(low=title(lang, low), r_low=f"{ratio[low]:.2f}×",
                                              high=title(lang, high), r_high=f"{ratio[high]:.2f}×")
    return ""


def figure_html(snap: Snapshot, name: str, lang: str) -> str:
    """The figure inside <figure>: a wide and a narrow drawing (the page shows the one that fits
    its width), a localized title (alt text), and a caption that leads with the figure's point."""
    alt_key = {"kernels": "kernels_fig_alt", "device_time": "time_fig_alt",
               "registers_occupancy": "regs_fig_alt", "scaling_time": "scaling_time_alt",
               "scaling_tflops": "scaling_tflops_alt", "scaling_memory": "scaling_memory_alt",
               "hbm_traffic": "hbm_fig_alt", "roofline": "roofline_fig_alt"}[name]
    alt = t(lang, alt_key)
    label = html.escape(alt, quote=True)

    def labelled(svg: str) -> str:
        svg = svg.replace("<svg", f'<svg role="img" aria-label="{label}"', 1)
        return re.sub(r"(<svg[^>]*>)", rf"\1<title>{html.escape(alt)}</title>", svg, count=1)

    body = (f'<div class="attn-fig-wide">{labelled(figure_svg(snap, name, lang, narrow=False))}</div>'
            f'<div class="attn-fig-narrow">{labelled(figure_svg(snap, name, lang, narrow=True))}</div>')
    point = takeaway(snap, name, lang)
    lead = f"<strong>{html.escape(point)}</strong> " if point else ""
    return (f'<figure class="attn-figure" id="fig-{name}" data-search-exclude>{body}'
            f"<figcaption>{lead}{html.escape(alt)}</figcaption></figure>")
