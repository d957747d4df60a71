"""SVG figures drawn from a snapshot with attn_examples.render.svgplot (no torch, no matplotlib).

Each figure is drawn per language (its words come from i18n) and in two layouts: a wide one for
the reading column on a desktop and a narrow, taller one for a phone, so no text renders below
about 11 px on either (the page swaps them with a media query). Every mark carries a <title>
with its exact value, so hovering shows it. Text and axes are drawn in `currentColor`, so the
figure follows the page's light or dark scheme.
"""

from __future__ import annotations

import functools
import hashlib
import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from markupsafe import Markup

from attn_examples.render import article, hardware, templating, views
from attn_examples.render.blocks import colon, short_title
from attn_examples.render.i18n import counted, t, title
from attn_examples.render.svgplot import (
    INK,
    PT,
    Axes,
    Figure,
    Key,
    label_room,
    legend_height,
    legend_shape,
    share,
    text_width,
    wrap,
    xaxis_depth,
)
from attn_examples.snapshot.schema import Counters, Snapshot, recorded

FIGURES = (
    "kernels",
    "device_time",
    "registers_occupancy",
    "scaling_time",
    "scaling_tflops",
    "scaling_memory",
    "hbm_traffic",
    "roofline",
)
COUNTER_FIGURES = ("hbm_traffic", "roofline")  # drawn from the Nsight Compute pass
COLORS = {  # Okabe-Ito, readable on light and dark backgrounds
    "naive": "#D55E00",
    "naive_inplace": "#E69F00",
    "sdpa_math": "#CC79A7",
    "sdpa_efficient": "#009E73",
    "sdpa_flash": "#0072B2",
    "sdpa_cudnn": "#56B4E9",
    "flex": "#44AA99",
    "naive_compiled": "#DDCC77",
}
GREY = "#999999"  # the legend's swatch for bars coloured per variant
# A colour means a variant, in every figure; what a bar's part is (a kind of GPU activity, bytes read or
# written) is told by its fill: solid, hatched or outlined, keyed in black and grey.
KIND_FILLS = {"kernel": "solid", "memcpy": "hatch", "memset": "hollow"}
SIZE = 9.0  # tick labels, axis labels and panel titles, pt
FUSED = ("sdpa_efficient", "sdpa_flash", "sdpa_cudnn")  # drawn last: a math marker never hides them


@dataclass
class Layout:
    """One rendering of a figure: its language and whether it is the narrow (phone) drawing."""

    lang: str
    narrow: bool

    @property
    def width(self) -> float:
        # The wide layout fills a ~900 px column (1.8 px per pt); the narrow one a ~360 px phone
        # column (1.3 px per pt): the smallest text below, 7 pt and 8.5 pt, renders at 11+ px.
        return 3.8 if self.narrow else 7.0

    @property
    def small(self) -> float:
        return 8.5 if self.narrow else 7.0

    @property
    def legend_size(self) -> float:
        return self.small + 0.5

    def name(self, variant_id: str) -> str:
        """The variant as tables name it; the short form where a phone has no room."""
        return short_title(self.lang, variant_id) if self.narrow else title(self.lang, variant_id)

    def words(self, key: str, **values: Any) -> str:
        return t(self.lang, key).format(**values)

    def axis(self, key: str, room: float) -> str:
        """An axis label, wrapped to `room` points (the length of its axis)."""
        return wrap(self.words(key), SIZE, room)

    def figure(self, name: str, height: float) -> Figure:
        """A canvas of this layout's width; its ids are unique per figure, language and layout."""
        prefix = re.sub(r"[^A-Za-z0-9]", "", f"{name}{self.lang}{'n' if self.narrow else 'w'}")
        return Figure(self.width, height, prefix, SIZE)


def _labels(snap: Snapshot) -> list[str]:
    return [v for v, r in snap.variants.items() if r.available]


def _legend_rows(lay: Layout, keys: list[Key], wide_cols: int) -> int:
    return legend_shape(keys, 1 if lay.narrow else wide_cols, lay.legend_size, lay.width * PT - 4)[0]


