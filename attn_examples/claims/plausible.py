"""What a timed metric could be, given its blocks: an interval or a set of rankings (no torch).

`attn_examples.render.metrics` gives one value per key, the medians' value. For the keys that rest on
timings this module says how far that value can be trusted, in one of two forms:

- an `Interval` (`uncertainty.CONFIDENCE`) around the value the pages show, for a number: a variant's time (`sdpa_flash.device_us`),
  a ratio of two (`ratio.a.b.device_us`, `host_us`, `host_first_us`), a sweep point's TFLOP/s share
  and ratios of them, a training step over its forward;
- a frozenset of the values a ranking could take: `fastest.device_us` is every variant not
  confidently slower than the measured fastest (each compared with it by its ratio's interval);
  `dispatch.auto_is_fastest`, `training.fastest` and `training.fastest_as_forward` follow from those.

Every other key is exact (counts, names, bytes, structure): `plausible` returns None for it, and a
claim on it is decided on its value alone.
"""

from __future__ import annotations

from typing import Any

from attn_examples.render import metrics, regime, views
from attn_examples.snapshot import uncertainty
from attn_examples.snapshot.schema import Snapshot, SweepPoint, Training, recorded
from attn_examples.snapshot.uncertainty import Interval

TIMED = ("device_us", "host_us", "host_first_us", "stream_us")
REGIME = ("us_per_activity", "busy_share")  # read against the device time: its interval
# one variant's timings over each other, block by block (the same rounds: paired on CUDA)
WITHIN = {
    "host_per_device": ("host_us", "device_us"),
    "host_first_per_device": ("host_first_us", "device_us"),
    "host_first_per_repeat": ("host_first_us", "host_us"),
}

Plausible = Interval | frozenset | None


def _blocks(snap: Snapshot, variant_id: str, field: str) -> list[float]:
    result = snap.variants.get(variant_id)
    if field == "stream_us" and result is not None:
        blocks = views.stream_blocks(result)
        if not blocks:
            raise metrics.UnknownMetric(f"{variant_id} has no stream_us timing in this measurement")
        return blocks
    stats = getattr(result.timing, field, None) if result is not None and result.timing else None
    if stats is None:
        raise metrics.UnknownMetric(f"{variant_id} has no {field} timing in this measurement")
    return stats.blocks


def _paired(snap: Snapshot) -> bool:
    """On CUDA the variants take turns block by block (timing.time_cuda), so block i of every timing
    of every variant comes from the same round; on the CPU they run one after another."""
    return snap.provenance.device_kind == "cuda"


def _shown(snap: Snapshot, a: str, fa: str, b: str, fb: str) -> float:
    """The ratio the pages show: of the two medians over every call."""
    return metrics.variant_metric(snap, a, fa) / metrics.variant_metric(snap, b, fb)


def ratio(snap: Snapshot, a: str, b: str, field: str) -> Interval | None:
    return uncertainty.of_ratio(
        _blocks(snap, a, field), _blocks(snap, b, field), _paired(snap), _shown(snap, a, field, b, field)
    )


def _contenders(snap: Snapshot, field: str, pick: str) -> frozenset:
    """The variants not confidently beaten: for `fastest`, every one whose time over the measured
    fastest's has an interval reaching down to 1 (for `slowest`, up to 1)."""
    best = metrics.metric(snap, f"{pick}.{field}")
    out = {best}
    for variant_id, result in snap.variants.items():
        if variant_id == best or not result.available or result.timing is None:
            continue
        if field != "stream_us" and getattr(result.timing, field, None) is None:
            continue
        interval = ratio(snap, variant_id, best, field)
        if interval is None or (interval.low <= 1.0 if pick == "fastest" else interval.high >= 1.0):
            out.add(variant_id)
    return frozenset(out)


def _sweep_point(snap: Snapshot, variant_id: str, seq: str, head_dim: str) -> SweepPoint | None:
    for point in snap.sweep.points if snap.sweep else ():
        if point.variant == variant_id and str(point.seq_len) == seq and str(point.head_dim) == head_dim:
            return point if point.available and point.device_us_blocks else None
    return None


def _where(p: SweepPoint) -> str:
    return f"sweep.points[{p.variant}, {p.seq_len}, {p.head_dim}]"


def _tflops(p: SweepPoint) -> float:
    return recorded(p.tflops, f"{_where(p)}.tflops")


def _device_us(p: SweepPoint) -> float:
    return recorded(p.device_us, f"{_where(p)}.device_us")


def _device_us_blocks(p: SweepPoint) -> list[float]:
    return recorded(p.device_us_blocks, f"{_where(p)}.device_us_blocks")


