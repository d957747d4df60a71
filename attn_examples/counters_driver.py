"""What `ncu` runs for one variant: warm up, then one forward inside an NVTX range (torch)."""

from __future__ import annotations

import sys

import torch

from attn_examples.config import AttnConfig
from attn_examples.measure import make_inputs
from attn_examples.variants import get_variant


def main(variant_id: str) -> None:
    variant = get_variant(variant_id)
    q, k, v, mask = make_inputs(AttnConfig(), "cuda")
    with torch.no_grad(), variant.pin():
        forward = variant.bind(q, k, v, mask)
        for _ in range(3):
            forward()
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_push(variant_id)
        forward()
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()


if __name__ == "__main__":
    main(sys.argv[1])
