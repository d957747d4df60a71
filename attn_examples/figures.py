"""SVG figures drawn from a snapshot with matplotlib (no torch import).

Figures carry no words that need translating (variant ids, units, kernel names), so each is
drawn once per build and shared by both languages; the caption and alt text around it are
localized. Text and axes are drawn in a marker colour that becomes `currentColor` in the
inline SVG, so the figure follows the page's light or dark scheme.
"""

from __future__ import annotations

import functools
import hashlib
import html
import io
import os
import re
from pathlib import Path
from typing import Any

from attn_examples import article, hardware, views
from attn_examples.i18n import t
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


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({
        "svg.fonttype": "none", "font.size": 9, "font.family": "sans-serif",
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


def _svg(fig: Any, salt: str) -> str:
    """The figure as inline SVG: no XML prolog, no fixed size, unique ids, themed ink."""
    plt = _pyplot()
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
    # matplotlib's ids are per document; prefix them so several figures can share a page.
    prefix = re.sub(r"[^A-Za-z0-9]", "", salt)
    svg = re.sub(r'id="([^"]+)"', rf'id="{prefix}-\1"', svg)
    svg = re.sub(r"url\(#([^)]+)\)", rf"url(#{prefix}-\1)", svg)
    svg = re.sub(r'xlink:href="#([^"]+)"', rf'xlink:href="#{prefix}-\1"', svg)
    return re.sub(r"<!--.*?-->", "", svg, flags=re.S).strip()


def _labels(snap: Snapshot) -> list[str]:
    return [v for v, r in snap.variants.items() if r.available]


def draw_kernels(snap: Snapshot) -> str:
    plt = _pyplot()
    ids = _labels(snap)
    counts = [views.counts(snap.variants[v]) for v in ids]
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(ids) + 1.0))
    _margins(fig, left=1.15, bottom=0.5, top=0.4, right=0.3)
    y = list(range(len(ids)))[::-1]
    left = [0] * len(ids)
    for kind, key in (("kernel", "kernels"), ("memcpy", "memcpys"), ("memset", "memsets")):
        widths = [c.get(key, 0) for c in counts]
        ax.barh(y, widths, left=left, color=KIND_COLORS[kind], label=kind, height=0.6)
        left = [a + b for a, b in zip(left, widths)]
    for yi, total in zip(y, left):
        ax.text(total + 0.3, yi, str(total), va="center")
    quoted = [(yi, article.KERNELS[v]) for yi, v in zip(y, ids) if v in article.KERNELS]
    ax.scatter([q for _, q in quoted], [yi + 0.38 for yi, _ in quoted], marker="v", color=INK, s=22,
               label="article, A100 (quoted)", zorder=3)
    ax.set_yticks(y, ids)
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))   # a count has no tick at 2.5
    ax.set_xlabel("GPU activities per forward")
    ax.legend(loc="lower right", ncols=4, bbox_to_anchor=(1.0, 1.0))
    return _svg(fig, "kernels")


def draw_device_time(snap: Snapshot) -> str:
    plt = _pyplot()
    ids = _labels(snap)
    rows = {r["id"]: r for r in views.summary_rows(snap)}
    fig, ax = plt.subplots(figsize=(7, 0.55 * len(ids) + 1.0))
    _margins(fig, left=1.15, bottom=0.55, top=0.4, right=0.55)
    y = list(range(len(ids)))[::-1]
    device = [rows[v]["device_us"] for v in ids]
    iqr = [rows[v]["device_iqr_us"] or 0 for v in ids]
    ax.barh([yi + 0.18 for yi in y], device, height=0.34, xerr=[[i / 2 for i in iqr], [i / 2 for i in iqr]],
            color=[COLORS[v] for v in ids], label="device time / call", ecolor=INK)
    host = [rows[v]["host_us"] for v in ids]
    if all(h is not None for h in host):
        ax.barh([yi - 0.18 for yi in y], host, height=0.34, color="none", edgecolor=INK, hatch="///",
                linewidth=0.6, label="host (dispatch) time / call")
    for yi, d in zip(y, device):
        ax.text(d * 1.04, yi + 0.18, f"{d:,.0f} µs" if d >= 100 else f"{d:,.1f} µs", va="center", fontsize=8)
    ax.set_xscale("log")
    _log_axis(ax.xaxis)
    ax.set_yticks(y, ids)
    ax.set_xlabel("µs per call (log scale), median; whiskers: interquartile range")
    ax.legend(loc="lower right", ncols=2, bbox_to_anchor=(1.0, 1.0))
    return _svg(fig, "device_time")


