"""What a figure says on its axes and on hover (matplotlib runs here; no torch)."""

from __future__ import annotations

import re

import pytest

from attn_examples import figures
from attn_examples.i18n import TEXT
from attn_examples.pages import committed_snapshots
from attn_examples.snapshot import load_snapshot
from tests.conftest import REPO

SNAPSHOTS = committed_snapshots(REPO / "snapshots")
CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.mark.parametrize("narrow", [False, True], ids=["wide", "narrow"])
@pytest.mark.parametrize("folder", SNAPSHOTS, ids=lambda p: p.name)
def test_a_count_axis_has_whole_number_ticks(folder, narrow: bool) -> None:
    svg = figures.draw_kernels(load_snapshot(folder), figures.Layout("en", narrow))
    ticks = re.findall(r'<g id="[^"]*xtick_\d+">.*?<text[^>]*>([^<]*)</text>', svg, re.S)
    assert ticks and all(re.fullmatch(r"\d+", t.replace(",", "")) for t in ticks), ticks


def _marks(svg: str) -> list[str]:
    return re.findall(r'<g id="[^"]+" class="attn-mark"><title>([^<]*)</title>', svg)


def test_every_bar_and_point_tells_its_value_on_hover() -> None:
    snap = load_snapshot(REPO / "snapshots" / "nvidia-h200")
    available = [v for v, r in snap.variants.items() if r.available]
    time_marks = _marks(figures.draw_device_time(snap, figures.Layout("en", False)))
    assert len(time_marks) == 2 * len(available)          # a device and a host bar per variant
    assert all(re.search(r"\d µs$", m) for m in time_marks), time_marks[:3]
    kernel_marks = _marks(figures.draw_kernels(snap, figures.Layout("en", False)))
    bars = sum(1 for v in available for key in ("kernels", "memcpys", "memsets")
               if figures.views.counts(snap.variants[v]).get(key))
    assert len(kernel_marks) == bars + sum(v in figures.article.KERNELS for v in available)
    hbm = _marks(figures.draw_hbm_traffic(snap, figures.Layout("en", True)))
    assert len(hbm) == 2 * len(snap.counters.variants) and all("MiB" in m for m in hbm)


@pytest.mark.parametrize("name", ["kernels", "device_time", "registers_occupancy", "scaling_time", "hbm_traffic",
                                  "roofline"])
def test_a_chinese_figure_speaks_chinese_and_names_variants_as_the_tables_do(name: str) -> None:
    snap = load_snapshot(REPO / "snapshots" / "nvidia-h200")
    svg = figures._draw(snap, name, "zh-TW", False)
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    assert any(CJK.search(text) for text in texts), texts[:8]
    english = [phrase for key, phrase in TEXT["en"].items() if key.startswith("fig_") and len(phrase) > 12
               and phrase.split("{")[0] in svg]
    assert not english, english
    assert "sdpa_math" not in svg and "naive_inplace" not in svg   # code ids never reach a reader
    assert "SDPA：math" in svg or "math" in svg


def test_a_kernel_name_on_hover_is_escaped() -> None:
    snap = load_snapshot(REPO / "snapshots" / "nvidia-h200")
    lay = figures.Layout("en", False)
    fig_text = figures._svg.__doc__ or ""
    assert "<title>" in fig_text
    lay.titles["m0"] = 'k<script>alert("x")</script>'
    plt = figures._pyplot()
    fig, ax = plt.subplots()
    bar = ax.bar([0], [1])[0]
    bar.set_gid("m0")
    svg = figures._svg(fig, "hostile", lay)
    assert "<script>" not in svg and "&lt;script&gt;" in svg
    assert snap   # the snapshot loads beside it: nothing else is needed


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


def test_figures_drawn_beside_the_build_are_the_ones_it_would_draw(tmp_path, monkeypatch) -> None:
    """A cold build draws its figures in a second process (figures.draw_ahead); what that process
    puts in the cache is byte for byte what the build would draw, and the build waits for it."""
    monkeypatch.setattr(figures, "CACHE_DIR", tmp_path)
    monkeypatch.setattr(figures.os, "cpu_count", lambda: 2)
    monkeypatch.delenv(figures.HELPER_ENV, raising=False)
    snap = load_snapshot(REPO / "snapshots" / "nvidia-h200")
    wanted = [("device_time", "en"), ("scaling_memory", "zh-TW"), ("timeline", "en")]
    try:
        assert figures.draw_ahead(snap, wanted) == 4   # two figures, two layouts each; no timeline
        helper = figures._helper
        svg = figures.figure_svg(snap, "scaling_memory", "zh-TW", narrow=True)   # waits, or draws what is left
        helper.process.wait(timeout=120)
    finally:
        figures.finish()
    assert svg == figures._draw(snap, "scaling_memory", "zh-TW", True)
    for name, lang in wanted[:2]:
        for narrow in (False, True):
            assert figures._path(snap, name, lang, narrow).read_text(encoding="utf-8") == \
                figures._draw(snap, name, lang, narrow), (name, lang, narrow)
    assert not helper.claims.exists()
    assert figures.draw_ahead(snap, wanted) == 0   # all in the cache: nothing to start
    monkeypatch.setenv(figures.HELPER_ENV, "0")
    monkeypatch.setattr(figures, "CACHE_DIR", tmp_path / "empty")
    assert figures.draw_ahead(snap, wanted) == 0 and figures._helper is None
