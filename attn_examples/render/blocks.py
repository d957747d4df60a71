"""Stage 3: turn a snapshot into HTML tables, provenance lines and prose values (no torch).

Every function is pure: snapshot (+ language) in, text out. Numbers are formatted here and
nowhere else, so both languages show byte-identical numbers. This module is the data side: it picks
the rows, the words and the numbers; each block's markup is a template (attn_examples/render/templates,
rendered by attn_examples.render.templating), which escapes every value it is given. The fragments of one
tag that fill a table cell (a name in <code>, a quoted figure) are `Markup.format` here, which
escapes its arguments the same way.
"""

from __future__ import annotations

import math
import re
from collections.abc import Set
from typing import Any, Literal, NamedTuple

from markupsafe import Markup, escape

from attn_examples.render import article, cjk, metrics, prose, templating, views
from attn_examples.render.i18n import t, title
from attn_examples.render.views import short_kernel_name
from attn_examples.snapshot.schema import Snapshot, SnapshotError
from attn_examples.snapshot.variants import VARIANTS

SITE_ROOT = "@root@/"  # replaced per page by the site hook with the relative path to the site root


# ---- number formatting (language-independent on purpose) ----------------------------------------


def fmt_us(value: float | None) -> str:
    if value is None:
        return "–"
    if value >= 100_000:
        return f"{value / 1000:,.0f} ms"
    if value >= 10_000:
        return f"{value / 1000:,.1f} ms"
    return f"{value:,.0f} µs" if value >= 100 else f"{value:,.1f} µs"


def fmt_us_column(values: list[float | None]) -> list[str]:
    """Times for one table column, in one unit: µs while the column's largest is under 10 ms, else ms
    for every row (a reader compares down a column; "943 µs" above "16.7 ms" hides a factor of 1000)."""
    largest = max((v for v in values if v is not None), default=0.0)
    if largest < 10_000:
        return [fmt_us(v) for v in values]

    def ms(value: float | None) -> str:
        if value is None:
            return "–"
        v = value / 1000
        digits = 0 if v >= 100 else 1 if v >= 10 else 2 if v >= 1 else 3
        return f"{v:,.{digits}f} ms"

    return [ms(v) for v in values]


def fmt_num(value: float | int | None, digits: int = 0) -> str:
    if value is None:
        return "–"
    return f"{value:,.{digits}f}"


def fmt_pct(value: float | None) -> str:
    if value is None:
        return "–"
    return f"{value:.0f}%" if float(value).is_integer() else f"{value:.1f}%"


def fmt_bytes(value: int | None) -> str:
    if value is None:
        return "–"
    if value >= 2**20:
        return f"{value / 2**20:,.1f} MiB"
    if value >= 2**10:
        return f"{value / 2**10:,.1f} KiB"
    return f"{value:,.0f} B"


def fmt_ratio(value: float | None) -> str:
    if value is None:
        return "–"
    return f"{value:.1f}×" if value >= 10 else f"{value:.2f}×"


def _giga(value: float | None) -> str:
    return fmt_num(None if value is None else value / 1e9, 2)


def fmt_sci(value: float | None) -> str:
    return "–" if value is None else f"{value:.1e}"


# ---- provenance --------------------------------------------------------------------------------

# Left by every measured block (attn_examples.site.build.Page) in its HTML; the build's page hook
# (attn_examples.site.measurement_hooks.on_page_content) removes the marks and puts one provenance line
# under the page's title, so a page says once where its numbers come from.
MEASURED_MARK = "<!-- attn:measured -->"


def build_source(
    snap: Snapshot, lang: str, live: bool, reused: bool = False, short: bool = False, given: bool = False
) -> str:
    """Where this build's numbers come from: measured by it, a live measurement an earlier build on
    this machine took (reused), a snapshot committed with the site, or one given to the build from
    elsewhere (`given`: named by its folder, never by a path that would publish someone's disk).
    Text: whoever shows it escapes it."""
    if live and reused:
        return (
            t(lang, "reused_short")
            if short
            else t(lang, "reused").format(date=snap.provenance.measured_at[:16].replace("T", " "))
        )
    if not live and given:
        name = snap.root.name if snap.root is not None else snap.device_slug
        return t(lang, "given_short" if short else "given").format(name=name)
    return t(lang, ("live" if live else "snapshot") + ("_short" if short else ""))


def provenance(
    snap: Snapshot, lang: str, live: bool, opened: bool = False, reused: bool = False, given: bool = False
) -> str:
    """The page's one provenance line: the device, dtype, shape and whether this build measured, with
    the rest on demand (compute capability, versions, date, commit), a link to the legend of the
    check marks and one to how the numbers are taken. `opened`: shown unfolded (the about page)."""
    p, c = snap.provenance, snap.config
    comma = ", " if lang == "en" else "，"
    sm = f"sm {p.compute_capability}{comma}{p.sm_count} {t(lang, 'sms')}"
    versions = f"torch {p.torch}" + (f" · CUDA {p.cuda}" if p.cuda else "") + (f" · cuDNN {p.cudnn}" if p.cudnn else "")
    return templating.render(
        "provenance.html.j2",
        opened=opened,
        measured_on=t(lang, "measured_on"),
        device=p.device_name,
        device_detail=paren(lang, sm) if p.compute_capability else "",
        dtype_word=DTYPE_WORDS.get(c.dtype, c.dtype),
        shape=fmt_shape(c.shape),
        source_short=build_source(snap, lang, live, reused, short=True, given=given),
        versions=versions,
        layout=f"{t(lang, 'shape')} [{c.batch}, {c.heads}, {c.seq_len}, {c.head_dim}] {c.dtype}",
        date=p.measured_at[:10],
        commit_word=t(lang, "commit"),
        commit=(p.git_commit or "")[:8],
        source=build_source(snap, lang, live, reused, given=given),
        home=f"{SITE_ROOT}{'' if lang == 'en' else lang + '/'}",
        marks_link=t(lang, "marks_link"),
        about_link=t(lang, "about_link"),
    )