def views_short(name: str) -> str:
    from attn_examples.render import short_kernel_name

    return short_kernel_name(name, 40)


MARKERS = {"naive": "o", "naive_inplace": "s", "sdpa_math": "D", "sdpa_efficient": "^", "sdpa_flash": "v",
           "sdpa_cudnn": "P", "flex": "X", "naive_compiled": "*"}


def draw_registers_occupancy(snap: Snapshot) -> str:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 3.8))
    _margins(fig, left=0.6, bottom=0.5, top=0.15)
    for index, variant_id in enumerate(_labels(snap)):
        rows = [r for r in views.kernel_rows(snap.variants[variant_id]) if r["kind"] == "kernel"
                and r["registers_per_thread"] is not None and r["est_occupancy_pct"] is not None]
        if not rows:
            continue
        ax.scatter([r["registers_per_thread"] for r in rows], [r["est_occupancy_pct"] for r in rows],
                   s=[18 + min(r["dur_us"], 600) / 3 for r in rows], color=COLORS[variant_id], alpha=0.75,
                   marker=MARKERS[variant_id], label=variant_id, edgecolors=INK, linewidths=0.3)
        main = views.main_kernel(snap.variants[variant_id])
        if main and variant_id.startswith("sdpa_") and variant_id != "sdpa_math":
            ax.annotate(f"{variant_id}: {views_short(main['name'])[:26]}",
                        (main["registers_per_thread"], main["est_occupancy_pct"]),
                        textcoords="offset points", xytext=(-150, 14 + 10 * (index % 3)), fontsize=6.5,
                        arrowprops={"arrowstyle": "-", "color": INK, "linewidth": 0.4})
    ax.set_xlabel("registers per thread (marker area: kernel duration)")
    ax.set_ylabel("Kineto est. occupancy %")
    ax.set_ylim(-5, 105)
    ax.set_xlim(0, 270)
    ax.legend(loc="upper right", fontsize=7, ncols=2)
    return _svg(fig, "registers_occupancy")


def _draw_scaling(snap: Snapshot, field: str, ylabel: str, log_y: bool) -> str:
    """One panel per head dimension: `field` of every sweep point against sequence length."""
    plt = _pyplot()
    from matplotlib.ticker import NullLocator
    if snap.sweep is None:
        raise KeyError("this snapshot has no scaling sweep (measure --extended)")
    head_dims = sorted({p.head_dim for p in snap.sweep.points})
    fig, axes = plt.subplots(1, len(head_dims), figsize=(7.5, 3.8), sharey=True)
    _margins(fig, left=0.75, bottom=0.5, top=0.75)
    fig.subplots_adjust(wspace=0.12)
    peak = snap.sweep.matmul_peak_tflops
    for ax, head_dim in zip(list(axes) if len(head_dims) > 1 else [axes], head_dims):
        for variant_id in snap.variants:
            points = sorted((p for p in snap.sweep.points if p.variant == variant_id and p.head_dim == head_dim
                             and p.available), key=lambda p: p.seq_len)
            if not points:
                continue
            values = [p.tflops / peak if field == "tflops_fraction" else getattr(p, field) for p in points]
            if field == "peak_memory_bytes":
                values = [v / 2**20 for v in values]
            ax.plot([p.seq_len for p in points], values, marker=MARKERS[variant_id], color=COLORS[variant_id],
                    label=variant_id, linewidth=1.2, markersize=4)
        ax.set_xscale("log", base=2)
        seqs = sorted({p.seq_len for p in snap.sweep.points})
        ax.set_xticks(seqs, [f"{s // 1024}k" if s >= 1024 else str(s) for s in seqs])
        ax.xaxis.set_minor_locator(NullLocator())
        if log_y:
            ax.set_yscale("log")
            _log_axis(ax.yaxis)
        ax.set_title(f"head_dim {head_dim}", fontsize=9)
        ax.set_xlabel("sequence length")
    (axes[0] if len(head_dims) > 1 else axes).set_ylabel(ylabel)
    if field == "tflops_fraction":
        (axes[0] if len(head_dims) > 1 else axes).set_ylim(0, 1)
    handles, labels = (axes[0] if len(head_dims) > 1 else axes).get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncols=6, fontsize=7, bbox_to_anchor=(0.5, 1.0))
    return _svg(fig, f"scaling{field}")


