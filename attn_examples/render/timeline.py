"""The timeline of one profiled forward, drawn from the variant's Kineto trace (render stage: no torch).

What the server renders works without JavaScript: an inline SVG whose horizontal coordinates are
percentages of its own width, so it fills any column while its text keeps its pixel size; one
lane per kind of event (host operators, nesting depth as sub-rows; CUDA API calls; one lane per GPU
stream); thin lines from each launch to the GPU work it started (same correlation id); a µs axis;
a `<title>` on every mark (the browser's hover text, and what a screen reader reads); labels inside
marks only where they fit (container queries in timeline.css pick them by the figure's width); and
an HTML legend of what is drawn. docs/javascripts/timeline.js adds the styled tooltip, zoom and
pan, keyboard navigation between marks, and the "Open in Perfetto" button beside the trace link.

Every string from a trace or a snapshot reaches the templates (timeline_*.html.j2) as text, which
they escape; nothing from them becomes markup.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from markupsafe import Markup

from attn_examples.render import blocks as render
from attn_examples.render import templating, views
from attn_examples.render.i18n import FAMILY_WORDS, t, title
from attn_examples.snapshot import kineto
from attn_examples.snapshot.schema import Snapshot, load_trace

HOST_CATEGORIES = ("user_annotation", "cpu_op")
LANES = ("host", "api", "gpu")
# Labels inside marks are 11 px monospace: about 0.6 em a character, plus room on both sides.
CHAR_PX = 6.6
LABEL_PAD = 8.0
# Figure widths (px) at which labels switch on or off without JavaScript: timeline.css holds one
# container query each way per width. With JavaScript, labels are fitted to measured widths instead.
THRESHOLDS = (240, 320, 400, 480, 560, 640, 720, 800, 900, 1000, 1200, 1400)
# Vertical layout, px.
AXIS_TITLE_Y, TICK_Y, TOP = 14, 32, 42
HEADER, ROW, BAR, GAP = 18, 20, 16, 8
MIN_WIDTH_PCT = 0.12  # the narrowest mark without JavaScript (JavaScript keeps marks >= 2 px)


@dataclass
class Mark:
    lane: str  # "host", "api" or "gpu"
    row: int  # nesting depth (host, api) or stream index (gpu)
    start: float  # µs from the start of the step
    dur: float
    name: str
    cat: str  # Kineto category: cpu_op, user_annotation, cuda_runtime, kernel, ...
    family: str  # op / annotation, cuda_runtime / cuda_driver, or the kernel family
    correlation: int | None = None
    stream: Any = None
    in_step: bool = True  # False: GPU work in the window that another step launched
    launched_later: bool = False
    starts_work: bool = False  # a launch call with GPU work of its own
    meta: dict[str, Any] = field(default_factory=dict)  # a GPU activity's launch metadata
    median_us: float | None = None

    @property
    def end(self) -> float:
        return self.start + self.dur


@dataclass
class Timeline:
    step: str  # "ProfilerStep#2"
    thread: Any
    end: float  # µs: the step, or the last of its GPU work if that ends later
    marks: list[Mark]
    links: list[tuple[int, int]]  # (launch mark, GPU mark), indices into marks
    streams: list[Any]
    steps: int = 1  # active steps the medians are over

    def lane(self, lane: str) -> list[Mark]:
        return [m for m in self.marks if m.lane == lane]


def _dur(event: dict) -> float:
    dur = event.get("dur", 0.0)
    return float(dur) if isinstance(dur, (int, float)) and not isinstance(dur, bool) else 0.0


def _corr(event: dict) -> int | None:
    args = event.get("args")
    corr = args.get("correlation") if isinstance(args, dict) else None
    return corr if isinstance(corr, int) and not isinstance(corr, bool) else None


def _depths(events: list[dict]) -> list[int]:
    """Nesting depth of each event among `events` (kineto.parents: the enclosing span on its thread)."""
    parents = kineto.parents([kineto.Span(str(e.get("name")), e["ts"], _dur(e), e.get("tid")) for e in events])
    depth: dict[int, int] = {}

    def of(i: int) -> int:
        if i not in depth:
            parent = parents[i]
            depth[i] = 0 if parent is None else of(parent) + 1
        return depth[i]

    return [of(i) for i in range(len(events))]


def build(trace: dict, rows: list[dict] | None = None, steps: int = 1) -> Timeline:
    """The first profiled step of a Kineto trace: its host ops and annotations and its CUDA API calls
    (on the step's thread, starting inside the step), the GPU work those calls launched (however late
    it ran), and the GPU work other steps launched that runs inside the window, kept apart.

    `rows` (views.kernel_rows of the variant) supplies each GPU activity's launch metadata and its
    median over the active steps when it lists the same activities; otherwise the trace's own
    arguments are read, the way the snapshot was made (kineto.gpu_activity)."""
    complete = kineto.complete_events(trace)
    step_name, step = next((f"ProfilerStep#{n}", s) for n, s in kineto.profiler_steps(complete))
    t0, t1 = step.ts, step.end

    def within(e: dict) -> bool:
        return t0 <= e["ts"] <= t1 and e.get("tid") == step.tid

    host = sorted(
        (e for e in complete if e.get("cat") in HOST_CATEGORIES and within(e)), key=lambda e: (e["ts"], -_dur(e))
    )
    api = sorted(
        (e for e in complete if e.get("cat") in kineto.LAUNCH_CATEGORIES and within(e)),
        key=lambda e: (e["ts"], -_dur(e)),
    )
    launch_of = {_corr(e): e for e in api if _corr(e) is not None}
    gpu = sorted((e for e in complete if e.get("cat") in kineto.GPU_CATEGORIES), key=lambda e: e["ts"])
    ours = [e for e in gpu if _corr(e) in launch_of]
    end = max([t1] + [e["ts"] + _dur(e) for e in host + api + ours]) - t0
    others = [e for e in gpu if _corr(e) not in launch_of and e["ts"] < t0 + end and e["ts"] + _dur(e) > t0]
    all_launches = {_corr(e): e for e in complete if e.get("cat") in kineto.LAUNCH_CATEGORIES}

    def rel(x: float) -> float:
        return round(x - t0, 3)

    marks: list[Mark] = []
    for e, depth in zip(host, _depths(host)):
        marks.append(
            Mark(
                "host",
                depth,
                rel(e["ts"]),
                round(_dur(e), 3),
                str(e.get("name", "")),
                e["cat"],
                "annotation" if e["cat"] == "user_annotation" else "op",
            )
        )
    launched = {_corr(e) for e in ours}
    api_index: dict[int, int] = {}
    for e, depth in zip(api, _depths(api)):
        corr = _corr(e)
        if corr is not None:
            api_index[corr] = len(marks)
        marks.append(
            Mark(
                "api",
                depth,
                rel(e["ts"]),
                round(_dur(e), 3),
                str(e.get("name", "")),
                e["cat"],
                e["cat"],
                correlation=corr,
                starts_work=corr in launched,
            )
        )

    matched = rows is not None and [(r["kind"], r["name"]) for r in rows] == [
        (kineto.GPU_CATEGORIES[e["cat"]], e.get("name")) for e in ours
    ]
    position = {id(e): i for i, e in enumerate(ours)}
    streams: list[Any] = []
    links: list[tuple[int, int]] = []
    for e in sorted(ours + others, key=lambda e: e["ts"]):
        corr = _corr(e)
        mine = corr in launch_of
        launch = launch_of.get(corr) if mine else all_launches.get(corr)
        meta = kineto.gpu_activity(e, str(launch.get("name")) if launch else None)
        median = None
        if mine and matched and rows is not None:  # matched implies rows
            row = rows[position[id(e)]]
            meta.update(
                {
                    k: row[k]
                    for k in (
                        "grid",
                        "block",
                        "registers_per_thread",
                        "shared_memory_bytes",
                        "est_occupancy_pct",
                        "launch_api",
                        "bytes",
                    )
                }
            )
            median = row["dur_us"]
        stream = meta["stream"] if meta["stream"] is not None else e.get("tid")
        if stream not in streams:
            streams.append(stream)
        if mine and corr is not None:  # mine: corr is a key of launch_of, never None
            links.append((api_index[corr], len(marks)))
        marks.append(
            Mark(
                "gpu",
                0,
                rel(e["ts"]),
                round(_dur(e), 3),
                str(e.get("name", "")),
                e["cat"],
                views.kernel_family(str(e.get("name", "")), meta["kind"]),
                correlation=corr,
                stream=stream,
                in_step=mine,
                launched_later=bool(launch and launch["ts"] > t1),
                meta=meta,
                median_us=median,
            )
        )
    order = sorted(streams, key=str)
    for m in marks:
        if m.lane == "gpu":
            m.row = order.index(m.stream)
    return Timeline(step_name, step.tid, round(end, 3), marks, links, order, steps)


# ---- words --------------------------------------------------------------------------------------


def _us(value: float) -> str:
    return ("−" if value < 0 else "") + render.fmt_us(abs(value))


def _dims(value: Any) -> str:
    return "×".join(map(str, value)) if value else "–"


def _line(lang: str, key: str, value: str) -> str:
    return f"{t(lang, key)}{render.colon(lang)}{value}"


def _short(name: str) -> str:
    return views.short_kernel_name(name, 72)


def tooltip(tl: Timeline, index: int, lang: str) -> list[str]:
    """The lines of one mark's `<title>`: its name first; for a GPU activity its full name last."""
    m = tl.marks[index]
    duration, start = _line(lang, "duration", _us(m.dur)), _line(lang, "tl_start", _us(m.start))
    if m.lane == "host":
        return [
            m.name,
            t(lang, "tl_annotation" if m.family == "annotation" else "tl_op"),
            duration,
            start,
            _line(lang, "tl_depth", str(m.row)),
        ]
    if m.lane == "api":
        lines = [m.name, t(lang, "tl_driver" if m.cat == "cuda_driver" else "tl_runtime"), duration, start]
        if m.correlation is not None:
            lines.append(_line(lang, "tl_corr", str(m.correlation)))
        lines += [_line(lang, "tl_starts", _short(tl.marks[g].name)) for a, g in tl.links if a == index]
        if not m.starts_work:
            lines.append(t(lang, "tl_idle_call"))
        return lines
    meta = m.meta
    lines = [_short(m.name), FAMILY_WORDS[lang][m.family]]
    if not m.in_step:
        lines.append(t(lang, "tl_later_note" if m.launched_later else "tl_other_note"))
    lines.append(duration)
    if m.median_us is not None:
        lines.append(_line(lang, "tl_median", render.fmt_us(m.median_us)).format(n=tl.steps))
    lines.append(start)
    launch = next((tl.marks[a] for a, g in tl.links if g == index), None)
    if launch is not None:
        lines.append(_line(lang, "tl_queue", _us(m.start - launch.start)))
    if meta.get("kind") == "kernel":
        lines += [
            _line(lang, "grid", _dims(meta.get("grid"))),
            _line(lang, "block", _dims(meta.get("block"))),
            _line(lang, "registers", render.fmt_num(meta.get("registers_per_thread"))),
            _line(lang, "smem", render.fmt_bytes(meta.get("shared_memory_bytes"))),
            _line(lang, "occupancy", render.fmt_pct(meta.get("est_occupancy_pct"))),
        ]
    elif meta.get("bytes") is not None:
        lines.append(_line(lang, "tl_bytes", render.fmt_bytes(meta["bytes"])))
    if meta.get("launch_api"):
        lines.append(_line(lang, "launch", str(meta["launch_api"])))
    lines.append(_line(lang, "tl_stream", str(m.stream)))
    if m.correlation is not None:
        lines.append(_line(lang, "tl_corr", str(m.correlation)))
    lines.append(m.name)
    return lines


