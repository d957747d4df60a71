"""The interactive timeline (attn_examples/render/timeline.py): one mark per event of the profiled step,
launch→GPU links by correlation id, a legend of exactly the kernel families drawn, labels only
where they fit, every trace string escaped, and a CPU snapshot drawn from its host ops alone.

Expectations are computed here from the raw Kineto trace and the snapshot, not through the module."""

from __future__ import annotations

import html
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from attn_examples.render import blocks as render
from attn_examples.render import timeline, views
from attn_examples.site import build as site
from attn_examples.site.pages import committed_snapshots
from attn_examples.snapshot.schema import load_snapshot, load_trace
from tests.conftest import REPO

SNAPSHOTS = committed_snapshots(REPO / "snapshots")
_STEP = re.compile(r"ProfilerStep#\d+")


def _cases() -> list[tuple[Path, str]]:
    return [
        (folder, variant_id)
        for folder in SNAPSHOTS
        for variant_id, result in load_snapshot(folder).variants.items()
        if result.available and result.profile is not None
    ]


def _expected(trace: dict) -> dict[str, list[dict]]:
    """The first profiled step's events, selected the plain way."""
    events = [e for e in trace["traceEvents"] if e.get("ph") == "X"]
    step = min((e for e in events if _STEP.fullmatch(str(e.get("name")))), key=lambda e: e["ts"])
    lo, hi = step["ts"], step["ts"] + step["dur"]

    def within(e: dict) -> bool:
        return lo <= e["ts"] <= hi and e.get("tid") == step["tid"]

    host = [e for e in events if e.get("cat") in ("cpu_op", "user_annotation") and within(e)]
    api = [e for e in events if e.get("cat") in ("cuda_runtime", "cuda_driver") and within(e)]
    corr = {e["args"]["correlation"] for e in api}
    gpu = [
        e
        for e in events
        if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset") and e["args"].get("correlation") in corr
    ]
    launched = {e["args"]["correlation"] for e in gpu}
    return {"host": host, "api": api, "gpu": gpu, "launching": [e for e in api if e["args"]["correlation"] in launched]}


_MARK = re.compile(r'<g class="tl-mark ([^"]*)"([^>]*)>(.*?)</g>', re.S)


def _marks(fragment: str) -> list[dict]:
    out = []
    for classes, attrs, inner in _MARK.findall(fragment):
        a = dict(re.findall(r'([\w-]+)="([^"]*)"', attrs))
        title = re.search(r"<title>(.*?)</title>", inner, re.S)
        out.append(
            {
                "classes": classes.split(),
                "attrs": a,
                "title": html.unescape(title.group(1)) if title else "",
                "labels": re.findall(r'<text class="tl-label ([^"]*)"[^>]*>(.*?)</text>', inner, re.S),
            }
        )
    return out


def _figure(folder: Path, variant_id: str, lang: str = "en") -> str:
    return timeline.figure_html(load_snapshot(folder), variant_id, lang)


@pytest.mark.parametrize("folder, variant_id", _cases(), ids=lambda x: x.name if isinstance(x, Path) else x)
def test_one_mark_per_event_of_the_profiled_step_and_one_link_per_launch_that_ran(
    folder: Path, variant_id: str
) -> None:
    snap = load_snapshot(folder)
    want = _expected(load_trace(snap, variant_id))
    marks = _marks(_figure(folder, variant_id))
    lanes = {lane: [m for m in marks if f"tl-{lane}" in m["classes"]] for lane in ("host", "api", "gpu")}
    assert len(lanes["host"]) == len(want["host"]) > 0
    assert len(lanes["api"]) == len(want["api"])
    in_step = [m for m in lanes["gpu"] if "tl-other" not in m["classes"]]
    assert len(in_step) == len(want["gpu"])
    # the same GPU activities, in the same order, as the snapshot's kernel table
    rows = views.kernel_rows(snap.variants[variant_id])
    assert [m["title"].split("\n")[-1] for m in in_step] == [r["name"] for r in rows]
    links = re.findall(r'<line class="tl-link"', _figure(folder, variant_id))
    assert len(links) == len(want["launching"])
    assert all(m["title"].strip() for m in marks), "every mark carries its tooltip text"


@pytest.mark.parametrize("folder, variant_id", _cases(), ids=lambda x: x.name if isinstance(x, Path) else x)
def test_the_legend_lists_exactly_the_kernel_families_drawn(folder: Path, variant_id: str) -> None:
    fragment = _figure(folder, variant_id)
    legend = re.search(r'<ul class="tl-legend"[^>]*>(.*?)</ul>', fragment, re.S).group(1)
    listed = re.findall(r'data-family="([^"]+)"', legend)
    drawn = {m["attrs"]["data-family"] for m in _marks(fragment) if "tl-gpu" in m["classes"]}
    assert len(listed) == len(set(listed)) and set(listed) == drawn
    rows = views.kernel_rows(load_snapshot(folder).variants[variant_id])
    assert {views.kernel_family(r["name"], r["kind"]) for r in rows} <= drawn
    # launch calls: runtime and driver told apart, and only the ones present are explained
    cats = {m["attrs"]["data-cat"] for m in _marks(fragment) if "tl-api" in m["classes"]}
    assert set(re.findall(r'data-kind="(cuda_runtime|cuda_driver)"', legend)) == cats


