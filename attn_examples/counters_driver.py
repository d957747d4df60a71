"""What `ncu` runs for one variant: warm up, then one forward inside an NVTX range (torch).

The shape comes from the snapshot being annotated, so the counters describe the measured forward.
Usage: python -m attn_examples.counters_driver SNAPSHOT_DIR VARIANT_ID
"""

from __future__ import annotations

import sys

import torch

from attn_examples.measure import make_inputs
from attn_examples.snapshot import load_snapshot
from attn_examples.variants import get_variant

WARMUP_CALLS = 3


def main(snapshot_dir: str, variant_id: str) -> None:
    config = load_snapshot(snapshot_dir).config
    variant = get_variant(variant_id)
    q, k, v, mask = make_inputs(config, "cuda")
    with torch.no_grad(), variant.pin():
        forward = variant.bind(q, k, v, mask)
        for _ in range(WARMUP_CALLS):
            forward()
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_push(variant_id)
        forward()
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