def label_candidates(m: Mark) -> list[str]:
    """What a mark can be labelled with, longest first: the whole (short) name, then shorter forms."""
    if m.lane == "host":
        names = [m.name, m.name[len("aten::") :] if m.name.startswith("aten::") else ""]
    elif m.lane == "api":
        names = [m.name]
    else:
        short = _short(m.name)
        head, _, operation = short.partition(" ")
        base = head.split("<")[0]
        local = base.rsplit("::", 1)[-1]
        names = [short, short.replace(base, local, 1), operation or local]
    out: list[str] = []
    for name in names:
        if name and name not in out:
            out.append(name)
    shortest = min(out, key=len, default="")
    # a long name with no shorter form (sm80_xmma_gemm_f32f32_…, nvjet_sm90_tst_…) is abbreviated at
    # its own word breaks, marked with an ellipsis: never cut inside a word
    cuts = [i for i in range(5, min(len(shortest), 40)) if shortest[i] == "_" and shortest[i - 1] != "_"]
    out += [shortest[:i] + "…" for i in cuts if shortest[:i] + "…" not in out]
    return sorted(out, key=len, reverse=True)


def label_texts(m: Mark, end: float) -> list[tuple[str, int, int | None]]:
    """(text, shown from this figure width, hidden from this width): each candidate that fits inside
    the mark at some threshold width, the longest that fits winning at every width."""
    fraction = m.dur / end if end > 0 else 0.0
    out: list[tuple[str, int, int | None]] = []
    upper: int | None = None
    for text in label_candidates(m):
        need = (len(text) * CHAR_PX + LABEL_PAD) / fraction if fraction > 0 else math.inf
        low = next((w for w in THRESHOLDS if w >= need), None)
        if low is None or (upper is not None and low >= upper):
            continue
        out.append((text, low, upper))
        upper = low
    return out


