import pytest

from attn_examples.measure.forwards import bind, pinned
from attn_examples.snapshot.config import AttnConfig
from attn_examples.snapshot.variants import VARIANTS, backend_of_op, get_variant
from tests.conftest import REPO


def test_registry_has_the_articles_six_variants():
    assert list(VARIANTS)[:6] == ["naive", "naive_inplace", "sdpa_math", "sdpa_efficient", "sdpa_flash", "sdpa_cudnn"]
    assert [v.id for v in VARIANTS.values() if not v.in_article] == ["flex", "naive_compiled"]
    assert {v.backend for v in VARIANTS.values() if v.family == "sdpa"} == {
        "MATH",
        "EFFICIENT_ATTENTION",
        "FLASH_ATTENTION",
        "CUDNN_ATTENTION",
    }


def test_unknown_variant_error_lists_the_known_ids():
    with pytest.raises(KeyError, match=r"unknown variant 'flash3'.*sdpa_flash"):
        get_variant("flash3")


def test_every_variant_names_a_snippet_section_that_exists():
    for variant in VARIANTS.values():
        text = (REPO / "snippets" / variant.snippet).read_text()
        assert f"--8<-- [start:{variant.section}]" in text and f"--8<-- [end:{variant.section}]" in text


def test_backend_is_read_off_the_aten_op():
    assert backend_of_op("aten::_scaled_dot_product_cudnn_attention") == "CUDNN_ATTENTION"
    assert backend_of_op("aten::_scaled_dot_product_flash_attention_for_cpu") == "FLASH_ATTENTION"
    assert backend_of_op("aten::mm") is None


@pytest.mark.measure
@pytest.mark.parametrize("variant_id", ["naive", "naive_inplace", "sdpa_math", "sdpa_flash"])
def test_cpu_variants_compute_attention(variant_id):
    import torch

    from attn_examples.measure.workload import make_inputs, reference_output

    config = AttnConfig(batch=1, heads=2, seq_len=64, head_dim=32, dtype="float32")
    q, k, v, mask = make_inputs(config, "cpu")
    reference = reference_output(q, k, v, mask)
    variant = VARIANTS[variant_id]
    with torch.no_grad(), pinned(variant):
        out = bind(variant, q, k, v, mask)()
    assert out.shape == q.shape
    err = torch.linalg.vector_norm(out.double() - reference) / torch.linalg.vector_norm(reference)
    assert err < 1e-5


@pytest.mark.measure
def test_masked_fill_inplace_keeps_autograd_working_here():
    """A finding, not the textbook line: the in-place fill overwrites the output of a multiply by a
    Python scalar, which autograd never saves, so gradients still flow and agree exactly."""
    import torch

    from attn_examples.measure.workload import make_inputs

    config = AttnConfig(batch=1, heads=2, seq_len=16, head_dim=8, dtype="float32")
    q, k, v, mask = make_inputs(config, "cpu")
    grads = []
    for variant_id in ("naive", "naive_inplace"):
        leaf = q.clone().requires_grad_(True)
        bind(VARIANTS[variant_id], leaf, k, v, mask)().square().sum().backward()
        grads.append(leaf.grad)
    assert torch.equal(grads[0], grads[1])


def test_config_rejects_bad_values():
    with pytest.raises(ValueError, match="dtype"):
        AttnConfig(dtype="int8")
    with pytest.raises(ValueError, match="seq_len"):
        AttnConfig(seq_len=0)


@pytest.mark.parametrize(
    "name, expected",
    [
        ("sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_aligna4_alignc4", False),
        ("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT", True),
        ("fmha_cutlassF_bf16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<...>)", True),
        ("cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x64_4x1x1_cga1x1x1_kernel0_0", True),
        ("void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, false, false>", None),
    ],
)
def test_tensor_core_use_is_read_off_kernel_names_seen_on_the_h200(name, expected):
    from attn_examples.render.views import uses_tensor_cores

    assert uses_tensor_cores(name) is expected


def test_a_registered_variant_without_a_forward_fails_loudly():
    """A new naive id once ran naive_attention_inplace silently: bind() names every id."""
    import dataclasses

    from attn_examples.measure.forwards import bind

    for template in ("naive_inplace", "flex"):
        stranger = dataclasses.replace(VARIANTS[template], id="newcomer")
        with pytest.raises(KeyError, match="no forward"):
            bind(stranger, None, None, None, None)


def test_every_variant_has_its_titles_colour_and_marker():
    """What a figure or a sentence needs for each id, checked here: no committed snapshot has a new
    variant yet, so nothing else would notice a missing one until a measurement draws it."""
    from attn_examples.render.figures import COLORS, MARKERS
    from attn_examples.render.i18n import SHORT_TITLES, VARIANT_TITLES
    from attn_examples.render.svgplot import SHAPES

    for lang in ("en", "zh-TW"):
        assert set(VARIANT_TITLES[lang]) >= set(VARIANTS), lang
        assert set(SHORT_TITLES[lang]) >= set(VARIANTS), lang
    assert all(VARIANT_TITLES["en"][v.id] == v.title for v in VARIANTS.values())  # `show` prints Variant.title
    assert set(COLORS) >= set(VARIANTS) and set(MARKERS) >= set(VARIANTS)
    assert len({COLORS[v] for v in VARIANTS}) == len(VARIANTS), "two variants share a colour"
    assert len({MARKERS[v] for v in VARIANTS}) == len(VARIANTS), "two variants share a marker"
    assert all(MARKERS[v] in {"o", *SHAPES} for v in VARIANTS)  # "o": a circle; the rest are outlines