def _require_counters(snap: Snapshot) -> None:
    if not hardware.available(snap):
        raise KeyError(f"no hardware counters in this snapshot: {hardware.why_unavailable(snap)}")


def draw_hbm_traffic(snap: Snapshot) -> str:
    """HBM bytes per forward (read and written, from the counters) against the two sizes that
    matter: q, k, v and the output together, and one score matrix."""
    plt = _pyplot()
    _require_counters(snap)
    totals = {v: hardware.variant_totals(snap, v) for v in snap.counters.variants}
    ids = [v for v, s in totals.items() if s and s["dram_read_bytes"] is not None and s["dram_write_bytes"] is not None]
    fig, ax = plt.subplots(figsize=(7, 0.5 * len(ids) + 1.3))
    _margins(fig, left=1.15, bottom=0.55, top=0.45, right=0.75)
    y = list(range(len(ids)))[::-1]
    mib = 2**20
    read = [totals[v]["dram_read_bytes"] / mib for v in ids]
    write = [totals[v]["dram_write_bytes"] / mib for v in ids]
    ax.barh(y, read, color=[COLORS[v] for v in ids], height=0.6, label="read from HBM")
    ax.barh(y, write, left=read, color="none", edgecolor=[COLORS[v] for v in ids], hatch="///", height=0.6,
            linewidth=0.8, label="written to HBM")
    for yi, v in zip(y, ids):
        end = (totals[v]["dram_bytes"]) / mib
        ax.text(end * 1.06, yi, f"{end:,.0f} MiB · {totals[v]['dram_per_qkvo']:.2f}× q+k+v+o"
                if totals[v]["dram_per_qkvo"] < 10 else f"{end:,.0f} MiB · {totals[v]['dram_per_score']:.1f}× scores",
                va="center", fontsize=7.5)
    qkvo, scores = totals[ids[0]]["qkvo_bytes"] / mib, totals[ids[0]]["score_bytes"] / mib
    ax.axvline(qkvo, color=INK, linestyle=":", linewidth=0.8)
    ax.axvline(scores, color=INK, linestyle="--", linewidth=0.8)
    ax.text(qkvo, len(ids) - 0.35, " q+k+v+o", fontsize=7, va="bottom")
    ax.text(scores, len(ids) - 0.35, " one score matrix", fontsize=7, va="bottom")
    ax.set_xscale("log")
    ax.set_xlim(min(read) / 5, max(r + w for r, w in zip(read, write)) * 12)   # room left of the smallest bar
    _log_axis(ax.xaxis)
    ax.set_yticks(y, ids)
    ax.set_xlabel("MiB moved to and from HBM in one forward (log scale; Nsight Compute, caches flushed)")
    ax.legend(loc="lower right", ncols=2, bbox_to_anchor=(1.0, 1.04))
    return _svg(fig, "hbm_traffic")


def draw_roofline(snap: Snapshot) -> str:
    """Every kernel that computes, on roofs measured on the same GPU: copy bandwidth, the FP32
    (FFMA) matmul and the bf16 Tensor Core matmul."""
    plt = _pyplot()
    _require_counters(snap)
    c = snap.ceilings   # None when the snapshot was not measured with --extended: points without roofs
    points = hardware.roofline_points(snap)
    fig, ax = plt.subplots(figsize=(7, 4.4))
    _margins(fig, left=0.7, bottom=0.55, top=0.2, right=0.2)
    low, high = 0.05, 5000.0
    if c is not None:
        slope = c.copy_gbps / 1000   # TFLOP/s per (FLOP/byte) along the bandwidth roof
        for peak, label, style in ((c.bf16_matmul_tflops, "bf16 matmul", "-"),
                                   (c.fp32_matmul_tflops, "fp32 matmul (FFMA)", "--")):
            ridge = peak / slope
            ax.plot([low, ridge, high], [low * slope, peak, peak], color=INK, linewidth=0.9, linestyle=style)
            ax.text(high, peak * 1.08, f"{label}: {peak:,.0f} TFLOP/s (measured) ", ha="right", va="bottom",
                    fontsize=7)
        ax.text(low * 1.3, low * 1.3 * slope * 1.5, f"copy: {c.copy_gbps:,.0f} GB/s (measured)", rotation=28,
                fontsize=7, va="bottom")
    seen = set()
    for p in points:
        ax.scatter(p["intensity"], p["tflops"], color=COLORS[p["variant"]], marker=MARKERS[p["variant"]],
                   s=20 + min(p["duration_us"], 600) / 4, edgecolors=INK, linewidths=0.3, alpha=0.85,
                   label=None if p["variant"] in seen else p["variant"], zorder=3)
        seen.add(p["variant"])
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(low, high)
    ax.set_ylim(0.05, (c.bf16_matmul_tflops if c else max(p["tflops"] for p in points)) * 3)
    _log_axis(ax.xaxis)
    _log_axis(ax.yaxis)
    ax.set_xlabel("arithmetic intensity: FLOP per HBM byte (counters)")
    ax.set_ylabel("TFLOP/s achieved (counters)")
    ax.legend(loc="lower right", fontsize=7, ncols=2, title="marker area: kernel duration", title_fontsize=7)
    return _svg(fig, "roofline")