def _room(lay: Layout, keys: list[Key], wide_cols: int = 4) -> float:
    """Inches above the axes for the legend: its rows on a desktop (one row where it fits), one
    entry per row on a phone."""
    return (legend_height(_legend_rows(lay, keys, wide_cols), lay.legend_size) + (12 if lay.narrow else 10)) / PT


def _legend(fig: Figure, ax: Axes, lay: Layout, keys: list[Key], wide_cols: int = 4) -> None:
    """Above the axes at the right on a desktop; on a phone, one entry per row at the figure's top
    left, so no entry runs off the figure."""
    if lay.narrow:
        fig.legend(keys, 0.01 * fig.w, 3, "upper left", 1, lay.legend_size)
    else:
        fig.legend(keys, ax.left + ax.width, ax.top - 4, "lower right", wide_cols, lay.legend_size)


def _bar_axes(
    lay: Layout, name: str, names: list[str], rows: float, top: float, axis_key: str, right: float
) -> tuple[Figure, Axes]:
    """A horizontal bar chart's canvas: variant names left of the bars, the x label wrapped to the
    bars' width, one row of `rows` inches per name."""
    left = (label_room(names, SIZE) + 5) / PT
    label = lay.axis(axis_key, (lay.width - left - right) * PT)
    bottom = xaxis_depth(SIZE, label.count("\n") + 1) / PT
    fig = lay.figure(name, rows * len(names) + 0.15 + top + bottom)
    ax = fig.add_axes(left, top, right, bottom)
    ax.x.label = label
    ax.x.nbins = 4 if lay.narrow else 8
    y = list(range(len(names)))[::-1]
    ax.y.ticks = list(zip(y, names))
    ax.y.include(-0.5, len(names) - 0.5)
    return fig, ax


def _fit(ax: Axes, ends: Sequence[float], labels: list[str], size: float, at_least: float) -> None:
    """An x limit from 0 at which every bar's label, written 3 pt past the bar's end, ends inside the axes."""
    hi = at_least
    for end, label in zip(ends, labels):
        hi = max(hi, end * ax.width / (ax.width - 5 - text_width(label, size)))
    ax.x.lim = (0, hi)


def _us(value: float) -> str:
    return f"{value:,.0f} µs" if value >= 100 else f"{value:,.1f} µs"


def draw_kernels(snap: Snapshot, lay: Layout) -> str:
    ids = _labels(snap)
    counts = [views.counts(snap.variants[v]) for v in ids]
    quoted = [v for v in ids if v in article.KERNELS]
    keys = [
        Key(lay.words(f"fig_{kind}"), GREY if fill == "solid" else INK, hatch=fill == "hatch", hollow=fill == "hollow")
        for kind, fill in KIND_FILLS.items()
    ]
    keys += [Key(lay.words("fig_article_quoted"), INK, "marker", shape="v")] if quoted else []
    fig, ax = _bar_axes(
        lay,
        "kernels",
        [lay.name(v) for v in ids],
        0.5 if lay.narrow else 0.45,
        _room(lay, keys),
        "fig_gpu_activities_axis",
        0.3,
    )
    y = list(range(len(ids)))[::-1]
    left = [0] * len(ids)
    for kind, key in (("kernel", "kernels"), ("memcpy", "memcpys"), ("memset", "memsets")):
        widths = [c.get(key, 0) for c in counts]
        for yi, v, start, w in zip(y, ids, left, widths):
            if w:
                ax.barh(
                    yi,
                    w,
                    left=start,
                    height=0.6,
                    color=COLORS[v],
                    hatch=COLORS[v] if KIND_FILLS[kind] == "hatch" else None,
                    hollow=COLORS[v] if KIND_FILLS[kind] == "hollow" else None,
                    tip=f"{title(lay.lang, v)}{colon(lay.lang)}{counted(lay.lang, kind, w)}",
                )
        left = [a + b for a, b in zip(left, widths)]
    for yi, total in zip(y, left):
        ax.text(total, yi, str(total), dx=3)
    _fit(
        ax,
        left,
        [str(total) for total in left],
        SIZE,
        max(left + [article.KERNELS.get(v, 0) for v in ids]) * 1.12 + 0.5,
    )
    ax.x.integer = True  # a count has no tick at 2.5
    for yi, v in zip(y, ids):
        if v in article.KERNELS:
            q = article.KERNELS[v]
            ax.marker(q, yi + 0.38, "v", 22, INK, tip=f"{title(lay.lang, v)}: {q} ({lay.words('fig_article_quoted')})")
    _legend(fig, ax, lay, keys)
    return fig.svg()


