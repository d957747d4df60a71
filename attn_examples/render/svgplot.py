"""A small SVG plotting layer: the figures' geometry computed here, their words drawn by the browser.

Why not matplotlib: the page's fonts draw every word (the text stays <text>), so a figure only
needs positions. matplotlib's tick objects and SVG backend cost 0.07-0.4 s a drawing; this costs
about a millisecond. Units are points (1/72 in), which are also the SVG's user units: a figure
W inches wide has a viewBox W * 72 wide, and a 9 pt label keeps its size relative to the figure.

Text width is estimated (no font files): DejaVu Sans advance widths for Latin, 1 em for a wide
(CJK) character. The estimate only sizes margins and legends, so a few percent off costs nothing.

One job each: `Axis` maps data to a fraction of its length and chooses ticks; `Axes` is a box of
data drawn on two axes; `Figure` is the canvas: ids, hatch patterns, free text, legends, output.
"""

from __future__ import annotations

import html
import math
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

PT = 72.0  # points per inch
INK = "currentColor"  # text and axes follow the page's light or dark scheme
FONT = "'DejaVu Sans', 'Noto Sans CJK TC', sans-serif"
TICK, PAD, LABEL_PAD = 3.5, 3.5, 4.0  # tick length, tick-to-label gap, tick labels to axis label (pt)
LINE = 1.2  # line height, in em
ASCENT, DESCENT = 0.76, 0.24  # of a line of text, in em (cap height and descender, roughly)

# DejaVu Sans advance widths in 1/1000 em; anything unlisted is 0.6 em, a wide character 1 em.
_WIDTHS: dict[str, int] = {}
for _chars, _w in (
    ("0123456789$", 636),
    (" .,·", 318),
    (":;", 337),
    ("()[]", 390),
    ("-", 361),
    ("_*", 500),
    ("/\\|", 337),
    ("%", 950),
    ("×+=<>~#", 838),
    ("µ", 636),
    ("'", 275),
    ('"', 460),
    ("!", 401),
    ("?", 531),
    ("&", 780),
    ("@", 1000),
    ("a", 613),
    ("bdgpq", 635),
    ("c", 550),
    ("e", 615),
    ("f", 352),
    ("hnu", 634),
    ("ijl", 278),
    ("k", 579),
    ("m", 974),
    ("o", 612),
    ("r", 411),
    ("s", 521),
    ("t", 392),
    ("vxy", 592),
    ("w", 818),
    ("z", 525),
    ("A", 684),
    ("B", 686),
    ("C", 698),
    ("D", 770),
    ("E", 632),
    ("F", 575),
    ("G", 775),
    ("H", 752),
    ("IJ", 295),
    ("K", 656),
    ("L", 557),
    ("M", 863),
    ("N", 748),
    ("OQ", 787),
    ("P", 603),
    ("R", 695),
    ("S", 635),
    ("TY", 611),
    ("U", 732),
    ("V", 684),
    ("W", 989),
    ("XZ", 685),
):
    _WIDTHS.update(dict.fromkeys(_chars, _w))


def char_width(ch: str) -> float:
    """One character's advance in em."""
    w = _WIDTHS.get(ch)
    if w is not None:
        return w / 1000
    return 1.0 if unicodedata.east_asian_width(ch) in ("W", "F") else 0.6


def text_width(text: str, size: float) -> float:
    """Estimated width in points of the widest line of `text` at `size` pt."""
    return max(sum(map(char_width, line)) for line in text.split("\n")) * size


_TOKENS = re.compile(r"[\u2e80-\uffff]|[^\s\u2e80-\uffff]+|\s+")


def wrap(text: str, size: float, width: float) -> str:
    """`text` broken into lines no wider than `width` pt: between words, or between any two wide
    (CJK) characters, which need no space to break."""
    lines, line = [], ""
    for token in _TOKENS.findall(text):
        if line.strip() and not token.isspace() and text_width(line + token, size) > width:
            lines.append(line.rstrip())
            line = ""
        line += "" if token.isspace() and not line else token
    return "\n".join([*lines, line.rstrip()])


