"""Read a Kineto (Chrome-format) trace into per-step facts (pure JSON; no torch import).

torch.profiler exports one trace per profile. Its active steps appear as `ProfilerStep#N`
annotations on the host thread; every GPU activity is tied to the runtime or driver call that
launched it by the `correlation` argument, and is attributed to the step that launched it.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any, TypedDict

GPU_CATEGORIES = {"kernel": "kernel", "gpu_memcpy": "memcpy", "gpu_memset": "memset"}
LAUNCH_CATEGORIES = ("cuda_runtime", "cuda_driver")
_STEP = re.compile(r"^ProfilerStep#(\d+)$")


class TraceError(ValueError):
    """The trace does not have the shape torch.profiler writes."""


@dataclass
class Span:
    """A complete ("X") event: a host op, an annotation or a profiler step."""

    name: str
    ts: float
    dur: float
    tid: Any

    @property
    def end(self) -> float:
        return self.ts + self.dur


def _num(args: dict, *keys: str) -> float | None:
    """First numeric value among `keys` (Kineto renamed some fields between releases)."""
    for key in keys:
        value = args.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return value
    return None


def _triple(value: Any) -> list[int] | None:
    if isinstance(value, list) and len(value) == 3 and all(isinstance(x, int) for x in value):
        return value
    return None


def gpu_activity(event: dict, launch_api: str | None) -> dict:
    """One kernel, memcpy or memset as the snapshot records it, read off its trace event."""
    args = event.get("args", {})
    kind = GPU_CATEGORIES[event["cat"]]
    shared = _num(args, "shared memory")
    return {
        "name": event["name"],
        "kind": kind,
        "dur_us": float(event.get("dur", 0.0)),
        "grid": _triple(args.get("grid")),
        "block": _triple(args.get("block")),
        "registers_per_thread": None if kind != "kernel" else _int_or_none(_num(args, "registers per thread")),
        "shared_memory_bytes": None if kind != "kernel" else _int_or_none(shared),
        "est_occupancy_pct": None if kind != "kernel" else _num(args, "est. achieved occupancy %"),
        "launch_api": launch_api,
        "bytes": _int_or_none(_num(args, "bytes")) if kind != "kernel" else None,
        "stream": _int_or_none(_num(args, "stream")),
    }


def _int_or_none(value: float | None) -> int | None:
    return None if value is None else int(value)


def parents(spans: list[Span]) -> list[int | None]:
    """The span directly enclosing each span on its thread (an index into `spans`; None at the top):
    a stack walk in start order, the longer of two spans that start together enclosing the other."""
    parent: list[int | None] = [None] * len(spans)
    by_thread: dict[Any, list[int]] = defaultdict(list)
    for i, span in enumerate(spans):
        by_thread[span.tid].append(i)
    for indices in by_thread.values():
        indices.sort(key=lambda i: (spans[i].ts, -spans[i].dur))
        stack: list[int] = []
        for i in indices:
            while stack and spans[stack[-1]].end <= spans[i].ts:
                stack.pop()
            parent[i] = stack[-1] if stack else None
            stack.append(i)
    return parent


def _self_times(ops: list[Span]) -> dict[int, float]:
    """Exclusive time of each op (index into `ops`): its duration minus its direct children's."""
    self_us = {i: op.dur for i, op in enumerate(ops)}
    for i, parent in enumerate(parents(ops)):
        if parent is not None:
            self_us[parent] -= ops[i].dur
    return self_us


def complete_events(trace: dict) -> list[dict]:
    """The trace's complete ("X") events that carry a timestamp."""
    events = trace.get("traceEvents")
    if not isinstance(events, list):
        raise TraceError("trace has no 'traceEvents' list")
    return [e for e in events if isinstance(e, dict) and e.get("ph") == "X" and isinstance(e.get("ts"), (int, float))]


def profiler_steps(complete: list[dict]) -> list[tuple[int, Span]]:
    """The `ProfilerStep#N` annotations on the host thread, in time order: (N, span)."""
    steps: list[tuple[int, Span]] = []
    for e in complete:
        m = _STEP.match(str(e.get("name", "")))
        if m and e.get("cat") in ("user_annotation", "cpu_op"):
            steps.append((int(m.group(1)), Span(e["name"], e["ts"], _dur(e), e.get("tid"))))
    if not steps:
        raise TraceError("trace has no ProfilerStep#N annotations: was the profile run with a schedule?")
    return sorted(steps, key=lambda s: s[1].ts)


def _dur(event: dict) -> float:
    dur = event.get("dur", 0.0)
    return float(dur) if isinstance(dur, (int, float)) and not isinstance(dur, bool) else 0.0