def test_kernel_marks_carry_the_snapshots_launch_metadata() -> None:
    folder = REPO / "snapshots" / "nvidia-h200"
    kernel = next(m for m in _marks(_figure(folder, "sdpa_flash")) if "tl-gpu" in m["classes"])
    row = views.kernel_rows(load_snapshot(folder).variants["sdpa_flash"])[0]
    grid, block = "×".join(map(str, row["grid"])), "×".join(map(str, row["block"]))
    for piece in (
        grid,
        block,
        f"{row['registers_per_thread']}",
        "48.0 KiB",
        "13%",
        "cudaLaunchKernel",
        "Duration: ",
        "Grid: ",
        "Block: ",
        "Registers / thread: ",
        "Shared memory: ",
        "Est. occupancy: ",
    ):
        assert piece in kernel["title"], (piece, kernel["title"])
    zh = next(m for m in _marks(_figure(folder, "sdpa_flash", "zh-TW")) if "tl-gpu" in m["classes"])
    assert "耗時：" in zh["title"] and "共享記憶體：48.0 KiB" in zh["title"]


def test_both_languages_draw_the_same_marks_with_their_own_words() -> None:
    folder = REPO / "snapshots" / "nvidia-h200"
    en, zh = _figure(folder, "naive"), _figure(folder, "naive", "zh-TW")
    pos = [(m["attrs"]["data-s"], m["attrs"]["data-e"]) for m in _marks(en)]
    assert pos and pos == [(m["attrs"]["data-s"], m["attrs"]["data-e"]) for m in _marks(zh)]
    lanes = {
        lang: re.findall(r'<text class="tl-lane-name"[^>]*>(.*?)</text>', f) for lang, f in (("en", en), ("zh", zh))
    }
    assert len(lanes["en"]) == len(lanes["zh"]) == 3
    assert all(re.search(r"[\u4e00-\u9fff]", name) for name in lanes["zh"]), lanes["zh"]
    assert not any(re.search(r"[\u4e00-\u9fff]", name) for name in lanes["en"])
    for word in ("Zoom in", "Open in Perfetto", "Host thread"):
        assert word not in zh


@pytest.mark.parametrize("folder, variant_id", _cases(), ids=lambda x: x.name if isinstance(x, Path) else x)
def test_labels_inside_marks_only_where_they_fit(folder: Path, variant_id: str) -> None:
    """A label is shown from a container width at which its estimated width fits inside the mark."""
    fragment = _figure(folder, variant_id)
    end = float(re.search(r'data-end="([^"]+)"', fragment).group(1))
    for mark in _marks(fragment):
        width = float(mark["attrs"]["data-e"]) - float(mark["attrs"]["data-s"])
        candidates = json.loads(html.unescape(mark["attrs"]["data-labels"]))
        assert candidates, mark
        for classes, text in mark["labels"]:
            low = int(re.search(r"tl-min-(\d+)", classes).group(1))
            assert html.unescape(text) in candidates
            assert len(html.unescape(text)) * timeline.CHAR_PX + timeline.LABEL_PAD <= width / end * low + 1e-6, (
                text,
                width,
                end,
                low,
            )


def test_a_long_kernel_is_labelled_and_a_tiny_one_is_not() -> None:
    marks = _marks(_figure(REPO / "snapshots" / "nvidia-h200", "sdpa_math"))
    gpu = sorted(
        (m for m in marks if "tl-gpu" in m["classes"] and "tl-other" not in m["classes"]),
        key=lambda m: float(m["attrs"]["data-e"]) - float(m["attrs"]["data-s"]),
    )
    assert gpu[-1]["labels"] and not gpu[0]["labels"]


def test_every_label_threshold_has_its_container_query() -> None:
    css = (REPO / "docs" / "stylesheets" / "timeline.css").read_text(encoding="utf-8")
    for width in timeline.THRESHOLDS:
        assert re.search(rf"@container tl \(width < {width}px\) {{ \.tl-min-{width} {{ display: none; }} }}", css), (
            width
        )
        assert re.search(rf"@container tl \(width >= {width}px\) {{ \.tl-max-{width} {{ display: none; }} }}", css), (
            width
        )
    config = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    assert "stylesheets/timeline.css" in config and "javascripts/timeline.js" in config


