"""The architecture table: one row per compute capability, checked against arithmetic the CUDA
occupancy calculator would do and against what the H200 reported about itself."""

from __future__ import annotations

import pytest

from attn_examples.render import arch, metrics, occupancy
from attn_examples.snapshot.schema import DeviceLimits, load_snapshot
from tests.conftest import REPO


def limits(cc: str) -> DeviceLimits:
    a = arch.arch(cc)
    return DeviceLimits(
        32, a.regs_per_sm, a.max_threads_per_sm, a.smem_per_sm_bytes, a.smem_optin_per_block_bytes, None
    )


def kernel(regs: int, threads: int, smem: int = 0) -> dict:
    return {"registers_per_thread": regs, "block": [threads, 1, 1], "grid": [4096, 1, 1], "shared_memory_bytes": smem}


# (compute capability, family, resident blocks of the article's flash kernel (128 threads x 255
#  registers, 48 KiB shared memory), its occupancy, and blocks of a tiny 128-thread kernel: the
#  architecture's block cap or its warp cap, whichever binds; what limits the flash kernel, every
#  resource that allows as few blocks named, as Nsight Compute names them)
CASES = [
    ("8.0", "Ampere", 2, 12.5, 16, "registers"),  # 64 warps: 16 blocks of 4 warps
    ("8.6", "Ampere", 2, 100 * 8 / 48, 12, "registers+shared memory"),  # 48 warps: 12 blocks of 4 warps (cap 16)
    ("8.9", "Ada Lovelace", 2, 100 * 8 / 48, 12, "registers+shared memory"),  # 100 KiB: two 49 KiB blocks too
    ("9.0", "Hopper", 2, 12.5, 16, "registers"),
    ("10.0", "Blackwell", 2, 12.5, 16, "registers"),
    ("12.0", "Blackwell", 2, 100 * 8 / 48, 12, "registers+shared memory"),
]


@pytest.mark.parametrize("cc, family, flash_blocks, flash_pct, tiny_blocks, limit", CASES, ids=[c[0] for c in CASES])
def test_each_architecture(cc, family, flash_blocks, flash_pct, tiny_blocks, limit):
    a = arch.arch(cc)
    assert a.family == family and a.sm == "sm" + cc.replace(".", "")
    assert a.regs_per_sm == 65536 and a.max_threads_per_sm == 32 * a.max_warps_per_sm
    assert a.smem_optin_per_block_bytes == a.smem_per_sm_bytes - 1024  # 1 KiB kept per block
    flash = occupancy.theoretical(kernel(255, 128, 48 * 1024), limits(cc), cc)
    assert (flash.blocks_per_sm, round(flash.pct, 2), flash.limit) == (flash_blocks, round(flash_pct, 2), limit)
    tiny = occupancy.theoretical(kernel(16, 128), limits(cc), cc)
    assert tiny.blocks_per_sm == tiny_blocks


def test_the_block_cap_binds_where_the_table_says():
    """32-thread blocks: 8.6 stops at 16 resident blocks, 8.9 at 24, 9.0 at 32 (the warp limit is higher)."""
    for cc, cap in (("8.6", 16), ("8.9", 24), ("9.0", 32)):
        result = occupancy.theoretical(kernel(16, 32), limits(cc), cc)
        assert (result.blocks_per_sm, result.limit) == (cap, "blocks"), cc


def test_an_unknown_architecture_is_an_error_not_a_guess():
    with pytest.raises(arch.UnknownArch, match=r"7\.5"):
        arch.arch("7.5")


def test_the_h200_reported_what_the_table_says_for_9_0():
    snap = load_snapshot(REPO / "snapshots" / "nvidia-h200")
    reported, row = snap.provenance.device_limits, arch.arch(snap.provenance.compute_capability)
    assert (
        reported.regs_per_sm,
        reported.max_threads_per_sm,
        reported.smem_per_sm_bytes,
        reported.smem_per_block_optin_bytes,
    ) == (row.regs_per_sm, row.max_threads_per_sm, row.smem_per_sm_bytes, row.smem_optin_per_block_bytes)
    assert metrics.metric(snap, "arch.max_warps_per_sm") == 64 and metrics.metric(snap, "device.arch") == "Hopper"


def test_a_cpu_has_no_architecture_values():
    snap = load_snapshot(REPO / "snapshots" / "cpu")
    for key in ("arch.max_warps_per_sm", "device.arch"):
        with pytest.raises(metrics.UnknownMetric):
            metrics.metric(snap, key)
