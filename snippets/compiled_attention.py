"""Attention written by a compiler: FlexAttention and torch.compile of the naive version.

Neither comes from a hand-written CUDA library: TorchInductor generates Triton kernels for them
on the first call (that call pays the compile time; the measurement reports it apart).
"""

import torch
from torch.nn.attention.flex_attention import create_block_mask, flex_attention

from attn_examples.snippets.naive_attention import naive_attention


# --8<-- [start:flex]
def causal(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx                      # the mask as a rule, not as a [seq, seq] tensor


def causal_block_mask(seq_len: int, device):
    """Which [128 x 128] tiles hold any unmasked score; built once, outside the forward."""
    return create_block_mask(causal, B=None, H=None, Q_LEN=seq_len, KV_LEN=seq_len, device=device)


flex_compiled = torch.compile(flex_attention)   # FlexAttention is meant to run compiled


def flex_causal(q, k, v, block_mask):
    return flex_compiled(q, k, v, block_mask=block_mask)
# --8<-- [end:flex]


# --8<-- [start:compiled]
naive_compiled = torch.compile(naive_attention)  # the five steps, fused by TorchInductor
# --8<-- [end:compiled]