def _sweep(snap: Snapshot, parts: list[str]) -> Plausible:
    """sweep.<v>.<seq>.<d>.tflops_fraction, sweep.ratio.<v>.<seq>.<d>.<seq>.<d>.tflops_fraction and
    sweep.<v>.best_tflops_fraction: the ceiling they are shares of is taken as exact."""
    sweep = snap.sweep
    if sweep is None or (parts[-1] != "tflops_fraction" and parts[-1] != "best_tflops_fraction"):
        return None  # without a sweep no point is found: None below as well
    if len(parts) == 7 and parts[0] == "ratio":
        a, b = _sweep_point(snap, *parts[1:4]), _sweep_point(snap, parts[1], *parts[4:6])
        if a is None or b is None:
            return None
        # the shapes' work, in the same units
        flops = (_tflops(a) * _device_us(a)) / (_tflops(b) * _device_us(b))
        # a's TFLOP/s over b's = (work_a / t_a) / (work_b / t_b) = work ratio x t_b / t_a
        interval = uncertainty.of_ratio(_device_us_blocks(b), _device_us_blocks(a), False)
        return None if interval is None else interval.map(lambda r: flops * r)
    if len(parts) == 4:
        point = _sweep_point(snap, *parts[:3])
        if point is None:
            return None
        interval = uncertainty.of_median(_device_us_blocks(point))
        work = _tflops(point) * _device_us(point) / sweep.matmul_peak_tflops
        return None if interval is None else interval.map(lambda t: work / t)
    if len(parts) == 2:  # the best point's share: the interval of the largest share
        shares: list[Interval] = []
        for point in sweep.points:
            if point.variant == parts[0] and point.available and point.device_us_blocks:
                share = _sweep(snap, [parts[0], str(point.seq_len), str(point.head_dim), "tflops_fraction"])
                if not isinstance(share, Interval):  # None: that point has no interval, so neither has the best
                    return None
                shares.append(share)
        if not shares:
            return None
        return Interval(max(s.low for s in shares), max(s.high for s in shares), min(s.n for s in shares), False)
    return None


def _training_contenders(snap: Snapshot, training: Training) -> frozenset:
    """`training` is snap.training, known to be there."""
    blocks = {p.variant: b for p in training.points if p.available and (b := p.device_us_blocks)}
    best = metrics.metric(snap, "training.fastest")
    out = {best}
    for variant_id, point_blocks in blocks.items():
        if variant_id != best:
            interval = uncertainty.of_ratio(point_blocks, blocks[best], False)
            if interval is None or interval.low <= 1.0:
                out.add(variant_id)
    return frozenset(out)


def _training(snap: Snapshot, parts: list[str]) -> Plausible:
    training = snap.training
    if training is None:
        return None
    if parts == ["fastest"]:
        return _training_contenders(snap, training)
    if parts == ["fastest_as_forward"]:
        forward = _contenders(snap, "device_us", "fastest")
        return frozenset(t == f for t in _training_contenders(snap, training) for f in forward)
    if len(parts) == 2 and parts[1] == "step_per_forward":
        point = next((p for p in training.points if p.variant == parts[0] and p.available), None)
        if point is None or not point.device_us_blocks:
            return None
        return uncertainty.of_ratio(point.device_us_blocks, _blocks(snap, parts[0], "device_us"), False)
    return None


def _regime(snap: Snapshot, variant_id: str, field: str) -> Plausible:
    """A variant's device time per GPU activity and its activities' share of that time: intervals from
    its device time's (the regime itself rests on the trace alone: exact)."""
    if variant_id not in snap.variants or regime.classify(snap, variant_id) is None:
        return None
    interval = uncertainty.of_median(_blocks(snap, variant_id, "device_us"))
    if interval is None:
        return None
    rows = views.kernel_rows(snap.variants[variant_id])
    n, busy = len(rows), sum(r["dur_us"] for r in rows)
    return interval.map(lambda t: t / n) if field == "us_per_activity" else interval.map(lambda t: busy / t)


def _regime_kinds(snap: Snapshot, variant_id: str) -> frozenset | None:
    """The regimes a variant's host-over-device interval allows (launch-bound is decided on it)."""
    if regime.classify(snap, variant_id) is None:
        return None
    interval = plausible(snap, f"{variant_id}.host_per_device")
    if not isinstance(interval, Interval):
        return frozenset({regime.classify(snap, variant_id).kind})  # type: ignore[union-attr]
    ends = [regime.classify(snap, variant_id, x) for x in (interval.low, interval.high)]
    return frozenset(r.kind for r in ends if r is not None)