# ---- tables ------------------------------------------------------------------------------------


def html_table(
    headers: list[str],
    rows: list[list[str]],
    numeric: Set[int] = frozenset(),
    wide: int | None = None,
    kind: str | None = None,
    extra: Set[int] = frozenset(),
    narrow: Set[int] = frozenset(),
    lang: str = "en",
    group: list[tuple[str, int]] | None = None,
) -> str:
    """A table whose default view carries the story and fits the column, at desktop and phone widths.

    `numeric` columns align right; the `wide` column (a kernel name) may wrap; `extra` columns are
    folded behind an "all columns" switch; `narrow` columns are folded only on narrow screens;
    `group` is an optional first header row of (label, span); `kind` marks a table that carries its
    provenance in its rows (the devices table). The switch is a checkbox, so it works without script
    and from the keyboard. A cell is text, escaped by the template, unless it is `Markup`."""

    def classes(i: int, cell: str) -> str:
        names = (["num"] if i in numeric else ["wide"] if i == wide and cell == "td" else []) + (
            ["x"] if i in extra else ["n"] if i in narrow else []
        )
        return " ".join(names)

    columns = range(max([len(headers)] + [len(row) for row in rows]))
    th, td = [classes(i, "th") for i in columns], [classes(i, "td") for i in columns]
    if lang != "en":  # a Chinese header breaks between words only (never leaves 時 / 間 apart)
        headers = [h if isinstance(h, Markup) else cjk.words(h) for h in headers]
        group = [
            (label if isinstance(label, Markup) else cjk.words(label), span) for label, span in group or []
        ] or None
    folded = bool(extra or narrow)
    return templating.render(
        "table.html.j2",
        kind=kind,
        folded=folded,
        extra_count=len(extra),
        all_columns=t(lang, "all_columns") if folded else "",
        folded_count=paren(lang, f"+{len(extra) + len(narrow)}"),
        group=group,
        headers=list(zip(headers, th)),
        rows=[list(zip(row, td)) for row in rows],
    )


_BREAK = re.compile(r"(?<=[_:,/\-])(?=[^_:,/\-])|(?<=[a-z0-9])(?=[A-Z][a-z])|(?=<)")


def breakable(text: str) -> Markup:
    """Text that may wrap only between words of an identifier (after _ :: , / -, before a capital in
    camelCase or a template bracket), never inside one: its words escaped, a <wbr> between them."""
    return Markup("<wbr>").join(_BREAK.split(text))


def code(inner: str) -> Markup:
    """Inline code in a cell or a sentence: a one-element fragment (no template: it is one tag)."""
    return Markup("<code>{}</code>").format(inner)


_NAMESPACE = re.compile(r"^(?:[A-Za-z_][A-Za-z0-9_]*::)+")


