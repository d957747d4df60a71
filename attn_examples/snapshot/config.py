"""The measured configuration: one value object shared by every stage (no torch import)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

DTYPES = ("bfloat16", "float16", "float32")
ELEMENT_BYTES = {"bfloat16": 2, "float16": 2, "float32": 4}


@dataclass(frozen=True)
class AttnConfig:
    """Shape and recipe of one measurement; the defaults reproduce the article."""

    batch: int = 8
    heads: int = 16
    seq_len: int = 1024
    head_dim: int = 64
    dtype: str = "bfloat16"
    causal: bool = True
    warmup_calls: int = 3
    profile_wait: int = 1
    profile_warmup: int = 1
    profile_active: int = 3
    timing_repeats: int = 100  # CUDA: timed calls per variant
    cpu_min_run_time_s: float = 1.0  # CPU: torch.utils.benchmark's autorange budget per variant
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("batch", "heads", "seq_len", "head_dim", "profile_active", "timing_repeats"):
            if getattr(self, name) < 1:
                raise ValueError(f"config field {name!r} must be >= 1, got {getattr(self, name)}")
        if self.dtype not in DTYPES:
            raise ValueError(f"config field 'dtype' must be one of {DTYPES}, got {self.dtype!r}")
        if not self.causal:
            raise ValueError("config field 'causal': only causal attention is implemented")

    @property
    def shape(self) -> tuple[int, int, int, int]:
        return (self.batch, self.heads, self.seq_len, self.head_dim)

    @property
    def profile_steps(self) -> int:
        return self.profile_wait + self.profile_warmup + self.profile_active

    @property
    def causal_flops(self) -> float:
        """QKᵀ and PV, halved by the causal mask: 2 · 2 · B · H · S² · D / 2."""
        return 2.0 * self.batch * self.heads * self.seq_len**2 * self.head_dim

    @property
    def tensor_bytes(self) -> int:
        """One of q, k, v or the output."""
        return self.batch * self.heads * self.seq_len * self.head_dim * ELEMENT_BYTES[self.dtype]

    @property
    def score_bytes(self) -> int:
        """One [seq, seq] score matrix per head, in the input dtype."""
        return self.batch * self.heads * self.seq_len**2 * ELEMENT_BYTES[self.dtype]

    @property
    def memory_needed_bytes(self) -> int:
        """What a measurement holds at its peak, at least: the inputs, the boolean mask, and the
        float64 reference every variant's error is taken against, whose naive forward keeps two
        [seq, seq] score matrices per head alive at once (and q, k, v, out in float64). Every variant
        needs less than the reference; the estimate is checked before anything is allocated."""
        elements = self.batch * self.heads * self.seq_len * self.head_dim
        inputs = 3 * self.tensor_bytes + self.seq_len**2
        reference = 4 * elements * 8 + 2 * self.batch * self.heads * self.seq_len**2 * 8
        return inputs + reference

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)
