"""How sure a timed comparison is: intervals from the blocks a timing keeps (no torch).

A timing keeps its blocks in time order (`Stats.blocks`). On CUDA the variants take turns, block by
block, so block i of one variant ran moments before block i of the next: the rounds pair them, and
the interval of a ratio resamples whole rounds (a seeded percentile bootstrap), keeping what two
variants share within a round. On the CPU, and between points of the sweep, nothing is paired, and
the interval of a ratio is the quotient of the two medians' intervals (wider, never narrower than
the data warrant).

The interval of a median is distribution-free: the order statistics x(k) and x(n+1-k), with k the
largest rank whose binomial tail leaves at least `CONFIDENCE` between them. Fewer than six blocks
give no 95% interval at all, and a claim on them cannot be decided with confidence. Every interval
is a function of the blocks alone: the same measurement always gives the same verdicts.
"""

from __future__ import annotations

import functools
import math
import random
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

CONFIDENCE = 0.95


@dataclass(frozen=True)
class Interval:
    """A `CONFIDENCE` interval of a timed quantity, and how it was obtained."""

    low: float
    high: float
    n: int  # blocks (or paired blocks) it rests on
    paired: bool  # from paired block ratios (interleaved timing), not from two separate medians

    def map(self, fn) -> Interval:
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
        tail += math.comb(n, k - 1) / 2**n  # P(Binomial(n, 1/2) <= k - 1)
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


BOOTSTRAP_RESAMPLES = 4000
SETTLE_TOLERANCE = 0.01  # a sweep point or training step is timed until its median's interval is within ±this
DRIFT_TOLERANCE = (
    0.10  # a live measurement's device-time shares may move this far from the baseline's (claims.check.drift)
)
BOOTSTRAP_SEED = 0


def of_ratio(a: Sequence[float], b: Sequence[float], paired: bool, shown: float | None = None) -> Interval | None:
    """The interval of the ratio of a's median to b's.

    Paired (block i of a and of b from the same round): a percentile bootstrap that resamples whole
    rounds, so what two variants share within a round (the clocks, the host's state) stays shared;
    seeded, so one measurement always gives one interval. A block is a median of calls, and the ratio
    the pages show (`shown`) is that of the medians of every call, which can sit apart from the
    ratio of the block medians when host times jump between rounds: the bootstrap gives the
    interval's relative spread, centred on the ratio shown. Unpaired: the quotient of the two
    medians' order-statistic intervals (lowest over highest, highest over lowest)."""
    if paired and len(a) == len(b):
        n = len(a)
        if _rank(n) is None:  # as few rounds as give no interval of a median give none here
            return None
        low, high = _bootstrap(tuple(a), tuple(b))
        if shown is not None:
            centre = statistics.median(a) / statistics.median(b)
            low, high = low * shown / centre, high * shown / centre
        return Interval(low, high, n, True)
    ia, ib = median_interval(a), median_interval(b)
    if ia is None or ib is None:
        return None
    return Interval(ia[0] / ib[1], ia[1] / ib[0], min(len(a), len(b)), False)


@functools.lru_cache(maxsize=8)
def _resamples(n: int) -> np.ndarray:
    """The rounds each resample of `n` picks, as [resample, pick] indices: the seed is fixed, so they
    depend on `n` alone, and every pair of timings with as many rounds shares them (the same draws
    as when each pair drew its own from the seed)."""
    rng = random.Random(BOOTSTRAP_SEED)
    return np.array([[rng.randrange(n) for _ in range(n)] for _ in range(BOOTSTRAP_RESAMPLES)], dtype=np.intp)


@functools.lru_cache(maxsize=1024)
def _bootstrap(a: tuple[float, ...], b: tuple[float, ...]) -> tuple[float, float]:
    """The percentile bootstrap's ends for the ratio of a's median to b's, resampling rounds.

    Once per pair of timings (the claims ask for the same ratio several times), over resamples shared
    by every pair with as many rounds; numpy's medians are statistics.median's to the last bit (the
    mean of the two middle values), so the interval is the plain loop's, at a tenth of its cost."""
    picks = _resamples(len(a))
    ratios = np.sort(
        np.median(np.asarray(a, dtype=float)[picks], axis=1) / np.median(np.asarray(b, dtype=float)[picks], axis=1)
    )
    tail = (1 - CONFIDENCE) / 2
    return float(ratios[int(tail * BOOTSTRAP_RESAMPLES)]), float(ratios[int((1 - tail) * BOOTSTRAP_RESAMPLES) - 1])


def decide(interval: Interval, low: float, high: float) -> str:
    """'pass' when the whole interval lies in [low, high], 'fail' when none of it does, else 'unsure'."""
    if low <= interval.low and interval.high <= high:
        return "pass"
    if interval.high < low or interval.low > high:
        return "fail"
    return "unsure"