def plain(value: float) -> str:
    """A tick label as a plain number (0.1, 10, 1,000): easier to read than powers of ten."""
    return f"{value:,.0f}" if abs(value) >= 1 or value == 0 else f"{value:g}"


def _n(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def text_svg(
    x: float,
    y: float,
    text: str,
    size: float,
    anchor: str = "start",
    va: str = "baseline",
    rotate: float = 0.0,
    color: str | None = None,
    spacing: float = LINE,
) -> str:
    """`text` at (x, y) as <text> elements, one per line (each line's words are the element's
    content). `va` places the block: baseline (of the first line), top, center or bottom; offsets
    are computed here, as not every browser honours dominant-baseline. `rotate` in degrees,
    counter-clockwise, about (x, y)."""
    lines = text.split("\n")
    pitch = size * spacing
    block = (len(lines) - 1) * pitch
    first = {
        "baseline": 0.0,
        "top": ASCENT * size,
        "bottom": -DESCENT * size - block,
        "center": (ASCENT - DESCENT) / 2 * size - block / 2,
    }[va]
    attrs = f' font-size="{_n(size)}"'
    if anchor != "start":
        attrs += f' text-anchor="{anchor}"'
    if color:
        attrs += f' fill="{color}"'
    if rotate:
        attrs += f' transform="rotate({_n(-rotate)} {_n(x)} {_n(y)})"'
    return "".join(
        f'<text x="{_n(x)}" y="{_n(y + first + i * pitch)}"{attrs}>{html.escape(line, quote=False)}</text>'
        for i, line in enumerate(lines)
    )


# ---- markers ---------------------------------------------------------------------------------------
def _star(points: int, inner: float) -> list[tuple[float, float]]:
    return [
        (
            (inner if i % 2 else 1) * math.sin(math.pi * i / points),
            -(inner if i % 2 else 1) * math.cos(math.pi * i / points),
        )
        for i in range(2 * points)
    ]


def _cross(arm: float) -> list[tuple[float, float]]:
    """A plus sign of arm half-width `arm` (radius 1)."""
    a = arm
    return [(-a, -1), (a, -1), (a, -a), (1, -a), (1, a), (a, a), (a, 1), (-a, 1), (-a, a), (-1, a), (-1, -a), (-a, -a)]


# Unit outlines (radius 1, y down), scaled so that the shapes look about equally heavy.
SHAPES: dict[str, list[tuple[float, float]]] = {
    "s": [(-0.8, -0.8), (0.8, -0.8), (0.8, 0.8), (-0.8, 0.8)],
    "D": [(0, -0.95), (0.95, 0), (0, 0.95), (-0.95, 0)],
    "^": [(0, -1.25), (1.15, 0.75), (-1.15, 0.75)],
    "v": [(0, 1.25), (1.15, -0.75), (-1.15, -0.75)],
    "P": _cross(0.36),
    "X": [(x * 0.7071 - y * 0.7071, x * 0.7071 + y * 0.7071) for x, y in _cross(0.3)],
    "*": [(1.25 * x, 1.25 * y) for x, y in _star(5, 0.4)],
}


def marker_svg(x: float, y: float, shape: str, diameter: float, attrs: str) -> str:
    """A marker of `shape` ("o" or a key of SHAPES) centred on (x, y)."""
    r = diameter / 2
    if shape == "o":
        return f'<circle cx="{_n(x)}" cy="{_n(y)}" r="{_n(r)}"{attrs}/>'
    d = "M" + "L".join(f"{_n(x + px * r)},{_n(y + py * r)}" for px, py in SHAPES[shape]) + "Z"
    return f'<path d="{d}"{attrs}/>'


DASHES = {"-": None, "--": (3.7, 1.6), ":": (1.0, 1.65), "-.": (6.4, 1.6, 1.0, 1.6)}  # per unit line width


def stroke(color: str, width: float, dash: str = "-") -> str:
    pattern = DASHES[dash]
    attrs = f' fill="none" stroke="{color}" stroke-width="{_n(width)}"'
    if pattern:
        attrs += f' stroke-dasharray="{",".join(_n(p * max(width, 1.0)) for p in pattern)}"'
    return attrs


# ---- axes ------------------------------------------------------------------------------------------
def nice_ticks(lo: float, hi: float, nbins: int, integer: bool = False) -> list[float]:
    """At most `nbins` intervals of 1, 2, 2.5 or 5 times a power of ten (as matplotlib's MaxNLocator
    chooses them); with `integer`, whole numbers only (a count has no tick at 2.5)."""
    span = hi - lo
    if span <= 0:
        return [lo]
    raw = span / max(nbins, 1)
    scale = 10 ** math.floor(math.log10(raw))
    step = 10 * scale
    for s in (1, 2, 2.5, 5, 10):
        candidate = s * scale
        if integer and (candidate < 1 or abs(candidate - round(candidate)) > 1e-9):
            continue
        if candidate >= raw * (1 - 1e-9):
            step = candidate
            break
    if integer:
        step = max(step, 1.0)
    first = math.ceil(lo / step - 1e-9)
    return [i * step for i in range(first, math.floor(hi / step + 1e-9) + 1)]


def log_ticks(lo: float, hi: float) -> tuple[list[float], list[float]]:
    """Decades within [lo, hi] (labelled), and 2..9 times each decade (unlabelled)."""
    majors, minors = [], []
    for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1):
        decade = 10.0**e
        majors += [decade] if lo * (1 - 1e-9) <= decade <= hi * (1 + 1e-9) else []
        minors += [m * decade for m in range(2, 10) if lo <= m * decade <= hi]
    return majors, minors