def _host_drawn(snap: Snapshot) -> bool:
    """The device-time figure draws host times beside the device times (every variant has one: a GPU)."""
    rows = {r["id"]: r for r in views.summary_rows(snap)}
    return all(rows[v]["host_us"] is not None for v in _labels(snap))


def draw_device_time(snap: Snapshot, lay: Layout) -> str:
    """Device and host time per call on a linear axis (bar lengths are compared), exact values
    written beside the bars and on hover. Times from 10 ms up (a CPU, a long sequence) are drawn in
    milliseconds, as the values beside the bars are: seven-digit microsecond ticks do not fit a phone."""
    from attn_examples.render.blocks import fmt_us

    ids = _labels(snap)
    rows = {r["id"]: r for r in views.summary_rows(snap)}
    host = [rows[v]["host_us"] for v in ids]
    device = [rows[v]["device_us"] for v in ids]
    drawn = _host_drawn(snap)
    scale = 1000.0 if max(device + [h for h in host if h is not None]) >= 10_000 else 1.0  # as fmt_us switches
    keys = [Key(lay.words("fig_device_time"), GREY)]
    if drawn:
        keys.append(Key(lay.words("fig_host_time"), INK, hatch=True))
    axis_key = "fig_time_axis_ms" if scale > 1 else "fig_time_axis"
    fig, ax = _bar_axes(lay, "device_time", [lay.name(v) for v in ids], 0.6, _room(lay, keys, 2), axis_key, 0.2)
    y = list(range(len(ids)))[::-1]
    iqr = [rows[v]["device_iqr_us"] or 0 for v in ids]
    for yi, v, d, spread in zip(y, ids, device, iqr):
        ax.barh(
            yi + 0.18,
            d / scale,
            height=0.34,
            color=COLORS[v],
            tip=f"{title(lay.lang, v)}: {lay.words('fig_device_time')} {fmt_us(d)}",
        )
        if spread:
            ax.errorbar_x(yi + 0.18, d / scale, spread / 2 / scale)
        ax.text((d + spread / 2) / scale, yi + 0.18, fmt_us(d), size=lay.small, dx=3)
    if len(keys) == 2:
        for yi, v, h in zip(y, ids, host):
            ax.barh(
                yi - 0.18,
                h / scale,
                height=0.34,
                hatch=INK,
                linewidth=0.6,
                tip=f"{title(lay.lang, v)}: {lay.words('fig_host_time')} {fmt_us(h)}",
            )
    end = max(device + [h for h in host if h is not None]) / scale
    ends = [(d + spread / 2) / scale for d, spread in zip(device, iqr)]
    _fit(ax, ends, [fmt_us(d) for d in device], lay.small, end * 1.05)
    _legend(fig, ax, lay, keys, wide_cols=2)
    return fig.svg()


def views_short(name: str) -> str:
    from attn_examples.render.blocks import short_kernel_name

    return short_kernel_name(name, 40)


MARKERS = {
    "naive": "o",
    "naive_inplace": "s",
    "sdpa_math": "D",
    "sdpa_efficient": "^",
    "sdpa_flash": "v",
    "sdpa_cudnn": "P",
    "flex": "X",
    "naive_compiled": "*",
}


