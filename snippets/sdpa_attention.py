"""The same attention through PyTorch's fused entry point.

`scaled_dot_product_attention` picks a backend itself; `sdpa_kernel` pins one.
"""

import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel


# --8<-- [start:sdpa]
def sdpa_attention(q, k, v):
    return F.scaled_dot_product_attention(q, k, v, is_causal=True)
# --8<-- [end:sdpa]


# --8<-- [start:pinned]
def sdpa_pinned(q, k, v, backend: SDPBackend):
    """Run SDPA with only `backend` allowed; raises if that backend refuses the inputs."""
    with sdpa_kernel(backend):
        return sdpa_attention(q, k, v)
# --8<-- [end:pinned]