# ---- drawing ------------------------------------------------------------------------------------


def _num(value: float) -> str:
    """A time in µs as the trace has it (to the ns), for the script: no significant digit dropped."""
    text = f"{value:.3f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def _pct(value: float, end: float) -> str:
    text = f"{value / end * 100 if end > 0 else 0.0:.4f}".rstrip("0").rstrip(".")
    return f"{'0' if text in ('', '-0') else text}%"


def ticks(end: float, target: int = 8) -> tuple[float, list[float]]:
    """A 1-2-2.5-5 step giving about `target` ticks from 0 to `end`, and the ticks."""
    if end <= 0:
        return 1.0, [0.0]
    raw = end / target
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(f * magnitude for f in (1, 2, 2.5, 5, 10) if f * magnitude >= raw)
    return step, [i * step for i in range(int(end / step + 1e-9) + 1)]


def tick_digits(step: float) -> int:
    """Decimals a tick step needs: none for 25 or 500, one for 2.5 or 0.5, two for 0.25."""
    exponent = math.floor(math.log10(step))
    return max(0, -exponent + (1 if round(step / 10**exponent, 3) == 2.5 else 0))


def tick_label(value: float, step: float) -> str:
    return f"{value:,.{tick_digits(step)}f}"


def _lane_name(tl: Timeline, lane: str, row: int, lang: str) -> str:
    if lane == "host":
        return t(lang, "tl_lane_host").format(tid=tl.thread)
    if lane == "api":
        return t(lang, "tl_lane_api")
    return t(lang, "tl_lane_gpu").format(stream=tl.streams[row])


