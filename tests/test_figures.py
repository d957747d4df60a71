"""What a figure says on its axes and on hover, and that it fits its canvas (attn_examples.render.svgplot; no torch)."""

from __future__ import annotations

import html
import re

import pytest

from attn_examples.render import figures, svgplot
from attn_examples.render.i18n import TEXT
from attn_examples.site.pages import committed_snapshots
from attn_examples.snapshot.schema import load_snapshot
from tests.conftest import REPO

SNAPSHOTS = committed_snapshots(REPO / "snapshots")
CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.mark.parametrize("narrow", [False, True], ids=["wide", "narrow"])
@pytest.mark.parametrize("folder", SNAPSHOTS, ids=lambda p: p.name)
def test_a_count_axis_has_whole_number_ticks(folder, narrow: bool) -> None:
    svg = figures.draw_kernels(load_snapshot(folder), figures.Layout("en", narrow))
    ticks = re.findall(r'<g class="xtick"><text[^>]*>([^<]*)</text>', svg)
    assert ticks and all(re.fullmatch(r"\d+", t.replace(",", "")) for t in ticks), ticks


def _marks(svg: str) -> list[str]:
    return re.findall(r'<g id="[^"]+" class="attn-mark"><title>([^<]*)</title>', svg)


def test_every_bar_and_point_tells_its_value_on_hover() -> None:
    snap = load_snapshot(REPO / "snapshots" / "nvidia-h200")
    available = [v for v, r in snap.variants.items() if r.available]
    time_marks = _marks(figures.draw_device_time(snap, figures.Layout("en", False)))
    assert len(time_marks) == 2 * len(available)  # a device and a host bar per variant
    assert all(re.search(r"\d µs$", m) for m in time_marks), time_marks[:3]
    kernel_marks = _marks(figures.draw_kernels(snap, figures.Layout("en", False)))
    bars = sum(
        1
        for v in available
        for key in ("kernels", "memcpys", "memsets")
        if figures.views.counts(snap.variants[v]).get(key)
    )
    assert len(kernel_marks) == bars + sum(v in figures.article.KERNELS for v in available)
    hbm = _marks(figures.draw_hbm_traffic(snap, figures.Layout("en", True)))
    assert len(hbm) == 2 * len(snap.counters.variants) and all("MiB" in m for m in hbm)


@pytest.mark.parametrize(
    "name", ["kernels", "device_time", "registers_occupancy", "scaling_time", "hbm_traffic", "roofline"]
)
def test_a_chinese_figure_speaks_chinese_and_names_variants_as_the_tables_do(name: str) -> None:
    snap = load_snapshot(REPO / "snapshots" / "nvidia-h200")
    svg = figures._draw(snap, name, "zh-TW", False)
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    assert any(CJK.search(text) for text in texts), texts[:8]
    english = [
        phrase
        for key, phrase in TEXT["en"].items()
        if key.startswith("fig_") and len(phrase) > 12 and phrase.split("{")[0] in svg
    ]
    assert not english, english
    assert "sdpa_math" not in svg and "naive_inplace" not in svg  # code ids never reach a reader
    assert "SDPA：math" in svg or "math" in svg


def test_a_kernel_name_on_hover_is_escaped() -> None:
    fig = svgplot.Figure(3, 2, "hostile")
    ax = fig.add_axes(0.5, 0.2, 0.1, 0.4)
    ax.barh(0, 1, tip='k<script>alert("x")</script>')
    ax.text(1, 0, "<b>&amp;")
    svg = fig.svg()
    assert "<script>" not in svg and "&lt;script&gt;" in svg
    assert "<b>" not in svg and "&lt;b&gt;&amp;amp;" in svg
    assert _marks(svg) == ["k&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"]


@pytest.mark.parametrize("folder", SNAPSHOTS, ids=lambda p: p.name)
def test_a_caption_leads_with_the_point_the_measurement_makes(folder) -> None:
    """Computed, not typed: the extremes named in the caption are the snapshot's own."""
    snap = load_snapshot(folder)
    rows = {r["id"]: r for r in figures.views.summary_rows(snap) if r["available"]}
    times = {v: r["device_us"] for v, r in rows.items() if r["device_us"]}
    point = figures.takeaway(snap, "device_time", "en")
    slowest = min(times, key=lambda v: -times[v])
    fastest = min(times, key=times.get)
    first, second = point.split(" to ", 1)
    assert f"({figures.title('en', fastest)})" in first and f"({figures.title('en', slowest)})" in second, point
    kernels = figures.takeaway(snap, "kernels", "zh-TW")
    counts = {v: figures.views.counts(snap.variants[v])["gpu_activities"] for v in rows}
    assert (kernels == "") == (max(counts.values()) == 0)
    if kernels:
        assert f"最多 {max(counts.values())} 個" in kernels


def test_the_hbm_caption_names_every_variant_that_ties_at_an_extreme() -> None:
    """At b4-h12-s2048-d96 efficient, flash and cuDNN all move 0.17x a score matrix: naming one of them
    as the least read as if it alone were; and the bytes are replays' sums, not a forward's."""
    snap = load_snapshot(REPO / "snapshots" / "nvidia-h200-b4-h12-s2048-d96")
    point = figures.takeaway(snap, "hbm_traffic", "en")
    assert "0.17× one bf16 score matrix (SDPA: efficient, SDPA: flash and SDPA: cuDNN)" in point, point
    assert "replayed alone" in point and "per forward" not in point
    assert "（SDPA：efficient、SDPA：flash 與 SDPA：cuDNN）" in figures.takeaway(snap, "hbm_traffic", "zh-TW")