def _plot_axes(
    lay: Layout, name: str, height: float, top: float, x_key: str, y_key: str, y_ticks: list[str], right: float = 0.15
) -> tuple[Figure, Axes]:
    """A single chart with a y label: the left margin fits the y tick labels and the y label,
    each axis label wrapped to its axis's length."""
    bottom_guess = xaxis_depth(SIZE, 1) / PT
    ylabel = lay.axis(y_key, (height - top - bottom_guess) * PT - 8)
    left = (label_room(y_ticks, SIZE, ylabel) + 4) / PT
    xlabel = lay.axis(x_key, (lay.width - left - right) * PT)
    bottom = xaxis_depth(SIZE, xlabel.count("\n") + 1) / PT
    fig = lay.figure(name, height + bottom - bottom_guess)
    ax = fig.add_axes(left, top, right, bottom)
    ax.x.label, ax.y.label = xlabel, ylabel
    return fig, ax


def draw_registers_occupancy(snap: Snapshot, lay: Layout) -> str:
    """Registers per thread against Kineto's occupancy estimate, one marker per kernel; the fused
    backends are drawn last so a math marker never hides them."""
    order = sorted(_labels(snap), key=lambda v: v in FUSED)
    kernels = {
        v: [
            r
            for r in views.kernel_rows(snap.variants[v])
            if r["kind"] == "kernel" and r["registers_per_thread"] is not None and r["est_occupancy_pct"] is not None
        ]
        for v in order
    }
    keys = [Key(lay.name(v), COLORS[v], "marker", shape=MARKERS[v]) for v in order if kernels[v]]
    top = _room(lay, keys)
    fig, ax = _plot_axes(
        lay,
        "registers_occupancy",
        (3.4 if lay.narrow else 3.8) + top,
        top,
        "fig_registers_axis",
        "fig_occupancy_axis",
        ["100"],
    )
    for variant_id in order:
        fused = variant_id in FUSED
        for r in kernels[variant_id]:
            ax.marker(
                r["registers_per_thread"],
                r["est_occupancy_pct"],
                MARKERS[variant_id],
                18 + min(r["dur_us"], 600) / 3,
                COLORS[variant_id],
                edge=INK,
                edgewidth=0.6 if fused else 0.3,
                alpha=0.9 if fused else 0.6,
                z=4 if fused else 2,
                tip=f"{title(lay.lang, variant_id)} · {views_short(r['name'])}: "
                f"{r['registers_per_thread']} {lay.words('fig_registers_short')}, "
                f"{r['est_occupancy_pct']:g}% · {_us(r['dur_us'])}",
            )
    ax.y.lim, ax.x.lim = (-5, 105), (0, 270)
    ax.x.nbins, ax.x.integer = (4 if lay.narrow else 8), True
    _legend(fig, ax, lay, keys)
    return fig.svg()