@dataclass
class Axis:
    """One axis of an Axes: limits (set, or the data's extent plus 5%), scale, ticks and label."""

    log: bool = False
    lim: tuple[float, float] | None = None
    nbins: int = 6
    integer: bool = False
    ticks: list[tuple[float, str]] | None = None  # explicit (value, label); else chosen
    minor: bool = True  # unlabelled 2..9 marks on a log axis
    labels: bool = True  # tick labels shown (off on a panel sharing its neighbour's)
    label: str = ""
    extent: list[float] = field(default_factory=lambda: [math.inf, -math.inf])

    def include(self, *values: float) -> None:
        for v in values:
            if self.log and v <= 0:
                continue
            self.extent[0], self.extent[1] = min(self.extent[0], v), max(self.extent[1], v)

    def limits(self) -> tuple[float, float]:
        if self.lim is not None:
            return self.lim
        lo, hi = self.extent if self.extent[0] <= self.extent[1] else (0.0, 1.0)
        if self.log:
            a, b = math.log10(lo), math.log10(hi)
            pad = (b - a) * 0.05 or 0.5
            return 10 ** (a - pad), 10 ** (b + pad)
        pad = (hi - lo) * 0.05 or 0.5
        return lo - pad, hi + pad

    def frac(self, value: float) -> float:
        """Where `value` falls between the limits, 0 to 1."""
        lo, hi = self.limits()
        if self.log:
            return (math.log10(value) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))
        return (value - lo) / (hi - lo)

    def tick_marks(self) -> tuple[list[tuple[float, str]], list[float]]:
        """(value, label) of the major ticks within the limits, and the minor tick values."""
        lo, hi = self.limits()
        inside = lambda v: min(lo, hi) - 1e-9 * abs(hi - lo) <= v <= max(lo, hi) + 1e-9 * abs(hi - lo)  # noqa: E731
        if self.ticks is not None:
            return [(v, s) for v, s in self.ticks if inside(v)], []
        if self.log:
            majors, minors = log_ticks(lo, hi)
            if len(majors) < 2:  # less than a decade shown: 2 and 5 times a decade are labelled too
                majors = sorted(
                    majors + [v for v in minors if round(v / 10 ** math.floor(math.log10(v) + 1e-9)) in (2, 5)]
                )
                minors = [v for v in minors if v not in majors]
            return [(v, plain(v)) for v in majors], minors if self.minor else []
        values = nice_ticks(lo, hi, self.nbins, self.integer)
        step = values[1] - values[0] if len(values) > 1 else 1.0
        decimals = next(
            d for d in range(7) if abs(round(step, d) - step) < 1e-9 * max(step, 1)
        )  # 0.0 … 1.0: one format
        return [(v, f"{v:,.{decimals}f}") for v in values if inside(v)], []