def _tracks(tl: Timeline) -> list[tuple[str, int, int]]:
    """(lane, first track, number of rows) per lane group, top to bottom; GPU streams each their own."""
    groups, track = [], 0
    for lane in LANES:
        marks = tl.lane(lane)
        if not marks:
            continue
        if lane == "gpu":
            for stream in range(len(tl.streams)):
                groups.append(("gpu", track, stream))
                track += 1
        else:
            rows = max(m.row for m in marks) + 1
            groups.append((lane, track, rows))
            track += rows
    return groups


class _Label(NamedTuple):
    """A label inside a mark, shown while the figure is at least `low` px wide (and under `high`)."""

    low: int
    high: int | None
    x: str
    y: str
    text: str


class _Drawn(NamedTuple):
    """A mark as the SVG draws it: its place, its classes and what the script reads off it."""

    classes: str
    number: int  # its place in Timeline.marks (data-i: what the script and the links call it)
    start: str
    end: str
    row: int
    track: int
    cat: str
    labels_json: str  # every label that could fit, longest first, for the script to fit by width
    family: str | None  # GPU work only
    tooltip: list[str]
    x: str
    y: str
    width: str
    labels: list[_Label]


class _Link(NamedTuple):
    """A thin line from a launch call to the GPU work it started."""

    launch: int
    work: int
    x1: str
    y1: str
    x2: str
    y2: str