def _draw_scaling(snap: Snapshot, field: str, lay: Layout) -> str:
    """One panel per head dimension: `field` of every sweep point against sequence length. Side
    by side on a desktop (one y scale), stacked on a phone (one x scale)."""
    if snap.sweep is None:
        raise KeyError("this snapshot has no scaling sweep (measure --extended)")
    y_key = {
        "device_us": "fig_scaling_time",
        "tflops_fraction": "fig_scaling_tflops",
        "peak_memory_bytes": "fig_scaling_memory",
    }[field]
    head_dims = sorted({p.head_dim for p in snap.sweep.points})
    n = len(head_dims)
    variants_shown = [
        v
        for v in snap.variants
        if any(p.variant == v and p.head_dim == head_dims[0] and p.available for p in snap.sweep.points)
    ]
    keys = [Key(lay.name(v), COLORS[v], "marker", shape=MARKERS[v]) for v in variants_shown]
    cols = 2 if lay.narrow else 6
    rows = legend_shape(keys, cols, lay.legend_size, lay.width * PT - 4)[0]
    top = (legend_height(rows, lay.legend_size) + 8 + SIZE * 1.2 + 8) / PT  # the legend, then a panel title
    bottom = xaxis_depth(SIZE, 1) / PT
    panel = 2.3 if lay.narrow else 3.8 - top - bottom
    gap = (SIZE * 1.2 + 22) / PT if lay.narrow else 0.15  # a stacked panel's title sits in the gap
    height = top + bottom + (n * panel + (n - 1) * gap if lay.narrow else panel)
    fig = lay.figure(f"scaling{field}", height)
    ylabel = lay.axis(y_key, panel * PT - 8)
    axes = []
    for i in range(n):  # provisional boxes: the left margin is known once the y ticks are
        ax_top = top + i * (panel + gap) if lay.narrow else top
        axes.append(fig.add_axes(0.75, ax_top, 0.15, height - ax_top - panel))
    peak = snap.sweep.matmul_peak_tflops
    seqs = sorted({p.seq_len for p in snap.sweep.points})
    for ax, head_dim in zip(axes, head_dims):
        for variant_id in snap.variants:
            points = sorted(
                (p for p in snap.sweep.points if p.variant == variant_id and p.head_dim == head_dim and p.available),
                key=lambda p: p.seq_len,
            )
            if not points:
                continue
            values = [
                recorded(p.tflops, "sweep.points.tflops") / peak if field == "tflops_fraction" else getattr(p, field)
                for p in points
            ]
            if field == "peak_memory_bytes":
                values = [v / 2**20 for v in values]
            ax.line([p.seq_len for p in points], values, color=COLORS[variant_id], width=1.2)
            for p, value in zip(points, values):
                shown = (
                    _us(value)
                    if field == "device_us"
                    else f"{value:.0%}"
                    if field == "tflops_fraction"
                    else f"{value:,.0f} MiB"
                )
                ax.marker(
                    p.seq_len,
                    value,
                    MARKERS[variant_id],
                    16,
                    COLORS[variant_id],
                    tip=f"{title(lay.lang, variant_id)} · head_dim {head_dim} · seq {p.seq_len:,}: {shown}",
                )
        ax.x.log = True
        ax.x.ticks = [(s, f"{s // 1024}k" if s >= 1024 else str(s)) for s in seqs]
        ax.y.log = field != "tflops_fraction"
        ax.y.nbins = 5
        ax.title = f"head_dim {head_dim}"
        ax.y.label = ylabel if ax is axes[0] or lay.narrow else ""
        ax.x.label = lay.words("fig_seq_len") if ax is axes[-1] or not lay.narrow else ""
        ax.x.labels = ax is axes[-1] or not lay.narrow
        ax.y.labels = ax is axes[0] or lay.narrow
        if field == "tflops_fraction":
            ax.y.lim = (0, 1)
    share(axes, "x" if lay.narrow else "y")
    left = max(ax.label_room() for ax in axes) + 4
    width = (fig.w - left - 0.15 * PT - (0 if lay.narrow else (n - 1) * gap * PT)) / (1 if lay.narrow else n)
    for i, ax in enumerate(axes):
        ax.left, ax.width = (left, width) if lay.narrow else (left + i * (width + gap * PT), width)
    fig.legend(keys, fig.w / 2, 3, "upper center", cols, lay.legend_size)
    return fig.svg()


def _require_counters(snap: Snapshot) -> Counters:
    counters = hardware.measured_counters(snap)
    if counters is None:
        raise KeyError(f"no hardware counters in this snapshot: {hardware.why_unavailable(snap)}")
    return counters