def test_the_cpu_snapshot_draws_host_ops_alone() -> None:
    folder = REPO / "snapshots" / "cpu"
    for variant_id in ("naive", "sdpa_math"):
        fragment = _figure(folder, variant_id)
        marks = _marks(fragment)
        assert marks and all("tl-host" in m["classes"] for m in marks)
        assert "data-family" not in fragment and 'class="tl-link"' not in fragment
        assert len(re.findall(r'<text class="tl-lane-name"', fragment)) == 1
        depth = {m["attrs"]["data-row"] for m in marks}
        assert len(depth) > 3, "nesting depth drawn as sub-rows"
        assert "GPU" not in re.search(r"<figcaption[^>]*>(.*?)</figcaption>", fragment).group(1).replace("no GPU", "")


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: set[str] = set()
        self.texts: list[str] = []
        self.attrs: list[tuple[str, str]] = []

    def handle_starttag(self, tag, attrs) -> None:
        self.tags.add(tag)
        self.attrs += [(k, v or "") for k, v in attrs]

    def handle_data(self, data) -> None:
        self.texts.append(data)


EVIL = '<script>alert("x")</script>&\'"'


def _hostile_trace() -> dict:
    tid = 'T<i>"1'
    return {
        "traceEvents": [
            {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "ts": 0.0, "dur": 100.0, "tid": tid},
            {"ph": "X", "cat": "user_annotation", "name": "fwd" + EVIL, "ts": 1.0, "dur": 90.0, "tid": tid},
            {"ph": "X", "cat": "cpu_op", "name": "aten::" + EVIL, "ts": 2.0, "dur": 80.0, "tid": tid},
            {
                "ph": "X",
                "cat": "cuda_runtime",
                "name": "cudaLaunch" + EVIL,
                "ts": 10.0,
                "dur": 5.0,
                "tid": tid,
                "args": {"correlation": 1},
            },
            {
                "ph": "X",
                "cat": "kernel",
                "name": f"void {EVIL}<int>(float*)",
                "ts": 20.0,
                "dur": 60.0,
                "tid": "s<b>",
                "args": {
                    "correlation": 1,
                    "grid": [1, 2, 3],
                    "block": [4, 1, 1],
                    "registers per thread": "<x>",
                    "stream": "<u>",
                },
            },
        ]
    }


def test_every_string_from_a_trace_reaches_the_reader_as_text() -> None:
    tl = timeline.build(_hostile_trace())
    assert len(tl.marks) == 5 and len(tl.links) == 1
    for lang in ("en", "zh-TW"):
        fragment = timeline.render_figure(tl, lang, 'alt "label" <b>', "fig-x")
        parsed = _Tags()
        parsed.feed(fragment)
        assert parsed.tags <= {
            "figure",
            "div",
            "button",
            "span",
            "svg",
            "title",
            "g",
            "rect",
            "text",
            "line",
            "ul",
            "li",
            "figcaption",
            "defs",
            "marker",
            "path",
            "p",
            "kbd",
        }, parsed.tags
        assert "<script" not in fragment and "<i>" not in fragment and "<b>" not in fragment
        assert any(EVIL in text for text in parsed.texts), "the names arrive, as text"
        labels = [json.loads(v) for k, v in parsed.attrs if k == "data-labels"]
        assert any(any(EVIL in c for c in candidates) for candidates in labels)
        assert not re.search(r'=\s*"[^"]*"[^\s/>]', fragment), "an attribute value broke out of its quotes"


def test_the_page_helper_routes_timelines_here_with_provenance_and_the_perfetto_button() -> None:
    snap = load_snapshot(REPO / "snapshots" / "nvidia-h200")
    with site.pinned(site.BuildMeasurement(snap, False, 0.0)):
        out = site.Page("zh-TW").figure("timeline", "sdpa_flash")
    assert out.count('class="attn-figure attn-timeline"') == 1
    trace = re.search(r'<p class="attn-trace"[^>]*>.*?</p>', out, re.S).group(0)
    assert 'href="@root@/traces/nvidia-h200/sdpa_flash-' in trace and 'class="attn-perfetto"' in trace
    assert "在 Perfetto 中開啟" in trace
    assert out.endswith(render.MEASURED_MARK)  # the page hook gives the page its one provenance line


def test_times_keep_their_precision_and_ticks_their_decimals() -> None:
    """Mark times are written to the trace's own precision (a long trace's kernel sits where it ran
    at any zoom), and a tick step of 25 reads 25, not 25.0."""
    folder = REPO / "snapshots" / "nvidia-h200-s16384-d128"
    snap = load_snapshot(folder)
    trace = load_trace(snap, "sdpa_math")
    marks = _marks(_figure(folder, "sdpa_math"))
    want = _expected(trace)
    t0 = min(e["ts"] for e in trace["traceEvents"] if _STEP.fullmatch(str(e.get("name"))))
    starts = sorted(round(e["ts"] - t0, 3) for e in want["gpu"])
    drawn = sorted(
        float(m["attrs"]["data-s"]) for m in marks if "tl-gpu" in m["classes"] and "tl-other" not in m["classes"]
    )
    assert max(s for s in starts) > 100_000 and all(abs(a - b) < 1e-6 for a, b in zip(drawn, starts))
    assert [timeline.tick_label(v, 25) for v in (0, 25, 50)] == ["0", "25", "50"]
    assert [timeline.tick_label(v, 2.5) for v in (0, 2.5)] == ["0.0", "2.5"]
    assert timeline.tick_label(1000, 250) == "1,000" and timeline.tick_label(0.25, 0.25) == "0.25"
