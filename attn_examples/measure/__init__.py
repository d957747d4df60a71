"""Stage 1, measure: run every variant on one device (torch), time it, profile it, count its hardware events.

Only this stage imports torch, and nothing outside it imports it when loaded: the site glue calls it
lazily, when a build measures live. `run` is the entry point (`measure(config)` gives a snapshot
dict and its traces); `extended` adds the sweep and training; `counters` drives Nsight Compute
over `counters_driver`, and `ncu_reader` reads its report back with NVIDIA's own module.
"""