def draw_hbm_traffic(snap: Snapshot, lay: Layout) -> str:
    """HBM bytes per forward (read and written, from the counters) against the two sizes that
    matter: q, k, v and the output together, and one score matrix. A linear axis: the bars are
    compared by length, and the exact sizes are written beside them."""
    counters = _require_counters(snap)
    totals = {v: s for v in counters.variants if (s := hardware.variant_totals(snap, v)) is not None}
    ids = [v for v, s in totals.items() if s["dram_read_bytes"] is not None and s["dram_write_bytes"] is not None]
    mib = 2**20
    qkvo, scores = totals[ids[0]]["qkvo_bytes"] / mib, totals[ids[0]]["score_bytes"] / mib
    lines = ((qkvo, ":", "fig_qkvo"), (scores, "--", "fig_one_score"))
    keys = [Key(lay.words("fig_hbm_read"), GREY), Key(lay.words("fig_hbm_written"), INK, hatch=True)]
    keys += [Key(f"{lay.words(key)}{colon(lay.lang)}{x:,.0f} MiB", INK, "line", dash=style) for x, style, key in lines]
    fig, ax = _bar_axes(lay, "hbm_traffic", [lay.name(v) for v in ids], 0.55, _room(lay, keys, 2), "fig_hbm_axis", 0.2)
    y = list(range(len(ids)))[::-1]
    read = [totals[v]["dram_read_bytes"] / mib for v in ids]
    write = [totals[v]["dram_write_bytes"] / mib for v in ids]
    end = max(r + w for r, w in zip(read, write))
    written = []
    for yi, v, r, w in zip(y, ids, read, write):
        ax.barh(
            yi, r, height=0.6, color=COLORS[v], tip=f"{title(lay.lang, v)}: {lay.words('fig_hbm_read')} {r:,.1f} MiB"
        )
        ax.barh(
            yi,
            w,
            left=r,
            height=0.6,
            hatch=COLORS[v],
            tip=f"{title(lay.lang, v)}: {lay.words('fig_hbm_written')} {w:,.1f} MiB",
        )
        written.append(
            f"{r + w:,.0f} MiB"
            + ("\n" if lay.narrow else " · ")
            + f"{totals[v]['dram_per_score']:.2f}× {lay.words('fig_scores_short')}"
        )
        ax.text(r + w, yi, written[-1], size=lay.small, dx=3, spacing=1.05)
    for x, style, _ in lines:
        ax.vline(x, dash=style)
    _fit(ax, [r + w for r, w in zip(read, write)], written, lay.small, max(end, scores) * 1.05)
    _legend(fig, ax, lay, keys, wide_cols=2)
    return fig.svg()


def draw_roofline(snap: Snapshot, lay: Layout) -> str:
    """Every kernel that computes, on roofs measured on the same GPU: copy bandwidth, the FP32
    (FFMA) matmul and the bf16 Tensor Core matmul. Log-log, as rooflines are read, with every
    roof labelled at its value."""
    _require_counters(snap)
    c = snap.ceilings  # None on a CPU, or a GPU snapshot older than the ceilings: points without roofs
    points = hardware.roofline_points(snap)
    variants = list(dict.fromkeys(p["variant"] for p in sorted(points, key=lambda p: p["variant"] in FUSED)))
    keys = [Key(lay.name(v), COLORS[v], "marker", shape=MARKERS[v]) for v in variants]
    top = _room(lay, keys) + (lay.small * 1.2 / PT if lay.narrow and c is not None else 0)  # the copy roof's label
    low, high = 0.05, 5000.0
    fig, ax = _plot_axes(lay, "roofline", 4.0 + top, top, "fig_intensity_axis", "fig_tflops_axis", ["1,000"], 0.2)
    ax.x.log = ax.y.log = True
    ax.x.lim = (low, high)
    ax.y.lim = (0.05, (c.bf16_matmul_tflops if c else max(p["tflops"] for p in points)) * 3)
    if c is not None:
        slope = c.copy_gbps / 1000  # TFLOP/s per (FLOP/byte) along the bandwidth roof
        for peak, key, style in (
            (c.bf16_matmul_tflops, "fig_bf16_roof", "-"),
            (c.fp32_matmul_tflops, "fig_fp32_roof", "--"),
        ):
            ridge = peak / slope
            ax.line([low, ridge, high], [low * slope, peak, peak], width=0.9, dash=style)
            ax.text(
                high,
                peak,
                lay.words(key, value=f"{peak:,.0f}"),
                size=lay.small,
                anchor="end",
                va="bottom",
                dx=-2,
                dy=-2,
            )
        copy = lay.words("fig_copy_roof", value=f"{c.copy_gbps:,.0f}")
        if not lay.narrow:  # on a phone the slope's label would sit on the points: it goes above the chart
            x0 = low * 1.3
            ax.text(
                x0,
                x0 * slope,
                copy,
                size=lay.small,
                va="bottom",
                dy=-3,
                rotate=ax.angle((low, low * slope), (high, high * slope)),
            )
        else:
            fig.text(fig.w - 3, 3, copy, size=lay.small, anchor="end", va="top")
    for p in sorted(points, key=lambda p: p["variant"] in FUSED):
        fused = p["variant"] in FUSED
        ax.marker(
            p["intensity"],
            p["tflops"],
            MARKERS[p["variant"]],
            20 + min(p["duration_us"], 600) / 4,
            COLORS[p["variant"]],
            edge=INK,
            edgewidth=0.3,
            alpha=0.85,
            z=4 if fused else 3,
            tip=f"{title(lay.lang, p['variant'])} · {views_short(p['name'])}: "
            f"{p['intensity']:,.1f} FLOP/B, {p['tflops']:,.2f} TFLOP/s · {_us(p['duration_us'])}",
        )
    if lay.narrow:
        fig.legend(keys, 0.01 * fig.w, 3 + (lay.small * 1.2 if c is not None else 0), "upper left", 1, lay.legend_size)
    else:
        _legend(fig, ax, lay, keys)
    return fig.svg()