def display_name(name: str, limit: int = 64) -> str:
    """A kernel's name for a table cell: the head without namespaces, cut after a whole word
    ('_'-separated) when it is longer than `limit`, so two different kernels never read alike
    because a word was cut in half."""
    short = _NAMESPACE.sub("", short_kernel_name(name, 10_000))
    if len(short) <= limit:
        return short
    cut = short.rfind("_", 0, limit)
    return short[: cut if cut > limit // 2 else limit] + "…"


def kernel_name(name: str, limit: int = 64) -> Markup:
    """A kernel name as a table shows it: short, wrapping between words, the full name on hover."""
    return named_code(name, display_name(name, limit))


def named_code(name: str, shown: str) -> Markup:
    """A name shortened for a cell, wrapping between words, the whole of it on hover."""
    return Markup('<code title="{}">{}</code>').format(name, breakable(shown))


def full_name(name: str) -> Markup:
    return Markup('<code class="attn-full">{}</code>').format(name)


_DETAIL = {
    "em": Markup('{}<br><em class="attn-detail">{}</em>'),
    "span": Markup('{}<br><span class="attn-detail">{}</span>'),
}


def with_detail(head: str, detail: str, tag: Literal["em", "span"] = "span") -> Markup:
    """A cell's main text with a quieter line under it (why a variant is missing, where a row comes from)."""
    return _DETAIL[tag].format(head, detail)


def with_note(head: str, note: str) -> Markup:
    """A cell's value with a quieter word right after it (what was counted, where a figure comes from)."""
    return Markup('{}<span class="attn-detail">{}</span>').format(head, note)


def _tc(lang: str, flag: bool | None) -> str:
    return t(lang, "unknown") if flag is None else t(lang, "yes" if flag else "no")


def summary_table(snap: Snapshot, lang: str) -> str:
    """The cross-backend summary: kernels, times, main kernel, registers, occupancy, memory."""
    headers = [
        t(lang, k)
        for k in (
            "variant",
            "kernels",
            "gpu_activities",
            "device_time",
            "host_time",
            "main_kernel",
            "registers",
            "occupancy",
            "tensor_cores",
            "peak_memory",
            "rel_error",
        )
    ]
    rows = []
    gpu = snap.provenance.device_kind == "cuda"
    # a CPU has no kernels, launch records or Tensor Cores: "n/a" there, not a zero that reads as a count
    na = Markup('<span class="attn-na" title="{}">{}</span>').format(t(lang, "cpu_no_kernels"), t(lang, "n_a"))
    summary = views.summary_rows(snap)
    shown = [row for row in summary if row["available"]]
    device = iter(fmt_us_column([row["device_us"] for row in shown]))  # one unit per column
    host = iter(fmt_us_column([row["host_us"] for row in shown]))
    for row in summary:
        name = title(lang, row["id"])
        if not row["available"]:
            # said under the name, not in a number column it would widen
            rows.append([with_detail(name, t(lang, "unavailable"), "em")] + ["–"] * 10)
            continue
        rows.append(
            [
                name,
                fmt_num(row["kernels"]) if gpu else na,
                fmt_num(row["gpu_activities"]) if gpu else na,
                next(device),
                next(host),
                kernel_name(row["main_kernel"], 40) if row["main_kernel"] else "–" if gpu else na,
                fmt_num(row["main_registers"]) if gpu else na,
                fmt_pct(row["main_occupancy_pct"]) if gpu else na,
                _tc(lang, row["tensor_cores"]) if gpu else na,
                fmt_bytes(row["peak_memory_bytes"]),
                fmt_sci(row["rel_error"]),
            ]
        )
    return html_table(
        headers, rows, numeric={1, 2, 3, 4, 6, 7, 9, 10}, wide=5, extra={2, 5, 6, 7}, narrow={4, 8}, lang=lang
    )


def kernel_table(snap: Snapshot, variant_id: str, lang: str) -> str:
    """Every GPU activity of one forward, in launch order (or the host ops on a CPU snapshot)."""
    result = snap.variants[variant_id]
    if not result.available:
        return templating.render(
            "variant_unavailable.html.j2",
            variant=title(lang, variant_id),
            unavailable=t(lang, "unavailable"),
            reason=result.unavailable_reason,
            wide=lang != "en",  # full-width punctuation: 「SDPA：efficient（此裝置無法使用）：」
        )
    rows = views.kernel_rows(result)
    if not rows:
        return paragraph(t(lang, "cpu_note")) + cpu_ops_table(snap, variant_id, lang)
    headers = [
        "#",
        t(lang, "kind"),
        t(lang, "name"),
        t(lang, "launch"),
        t(lang, "grid"),
        t(lang, "block"),
        t(lang, "registers"),
        t(lang, "smem"),
        t(lang, "occupancy"),
        t(lang, "duration"),
        t(lang, "full_name"),
    ]
    body = []

    def dims(v: list[int] | None) -> str:
        return "×".join(map(str, v)) if v else "–"

    for r in rows:
        body.append(
            [
                str(r["position"]),
                r["kind"],
                kernel_name(r["name"]),
                code(breakable(r["launch_api"])) if r["launch_api"] else "–",
                dims(r["grid"]),
                dims(r["block"]),
                fmt_num(r["registers_per_thread"]),
                fmt_bytes(r["shared_memory_bytes"]) if r["kind"] == "kernel" else fmt_bytes(r["bytes"]),
                fmt_pct(r["est_occupancy_pct"]),
                fmt_us(r["dur_us"]),
                full_name(r["name"]),
            ]
        )
    caption = paragraph(f"{title(lang, variant_id)} — {t(lang, 'per_forward')}", "attn-caption")
    return (
        caption
        + html_table(headers, body, numeric={0, 6, 7, 8, 9}, wide=2, extra={1, 4, 5, 6, 7, 10}, narrow={8}, lang=lang)
        + trace_link(snap, variant_id, lang)
    )


def roles_table(snap: Snapshot, variant_id: str, lang: str) -> str:
    """The kernels of one forward by what they do, in the order each kind first runs."""
    from attn_examples.render.i18n import ROLE_WORDS

    result = snap.variants[variant_id]
    if not result.available:
        return kernel_table(snap, variant_id, lang)
    rows = [
        [
            ROLE_WORDS[lang].get(g["role"], g["role"]),
            fmt_num(g["kernels"]),
            ", ".join(str(p) for p in g["positions"]),
            fmt_us(g["dur_us"]),
            Markup("<br>").join(kernel_name(n) for n in g["names"]),
        ]
        for g in views.role_rows(result)
    ]
    headers = [t(lang, "role"), t(lang, "kernels"), t(lang, "positions"), t(lang, "duration"), t(lang, "name")]
    return html_table(headers, rows, numeric={1, 3}, wide=4, extra={2}, lang=lang)


def cpu_ops_table(snap: Snapshot, variant_id: str, lang: str, limit: int = 12) -> str:
    result = snap.variants[variant_id]
    rows = [
        [code(breakable(r["name"])), fmt_num(r["count"]), fmt_us(r["self_us"]), fmt_us(r["total_us"])]
        for r in views.cpu_op_rows(result, limit=limit)
    ]
    headers = [t(lang, "op"), t(lang, "count"), t(lang, "self"), t(lang, "total")]
    return html_table(headers, rows, numeric={1, 2, 3}, wide=0)


class Aside(NamedTuple):
    """The brackets of an aside after a word: " (" and ")" in English, full-width "（" and "）" with no
    space in Chinese. A template puts markup between them; `paren` puts text."""

    open: str
    close: str


_ASIDES = {"en": Aside(" (", ")"), "zh-TW": Aside("（", "）")}


def aside(lang: str) -> Aside:
    return _ASIDES["en" if lang == "en" else "zh-TW"]


def paren(lang: str, inner: str) -> str:
    """An aside after a word: " (inner)" in English, "（inner）" with full-width brackets and no space in Chinese."""
    brackets = aside(lang)
    return f"{brackets.open}{inner}{brackets.close}"


def paragraph(text: str, css_class: str | None = None) -> str:
    """A paragraph of text beside a table (its caption, a note), from its template."""
    return templating.render("paragraph.html.j2", text=text, css_class=css_class)


def colon(lang: str) -> str:
    return ": " if lang == "en" else "："


_TRACE_LINE = re.compile(r'(</figure>\s*)?<p class="attn-trace"[^>]*><a href="([^"]+)" download>.*?</p>', re.S)


def one_trace_line_per_trace(html: str) -> str:
    """A page's HTML with each trace offered once: where a kernel table and a timeline of the same
    variant both end on its trace line, the timeline's stays (a trace is for exploring, beside the
    drawing of it) and the table's goes; a trace shown once keeps its line wherever it is."""
    lines = list(_TRACE_LINE.finditer(html))
    keep: dict[str, re.Match[str]] = {}
    for line in lines:
        href = line.group(2)
        if href not in keep or (line.group(1) and not keep[href].group(1)):
            keep[href] = line
    drop = [line for line in lines if keep[line.group(2)] is not line]
    for line in reversed(drop):
        start = line.start() + len(line.group(1) or "")
        html = html[:start] + html[line.end() :]
    return html


def trace_link(snap: Snapshot, variant_id: str, lang: str) -> str:
    """The line under a kernel table or a timeline: download the variant's Kineto trace, or open it in
    Perfetto. The button (docs/javascripts/timeline.js shows it) fetches the same file from this site
    and hands it to ui.perfetto.dev only when clicked; without JavaScript the line says where to open it."""
    result = snap.variants[variant_id]
    if result.profile is None:
        return ""
    name = result.profile.trace_file.split("/")[-1]
    return templating.render(
        "trace_link.html.j2",
        href=f"{SITE_ROOT}traces/{snap.device_slug}/{name}",
        download=t(lang, "download_trace"),
        aside=aside(lang),
        open_in_perfetto=t(lang, "open_in_perfetto"),
        colon=colon(lang),
        button=t(lang, "perfetto_button"),
        button_title=t(lang, "perfetto_title"),
        trace_title=f"{title(lang, variant_id)} · {snap.provenance.device_name}",
        file=name,
        # what the button says while it works (docs/javascripts/timeline.js reads them)
        messages={key: t(lang, f"perfetto_{key}") for key in ("opening", "sent", "blocked", "failed", "silent")},
    )


def article_table(snap: Snapshot, lang: str) -> str:
    """The article's A100 figures beside ours, the quoted ones labelled as such."""
    # The article counts its Memcpy as a kernel: compare like with like (kernels + memcpys).
    measures = ("kernels_and_copies", "device_time", "host_time")
    headers = [t(lang, "variant")] + [t(lang, whose) for _ in measures for whose in ("col_article", "col_here")]
    group = [("", 1)] + [(t(lang, what), 2) for what in measures]
    rows = []
    gpu = snap.provenance.device_kind == "cuda"
    na = Markup('<span class="attn-na" title="{}">{}</span>').format(t(lang, "cpu_no_kernels"), t(lang, "n_a"))
    for row in views.summary_rows(snap):
        vid = row["id"]
        ours = row if row["available"] else {}
        rows.append(
            [
                title(lang, vid),
                fmt_num(article.KERNELS.get(vid)),
                (fmt_num(ours["kernels"] + ours["memcpys"]) if gpu else na) if ours else "–",
                (
                    with_note(fmt_us(article.QUOTED_DEVICE_US[vid]), paren(lang, t(lang, "derived")))
                    if vid in article.QUOTED_DEVICE_US and vid not in article.DEVICE_US
                    else fmt_us(article.QUOTED_DEVICE_US.get(vid))
                ),
                fmt_us(ours.get("device_us")),
                fmt_us(article.HOST_US.get(vid)),
                fmt_us(ours.get("host_us")),
            ]
        )
    src = article.SOURCE
    notes = templating.render(
        "article_notes.html.j2",
        colon=colon(lang),
        semicolon="; " if lang == "en" else "；",
        stop=_stop(lang),
        col_article=t(lang, "col_article"),
        quoted=t(lang, "quoted"),
        col_here=t(lang, "col_here"),
        ours=t(lang, "ours"),
        source=t(lang, "source"),
        url=src["url"],
        title=src["title"],
        published=paren(lang, ", ".join([src["publisher"], src["date"], src["gpu"]])),
    )
    return html_table(headers, rows, numeric={1, 2, 3, 4, 5, 6}, narrow={5, 6}, lang=lang, group=group) + notes


def _stop(lang: str) -> str:
    """The full stop that ends a sentence: "." in English, "。" in Chinese."""
    return "." if lang == "en" else "。"


def dispatch_note(snap: Snapshot, lang: str) -> str:
    d = snap.dispatch
    if d.auto_backend is None:
        return ""
    return templating.render(
        "dispatch_note.html.j2",
        ran=t(lang, "auto_backend"),
        backend=d.auto_backend,
        aside=aside(lang),
        read_from=t(lang, "evidence"),
        evidence=d.evidence,
        stop=_stop(lang),
    )


# ---- values inside sentences -------------------------------------------------------------------


def fmt_shape(shape: tuple | list) -> str:
    return "[" + ", ".join(str(n) for n in shape) + "]"


DTYPE_WORDS = {"bfloat16": "bf16", "float16": "fp16", "float32": "FP32"}


_NUMBER = re.compile(r"\d[\d,]*(?:\.(\d+))?")


def format_interval(key: str, low: float, high: float, lang: str = "en") -> str:
    """An interval's two ends ('1.41×–1.66×'), each formatted like the metric; where both round to the
    same text ('1.13×–1.13×' for 1.131–1.134), with as many more digits as tell them apart."""
    ends = [format_metric(key, x, lang).strip("`") for x in (low, high)]
    if ends[0] != ends[1] or low == high:
        return f"{ends[0]}–{ends[1]}"
    found = _NUMBER.search(ends[0])
    shown = float(found.group(0).replace(",", "")) if found else 0.0
    if found is None or shown <= 0 or low <= 0 or high <= 0:
        return f"{ends[0]}–{ends[1]}"
    scale = 10 ** round(math.log10(shown / low))  # a share is shown in percent, a time in ms or µs
    if abs(low * scale - shown) > 0.01 * shown:
        return f"{ends[0]}–{ends[1]}"  # a scale that is no power of ten (bytes): left as it is
    digits = len(found.group(1) or "")
    comma = "," if "," in found.group(0) else ""
    for more in range(digits + 1, digits + 5):
        texts = [f"{x * scale:{comma}.{more}f}" for x in (low, high)]
        if texts[0] != texts[1]:
            break
    return "–".join(ends[0][: found.start()] + text + ends[0][found.end() :] for text in texts)


def format_metric(key: str, value: Any, lang: str = "en") -> str:
    """Format a raw metric by what its key measures. Numbers come out the same in every language;
    the few words (variant names, yes/no, limits) come from i18n."""
    last = key.split(".")[-1].split("[")[0]
    if key.startswith("gap_share."):  # a share, whatever its variants are called
        last = "gap_share"
    if value is None:
        raise metrics.UnknownMetric(f"{key} has no value in this measurement")
    if key in ("fastest.device_us", "slowest.device_us", "training.fastest", "dispatch.auto_variant") or (
        isinstance(value, str) and value in VARIANTS
    ):
        return short_title(lang, value)
    if key == "config.dtype":
        return DTYPE_WORDS.get(value, value)
    if key == "config.shape":
        return fmt_shape(value)
    if last in ("main_theoretical_limit", "main_limiter"):
        return limit_words(lang, value)
    if last == "regime" and isinstance(value, str):
        from attn_examples.render.i18n import REGIME_WORDS

        return REGIME_WORDS[lang][value]
    if key.startswith(("ratio.", "counters.ratio.", "sweep.ratio.")):  # a ratio, whatever it is a ratio of
        return fmt_ratio(value)
    if key.startswith("diff.") and last.endswith("_pct"):  # a difference of percentages: points
        shown = fmt_num(value, 0 if float(value).is_integer() else 1).replace("-", "\u2212")  # a minus, not a hyphen
        return t(lang, "points").format(value=shown)
    if last in ("main_role", "costliest_role"):
        from attn_examples.render.i18n import ROLE_WORDS

        return ROLE_WORDS[lang].get(value, value)
    if last in ("us_per_activity", "longest_us"):  # a time, though its name ends otherwise
        return fmt_us(value)
    if last == "tensor_flops_per_causal":  # tile arithmetic (9/8, 17/16): every digit it has, no rounding
        return f"{value:.4f}".rstrip("0").rstrip(".") + "×"
    if last.endswith("_tokens"):  # a width in tokens (the diagonal's band): whole tokens
        return fmt_num(round(value), 0)
    if key.startswith(("ratio.", "counters.ratio.", "sweep.ratio.")) or re.search(
        r"_per_(qkvo|qkv|output|score|fp32_score|causal|ridge|device|repeat|forward|split|l2)$", last
    ):
        return fmt_ratio(value)
    if key in ("sweep.seq_lens", "sweep.head_dims"):
        return join_words([fmt_num(v) for v in value], lang)
    if last.endswith("tflops") and isinstance(value, (int, float)):
        return f"{value:,.0f} TFLOP/s" if value >= 100 else f"{value:,.1f} TFLOP/s"
    if last.endswith("_gbps"):
        return f"{value:,.0f} GB/s"
    if last.endswith("_flops"):
        return f"{value / 1e9:,.2f} GFLOP"
    if last == "intensity":
        return f"{value:,.0f}"
    if last.endswith("_share"):  # a share that is not zero does not read as 0%
        return "< 0.1%" if 0 < abs(100 * value) < 0.05 else fmt_pct(round(100 * value, 1))
    if last.endswith("_fraction") and isinstance(value, (int, float)):
        return fmt_pct(round(100 * value, 1))
    if isinstance(value, bool):
        return t(lang, "yes" if value else "no")
    if isinstance(value, str):
        plain = key.split(".")[0] in ("device",) or last in ("tool", "unavailable_reason", "torch")
        return value if plain else f"`{value}`"
    if last.endswith("_us"):
        return fmt_us(value)
    if last.endswith("_s") and isinstance(value, (int, float)):
        return f"{value:,.1f} s"
    if last.endswith("_bytes"):
        return fmt_bytes(value)
    if last.endswith("_pct"):
        return fmt_pct(value)
    if last in ("rel_error", "rounding"):
        return fmt_sci(value)
    if isinstance(value, (int, float)):
        return fmt_num(value, 0 if float(value).is_integer() else 2)
    return str(value)


def join_words(items: list[str], lang: str, conjunction: str = "") -> str:
    """ "a, b and c" / 「a、b 與 c」 (or another conjunction: "a or b" / 「a 或 b」)."""
    if len(items) == 1:
        return items[0]
    if lang == "en":
        return ", ".join(items[:-1]) + f" {conjunction or 'and'} " + items[-1]
    # a space where 與 meets a Latin letter or digit, none beside a full-width character (「1（flash）與 2」)
    before = "" if prose.WIDE.match(items[-2][-1:]) else " "
    after = "" if prose.WIDE.match(items[-1][:1]) else " "
    return "、".join(items[:-1]) + before + (conjunction or "與") + after + items[-1]


def short_title(lang: str, variant_id: str) -> str:
    from attn_examples.render.i18n import SHORT_TITLES

    return SHORT_TITLES[lang][variant_id]


def limit_words(lang: str, limit: str) -> str:
    """What caps the resident blocks, as the calculator or ncu names it ('registers+shared_mem')."""
    from attn_examples.render.i18n import LIMIT_WORDS

    parts = [LIMIT_WORDS[lang].get(part.strip(), part.strip()) for part in limit.split("+")]
    return join_words(parts, lang)  # 「暫存器與 warp 數」: a space where 與 meets a Latin word


_PLAIN_QUOTES = (".gpu", ".gpu_short", ".date", ".compute_capability")  # words, not names in code


def quoted(key: str, lang: str) -> Markup:
    """A figure quoted from the article or a paper: the source's own text, labelled as a quotation."""
    q = article.quote(key)
    source = t(lang, "quoted_article" if key.startswith("article.") else "quoted_paper").format(
        gpu=article.QUOTES["gpu"].text
    )
    shown = q.display()
    is_name = isinstance(q.value, str) and not q.unit and not key.endswith(_PLAIN_QUOTES)
    if isinstance(q.value, str) and q.value in VARIANTS:  # the article's winner, named like ours
        inner: str = short_title(lang, q.value)
    else:
        inner = code(shown) if is_name else shown
    return Markup('<span class="attn-quoted" title="{}">{}</span>').format(source, inner)


def value(snap: Snapshot, key: str, live: bool, lang: str = "en", reused: bool = False, given: bool = False) -> str:
    """A formatted value for `{{ key }}` in the prose; `attn_examples.render.metrics` lists the keys.
    `build.mode` says whether this build measured live (or reused this machine's live measurement);
    `article.*` and `paper.*` are quotations. HTML, as a plain `str`: the page hook splices it into a sentence."""
    return str(_value_html(snap, key, live, lang, reused, given))


def _value_html(snap: Snapshot, key: str, live: bool, lang: str, reused: bool, given: bool = False) -> Markup:
    if key == "build.mode":
        return escape(build_source(snap, lang, live, reused, given=given))
    if key == "build.confidence":
        return escape(confidence_words())
    if key == "build.settle_tolerance":
        from attn_examples.snapshot.uncertainty import SETTLE_TOLERANCE

        return escape(f"{SETTLE_TOLERANCE:.0%}")
    if key == "build.drift_tolerance":
        from attn_examples.snapshot.uncertainty import DRIFT_TOLERANCE

        return escape(f"±{DRIFT_TOLERANCE:.0%}")
    if key.startswith(("article.", "paper.")):
        return quoted(key, lang)
    if key.endswith(".unavailable_reason"):
        return reason_html(metrics.metric(snap, key))
    return as_html(format_metric(key, metrics.metric(snap, key), lang))


def reason_html(reason: str, limit: int = 110) -> Markup:
    """A refusal quoted inside a sentence: its first sentence (PyTorch's or ours, in English in both
    languages), the whole message on hover."""
    first = re.split(r"(?<=[.!?])\s+(?=[A-Z])", reason.strip(), maxsplit=1)[0]
    if len(first) > limit:
        first = first[:limit].rsplit(" ", 1)[0]
        if first.count("(") > first.count(")"):  # never stop inside a parenthesis: end before it opens
            first = first[: first.rindex("(")].rstrip(" ,;:")
        first += "…"
    return Markup('<q class="attn-reason" lang="en" title="{}">{}</q>').format(reason, first)


def as_html(text: str) -> Markup:
    """A formatted value made safe for a sentence, outside any template: names in `code`, everything
    escaped (a snapshot is outside input: a GPU name or a reason may hold markup)."""
    if len(text) > 1 and text.startswith("`") and text.endswith("`"):
        return code(text[1:-1])
    return escape(text)


def counters_status(snap: Snapshot, lang: str) -> str:
    """The top of the counters page: where the readings come from, or why there are none."""
    from attn_examples.render import hardware

    if hardware.available(snap):
        return counters_source(snap, lang) + report_link(snap, lang) + counters_command(snap, lang)
    cpu = snap.provenance.device_kind != "cuda"
    return templating.render(
        "counters_missing.html.j2",
        title=t(lang, "counters_missing"),
        why=_counters_why(snap, lang),
        how=Markup(t(lang, "counters_how_cpu" if cpu else "counters_how")),  # its own <code>
        space=" " if lang == "en" else "",
    )


def _counters_why(snap: Snapshot, lang: str) -> Markup:
    """Why a measurement has no counter readings, as a sentence of the reader's language: a CPU (Nsight
    Compute reads NVIDIA GPUs only), no counter pass, or the reason the pass recorded."""
    from attn_examples.render.i18n import COUNTER_REASONS

    if snap.provenance.device_kind != "cuda":
        return Markup(t(lang, "counters_why_cpu"))
    if snap.counters is None:
        return Markup(t(lang, "counters_why_no_pass"))
    reason = (snap.counters.reason or "").rstrip(".")
    return Markup(t(lang, "counters_why_recorded")).format(reason=COUNTER_REASONS[lang].get(reason, reason))


# ---- claims --------------------------------------------------------------------------------------


def confidence_words() -> str:
    from attn_examples.snapshot.uncertainty import CONFIDENCE

    return f"{CONFIDENCE:.0%}"


def occupancy_table(snap: Snapshot, lang: str) -> str:
    """The evidence: every distinct launch configuration measured, Kineto's reading and ours."""
    from attn_examples.render import occupancy

    groups: dict[tuple, dict] = {}
    for r in occupancy.evidence_rows(snap):
        key = (
            display_name(r["name"]),
            r["launch_api"],
            r["shared_memory_bytes"],
            r["registers_per_thread"],
            r["threads"],
            r["kineto_pct"],
            round(r["emulated_kineto_pct"], 1),
            round(r["theoretical_pct"], 1),
        )
        group = groups.setdefault(key, {**r, "where": [], "count": 0})
        group["where"].append(r["variant"].split(" @ ")[0])
        group["count"] += 1
    headers = [
        t(lang, "name"),
        t(lang, "launch"),
        t(lang, "smem"),
        t(lang, "registers"),
        t(lang, "threads"),
        t(lang, "kineto_pct"),
        t(lang, "emulated_pct"),
        t(lang, "theoretical_pct"),
        t(lang, "limit"),
        t(lang, "seen"),
    ]
    rows = []
    for (name, launch, smem, regs, threads, kineto, emulated, theo), g in sorted(
        groups.items(), key=lambda item: (-item[0][2], item[0][0])
    ):
        rows.append(
            [
                named_code(g["name"], name),
                code(breakable(launch)),
                fmt_bytes(smem),
                fmt_num(regs),
                fmt_num(threads),
                fmt_pct(kineto),
                fmt_pct(emulated),
                fmt_pct(theo),
                limit_words(lang, g["theoretical_limit"]),
                f"{g['count']}× ({', '.join(sorted(set(g['where'])))})",
            ]
        )
    return html_table(headers, rows, numeric={2, 3, 4, 5, 6, 7}, wide=0, extra={1, 2, 3, 4, 9}, narrow={8}, lang=lang)


def sweep_kernels_table(snap: Snapshot, head_dim: int, lang: str) -> str:
    """Kernels per forward for every variant and sequence length: where the structure changes."""
    if snap.sweep is None:
        return ""
    seqs = sorted({p.seq_len for p in snap.sweep.points})
    headers = [t(lang, "variant")] + [f"seq {s:,}" for s in seqs]
    rows = []
    for variant_id in snap.variants:
        cells = []
        for seq in seqs:
            point = next(
                (
                    p
                    for p in snap.sweep.points
                    if p.variant == variant_id and p.seq_len == seq and p.head_dim == head_dim
                ),
                None,
            )
            cells.append(
                "–"
                if point is None
                else fmt_num(point.kernels)
                if point.available
                else Markup('<span title="{}">{}</span>').format(point.reason, t(lang, "skipped"))
            )
        rows.append([title(lang, variant_id)] + cells)
    caption = paragraph(
        f"{t(lang, 'kernels')} · head_dim {head_dim} · batch {snap.sweep.batch}, heads {snap.sweep.heads}",
        "attn-caption",
    )
    # on a phone every other middle length folds away: the first and the last stay
    narrow = {i + 1 for i in range(1, len(seqs) - 1) if i % 2}
    return caption + html_table(headers, rows, numeric=set(range(1, len(seqs) + 1)), narrow=narrow, lang=lang)


def training_table(snap: Snapshot, lang: str) -> str:
    if snap.training is None:
        return ""
    headers = [
        t(lang, "variant"),
        t(lang, "kernels_fwd_bwd"),
        t(lang, "gpu_activities"),
        t(lang, "device_time"),
        f"{t(lang, 'kernels')} (forward)",
    ]
    rows = []
    for p in snap.training.points:
        forward = views.counts(snap.variants[p.variant]).get("kernels") if snap.variants[p.variant].available else None
        if not p.available:
            rows.append([with_detail(title(lang, p.variant), t(lang, "unavailable"), "em")] + ["–"] * 4)
            continue
        rows.append(
            [
                title(lang, p.variant),
                fmt_num(p.kernels),
                fmt_num(p.gpu_activities),
                fmt_us(p.device_us),
                fmt_num(forward),
            ]
        )
    return html_table(headers, rows, numeric={1, 2, 3, 4}, narrow={2}, lang=lang)


def autograd_capture(snap: Snapshot, lang: str) -> str:
    """What backward through masked_fill_ did, exactly as captured on the device."""
    if snap.training is None:
        return ""
    a = snap.training.inplace_autograd
    return templating.render(
        "autograd_capture.html.j2",
        raised=a.raised,
        error=a.error,
        no_error=t(lang, "no_error"),
        max_diff=repr(a.max_abs_grad_diff),
    )


ARTICLE_VARIANTS = ("naive", "naive_inplace", "sdpa_math", "sdpa_efficient", "sdpa_flash", "sdpa_cudnn")


def _snapshot_label(snap: Snapshot, href: str | None, here: bool, lang: str) -> Markup:
    """A snapshot in one cell: device, dtype and shape (a link to its site), then its provenance."""
    p, c = snap.provenance, snap.config
    extras = [
        s
        for s in (
            "--extended" in p.command and t(lang, "has_extended"),
            snap.counters is not None and snap.counters.available and t(lang, "has_counters"),
        )
        if s
    ]
    label = templating.render(
        "snapshot_label.html.j2",
        href=href,
        here=here,
        device=p.device_name,
        dtype=DTYPE_WORDS.get(c.dtype, c.dtype),
        shape=fmt_shape(c.shape),
        this_site=paren(lang, t(lang, "this_site")),
        torch=p.torch,
        date=p.measured_at[:10],
        commit=(p.git_commit or "")[:8],
        extras=extras,
    )
    return Markup(label)  # a cell of the devices table: HTML from the template above


def devices_table(entries: list[tuple[Snapshot, str | None, bool]], lang: str, metric: str) -> str:
    """Every measurement side by side, one row each, beside the article's quoted figures.
    `entries`: (snapshot, link to its site or None, whether this site is built from it);
    `metric`: device_us or kernels (kernels for a GPU, host ops for a CPU)."""
    headers = [t(lang, "measurement")] + [short_title(lang, v) for v in ARTICLE_VARIANTS]
    rows: list[list[str]] = []
    times: dict[tuple[int, int], float | None] = {}  # (row, column) -> µs, written once its column's unit is known
    for snap, href, here in entries:
        row: list[str] = [_snapshot_label(snap, href, here, lang)]
        for variant_id in ARTICLE_VARIANTS:
            result = snap.variants.get(variant_id)
            if result is None:
                row.append("")
            elif not result.available:
                reason = views.short_reason(result.unavailable_reason)
                row.append(
                    Markup('<span class="attn-na" title="{}">{}</span>').format(reason, t(lang, "unavailable_short"))
                )
            elif metric == "device_us":
                times[len(rows), len(row)] = (
                    result.timing.device_us.median if result.timing and result.timing.device_us else None
                )
                row.append("")
            else:
                c = views.counts(result)
                row.append(
                    fmt_num(c["kernels"])
                    if snap.provenance.device_kind == "cuda"
                    else with_note(fmt_num(c["cpu_ops"]), t(lang, "ops_word"))
                )
        rows.append(row)
    for col in range(1, len(headers)):  # one unit per column
        cells = [(i, us) for (i, c), us in times.items() if c == col]
        for (i, _), text in zip(cells, fmt_us_column([us for _, us in cells])):
            rows[i][col] = text
    quoted_values = article.QUOTED_DEVICE_US if metric == "device_us" else article.KERNELS
    rows.append(
        [with_detail(t(lang, "article"), article.SOURCE["gpu"])]
        + [
            quoted(f"article.{'device_us' if metric == 'device_us' else 'kernels'}.{v}", lang)
            if v in quoted_values and (metric != "device_us" or v in article.DEVICE_US)
            else (with_note(fmt_us(quoted_values[v]), paren(lang, t(lang, "derived"))) if v in quoted_values else "")
            for v in ARTICLE_VARIANTS
        ]
    )
    narrow = {1 + ARTICLE_VARIANTS.index(v) for v in ("naive_inplace", "sdpa_efficient")}
    return html_table(
        headers, rows, numeric=set(range(1, len(headers))), wide=0, kind="devices", narrow=narrow, lang=lang
    )


# ---- hardware counters ---------------------------------------------------------------------------


def _counters_missing(snap: Snapshot, lang: str) -> str:
    stop = ". " if lang == "en" else "。"
    return paragraph(Markup(t(lang, "counters_missing") + stop) + _counters_why(snap, lang), "attn-unavailable")


def counters_source(snap: Snapshot, lang: str) -> str:
    """Which ncu read the counters, when and at which commit (a caption under each counters block).
    The snapshot must have a counters pass (its callers check hardware.available first)."""
    from attn_examples.render import hardware

    c = snap.counters
    if c is None:
        raise ValueError("this snapshot has no hardware-counter pass: it names no tool")
    return templating.render(
        "counters_source.html.j2",
        read_by=t(lang, "counters_tool"),
        tool=hardware.tool_name(snap),
        reader=Markup(t(lang, f"counters_reader_{c.reader}")) if c.reader is not None else "",  # its own <code>
        date=(c.measured_at or "")[:10],
        commit_word=t(lang, "commit"),
        commit=(c.git_commit or "")[:8],
    )


def published_report(snap: Snapshot) -> str | None:
    """Where the build publishes the counters' Nsight Compute report, relative to the site's root:
    beside the traces, decompressed (Nsight Compute opens only a plain .ncu-rep) and named after the
    device and the stored file's content hash. None when the snapshot keeps no report."""
    c = snap.counters
    if c is None or c.report_file is None:
        return None
    stored = c.report_file.rsplit("/", 1)[-1].removesuffix(".gz")
    return f"traces/{snap.device_slug}/{snap.device_slug}-{stored}"


def report_link(snap: Snapshot, lang: str) -> str:
    """The line that offers the counters' Nsight Compute report for download, and says how to find a
    variant's kernels in it; nothing when the snapshot keeps no report."""
    where = published_report(snap)
    if where is None:
        return ""
    return templating.render(
        "report_link.html.j2",
        href=SITE_ROOT + where,
        download=t(lang, "download_ncu_report"),
        colon=colon(lang),
        how=t(lang, "ncu_report_how"),
    )


def counters_command(snap: Snapshot, lang: str) -> str:
    """The exact ncu command, folded away (after the block's provenance line)."""
    from attn_examples.render import hardware

    counters = hardware.measured_counters(snap)
    if counters is None:
        return ""
    return templating.render("counters_command.html.j2", summary=t(lang, "counters_command"), command=counters.command)


def counters_table(snap: Snapshot, lang: str) -> str:
    """Per variant: HBM traffic against q+k+v+o and the score matrix, the work and where it ran."""
    from attn_examples.render import hardware

    counters = hardware.measured_counters(snap)
    if counters is None:
        return _counters_missing(snap, lang)
    headers = [
        t(lang, k)
        for k in (
            "variant",
            "kernels",
            "hbm_read",
            "hbm_write",
            "hbm_total",
            "x_qkvo",
            "x_scores",
            "l2_write",
            "tensor_gflop",
            "fp32_gflop",
            "wgmma",
            "ncu_time",
        )
    ]
    rows = []
    for variant_id in counters.variants:
        s = hardware.variant_totals(snap, variant_id)
        if s is None:  # a measured pass gives every variant its kernels (counters.by_variant refuses an empty one)
            raise SnapshotError(f"field 'counters.variants.{variant_id}': no kernels")
        rows.append(
            [
                title(lang, variant_id),
                fmt_num(s["kernels"]),
                fmt_bytes(s["dram_read_bytes"]),
                fmt_bytes(s["dram_write_bytes"]),
                fmt_bytes(s["dram_bytes"]),
                fmt_ratio(s["dram_per_qkvo"]),
                fmt_ratio(s["dram_per_score"]),
                fmt_bytes(s["l2_write_bytes"]),
                _giga(s["tensor_flops"]),
                _giga(s["fp32_flops"]),
                "–" if s["uses_gmma"] is None else _tc(lang, s["uses_gmma"]),
                fmt_us(s["duration_us"]),
            ]
        )
    return html_table(
        headers, rows, numeric=set(range(1, 12)) - {10}, extra={2, 3, 7, 8, 9, 10}, narrow={1, 5}, lang=lang
    ) + counters_source(snap, lang)


def counter_kernels_table(snap: Snapshot, lang: str) -> str:
    """Every kernel of every variant: Kineto's estimate beside the counters' theoretical and achieved
    occupancy, what limits it, and which pipe did the work."""
    from attn_examples.render import hardware

    counters = hardware.measured_counters(snap)
    if counters is None:
        return _counters_missing(snap, lang)
    headers = [
        t(lang, k)
        for k in (
            "variant",
            "name",
            "kineto_pct",
            "ncu_theoretical_pct",
            "achieved_pct",
            "limit",
            "registers",
            "smem",
            "tensor_busy",
            "fma_busy",
            "hbm_total",
            "ncu_time",
        )
    ]
    rows, matched = [], True
    for variant_id in counters.variants:
        for r in hardware.kernel_rows(snap, variant_id):
            matched = matched and r["matched_kineto"]
            rows.append(
                [
                    short_title(lang, variant_id),
                    kernel_name(r["kineto_name"] or r["name"]),
                    fmt_pct(r["kineto_est_occupancy_pct"]),
                    fmt_pct(r["theoretical_occupancy_pct"]),
                    fmt_pct(r["achieved_occupancy_pct"]),
                    limit_words(lang, r["limiter"]) if r["limiter"] else "–",
                    fmt_num(r["registers"]),
                    fmt_bytes(r["shared_memory_bytes"]),
                    fmt_pct(r["tensor_busy_pct"]),
                    fmt_pct(r["fma_busy_pct"]),
                    fmt_bytes(r["dram_bytes"]),
                    fmt_us(r["duration_us"]),
                ]
            )
    note = paragraph(t(lang, "match_note" if matched else "match_broken"), "attn-caption")
    return (
        html_table(
            headers,
            rows,
            numeric={2, 3, 4, 6, 7, 8, 9, 10, 11},
            wide=1,
            extra={6, 7, 8, 9, 10, 11},
            narrow={5},
            lang=lang,
        )
        + note
        + counters_source(snap, lang)
    )