def share(axes: Sequence[Axes], which: str) -> None:
    """Give every panel the union of their data limits on axis `which` ("x" or "y"), so panels
    drawn side by side (or stacked) compare on one scale. Call after drawing the data."""
    axis = [getattr(ax, which) for ax in axes]
    lo = min(a.limits()[0] for a in axis if a.lim or a.extent[0] <= a.extent[1])
    hi = max(a.limits()[1] for a in axis if a.lim or a.extent[0] <= a.extent[1])
    for a in axis:
        a.lim = (lo, hi)


def xaxis_depth(size: float, label_lines: int) -> float:
    """Points below an axes taken by its ticks, tick labels and an axis label of `label_lines` lines."""
    return TICK + PAD + size * LINE + (LABEL_PAD + size * LINE * label_lines if label_lines else 0) + 2


def label_room(tick_labels: Sequence[str], size: float, label: str = "") -> float:
    """Points left of an axes taken by its y tick labels and (rotated) y label."""
    room = TICK + PAD + max((text_width(t, size) for t in tick_labels), default=0.0)
    return room + (LABEL_PAD + size * LINE * (label.count("\n") + 1) if label else 0.0)


@dataclass(eq=False)
class Axes:
    """A box of the figure (points, y down) with an x and a y Axis; what is drawn in it is kept
    as callbacks and placed when the figure is written, once the limits are known."""

    fig: Figure
    left: float
    top: float
    width: float
    height: float
    size: float = 9.0
    x: Axis = field(default_factory=Axis)
    y: Axis = field(default_factory=Axis)
    title: str = ""
    _items: list[tuple[float, int, Callable[[], str]]] = field(default_factory=list)

    def px(self, value: float) -> float:
        return self.left + self.x.frac(value) * self.width

    def py(self, value: float) -> float:
        return self.top + (1 - self.y.frac(value)) * self.height

    def angle(self, p0: tuple[float, float], p1: tuple[float, float]) -> float:
        """The on-screen angle (degrees, counter-clockwise) of the line p0 -> p1; needs set limits."""
        return math.degrees(math.atan2(self.py(p0[1]) - self.py(p1[1]), self.px(p1[0]) - self.px(p0[0])))

    def _add(self, z: float, draw: Callable[[], str], tip: str | None = None) -> None:
        if tip is not None:
            gid, body, title = self.fig.uid("m"), draw, html.escape(tip)

            def marked() -> str:
                return f'<g id="{gid}" class="attn-mark"><title>{title}</title>{body()}</g>'

            draw = marked
        self._items.append((z, len(self._items), draw))

    def barh(
        self,
        y: float,
        width: float,
        left: float = 0.0,
        height: float = 0.8,
        color: str = INK,
        hatch: str | None = None,
        linewidth: float = 0.8,
        tip: str | None = None,
        hollow: str | None = None,
    ) -> None:
        """A horizontal bar; `hatch` (a colour) draws it outlined and hatched in that colour, `hollow`
        (a colour) only outlined in it."""
        self.x.include(left, left + width)
        self.y.include(y - height / 2, y + height / 2)

        def draw() -> str:
            x0, x1 = sorted((self.px(left), self.px(left + width)))
            y0 = self.py(y + height / 2)
            fill = (
                f'fill="url(#{self.fig.hatch(hatch)})" stroke="{hatch}" stroke-width="{_n(linewidth)}"'
                if hatch
                else f'fill="none" stroke="{hollow}" stroke-width="{_n(linewidth * 1.5)}"'
                if hollow
                else f'fill="{color}"'
            )
            return f'<rect x="{_n(x0)}" y="{_n(y0)}" width="{_n(x1 - x0)}" height="{_n(self.py(y - height / 2) - y0)}" {fill}/>'

        self._add(1, draw, tip)

    def errorbar_x(self, y: float, x: float, half: float, color: str = INK, width: float = 1.0) -> None:
        """A horizontal whisker from x - half to x + half."""
        self._add(
            2,
            lambda: (
                f'<path d="M{_n(self.px(x - half))},{_n(self.py(y))}H{_n(self.px(x + half))}"{stroke(color, width)}/>'
            ),
        )

    def line(
        self,
        xs: Sequence[float],
        ys: Sequence[float],
        color: str = INK,
        width: float = 1.0,
        dash: str = "-",
        z: float = 2,
    ) -> None:
        self.x.include(*xs)
        self.y.include(*ys)
        self._add(
            z,
            lambda: (
                f'<polyline points="{" ".join(f"{_n(self.px(a))},{_n(self.py(b))}" for a, b in zip(xs, ys))}"'
                f"{stroke(color, width, dash)}/>"
            ),
        )

    def vline(self, x: float, color: str = INK, width: float = 0.8, dash: str = "-") -> None:
        """A vertical line across the whole axes (it does not widen the y limits)."""
        self.x.include(x)
        self._add(
            2,
            lambda: (
                f'<path d="M{_n(self.px(x))},{_n(self.top)}V{_n(self.top + self.height)}"{stroke(color, width, dash)}/>'
            ),
        )

    def marker(
        self,
        x: float,
        y: float,
        shape: str,
        area: float,
        color: str,
        edge: str | None = None,
        edgewidth: float = 0.0,
        alpha: float = 1.0,
        z: float = 3,
        tip: str | None = None,
    ) -> None:
        """A scatter marker; `area` in pt² as matplotlib's `s` (its diameter is sqrt(area))."""
        self.x.include(x)
        self.y.include(y)
        attrs = f' fill="{color}"' + (f' fill-opacity="{_n(alpha)}"' if alpha < 1 else "")
        if edge and edgewidth:
            attrs += f' stroke="{edge}" stroke-width="{_n(edgewidth)}"'
        self._add(z, lambda: marker_svg(self.px(x), self.py(y), shape, math.sqrt(area), attrs), tip)

    def text(
        self,
        x: float,
        y: float,
        text: str,
        size: float | None = None,
        anchor: str = "start",
        va: str = "center",
        rotate: float = 0.0,
        dx: float = 0.0,
        dy: float = 0.0,
        spacing: float = LINE,
    ) -> None:
        """Text at a data point, offset by (dx, dy) points (dy down)."""
        self._add(
            4,
            lambda: text_svg(
                self.px(x) + dx, self.py(y) + dy, text, size or self.size, anchor, va, rotate, spacing=spacing
            ),
        )

    def label_room(self) -> float:
        """Points left of the axes taken by its y tick labels and y label."""
        majors, _ = self.y.tick_marks()
        return label_room([s for _, s in majors] if self.y.labels else [], self.size, self.y.label)

    def fit_left(self, edge: float = 2.0) -> None:
        """Move the left edge (the right one stays) so the y labels start `edge` pt from the figure's left."""
        right = self.left + self.width
        self.left = edge + self.label_room()
        self.width = right - self.left

    def _frame(self) -> str:
        """Spines (left and bottom), ticks, tick labels, axis labels and the title."""
        s, out = self.size, []
        bottom, right = self.top + self.height, self.left + self.width
        out.append(f'<path d="M{_n(self.left)},{_n(self.top)}V{_n(bottom)}H{_n(right)}"{stroke(INK, 0.8)}/>')
        majors, minors = self.x.tick_marks()
        ticks = "".join(f"M{_n(self.px(v))},{_n(bottom)}v{TICK}" for v, _ in majors)
        ticks += "".join(f"M{_n(self.px(v))},{_n(bottom)}v{TICK * 0.6}" for v in minors)
        ymajors, yminors = self.y.tick_marks()
        ticks += "".join(f"M{_n(self.left)},{_n(self.py(v))}h{-TICK}" for v, _ in ymajors)
        ticks += "".join(f"M{_n(self.left)},{_n(self.py(v))}h{-TICK * 0.6}" for v in yminors)
        out.append(f'<path d="{ticks}"{stroke(INK, 0.8)}/>')
        if self.x.labels:
            out += [
                f'<g class="xtick">{text_svg(self.px(v), bottom + TICK + PAD, label, s, "middle", "top")}</g>'
                for v, label in majors
            ]
        if self.y.labels:
            out += [
                f'<g class="ytick">{text_svg(self.left - TICK - PAD, self.py(v), label, s, "end", "center")}</g>'
                for v, label in ymajors
            ]
        if self.x.label:
            depth = TICK + PAD + s * LINE + LABEL_PAD if self.x.labels else TICK + LABEL_PAD
            out.append(text_svg(self.left + self.width / 2, bottom + depth, self.x.label, s, "middle", "top"))
        if self.y.label:
            lines = self.y.label.count("\n")
            room = label_room([label for _, label in ymajors] if self.y.labels else [], s, "")
            x = self.left - room - LABEL_PAD - DESCENT * s - lines * s * LINE
            out.append(text_svg(x, self.top + self.height / 2, self.y.label, s, "middle", "baseline", rotate=90))
        if self.title:
            out.append(text_svg(self.left + self.width / 2, self.top - 5, self.title, s, "middle", "bottom"))
        return "".join(out)

    def svg(self) -> str:
        items = "".join(draw() for _, _, draw in sorted(self._items, key=lambda item: item[:2]))
        return self._frame() + items


