"""Time, memory and accuracy of one forward, apart from the profiler (imports torch).

On CUDA each timed call is queued behind `torch.cuda._sleep`, so the GPU never waits for the
host: CUDA events then measure device time alone, and a host clock around the call measures
dispatch alone. On CPU the host is the device; `torch.utils.benchmark` times the call.
"""

from __future__ import annotations

import contextlib
import statistics
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import torch
import torch.utils.benchmark as benchmark

from attn_examples.snapshot.uncertainty import SETTLE_TOLERANCE


def stats(samples: list[float], blocks: list[float] | None = None) -> dict:
    """Median, interquartile range, extremes and count of the samples, and the blocks an interval is
    computed from (`attn_examples.snapshot.uncertainty`): the schema's Stats. Without `blocks`, every sample is
    its own block."""
    ordered = sorted(samples)
    if len(ordered) >= 2:
        q1, _, q3 = statistics.quantiles(ordered, n=4, method="inclusive")
    else:
        q1 = q3 = ordered[0]
    return {
        "median": statistics.median(ordered),
        "iqr": q3 - q1,
        "min": ordered[0],
        "max": ordered[-1],
        "n": len(ordered),
        "blocks": list(samples if blocks is None else blocks),
    }


def _sleep_cycles_per_us() -> float:
    """Calibrate torch.cuda._sleep (it spins for a number of GPU clock cycles)."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    cycles = 2_000_000
    torch.cuda._sleep(cycles)  # warm the clocks
    start.record()
    torch.cuda._sleep(cycles)
    end.record()
    torch.cuda.synchronize()
    return cycles / (start.elapsed_time(end) * 1000.0)


def _queue_cycles(
    forwards: dict[str, Callable[[], Any]],
    enter: dict[str, Callable[[], AbstractContextManager]],
    floor_us: float = 2000.0,
    probes: int = 3,
) -> int:
    """Cycles of `torch.cuda._sleep` to queue ahead of each timed call: four times the slowest host
    dispatch seen in `probes` probe calls per forward (at least `floor_us`), so the GPU never waits
    for the host."""
    host_probe = []
    for name, forward in forwards.items():
        with enter[name]():
            for _ in range(probes):
                torch.cuda.synchronize()
                t0 = time.perf_counter()
                forward()
                host_probe.append((time.perf_counter() - t0) * 1e6)
    torch.cuda.synchronize()
    return int(max(floor_us, 4.0 * max(host_probe)) * _sleep_cycles_per_us())


def _timed_call(forward: Callable[[], Any], cycles: int, start: Any, end: Any) -> tuple[float, float]:
    """One call queued behind a sleep: (host dispatch µs, device µs)."""
    torch.cuda._sleep(cycles)
    start.record()
    t0 = time.perf_counter()
    forward()
    t1 = time.perf_counter()
    end.record()
    torch.cuda.synchronize()
    return (t1 - t0) * 1e6, start.elapsed_time(end) * 1000.0


def time_cuda_until(
    forward: Callable[[], Any],
    tolerance: float = SETTLE_TOLERANCE,
    min_calls: int = 6,
    max_calls: int = 30,
    step: int = 6,
    floor_us: float = 1000.0,
) -> dict[str, dict]:
    """One forward's device and host time per call, timed `step` calls at a time until the 95%
    interval of the device median lies within ±`tolerance` of it, or `max_calls` were timed.

    A long, steady kernel (the naive forward at 8k tokens, tens of milliseconds) is settled after
    six calls; a short, noisy one gets up to `max_calls`. The forward has run before (warm); one
    probe call sizes the queued sleep. Every call is its own block, as in
    `time_cuda` with one forward: the interval a claim is judged with comes from these calls. Only
    device time is kept from these calls, so the sleep queued ahead of each needs less margin
    (`floor_us`) than `time_cuda`'s, whose host times are published too."""
    from attn_examples.snapshot.uncertainty import median_interval

    cycles = _queue_cycles({"f": forward}, {"f": contextlib.nullcontext}, floor_us, probes=1)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    host: list[float] = []
    device: list[float] = []
    while len(device) < max_calls:
        for _ in range(min(step, max_calls - len(device))):
            h, d = _timed_call(forward, cycles, start, end)
            host.append(h)
            device.append(d)
        if len(device) < min_calls:
            continue
        interval = median_interval(device)
        median = statistics.median(device)
        if interval is not None and max(median - interval[0], interval[1] - median) <= tolerance * median:
            break
    return {"device_us": stats(device), "host_us": stats(host)}


