"""What `ncu` runs: every variant in turn, each warmed up, then one forward inside an NVTX range
named after it (torch).

One process for all variants: torch is imported and CUDA initialised once, not once per variant.
It starts before the measurement it annotates is finished (`attn_examples.measure.counters.CountersPass`):
it draws the inputs of the measured configuration, calls each candidate once (libraries loaded; ncu
profiles nothing outside the NVTX ranges), prints `ready`, then waits, without touching the GPU,
for the go file, which names the variants to profile. Each variant's name is printed before it
runs, so the caller can show progress.
Usage: python -m attn_examples.measure.counters_driver --config JSON --go FILE VARIANT_ID [VARIANT_ID ...]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import torch

from attn_examples.measure.forwards import bind, pinned
from attn_examples.measure.workload import make_inputs
from attn_examples.snapshot.config import AttnConfig
from attn_examples.snapshot.variants import get_variant

WARMUP_CALLS = 3
READY = "counters_driver: ready"
STARTED = "counters_driver: "  # the line prefix that announces a variant (read by attn_examples.measure.counters)
WAIT_S = 1800  # a caller that never says go (it died) leaves no process behind for long


def wait_for(go: Path) -> list[str]:
    """The variants the go file names, once it exists."""
    deadline = time.monotonic() + WAIT_S
    while not go.exists():
        if time.monotonic() > deadline:
            raise SystemExit(f"counters_driver: no go file {go} within {WAIT_S} s")
        time.sleep(0.02)
    return json.loads(go.read_text())


def main(config: AttnConfig, go: Path, candidates: list[str]) -> None:
    variants = {v: get_variant(v) for v in candidates}  # an unknown id fails before any work
    q, k, v, mask = make_inputs(config, "cuda")
    with torch.no_grad():
        for variant in variants.values():  # load each backend's libraries before the wait
            with pinned(variant):
                try:
                    bind(variant, q, k, v, mask)()
                except RuntimeError:
                    pass  # a backend this GPU refuses: the measurement will not name it
        torch.cuda.synchronize()
    print(READY, flush=True)
    for variant_id in wait_for(go):
        variant = variants[variant_id]
        print(STARTED + variant.id, flush=True)
        with torch.no_grad(), pinned(variant):
            forward = bind(variant, q, k, v, mask)
            for _ in range(WARMUP_CALLS):
                forward()
            torch.cuda.synchronize()
            torch.cuda.nvtx.range_push(variant.id)
            forward()
            torch.cuda.synchronize()
            torch.cuda.nvtx.range_pop()
        del forward
        torch.cuda.empty_cache()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="the forward ncu profiles, per variant")
    parser.add_argument("--config", required=True, help="the measured AttnConfig as JSON")
    parser.add_argument("--go", required=True, type=Path, help="the file that names the variants to profile")
    parser.add_argument("variants", nargs="+")
    args = parser.parse_args()
    main(AttnConfig(**json.loads(args.config)), args.go, args.variants)