class StepFacts(TypedDict):
    """One active step as parse_trace gives it (the JSON shape of snapshot.Step)."""

    step: int
    gpu: list[dict[str, Any]]
    cpu_ops: list[dict[str, Any]]
    launches: list[dict[str, Any]]
    transposes: int
    host_span_us: float | None
    gpu_span_us: float | None


def parse_trace(trace: dict, label: str) -> dict:
    """Facts per active profiler step, in step order: {"steps": [...], "unattributed_gpu": n}.

    `label` is the record_function name around the forward; its host and GPU spans are kept.
    """
    complete = complete_events(trace)
    steps = profiler_steps(complete)

    def step_of(ts: float) -> int | None:
        for index, (_, span) in enumerate(steps):
            if span.ts <= ts <= span.end:
                return index
        return None

    launches: dict[int, dict] = {}
    for e in complete:
        if e.get("cat") in LAUNCH_CATEGORIES:
            corr = e.get("args", {}).get("correlation")
            if isinstance(corr, int):
                launches[corr] = e

    out: list[StepFacts] = [
        {
            "step": number,
            "gpu": [],
            "cpu_ops": [],
            "launches": [],
            "transposes": 0,
            "host_span_us": None,
            "gpu_span_us": None,
        }
        for number, _ in steps
    ]

    # The host runs ahead of the GPU: work launched in the warm-up step can still execute inside an
    # active step's window. Only the launch time says which forward an activity belongs to; an
    # activity whose launch is not in the trace was launched before profiling began and is counted
    # apart, never attributed by its GPU timestamp.
    unattributed = 0
    gpu_events = sorted((e for e in complete if e.get("cat") in GPU_CATEGORIES), key=lambda e: e["ts"])
    for e in gpu_events:
        launch = launches.get(e.get("args", {}).get("correlation"))
        index = step_of(launch["ts"]) if launch else None
        if launch is None or index is None:
            unattributed += 1
            continue
        out[index]["gpu"].append(gpu_activity(e, launch["name"]))

    cpu_ops = [e for e in complete if e.get("cat") == "cpu_op"]
    spans = [Span(e["name"], e["ts"], e.get("dur", 0.0), e.get("tid")) for e in cpu_ops]
    self_us = _self_times(spans)
    per_step_ops: list[dict[str, list[float]]] = [defaultdict(lambda: [0, 0.0, 0.0]) for _ in steps]
    for i, span in enumerate(spans):
        index = step_of(span.ts)
        if index is None or _STEP.match(span.name):
            continue
        entry = per_step_ops[index][span.name]
        entry[0] += 1
        entry[1] += span.dur
        entry[2] += self_us[i]
    for index, ops in enumerate(per_step_ops):
        out[index]["cpu_ops"] = [
            {"name": name, "count": int(c), "total_us": round(t, 3), "self_us": round(max(s, 0.0), 3)}
            for name, (c, t, s) in sorted(ops.items(), key=lambda item: -item[1][1])
        ]
        out[index]["transposes"] = int(ops["aten::transpose"][0]) if "aten::transpose" in ops else 0

    launch_counts: list[Counter] = [Counter() for _ in steps]
    for e in launches.values():
        index = step_of(e["ts"])
        if index is not None:
            launch_counts[index][e["name"]] += 1
    for index, counts in enumerate(launch_counts):
        out[index]["launches"] = [{"name": n, "count": c} for n, c in sorted(counts.items())]

    host_spans = [e for e in complete if e.get("name") == label and e.get("cat") == "user_annotation"]
    for e in host_spans:
        index = step_of(e["ts"])
        if index is not None:
            out[index]["host_span_us"] = float(e.get("dur", 0.0))
    # GPU-side copies of the annotation carry no correlation: pair them with steps in time order.
    gpu_spans = sorted(
        (e for e in complete if e.get("name") == label and e.get("cat") == "gpu_user_annotation"), key=lambda e: e["ts"]
    )
    if len(gpu_spans) == len(out):
        for step, e in zip(out, gpu_spans):
            step["gpu_span_us"] = float(e.get("dur", 0.0))
    return {"steps": out, "unattributed_gpu": unattributed}


def kernel_signature(step: dict) -> list[tuple[str, str]]:
    """What must match across steps: the sequence of (kind, name) of GPU activities."""
    return [(a["kind"], a["name"]) for a in step["gpu"]]


def consistency(steps: list[dict]) -> str | None:
    """None when every active step launched the same GPU activities; otherwise what differs."""
    if not steps:
        return "no active steps"
    first = kernel_signature(steps[0])
    for step in steps[1:]:
        other = kernel_signature(step)
        if other != first:
            return (
                f"step {steps[0]['step']} has {len(first)} GPU activities, "
                f"step {step['step']} has {len(other)} (or different names)"
            )
    return None