def time_cuda(
    forwards: dict[str, Callable[[], Any]],
    repeats: int,
    pins: dict[str, Callable[[], AbstractContextManager]] | None = None,
    block: int = 10,
) -> dict[str, dict[str, dict]]:
    """Device and host (dispatch) time per call, in microseconds, for several forwards.

    The forwards take turns in blocks of `block` calls, so a drift in clocks or host load touches
    every variant alike. `pins[id]()` (the SDPA backend selection) is entered once per block: the
    first call of a block, right after the switch, is kept apart as `host_first_us`; the others
    give the steady-state `device_us` and `host_us`. Each block's median is kept in time order
    (`blocks`): block i of one forward ran moments before block i of the next, so their ratio is a
    paired sample of the ratio, which is what a claim's interval is computed from. With one forward
    there is nothing to pair, and every call is its own block.
    """
    if not forwards:
        return {}
    block = max(block, 2)
    pins = pins or {}
    enter = {name: pins.get(name, contextlib.nullcontext) for name in forwards}
    cycles = _queue_cycles(forwards, enter)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    samples: dict[str, dict[str, list[float]]] = {
        name: {"device_us": [], "host_us": [], "host_first_us": []} for name in forwards
    }
    blocks: dict[str, dict[str, list[float]]] = {name: {"device_us": [], "host_us": []} for name in forwards}
    rounds = max(1, -(-repeats // (block - 1)))
    for _ in range(rounds):
        for name, forward in forwards.items():
            with enter[name]():
                for index in range(block):
                    host, device = _timed_call(forward, cycles, start, end)
                    if index == 0:
                        samples[name]["host_first_us"].append(host)
                    else:
                        samples[name]["host_us"].append(host)
                        samples[name]["device_us"].append(device)
            for key in ("device_us", "host_us"):
                blocks[name][key].append(statistics.median(samples[name][key][-(block - 1) :]))
    if len(forwards) == 1:
        return {name: {key: stats(values) for key, values in by_kind.items()} for name, by_kind in samples.items()}
    return {
        name: {key: stats(values, blocks[name].get(key)) for key, values in by_kind.items()}
        for name, by_kind in samples.items()
    }


MIN_CPU_BLOCKS = 10  # the fewest blocks whose median has a 95% interval inside the extremes (uncertainty)


def time_cpu(forward: Callable[[], Any], min_run_time_s: float = 1.0, min_blocks: int = MIN_CPU_BLOCKS) -> dict:
    """Wall time per call on the CPU, from torch.utils.benchmark's blocked autorange, topped up to
    `min_blocks` blocks of the same size: a call slow enough to fill the budget in two blocks
    would otherwise leave nothing to compute an interval from."""
    timer = benchmark.Timer(stmt="forward()", globals={"forward": forward}, num_threads=torch.get_num_threads())
    measurement = timer.blocked_autorange(min_run_time=min_run_time_s)
    times = list(measurement.times)  # each is one block's mean per call
    while len(times) < min_blocks:
        times += timer.timeit(measurement.number_per_run).times
    return stats([t * 1e6 for t in times])


def peak_memory_cuda(forward: Callable[[], Any]) -> int:
    """Bytes the allocator held at its peak during one call, beyond what was held before it
    (the output included)."""
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    before = torch.cuda.memory_allocated()
    out = forward()
    torch.cuda.synchronize()
    peak = torch.cuda.max_memory_allocated() - before
    del out
    return int(peak)


def relative_error(out: torch.Tensor, reference: torch.Tensor) -> float:
    """‖out − ref‖ / ‖ref‖ against a float64 reference."""
    out64 = out.to(torch.float64)
    return float(torch.linalg.vector_norm(out64 - reference) / torch.linalg.vector_norm(reference))