# ---- legends ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Key:
    """One legend entry: a filled patch, a hatched one (`hatch` true), an outlined one (`hollow` true), a
    line, or a marker."""

    label: str
    color: str = INK
    kind: str = "patch"  # patch | line | marker
    hatch: bool = False
    hollow: bool = False
    dash: str = "-"
    shape: str = "o"


LEGEND_PITCH = 1.45  # legend row height, em
_HANDLE, _HANDLE_PAD, _COLUMN_GAP = 2.0, 0.7, 1.6  # em


def legend_shape(keys: Sequence[Key], ncols: int, size: float, room: float) -> tuple[int, list[float]]:
    """Rows and column widths (points) of a legend of at most `ncols` columns, filled top to
    bottom, with as many columns as fit in `room` points."""
    for n in range(max(ncols, 1), 0, -1):
        rows = math.ceil(len(keys) / n)
        columns = [keys[c * rows : (c + 1) * rows] for c in range(n)]
        widths = [
            (_HANDLE + _HANDLE_PAD) * size + max(text_width(k.label, size) for k in col) for col in columns if col
        ]
        if n == 1 or sum(widths) + _COLUMN_GAP * size * (len(widths) - 1) <= room:
            return rows, widths
    raise AssertionError("unreachable")


def legend_height(rows: int, size: float) -> float:
    """Points taken by a legend of `rows` rows."""
    return rows * size * LEGEND_PITCH