CACHE_DIR = Path(os.environ.get("ATTN_EXAMPLES_FIGURE_CACHE", Path(__file__).resolve().parent.parent / ".cache" / "figures"))


def _draw(snap: Snapshot, name: str) -> str:
    if name == "scaling_time":
        return _draw_scaling(snap, "device_us", "µs per call (median)", True)
    if name == "scaling_tflops":
        return _draw_scaling(snap, "tflops_fraction", "share of the measured bf16 matmul peak", False)
    if name == "scaling_memory":
        return _draw_scaling(snap, "peak_memory_bytes", "peak memory per call (MiB)", True)
    return {"kernels": draw_kernels, "device_time": draw_device_time,
            "registers_occupancy": draw_registers_occupancy, "hbm_traffic": draw_hbm_traffic,
            "roofline": draw_roofline}[name](snap)


@functools.lru_cache(maxsize=1)
def _code_fingerprint() -> str:
    """Changes whenever the drawing code or matplotlib changes, so stale figures are never reused."""
    import importlib.metadata

    source = b"".join(Path(m.__file__).read_bytes() for m in (article, hardware, views)) + Path(__file__).read_bytes()
    return hashlib.sha256(source + importlib.metadata.version("matplotlib").encode()).hexdigest()[:16]


def _cache_key(snap: Snapshot, name: str) -> str:
    """Content of the snapshot (its JSON) + the code that draws."""
    digest = hashlib.sha256((snap.root / "snapshot.json").read_bytes() if snap.root else b"")
    digest.update(f"{name}|{_code_fingerprint()}".encode())
    return digest.hexdigest()[:24]


_memory: dict[str, str] = {}


def figure_svg(snap: Snapshot, name: str) -> str:
    """The SVG for one figure. Drawn once per snapshot content and code version: kept in memory for
    the build's other language, and on disk (.cache/figures) for the next build or serve reload.
    (The per-variant timeline is not drawn here: attn_examples.timeline renders it per language.)"""
    if name not in FIGURES:
        raise KeyError(f"unknown figure {name!r}; known: {', '.join(FIGURES)}")
    key = _cache_key(snap, name)
    if key in _memory:
        return _memory[key]
    path = CACHE_DIR / f"{name}-all-{key}.svg"
    if path.is_file():
        svg = path.read_text(encoding="utf-8")
    else:
        svg = _draw(snap, name)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(svg, encoding="utf-8")
        os.replace(tmp, path)
    _memory[key] = svg
    return svg


def figure_html(snap: Snapshot, name: str, lang: str) -> str:
    """The figure inside <figure>, with a localized title (alt text) and caption."""
    svg = figure_svg(snap, name)
    alt_key = {"kernels": "kernels_fig_alt", "device_time": "time_fig_alt",
               "registers_occupancy": "regs_fig_alt", "scaling_time": "scaling_time_alt",
               "scaling_tflops": "scaling_tflops_alt", "scaling_memory": "scaling_memory_alt",
               "hbm_traffic": "hbm_fig_alt", "roofline": "roofline_fig_alt"}[name]
    alt = t(lang, alt_key)
    fig_id = f"fig-{name}"
    label = html.escape(alt, quote=True)
    svg = svg.replace("<svg", f'<svg role="img" aria-label="{label}"', 1)
    svg = re.sub(r"(<svg[^>]*>)", rf"\1<title>{html.escape(alt)}</title>", svg, count=1)
    return (f'<figure class="attn-figure" id="{fig_id}" data-search-exclude>{svg}'
            f"<figcaption>{html.escape(alt)}</figcaption></figure>")