def _draw(snap: Snapshot, name: str, lang: str, narrow: bool) -> str:
    lay = Layout(lang, narrow)
    scaling = {"scaling_time": "device_us", "scaling_tflops": "tflops_fraction", "scaling_memory": "peak_memory_bytes"}
    if name in scaling:
        return _draw_scaling(snap, scaling[name], lay)
    return {
        "kernels": draw_kernels,
        "device_time": draw_device_time,
        "registers_occupancy": draw_registers_occupancy,
        "hbm_traffic": draw_hbm_traffic,
        "roofline": draw_roofline,
    }[name](snap, lay)


@functools.lru_cache(maxsize=1)
def _code_fingerprint() -> str:
    """Changes whenever the drawing code or its words change, so a stale figure is never reused."""
    from attn_examples.render import i18n, svgplot

    modules = (article, hardware, views, i18n, svgplot)
    return hashlib.sha256(
        b"".join(Path(source).read_bytes() for m in modules if (source := m.__file__)) + Path(__file__).read_bytes()
    ).hexdigest()[:16]


def _cache_key(snap: Snapshot, name: str, lang: str, narrow: bool) -> str:
    """Content of the snapshot (its JSON) + the code that draws + the language and layout."""
    digest = hashlib.sha256((snap.root / "snapshot.json").read_bytes() if snap.root else b"")
    digest.update(f"{name}|{lang}|{narrow}|{_code_fingerprint()}".encode())
    return digest.hexdigest()[:24]


_memory: dict[str, str] = {}


def figure_svg(snap: Snapshot, name: str, lang: str = "en", narrow: bool = False) -> str:
    """The SVG for one figure in one language and layout, drawn once per snapshot content and code
    version in a process (a drawing takes about a millisecond: nothing is kept on disk).
    (The per-variant timeline is not drawn here: attn_examples.render.timeline renders it per language.)"""
    if name not in FIGURES:
        raise KeyError(f"unknown figure {name!r}; known: {', '.join(FIGURES)}")
    key = _cache_key(snap, name, lang, narrow)
    if key not in _memory:
        _memory[key] = _draw(snap, name, lang, narrow)
    return _memory[key]


def _drawable(snap: Snapshot, name: str) -> bool:
    """The pages show a table instead where the snapshot lacks what the figure needs."""
    if name in COUNTER_FIGURES:
        return hardware.available(snap)
    return name in FIGURES and (not name.startswith("scaling") or snap.sweep is not None)


