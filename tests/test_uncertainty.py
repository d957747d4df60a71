"""Intervals of timed quantities (attn_examples.snapshot.uncertainty): exact order statistics, no resampling."""

from __future__ import annotations

import math
import random
import statistics

import pytest

from attn_examples.snapshot import uncertainty
from attn_examples.snapshot.uncertainty import Interval


@pytest.mark.parametrize("n, k", [(5, None), (6, 1), (8, 1), (10, 2), (12, 3), (20, 6), (100, 40)])
def test_rank_is_the_largest_with_95_percent_coverage(n: int, k: int | None) -> None:
    assert uncertainty._rank(n) == k
    if k is not None:  # coverage of [x(k), x(n+1-k)] by the binomial, and one rank further falls short
        cover = lambda r: 1 - 2 * sum(math.comb(n, i) for i in range(r)) / 2**n  # noqa: E731
        assert cover(k) >= 0.95 > cover(k + 1)


def test_median_interval_reads_order_statistics() -> None:
    values = [float(v) for v in range(1, 13)]  # 12 values: k = 3
    random.Random(1).shuffle(values)
    assert uncertainty.median_interval(values) == (3.0, 10.0)
    assert uncertainty.median_interval(values[:5]) is None


def test_the_interval_covers_the_median_about_95_percent_of_the_time() -> None:
    rng = random.Random(7)  # lognormal samples around a true median of 1.0
    intervals = [uncertainty.median_interval([rng.lognormvariate(0, 0.3) for _ in range(12)]) for _ in range(2000)]
    hits = sum(low <= 1.0 <= high for low, high in intervals)
    assert 0.94 <= hits / 2000 <= 0.99


def test_paired_ratio_cancels_a_drift_that_unpaired_cannot() -> None:
    drift = [1.0 + 0.05 * i for i in range(12)]  # the clock slows down over the run
    a = [2.0 * d for d in drift]
    b = [1.0 * d for d in drift]
    paired = uncertainty.of_ratio(a, b, paired=True)
    unpaired = uncertainty.of_ratio(a, b, paired=False)
    assert paired == Interval(2.0, 2.0, 12, True)
    assert unpaired.low < 1.8 and unpaired.high > 2.2 and not unpaired.paired


@pytest.mark.parametrize(
    "interval, expected",
    [
        (Interval(1.6, 1.7, 12, True), "pass"),
        (Interval(1.2, 1.4, 12, True), "fail"),
        (Interval(1.4, 1.6, 12, True), "unsure"),
    ],
)
def test_decide_against_at_least_one_and_a_half(interval: Interval, expected: str) -> None:
    assert uncertainty.decide(interval, 1.5, math.inf) == expected


def test_map_swaps_the_ends_of_a_decreasing_function() -> None:
    assert Interval(2.0, 4.0, 12, False).map(lambda t: 8.0 / t) == Interval(2.0, 4.0, 12, False)
    assert Interval(1.0, 2.0, 12, False).map(lambda t: 10.0 / t) == Interval(5.0, 10.0, 12, False)


def test_a_paired_interval_is_seeded_and_centred_on_the_ratio_shown() -> None:
    rng = random.Random(3)
    a = [100 * rng.lognormvariate(0, 0.4) for _ in range(12)]
    b = [80 * rng.lognormvariate(0, 0.4) for _ in range(12)]
    plain = uncertainty.of_ratio(a, b, paired=True)
    assert plain == uncertainty.of_ratio(a, b, paired=True)  # the same blocks, the same interval
    shown = 1.1 * statistics.median(a) / statistics.median(b)  # the medians over every call differ a little
    centred = uncertainty.of_ratio(a, b, paired=True, shown=shown)
    assert centred.low == pytest.approx(plain.low * 1.1) and centred.high == pytest.approx(plain.high * 1.1)
    assert uncertainty.of_ratio(a[:5], b[:5], paired=True) is None