@dataclass(eq=False)
class Figure:
    """The canvas: `width` x `height` inches; `prefix` makes its ids unique on a page that shows
    several figures."""

    width: float
    height: float
    prefix: str
    size: float = 9.0
    axes: list[Axes] = field(default_factory=list)
    _extra: list[str] = field(default_factory=list)
    _defs: dict[str, tuple[str, str]] = field(default_factory=dict)  # colour -> (pattern id, <pattern>)
    _ids: int = 0

    @property
    def w(self) -> float:
        return self.width * PT

    @property
    def h(self) -> float:
        return self.height * PT

    def uid(self, kind: str) -> str:
        self._ids += 1
        return f"{self.prefix}-{kind}{self._ids - 1}"

    def add_axes(self, left: float, top: float, right: float, bottom: float) -> Axes:
        """An Axes inside margins given in inches (room for tick labels, axis labels, legends)."""
        ax = Axes(self, left * PT, top * PT, self.w - (left + right) * PT, self.h - (top + bottom) * PT, self.size)
        self.axes.append(ax)
        return ax

    def hatch(self, color: str) -> str:
        """The id of a pattern of diagonal lines in `color` (one per colour per figure)."""
        if color not in self._defs:
            pid = self.uid("hatch")
            self._defs[color] = (
                pid,
                f'<pattern id="{pid}" patternUnits="userSpaceOnUse" width="4" height="4">'
                f'<path d="M-1,1L1,-1M0,4L4,0M3,5L5,3"{stroke(color, 0.7)}/></pattern>',
            )
        return self._defs[color][0]

    def text(
        self, x: float, y: float, text: str, size: float | None = None, anchor: str = "start", va: str = "baseline"
    ) -> None:
        """Text at (x, y) points from the figure's top left."""
        self._extra.append(text_svg(x, y, text, size or self.size, anchor, va))

    def legend(self, keys: Sequence[Key], x: float, y: float, anchor: str, ncols: int, size: float) -> None:
        """A frameless legend; (x, y) in points is its `anchor` corner: "lower right", "upper left"
        or "upper center". Fewer columns than `ncols` where that many would not fit the figure."""
        rows, widths = legend_shape(keys, ncols, size, self.w - 4)
        total = sum(widths) + _COLUMN_GAP * size * (len(widths) - 1)
        height = legend_height(rows, size)
        x0 = {"lower right": x - total, "upper left": x, "upper center": x - total / 2}[anchor]
        x0 = max(2.0, min(x0, self.w - total - 2))
        y0 = y - height if anchor == "lower right" else y
        out, left = [], x0
        for c, width in enumerate(widths):
            for r, key in enumerate(keys[c * rows : (c + 1) * rows]):
                mid = y0 + (r + 0.5) * size * LEGEND_PITCH
                out.append(self._handle(key, left, mid, size))
                out.append(text_svg(left + (_HANDLE + _HANDLE_PAD) * size, mid, key.label, size, va="center"))
            left += width + _COLUMN_GAP * size
        self._extra.append("".join(out))

    def _handle(self, key: Key, x: float, mid: float, size: float) -> str:
        length = _HANDLE * size
        if key.kind == "line":
            return f'<path d="M{_n(x)},{_n(mid)}h{_n(length)}"{stroke(key.color, 0.9, key.dash)}/>'
        if key.kind == "marker":
            return marker_svg(x + length / 2, mid, key.shape, size * 0.85, f' fill="{key.color}"')
        fill = (
            f'fill="url(#{self.hatch(key.color)})" stroke="{key.color}" stroke-width="0.7"'
            if key.hatch
            else f'fill="none" stroke="{key.color}" stroke-width="1.1"'
            if key.hollow
            else f'fill="{key.color}"'
        )
        return f'<rect x="{_n(x)}" y="{_n(mid - size * 0.35)}" width="{_n(length)}" height="{_n(size * 0.7)}" {fill}/>'

    def svg(self) -> str:
        """The figure as inline SVG: a viewBox and no fixed size (the page scales it to its column)."""
        body = "".join(ax.svg() for ax in self.axes) + "".join(self._extra)
        defs = f"<defs>{''.join(pattern for _, pattern in self._defs.values())}</defs>" if self._defs else ""
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_n(self.w)} {_n(self.h)}" '
            f'font-family="{FONT}" fill="{INK}">{defs}{body}</svg>'
        )