def takeaway(snap: Snapshot, name: str, lang: str) -> str:
    """The figure's point in one sentence, computed from the snapshot: extremes and their ratio,
    never a word typed for one device. Empty where a figure has no single point to make."""
    from attn_examples.render.blocks import fmt_ratio, fmt_us

    ids = _labels(snap)
    if not ids:
        return ""
    if name == "kernels":
        from attn_examples.render.blocks import join_words

        totals = {v: views.counts(snap.variants[v])["gpu_activities"] for v in ids}
        if max(totals.values()) == 0:  # a CPU: no GPU activities to compare
            return ""
        fewest, most = min(totals.values()), max(totals.values())
        low = join_words([title(lang, v) for v in ids if totals[v] == fewest], lang)
        high = join_words([title(lang, v) for v in ids if totals[v] == most], lang)
        return t(lang, "take_kernels").format(low=low, n=fewest, high=high, m=most)
    if name == "device_time":
        rows = {r["id"]: r["device_us"] for r in views.summary_rows(snap) if r["available"] and r["device_us"]}
        low, high = min(rows, key=rows.__getitem__), max(rows, key=rows.__getitem__)
        return t(lang, "take_time").format(
            low=title(lang, low),
            t_low=fmt_us(rows[low]),
            high=title(lang, high),
            t_high=fmt_us(rows[high]),
            ratio=fmt_ratio(rows[high] / rows[low]),
        )
    counters = hardware.measured_counters(snap)
    if name == "hbm_traffic" and counters is not None:
        ratio = {
            v: s["dram_per_score"]
            for v in counters.variants
            if (s := hardware.variant_totals(snap, v)) and s.get("dram_per_score") is not None
        }
        if ratio:
            from attn_examples.render.blocks import DTYPE_WORDS, join_words

            shown = {v: f"{r:.2f}×" for v, r in ratio.items()}  # variants that show the same figure tie
            low, high = shown[min(ratio, key=ratio.__getitem__)], shown[max(ratio, key=ratio.__getitem__)]
            return t(lang, "take_hbm").format(
                low=join_words([title(lang, v) for v in ratio if shown[v] == low], lang),
                r_low=low,
                high=join_words([title(lang, v) for v in ratio if shown[v] == high], lang),
                r_high=high,
                dtype=DTYPE_WORDS.get(snap.config.dtype, snap.config.dtype),
            )
    return ""


def figure_html(snap: Snapshot, name: str, lang: str) -> str:
    """The figure inside <figure>: a wide and a narrow drawing (the page shows the one that fits
    its width), a localized title (alt text), and a caption that leads with the figure's point."""
    alt_key = {
        "kernels": "kernels_fig_alt",
        "device_time": "time_fig_alt",
        "registers_occupancy": "regs_fig_alt",
        "scaling_time": "scaling_time_alt",
        "scaling_tflops": "scaling_tflops_alt",
        "scaling_memory": "scaling_memory_alt",
        "hbm_traffic": "hbm_fig_alt",
        "roofline": "roofline_fig_alt",
    }[name]
    if name == "device_time" and not _host_drawn(snap):  # a CPU: device time alone, whatever the unit
        alt_key = "time_fig_alt_device"
    alt = t(lang, alt_key)
    label = html.escape(alt, quote=True)

    def labelled(svg: str) -> str:
        svg = svg.replace("<svg", f'<svg role="img" aria-label="{label}"', 1)
        return re.sub(r"(<svg[^>]*>)", rf"\1<title>{html.escape(alt)}</title>", svg, count=1)

    return templating.render(
        "figure.html.j2",
        name=name,
        # drawn by svgplot, which escapes its own text: SVG, put in whole
        wide=Markup(labelled(figure_svg(snap, name, lang, narrow=False))),
        narrow=Markup(labelled(figure_svg(snap, name, lang, narrow=True))),
        point=takeaway(snap, name, lang),
        alt=alt,
    )
