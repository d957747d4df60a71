"""Profile attention in PyTorch and keep the measurements as versioned snapshots.

Importing this package does not import torch: loading, rendering and checking a snapshot
stay cheap. Only `attn_examples.measure` (and what it imports) needs torch.
"""

__version__ = "0.1.0"