def _regimes(snap: Snapshot, key: str) -> Plausible:
    """regime.variants[<kind>] (the counts the intervals allow), regime.share[<kind>] (the same over the
    variants with a regime) and regime.all[<kind>]."""
    head, _, kind = key.partition("[")
    kind = kind.rstrip("]")
    sets = [k for v in snap.variants if (k := _regime_kinds(snap, v)) is not None]
    if not sets:
        return None
    surely = sum(1 for k in sets if k == {kind})
    maybe = sum(1 for k in sets if kind in k)
    if head == "regime.variants":
        return frozenset(range(surely, maybe + 1))
    if head == "regime.share":
        return frozenset(n / len(sets) for n in range(surely, maybe + 1))
    return frozenset({surely == len(sets), maybe == len(sets)})


def _route(key: str) -> str | None:
    """Which kind of timed key this is, read off its shape alone; None for an exact key. The one
    place that says which keys rest on timings: `plausible` answers them, `is_timed` names them."""
    if key.startswith(("regime.variants[", "regime.all[", "regime.share[")):
        return "regimes"
    if "[" in key:
        return None
    parts = key.split("[")[0].split(".")
    if parts[0] == "ratio" and len(parts) == 4 and parts[3] in TIMED:
        return "ratio"
    if parts[0] in ("fastest", "slowest") and len(parts) == 2 and parts[1] in TIMED:
        return "ranking"
    if key == "dispatch.auto_is_fastest":
        return "auto"
    if key == "fastest.stream_as_device":
        return "stream_as_device"
    if parts[0] == "sweep" and parts[-1] in ("tflops_fraction", "best_tflops_fraction"):
        return "sweep"
    if parts[0] == "training" and (
        parts[1:] in (["fastest"], ["fastest_as_forward"]) or parts[-1] == "step_per_forward"
    ):
        return "training"
    if len(parts) == 2 and parts[1] == "regime":
        return "kinds"
    if len(parts) == 2 and parts[1] in REGIME:
        return "regime"
    if len(parts) == 2 and parts[1] in TIMED:
        return "time"
    if len(parts) == 2 and parts[1] in WITHIN:
        return "within"
    return None


def plausible(snap: Snapshot, key: str) -> Plausible:
    """The interval or set of values `key` could take at `uncertainty.CONFIDENCE`; None for an exact key.
    Raises metrics.UnknownMetric where the metric itself would."""
    route, parts = _route(key), key.split(".")
    if parts[0] == "winner" and route in ("time", "within", "regime"):  # the fastest variant's own timings
        parts[0] = metrics.metric(snap, "fastest.device_us")
    if route == "ratio":
        a, b = (metrics.metric(snap, "fastest.device_us") if x == "winner" else x for x in parts[1:3])
        return ratio(snap, a, b, parts[3])
    if route == "ranking":
        return _contenders(snap, parts[1], parts[0])
    if route == "stream_as_device":
        device, stream = _contenders(snap, "device_us", "fastest"), _contenders(snap, "stream_us", "fastest")
        return frozenset(a == b for a in device for b in stream)
    if route == "auto":
        auto = metrics.metric(snap, "dispatch.auto_variant")
        return frozenset(auto == v for v in _contenders(snap, "device_us", "fastest"))
    if route == "sweep":
        return _sweep(snap, parts[1:])
    if route == "training":
        return _training(snap, parts[1:])
    if route == "regime":
        return _regime(snap, parts[0], parts[1])
    if route == "regimes":
        return _regimes(snap, key)
    if route == "kinds":
        return _regime_kinds(snap, parts[0]) if parts[0] in snap.variants else None
    if route == "time" and parts[0] in snap.variants:
        return uncertainty.of_median(_blocks(snap, parts[0], parts[1]))
    if route == "within" and parts[0] in snap.variants:
        top, bottom = WITHIN[parts[1]]
        return uncertainty.of_ratio(
            _blocks(snap, parts[0], top),
            _blocks(snap, parts[0], bottom),
            _paired(snap),
            _shown(snap, parts[0], top, parts[0], bottom),
        )
    return None


def is_timed(key: str) -> bool:
    """Whether a claim on `key` is decided from an interval, known without a measurement: a page
    that branches on such a claim must say what it says when unsure."""
    return _route(key) is not None


def describe(value: Any) -> str:
    """An interval or set in a line of the `check` table."""
    if isinstance(value, Interval):
        return f"{value.low:.4g}–{value.high:.4g}"
    if isinstance(value, frozenset):
        return "{" + ", ".join(sorted(map(str, value))) + "}"
    return ""
