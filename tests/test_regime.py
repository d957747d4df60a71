"""What limits a variant (attn_examples.render.regime), and the words a page shows for it."""

from __future__ import annotations

from pathlib import Path

from attn_examples.render import hardware, regime, views
from attn_examples.site import build as site
from attn_examples.snapshot.schema import load_snapshot

SNAPSHOTS = Path(__file__).resolve().parent.parent / "snapshots"
LIST = "list.regime[naive,naive_inplace,sdpa_math,sdpa_efficient,sdpa_flash,sdpa_cudnn,flex,naive_compiled]"


def _regime(kind: str, share: float | None, off: float | None) -> regime.Regime:
    return regime.Regime(kind, 10.0, 5.0, 0.9, 4.0, 0.2, "bf16", share, off)


def test_a_roof_holds_a_forward_only_near_it_on_average_and_for_most_of_its_time():
    assert _regime("memory", 0.56, 0.44).held
    assert not _regime("memory", 0.45, 0.2).held  # under half on average
    assert not _regime("memory", 0.51, 0.65).held  # over half on average, most of its time under it
    assert not _regime("compute", 0.6, 0.5).held  # half its time under it is not most of it near it
    assert not _regime("launch", 0.9, 0.0).held
    assert not _regime("memory", None, None).held
    assert [_regime("memory", *shares).reach for shares in ((0.56, 0.44), (0.51, 0.65), (0.45, 0.2))] == [
        "held",
        "mixed",
        "below",
    ]


def test_the_time_off_the_roof_is_the_kernels_under_half_of_it():
    """On the baseline the naive forward averages over half of the copy roof, but its mask and softmax,
    most of its kernel time, each move bytes at under half of it (and do no arithmetic near a roof)."""
    snap = load_snapshot(SNAPSHOTS / "nvidia-h200")
    limit = regime.classify(snap, "naive_inplace")
    assert limit is not None and limit.kind == "memory"
    rows = hardware.kernel_rows(snap, "naive_inplace")
    under = [r for r in rows if max(regime.kernel_roof_shares(snap, r)) < regime.ROOF_NEAR]
    assert {"mask", "softmax"} <= {views.kernel_role(r["name"]) for r in under}
    assert limit.off_roof_share == sum(r["duration_us"] for r in under) / sum(r["duration_us"] for r in rows)
    assert limit.roof_share >= regime.ROOF_NEAR and limit.off_roof_share >= regime.MOST and not limit.held


def test_a_kernel_is_held_to_the_roof_of_its_own_arithmetic_not_the_forwards():
    """Math's forward lies on the memory side, but its FP32 GEMMs, under half of the copy roof, run at
    over half of the FP32 matrix product's: they are on a roof, not off it."""
    snap = load_snapshot(SNAPSHOTS / "nvidia-h200")
    limit = regime.classify(snap, "sdpa_math")
    assert limit is not None and limit.kind == "memory"
    gemms = [r for r in hardware.kernel_rows(snap, "sdpa_math") if views.kernel_role(r["name"]) == "gemm"]
    assert gemms
    for row in gemms:
        memory, tensor, fp32 = regime.kernel_roof_shares(snap, row)
        assert memory < regime.ROOF_NEAR and tensor == 0.0 and fp32 >= regime.ROOF_NEAR
    rows = hardware.kernel_rows(snap, "sdpa_math")
    under_copy = sum(r["duration_us"] for r in rows if regime.kernel_roof_shares(snap, r)[0] < regime.ROOF_NEAR)
    gemm_time = sum(r["duration_us"] for r in gemms)
    total = sum(r["duration_us"] for r in rows)
    assert limit.off_roof_share <= (under_copy - gemm_time) / total + 1e-12  # the GEMMs are not off their roof
    assert limit.held


def test_a_forward_whose_average_hides_its_slow_kernels_is_named_by_its_side():
    measurement = site.BuildMeasurement(load_snapshot(SNAPSHOTS / "nvidia-h200"), False, 0.0)
    words = measurement.value("naive_inplace.regime", "en")
    assert words.startswith("on the memory side of the roofline, at ") and "-bound" not in words
    assert "on average, yet " in words and " of its kernel time is in kernels under half of every roof" in words
    assert measurement.value("sdpa_math.regime", "en") == "memory-bound at 55.8% of its roof"
    zh = measurement.value("naive_inplace.regime", "zh-TW")
    assert zh.startswith("落在 roofline 的記憶體一側，平均達到其上限的 ") and "（" not in zh


def test_a_chinese_list_of_regimes_is_clauses_with_their_subjects_first():
    """No 「（…）（手寫版）」 stacked parentheses, no 「與在…之間未定」: each item a clause, joined by 「；」."""
    measurement = site.BuildMeasurement(load_snapshot(SNAPSHOTS / "nvidia-h200-float16"), False, 0.0)
    zh = measurement.value(LIST, "zh-TW")
    assert "）（" not in zh and "與在" not in zh
    assert zh.startswith("手寫版") and "；flash 在受限於啟動開銷與落在 roofline 的運算一側之間未定；" in zh
    en = measurement.value(LIST, "en")
    assert "; undecided between launch-bound and the compute side of the roofline (flash); " in en


def test_a_side_is_bound_only_where_its_roof_holds_the_forward_back():
    """Flash on the float16 snapshot may be launch-bound or, off the launch floor, on the compute side at
    a quarter of its roof: the undecided words, and a claim's value in the claims table, name the side,
    never "compute-bound"."""
    from attn_examples.render.blocks import format_metric

    snap = load_snapshot(SNAPSHOTS / "nvidia-h200-float16")
    other = regime.classify(snap, "sdpa_flash", host_per_device=0.0)
    assert other is not None and other.kind == "compute" and not other.held
    measurement = site.BuildMeasurement(snap, False, 0.0)
    for lang in ("en", "zh-TW"):
        assert "-bound" not in measurement.value("sdpa_flash.regime", lang).replace("launch-bound", "")
        assert "受限於運算" not in measurement.value("sdpa_flash.regime", lang)
    assert format_metric("sdpa_flash.regime", "compute", "en") == "compute side"
    assert format_metric("naive_inplace.regime", "memory", "zh-TW") == "記憶體一側"
