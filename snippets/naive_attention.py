"""Attention written out by hand: the five steps, one PyTorch op each.

The site shows this file to readers, and `attn_examples` measures exactly this code.
"""

import math

import torch


# --8<-- [start:mask]
def causal_mask(seq_len: int, device: torch.device | str) -> torch.Tensor:
    """True above the diagonal: position i may not look at any j > i.

    Built once, outside the forward, so its cost never shows up in a trace.
    """
    ones = torch.ones(seq_len, seq_len, dtype=torch.bool, device=device)
    return torch.triu(ones, diagonal=1)
# --8<-- [end:mask]


# --8<-- [start:naive]
def naive_attention(q, k, v, mask):
    scores = q @ k.transpose(-2, -1)                     # 1. query x key
    scores = scores * (1.0 / math.sqrt(q.size(-1)))      # 2. scale
    scores = scores.masked_fill(mask, float("-inf"))     # 3. causal mask (out of place)
    weights = torch.softmax(scores, dim=-1)              # 4. softmax
    return weights @ v                                   # 5. weighted sum of values
# --8<-- [end:naive]


# --8<-- [start:naive_inplace]
def naive_attention_inplace(q, k, v, mask):
    scores = q @ k.transpose(-2, -1)
    scores = scores * (1.0 / math.sqrt(q.size(-1)))
    scores.masked_fill_(mask, float("-inf"))             # in place: no copy of scores
    weights = torch.softmax(scores, dim=-1)
    return weights @ v
# --8<-- [end:naive_inplace]
