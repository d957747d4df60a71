"""How sure a timed comparison is: intervals from the blocks a timing keeps (no torch).

A timing keeps its blocks in time order (`Stats.blocks`). On CUDA the variants take turns, block by
block, so block i of one variant ran moments before block i of the next: the ratio of the two
blocks is one paired sample of the ratio, and clock or load drift cancels in it. On the CPU, and
between points of the sweep, nothing is paired, and the interval of a ratio is taken from the two
medians' intervals (wider, never narrower than the truth warrants).

The interval of a median is distribution-free: the order statistics x(k) and x(n+1-k), with k the
largest rank whose binomial tail leaves at least `CONFIDENCE` between them. No resampling, so the
same blocks always give the same interval. Fewer than six blocks give no 95% interval at all, and a
claim on them cannot be decided with confidence.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

CONFIDENCE = 0.95


@dataclass(frozen=True)
class Interval:
    """A `CONFIDENCE` interval of a timed quantity, and how it was obtained."""

    low: float
    high: float
    n: int            # blocks (or paired blocks) it rests on
    paired: bool      # from paired block ratios (interleaved timing), not from two separate medians

    def map(self, fn) -> "Interval":
        """The interval of fn(x) for a monotonic fn (decreasing ones swap the ends)."""
        a, b = fn(self.low), fn(self.high)
        return Interval(min(a, b), max(a, b), self.n, self.paired)

    def contains(self, value: float) -> bool:
        return self.low <= value <= self.high


def _rank(n: int, confidence: float = CONFIDENCE) -> int | None:
    """The largest k with P(k <= rank of the median <= n+1-k) >= confidence, or None when n is too small."""
    best = None
    tail = 0.0
    for k in range(1, n // 2 + 1):
        tail += math.comb(n, k - 1) / 2**n          # P(Binomial(n, 1/2) <= k - 1)
        if 1 - 2 * tail >= confidence:
            best = k
        else:
            break
    return best


def median_interval(values: Sequence[float], confidence: float = CONFIDENCE) -> tuple[float, float] | None:
    """A distribution-free interval of the median of `values`, or None when there are too few."""
    ordered = sorted(values)
    k = _rank(len(ordered), confidence)
    if k is None:
        return None
    return ordered[k - 1], ordered[len(ordered) - k]


def of_median(blocks: Sequence[float]) -> Interval | None:
    bounds = median_interval(blocks)
    return None if bounds is None else Interval(bounds[0], bounds[1], len(blocks), False)


def of_ratio(a: Sequence[float], b: Sequence[float], paired: bool) -> Interval | None:
    """The interval of a / b. Paired: the median of the block-by-block ratios. Unpaired: the
    quotient of the two medians' intervals (lowest over highest, highest over lowest)."""
    if paired and len(a) == len(b):
        bounds = median_interval([x / y for x, y in zip(a, b)])
        return None if bounds is None else Interval(bounds[0], bounds[1], len(a), True)
    ia, ib = median_interval(a), median_interval(b)
    if ia is None or ib is None:
        return None
    return Interval(ia[0] / ib[1], ia[1] / ib[0], min(len(a), len(b)), False)


def decide(interval: Interval, low: float, high: float) -> str:
    """'pass' when the whole interval lies in [low, high], 'fail' when none of it does, else 'unsure'."""
    if low <= interval.low and interval.high <= high:
        return "pass"
    if interval.high < low or interval.low > high:
        return "fail"
    return "unsure"
