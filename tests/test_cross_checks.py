"""Our readings checked against other tools' readings of the same runs.

On every snapshot with counters (CPU): our occupancy calculator against Nsight Compute's theoretical
occupancy. On the GPU builder (marked gpu): our trace parser's kernel counts against
torch.profiler's own `key_averages()`, and our device timer against `triton.testing.do_bench`.
"""

from __future__ import annotations

from collections import Counter

import pytest

from attn_examples.measure.forwards import bind, pinned
from attn_examples.render import hardware, occupancy
from attn_examples.site.pages import committed_snapshots
from attn_examples.snapshot.config import AttnConfig
from attn_examples.snapshot.schema import load_snapshot
from tests.conftest import REPO

WITH_COUNTERS = [p for p in committed_snapshots(REPO / "snapshots") if hardware.available(load_snapshot(p))]


@pytest.mark.parametrize("folder", WITH_COUNTERS, ids=lambda p: p.name)
def test_our_theoretical_occupancy_is_ncus_for_every_profiled_kernel(folder):
    rows = occupancy.against_ncu(load_snapshot(folder))
    assert rows, "no kernel to compare"
    off = [r for r in rows if r["ncu_pct"] is None or abs(r["ours_pct"] - r["ncu_pct"]) > 0.5]
    assert not off, off[:3]


@pytest.mark.gpu
@pytest.mark.parametrize("variant_id", ["naive", "sdpa_math", "sdpa_flash", "sdpa_cudnn"])
def test_kernel_counts_agree_with_the_profilers_own_key_averages(variant_id):
    """Our parser reads the exported Chrome trace; torch.profiler counts the same events itself. Every
    GPU activity our parser puts in an active step is one the profiler counted; the profiler's extra
    ones can only be those launched before profiling began (`unattributed_gpu`)."""
    import json

    import torch

    from attn_examples.measure.workload import export_trace, make_inputs
    from attn_examples.snapshot import kineto
    from attn_examples.snapshot.variants import VARIANTS
    from attn_examples.snippets.profile_forward import profile_forward

    config = AttnConfig()
    variant = VARIANTS[variant_id]
    q, k, v, mask = make_inputs(config, "cuda")
    with torch.no_grad(), pinned(variant):
        forward = bind(variant, q, k, v, mask)
        prof = profile_forward(forward, variant.label, cuda=True, warmup_calls=3, wait=0, warmup=1, active=3)
    parsed = kineto.parse_trace(json.loads(export_trace(prof)), variant.label)
    ours = Counter(a["name"] for step in parsed["steps"] for a in step["gpu"])
    theirs = Counter(
        {
            e.key: e.count
            for e in prof.key_averages()
            if e.device_type == torch.autograd.DeviceType.CUDA and e.key != variant.label
        }
    )
    assert sum(ours.values()) > 0
    missing = ours - theirs
    assert not missing, missing  # nothing we count that it did not
    extra = sum((theirs - ours).values())
    assert extra <= parsed["unattributed_gpu"], (theirs - ours, parsed["unattributed_gpu"])


@pytest.mark.gpu
@pytest.mark.parametrize("variant_id", ["naive", "sdpa_flash"])
def test_device_time_agrees_with_tritons_do_bench(variant_id):
    """Two timers of one forward: ours (CUDA events around each call queued behind a sleep kernel)
    and Triton's do_bench (events around each call, the L2 cache flushed before each). Their medians
    agree within a third either way: a unit, an event or a synchronisation error would be off by
    far more; the flush alone makes do_bench's a little slower for a forward whose inputs fit in L2."""
    triton_testing = pytest.importorskip("triton.testing")
    import torch

    from attn_examples.measure import timing
    from attn_examples.measure.workload import make_inputs
    from attn_examples.snapshot.variants import VARIANTS

    variant = VARIANTS[variant_id]
    q, k, v, mask = make_inputs(AttnConfig(), "cuda")
    with torch.no_grad(), pinned(variant):
        forward = bind(variant, q, k, v, mask)
        for _ in range(3):
            forward()
        ours = timing.time_cuda_until(forward)["device_us"]["median"]
        theirs = triton_testing.do_bench(forward, warmup=25, rep=200, return_mode="median") * 1000.0
    assert 0.75 < ours / theirs < 1.33, (ours, theirs)
