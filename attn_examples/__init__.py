"""Profile attention in PyTorch and keep the measurements as versioned snapshots.

Importing this package does not import torch: loading, rendering and checking a snapshot
stay cheap. Only `attn_examples.measure.run` (and what it imports) needs torch.
"""

from importlib.metadata import PackageNotFoundError, version

try:  # the one version source is pyproject.toml; an installed package (editable too) carries it
    __version__ = version("attn-examples")
except PackageNotFoundError:  # the source tree on sys.path without an install
    __version__ = "0+unknown"