def _every_drawing(folder=REPO / "snapshots" / "nvidia-h200"):
    snap = load_snapshot(folder)
    for name in figures.FIGURES:
        if figures._drawable(snap, name):
            for lang in ("en", "zh-TW"):
                for narrow in (False, True):
                    yield (name, lang, narrow), figures._draw(snap, name, lang, narrow)


TEXT_ELEMENT = re.compile(
    r'<text x="([\d.-]+)" y="[\d.-]+" font-size="([\d.]+)"( text-anchor="(\w+)")?([^>]*)>([^<]*)</text>'
)


@pytest.mark.parametrize("folder", SNAPSHOTS, ids=lambda p: p.name)
def test_every_word_fits_inside_its_figure(folder) -> None:
    """No label runs off the canvas (the browser would cut it): each text's estimated extent lies
    within the viewBox, in every figure, language and layout, for every committed snapshot."""
    problems = []
    for job, svg in _every_drawing(folder):
        width = float(re.search(r'viewBox="0 0 ([\d.]+) ', svg).group(1))
        for x, size, _, anchor, rest, text in TEXT_ELEMENT.findall(svg):
            if "rotate(" in rest:
                continue  # a y label or the roofline's slope: placed by angle, checked in the screenshots
            extent = svgplot.text_width(html.unescape(text), float(size))
            start = float(x) - {"middle": extent / 2, "end": extent}.get(anchor, 0)
            if start < -0.5 or start + extent > width + 0.5:
                problems.append(f"{job}: {text!r} spans {start:.0f}..{start + extent:.0f} of {width:.0f} pt")
    assert not problems, "\n".join(problems)


def test_ids_are_unique_on_a_page_and_every_reference_resolves() -> None:
    """Several figures share a page (and a page holds both layouts): an id twice would make a hatch
    or a mark refer to another figure's."""
    seen: dict[str, tuple] = {}
    for job, svg in _every_drawing():
        ids = re.findall(r'\bid="([^"]+)"', svg)
        assert all(re.fullmatch(r"[A-Za-z][\w-]*", i) for i in ids), ids[:3]
        for i in ids:
            assert i not in seen, (i, job, seen.get(i))
            seen[i] = job
        for ref in re.findall(r"url\(#([^)]+)\)", svg):
            assert f'id="{ref}"' in svg, (job, ref)


def test_ticks_are_round_numbers_written_plainly() -> None:
    assert svgplot.nice_ticks(0, 22.9, 8, integer=True) == [0, 5, 10, 15, 20]
    assert svgplot.nice_ticks(0, 3.2, 8, integer=True) == [0, 1, 2, 3]  # never 0.5 in a count
    assert svgplot.nice_ticks(0, 18, 8, integer=True) == [0, 5, 10, 15]  # nor 2.5
    assert svgplot.nice_ticks(0, 18, 8) == [0, 2.5, 5, 7.5, 10, 12.5, 15, 17.5]
    assert svgplot.nice_ticks(0, 9000, 4) == [0, 2500, 5000, 7500]
    assert [label for _, label in svgplot.Axis(lim=(0, 1)).tick_marks()[0]] == [
        "0.0",
        "0.2",
        "0.4",
        "0.6",
        "0.8",
        "1.0",
    ]
    assert [label for _, label in svgplot.Axis(lim=(0, 2.6), nbins=8).tick_marks()[0]][-2:] == ["2.0", "2.5"]
    majors, minors = svgplot.log_ticks(0.05, 5000)
    assert [svgplot.plain(v) for v in majors] == ["0.1", "1", "10", "100", "1,000"]
    assert len(minors) == 5 + 4 * 8 + 4 and {0.05, 0.2, 5000} <= set(minors) and not set(minors) & set(majors)
    short = svgplot.Axis(log=True, lim=(30, 400)).tick_marks()[0]  # under a decade: 2 and 5 times one labelled too
    assert [label for _, label in short] == ["50", "100", "200"]
    assert svgplot.text_width("序列", 9) == 18 and 10 < svgplot.text_width("flash", 9) < 25


def _lab(hex_color: str) -> tuple[float, float, float]:
    """CIE L*a*b* (D65) of an sRGB colour."""
    r, g, b = (int(hex_color.lstrip("#")[i : i + 2], 16) / 255 for i in (0, 2, 4))

    def linear(c: float) -> float:
        return ((c + 0.055) / 1.055) ** 2.4 if c > 0.04045 else c / 12.92

    r, g, b = linear(r), linear(g), linear(b)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def _distance(a: str, b: str) -> float:
    return sum((p - q) ** 2 for p, q in zip(_lab(a), _lab(b))) ** 0.5


def test_a_colour_means_one_thing_across_the_figures() -> None:
    """A variant's colour is never a kind of mark's: the timelines' fills stay at least ΔE 20 (CIE76)
    from every variant's colour, and the kernels figure colours its bars by variant only (a kind is a
    fill: solid, hatched, outlined)."""
    css = (REPO / "docs" / "stylesheets" / "timeline.css").read_text(encoding="utf-8")
    fills = dict(re.findall(r"\.tl-f-(\w+) \{ --tl-c: (#[0-9a-fA-F]{6}); \}", css))
    assert len(fills) >= 10, fills
    close = [
        f"{role} {fill} ~ {variant} {color} (ΔE {_distance(fill, color):.1f})"
        for role, fill in fills.items()
        for variant, color in figures.COLORS.items()
        if _distance(fill, color) < 20
    ]
    assert not close, close
    svg = figures.figure_svg(load_snapshot(REPO / "snapshots" / "nvidia-h200"), "kernels")
    used = set(re.findall(r'(?:fill|stroke)="(#[0-9A-Fa-f]{6})"', svg))
    assert used and used <= {*figures.COLORS.values(), figures.GREY}, used - {*figures.COLORS.values()}
