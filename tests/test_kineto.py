"""The trace parser on small hand-made traces shaped like torch.profiler's export."""

import pytest

from attn_examples.snapshot.kineto import TraceError, consistency, parse_trace


def _trace(steps_kernels: list[list[str]], driver_launch: str | None = None) -> dict:
    events, corr, ts = [], 1, 0.0
    for number, kernels in enumerate(steps_kernels, start=2):
        events.append(
            {"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{number}", "ts": ts, "dur": 100.0, "tid": 1}
        )
        events.append({"ph": "X", "cat": "user_annotation", "name": "sdpa_fwd", "ts": ts + 1, "dur": 90.0, "tid": 1})
        events.append(
            {
                "ph": "X",
                "cat": "cpu_op",
                "name": "aten::scaled_dot_product_attention",
                "ts": ts + 2,
                "dur": 80.0,
                "tid": 1,
            }
        )
        events.append({"ph": "X", "cat": "cpu_op", "name": "aten::transpose", "ts": ts + 3, "dur": 5.0, "tid": 1})
        for i, name in enumerate(kernels):
            api = driver_launch if (driver_launch and i == 0) else "cudaLaunchKernel"
            cat = "cuda_driver" if api.startswith("cu") and not api.startswith("cuda") else "cuda_runtime"
            events.append(
                {
                    "ph": "X",
                    "cat": cat,
                    "name": api,
                    "ts": ts + 10 + i,
                    "dur": 2.0,
                    "tid": 1,
                    "args": {"correlation": corr},
                }
            )
            kind = "gpu_memcpy" if name.startswith("Memcpy") else "kernel"
            args = {
                "correlation": corr,
                "grid": [8, 16, 1],
                "block": [128, 1, 1],
                "registers per thread": 255,
                "shared memory": 49152,
                "est. achieved occupancy %": 13,
            }
            if kind == "gpu_memcpy":
                args = {"correlation": corr, "bytes": 4096}
            events.append({"ph": "X", "cat": kind, "name": name, "ts": ts + 50 + i, "dur": 7.0, "tid": 7, "args": args})
            corr += 1
        ts += 1000.0
    return {"traceEvents": events}


def test_activities_are_attributed_to_the_step_that_launched_them():
    steps = parse_trace(_trace([["gemm", "Memcpy DtoD (Device -> Device)"]] * 3), "sdpa_fwd")["steps"]
    assert [s["step"] for s in steps] == [2, 3, 4]
    for step in steps:
        assert [(a["kind"], a["name"]) for a in step["gpu"]] == [
            ("kernel", "gemm"),
            ("memcpy", "Memcpy DtoD (Device -> Device)"),
        ]
        kernel, copy = step["gpu"]
        assert kernel["registers_per_thread"] == 255 and kernel["shared_memory_bytes"] == 49152
        assert kernel["est_occupancy_pct"] == 13 and kernel["grid"] == [8, 16, 1]
        assert copy["bytes"] == 4096 and copy["registers_per_thread"] is None
        assert step["transposes"] == 1
        assert step["host_span_us"] == 90.0
    assert consistency(steps) is None


def test_launch_api_comes_from_the_correlated_host_call():
    steps = parse_trace(_trace([["cudnn_generated_kernel"]], driver_launch="cuLaunchKernelEx"), "sdpa_fwd")["steps"]
    assert steps[0]["gpu"][0]["launch_api"] == "cuLaunchKernelEx"
    assert steps[0]["launches"] == [{"name": "cuLaunchKernelEx", "count": 1}]


def test_self_time_excludes_children():
    steps = parse_trace(_trace([["k"]]), "sdpa_fwd")["steps"]
    ops = {op["name"]: op for op in steps[0]["cpu_ops"]}
    assert ops["aten::scaled_dot_product_attention"]["total_us"] == 80.0
    assert ops["aten::scaled_dot_product_attention"]["self_us"] == 75.0


def test_steps_that_disagree_are_flagged():
    steps = parse_trace(_trace([["a", "b"], ["a", "b"], ["a"]]), "sdpa_fwd")["steps"]
    problem = consistency(steps)
    assert problem is not None and "step 4" in problem


def test_work_launched_before_the_first_active_step_is_not_attributed():
    """Seen on the H200: the warm-up step's last kernels run inside step 2's window on the GPU."""
    trace = _trace([["gemm", "softmax"], ["gemm", "softmax"]])
    leftover = {
        "ph": "X",
        "cat": "kernel",
        "name": "softmax",
        "ts": 5.0,
        "dur": 50.0,
        "tid": 7,
        "args": {"correlation": 999, "grid": [1, 1, 1], "block": [32, 1, 1]},
    }
    trace["traceEvents"].append(leftover)
    parsed = parse_trace(trace, "sdpa_fwd")
    assert parsed["unattributed_gpu"] == 1
    assert [len(s["gpu"]) for s in parsed["steps"]] == [2, 2]
    assert consistency(parsed["steps"]) is None


def test_a_trace_without_profiler_steps_is_refused():
    with pytest.raises(TraceError, match="ProfilerStep"):
        parse_trace({"traceEvents": []}, "sdpa_fwd")
    with pytest.raises(TraceError, match="traceEvents"):
        parse_trace({}, "sdpa_fwd")
