"""How every variant is profiled: the article's recipe, as code.

Warm up outside the profiler, then record five steps and keep the last three.
"""

from collections.abc import Callable

import torch
from torch.profiler import ProfilerActivity, profile, record_function, schedule


# --8<-- [start:profile]
def profile_forward(forward: Callable[[], object], label: str, *, cuda: bool,
                    warmup_calls: int = 3, wait: int = 1, warmup: int = 1,
                    active: int = 3) -> profile:
    for _ in range(warmup_calls):          # first calls pay for lazy init, plans, caches
        forward()
    if cuda:
        torch.cuda.synchronize()

    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    with profile(activities=activities,
                 schedule=schedule(wait=wait, warmup=warmup, active=active, repeat=1)) as prof:
        for _ in range(wait + warmup + active):
            with record_function(label):
                forward()
            prof.step()
    return prof
# --8<-- [end:profile]
