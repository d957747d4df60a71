"""What each GPU architecture allows per SM, keyed by compute capability (no torch).

The pages explain occupancy with numbers like "64 warps per SM" or "65,536 registers"; those are
facts of an architecture, not of the H200, so they come from here (or from the limits a snapshot
read off its device, which take precedence) and the occupancy calculator uses the same table.
Values: CUDA C++ Programming Guide, "Technical Specifications per Compute Capability".
`mma` names the Tensor Core instruction family that kernels written for the architecture use.
"""

from __future__ import annotations

from dataclasses import dataclass

KiB = 1024
DEFAULT_SMEM_PER_BLOCK = 48 * KiB  # what a block gets unless its kernel opts in to more (every cc here)
RESERVED_SMEM_PER_BLOCK = 1 * KiB  # sm_80 and later keep 1 KiB of shared memory per block for the system
SMEM_GRANULARITY = 128  # shared memory is allocated per block in units of 128 bytes
REG_ALLOC_UNIT = 256  # registers are allocated per warp in units of 256
MAX_REGS_PER_THREAD = 255


@dataclass(frozen=True)
class Arch:
    cc: str  # "9.0"
    family: str  # "Hopper"
    examples: str  # products, for readers
    max_warps_per_sm: int
    max_blocks_per_sm: int
    regs_per_sm: int
    smem_per_sm_bytes: int
    smem_optin_per_block_bytes: int
    mma: str  # mma.sync | wgmma | tcgen05

    @property
    def sm(self) -> str:
        """The name kernels and compilers use: sm80, sm90, sm120."""
        return "sm" + self.cc.replace(".", "")

    @property
    def max_threads_per_sm(self) -> int:
        return 32 * self.max_warps_per_sm


ARCHS: dict[str, Arch] = {
    a.cc: a
    for a in (
        Arch("8.0", "Ampere", "A100, A30", 64, 32, 65536, 164 * KiB, 163 * KiB, "mma.sync"),
        Arch("8.6", "Ampere", "RTX 30 series, A10, A40", 48, 16, 65536, 100 * KiB, 99 * KiB, "mma.sync"),
        Arch("8.9", "Ada Lovelace", "L4, L40, RTX 40 series", 48, 24, 65536, 100 * KiB, 99 * KiB, "mma.sync"),
        Arch("9.0", "Hopper", "H100, H200", 64, 32, 65536, 228 * KiB, 227 * KiB, "wgmma"),
        Arch("10.0", "Blackwell", "B200, GB200", 64, 32, 65536, 228 * KiB, 227 * KiB, "tcgen05"),
        Arch("12.0", "Blackwell", "RTX 50 series, RTX PRO 6000", 48, 32, 65536, 100 * KiB, 99 * KiB, "mma.sync"),
    )
}


class UnknownArch(KeyError):
    def __str__(self) -> str:
        return str(self.args[0])


def arch(compute_capability: str | None) -> Arch:
    """The table row of a compute capability; an unknown one is an error, never a guess."""
    if compute_capability not in ARCHS:
        raise UnknownArch(
            f"compute capability {compute_capability!r} is not in attn_examples/render/arch.py (known: {', '.join(ARCHS)})"
        )
    return ARCHS[compute_capability]