class _Tick(NamedTuple):
    x: str
    anchor: str
    odd: bool
    label: str


class _LaneName(NamedTuple):
    y: int
    name: str


def render_svg(tl: Timeline, lang: str, label: str, fig_id: str) -> str:
    end = tl.end
    row_top: dict[tuple[str, int], float] = {}  # (lane, row) -> y of the row
    track_of: dict[tuple[str, int], int] = {}
    lane_names: list[_LaneName] = []
    y = TOP
    for lane, first, size in _tracks(tl):
        rows = [size] if lane == "gpu" else list(range(size))
        lane_names.append(_LaneName(y + 13, _lane_name(tl, lane, size if lane == "gpu" else 0, lang)))
        y += HEADER
        for k, row in enumerate(rows):
            row_top[(lane, row)] = y
            track_of[(lane, row)] = first + k
            y += ROW
        y += GAP
    height = y
    step, values = ticks(end)
    tick_marks = [
        _Tick(
            _pct(v, end),
            "start" if i == 0 else ("end" if v / end > 0.97 else "middle"),
            bool(i % 2),
            tick_label(v, step),
        )
        for i, v in enumerate(values)
    ]
    links = []
    for a, g in tl.links:
        launch, work = tl.marks[a], tl.marks[g]
        links.append(
            _Link(
                a,
                g,
                _pct(launch.start, end),
                f"{row_top[('api', launch.row)] + (ROW + BAR) / 2:g}",
                _pct(work.start, end),
                f"{row_top[('gpu', work.row)] + (ROW - BAR) / 2:g}",
            )
        )
    drawn = []
    for index, m in enumerate(tl.marks):
        classes = ["tl-mark", f"tl-{m.lane}", f"tl-f-{m.family}"]
        if m.lane == "api" and not m.starts_work:
            classes.append("tl-idle")
        if m.lane == "gpu" and not m.in_step:
            classes.append("tl-other")
        top = row_top[(m.lane, m.row)] + (ROW - BAR) / 2
        width = max(m.dur / end * 100 if end > 0 else 0.0, MIN_WIDTH_PCT)
        drawn.append(
            _Drawn(
                classes=" ".join(classes),
                number=index,
                start=_num(m.start),
                end=_num(m.end),
                row=m.row,
                track=track_of[(m.lane, m.row)],
                cat=m.cat,
                labels_json=json.dumps(label_candidates(m)),
                family=m.family if m.lane == "gpu" else None,
                tooltip=tooltip(tl, index, lang),
                x=_pct(m.start, end),
                y=f"{top:g}",
                width=f"{width:.4f}".rstrip("0").rstrip("."),
                labels=[
                    _Label(low, high, _pct(m.start + m.dur / 2, end), f"{top + BAR / 2:g}", candidate)
                    for candidate, low, high in label_texts(m, end)
                ],
            )
        )
    return templating.render(
        "timeline_svg.html.j2",
        label=label,
        fig_id=fig_id,
        height=height,
        end=_num(end),
        grid=[_pct(v, end) for v in values],
        grid_top=TICK_Y + 5,
        grid_bottom=height - GAP,
        links=links,
        step=f"{step:g}",
        axis_y=AXIS_TITLE_Y,
        axis_title=t(lang, "tl_axis").format(step=tl.step),
        tick_y=TICK_Y,
        ticks=tick_marks,
        lane_names=lane_names,
        marks=drawn,
        bar=BAR,
    )


