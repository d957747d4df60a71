"""What `ncu` runs: every variant in turn, each warmed up, then one forward inside an NVTX range
named after it (torch).

One process for all variants: torch is imported and CUDA initialised once, not once per variant.
The shape comes from the snapshot being annotated, so the counters describe the measured forward.
Each variant's name is printed before it runs, so the caller can show progress.
Usage: python -m attn_examples.counters_driver SNAPSHOT_DIR VARIANT_ID [VARIANT_ID ...]
"""

from __future__ import annotations

import sys

import torch

from attn_examples.measure import make_inputs
from attn_examples.snapshot import load_snapshot
from attn_examples.variants import get_variant

WARMUP_CALLS = 3
STARTED = "counters_driver: "   # the line prefix that announces a variant (read by attn_examples.counters)


def main(snapshot_dir: str, variant_ids: list[str]) -> None:
    config = load_snapshot(snapshot_dir).config
    variants = [get_variant(v) for v in variant_ids]   # an unknown id fails before any work
    q, k, v, mask = make_inputs(config, "cuda")
    for variant in variants:
        print(STARTED + variant.id, flush=True)
        with torch.no_grad(), variant.pin():
            forward = variant.bind(q, k, v, mask)
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
    if len(sys.argv) < 3:
        sys.exit("usage: python -m attn_examples.counters_driver SNAPSHOT_DIR VARIANT_ID [VARIANT_ID ...]")
    main(sys.argv[1], sys.argv[2:])
