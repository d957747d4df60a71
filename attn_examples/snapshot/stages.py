"""Where a measurement's wall time goes, stage by stage (no torch).

The measuring code wraps its parts in `stage("sweep.timing")`; the totals add up over a process, so
`benchmarks/live_build.py` and a live build's last line can say what the minute was spent on.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator

_totals: dict[str, float] = {}


@contextlib.contextmanager
def stage(name: str) -> Iterator[None]:
    """Add the block's wall time to the stage `name` (nested stages count in both)."""
    started = time.perf_counter()
    try:
        yield
    finally:
        _totals[name] = _totals.get(name, 0.0) + time.perf_counter() - started


def totals() -> dict[str, float]:
    """Seconds per stage so far (a stage appears when it first finishes)."""
    return dict(_totals)


def reset() -> None:
    _totals.clear()


def summary(limit: int = 6, exclude: tuple[str, ...] = ("live",)) -> str:
    """The top-level stages (no dot in the name; not the enclosing `exclude`), longest first: one line
    for a log."""
    top = sorted(((s, n) for n, s in _totals.items() if "." not in n and n not in exclude), reverse=True)[:limit]
    return ", ".join(f"{name} {seconds:.1f} s" for seconds, name in top)