class _Key(NamedTuple):
    """A legend entry: what the script matches it by (data-kind or data-family), its swatch, its words."""

    attribute: str
    value: str
    swatch: str
    words: str


def legend(tl: Timeline, lang: str) -> str:
    keys: list[_Key] = []
    host = {m.family for m in tl.lane("host")}
    for family, key in (("op", "tl_op"), ("annotation", "tl_annotation")):
        if family in host:
            keys.append(_Key("kind", family, f"tl-f-{family}", t(lang, key)))
    api = tl.lane("api")
    for cat, key in (("cuda_runtime", "tl_runtime"), ("cuda_driver", "tl_driver")):
        if any(m.cat == cat for m in api):
            keys.append(_Key("kind", cat, f"tl-f-{cat}", t(lang, key)))
    if any(not m.starts_work for m in api):
        keys.append(_Key("kind", "idle", "tl-f-cuda_runtime tl-idle", t(lang, "tl_idle_call")))
    if tl.links:
        keys.append(_Key("kind", "link", "tl-sw-link", t(lang, "tl_link")))
    families = {m.family for m in tl.lane("gpu")}
    for family in views.FAMILIES:
        if family in families:
            keys.append(_Key("family", family, f"tl-f-{family}", FAMILY_WORDS[lang][family]))
    if any(not m.in_step for m in tl.lane("gpu")):
        keys.append(_Key("kind", "other", "tl-f-other tl-other", t(lang, "tl_other")))
    return templating.render("timeline_legend.html.j2", keys=keys)


def render_figure(tl: Timeline, lang: str, label: str, fig_id: str) -> str:
    """The figure: toolbar (shown by JavaScript), the SVG, the legend and the caption."""
    return templating.render(
        "timeline_figure.html.j2",
        fig_id=fig_id,
        zoom_out=t(lang, "tl_zoom_out"),
        zoom_in=t(lang, "tl_zoom_in"),
        reset=t(lang, "tl_reset"),
        range=t(lang, "tl_range"),
        keys=t(lang, "tl_keys"),
        # both rendered by the templates above: HTML, put in whole
        svg=Markup(render_svg(tl, lang, label, fig_id)),
        legend=Markup(legend(tl, lang)),
        label=label,
    )


def figure_html(snap: Snapshot, variant_id: str, lang: str) -> str:
    """The variant's timeline, then the line with its trace: download, or open in Perfetto."""
    result = snap.variants.get(variant_id)
    if result is None or not result.available:
        raise KeyError(f"figure 'timeline': variant {variant_id!r} is not measured in this snapshot")
    rows = views.kernel_rows(result)
    tl = build(load_trace(snap, variant_id), rows, len(result.profile.steps) if result.profile else 1)
    key = "timeline_fig_alt" if tl.lane("api") or tl.lane("gpu") else "timeline_host_alt"
    label = t(lang, key).format(title=title(lang, variant_id))
    return render_figure(tl, lang, label, f"fig-timeline-{variant_id}") + render.trace_link(snap, variant_id, lang)
