"""The small formatters that put measured words into sentences: lists in both languages and a
backend's refusal quoted inside a sentence."""

from __future__ import annotations

from attn_examples.claims import report as claims_report
from attn_examples.render import blocks as render
from attn_examples.render import views


def test_lists_read_naturally_in_both_languages() -> None:
    assert render.join_words(["a", "b", "c"], "en") == "a, b and c"
    assert render.join_words(["8,192", "16,384"], "zh-TW") == "8,192 與 16,384"  # a space beside digits
    assert (
        render.join_words(["1（flash）", "2（cuDNN）"], "zh-TW") == "1（flash）與 2（cuDNN）"
    )  # none beside a bracket
    assert render.join_words(["手寫版", "math"], "zh-TW") == "手寫版與 math"
    assert render.join_words(["only"], "zh-TW") == "only"


def test_a_refusal_is_quoted_short_with_the_whole_message_on_hover() -> None:
    reason = (
        "Expected query, key and value to all be of dtype: {Half, BFloat16}. Got Query dtype: float, "
        "Key dtype: float, and Value dtype: float instead."
    )
    html = render.reason_html(reason)
    assert html.startswith('<q class="attn-reason" lang="en" title="Expected query')
    assert ">Expected query, key and value to all be of dtype: {Half, BFloat16}.</q>" in html
    long = render.reason_html("x " * 200)
    assert long.endswith("…</q>") and len(long.split(">", 1)[1]) < 130
    assert "&lt;script&gt;" in render.reason_html("<script>alert(1)</script>")


def test_pytorchs_no_viable_backend_preamble_is_not_the_reason() -> None:
    cpu = (
        "RuntimeError: No viable backend for scaled_dot_product_attention was found. This is likely due to "
        "turning off both the math kernel and the fused kernels. | EFFICIENT_ATTENTION has no CPU "
        "implementation in torch 2.13.0+cpu (SDPA on CPU offers MATH and FLASH_ATTENTION)"
    )
    assert views.short_reason(cpu).startswith("EFFICIENT_ATTENTION has no CPU implementation")


def test_drift_is_shown_for_each_case_in_both_languages() -> None:
    from attn_examples.claims.check import DriftReport

    cases = {
        "none": (DriftReport("snapshots/x", None, []), False, "No drift", "沒有漂移"),
        "found": (
            DriftReport("snapshots/x", None, ["sdpa_flash: kernels 1 in the baseline, 2 here", "<b>"]),
            False,
            "Drift: 2 finding(s)",
            "漂移：2 項",
        ),
        "unlike": (
            DriftReport("snapshots/x", "configuration differs (dtype …)", []),
            False,
            "Not compared with the baseline",
            "未與基準比對",
        ),
        "itself": (
            DriftReport("snapshots/x", None, []),
            True,
            "This build renders the baseline",
            "這次建置呈現的就是基準",
        ),
        "no baseline": (None, False, "No baseline to compare with", "沒有可比對的基準"),
    }
    for name, (report, is_baseline, en, zh) in cases.items():
        assert en in claims_report.drift_block(report, is_baseline, "x", "en"), name
        assert zh in claims_report.drift_block(report, is_baseline, "x", "zh-TW"), name
    found = claims_report.drift_block(cases["found"][0], False, "x", "en")
    assert '<ul lang="en"><li>sdpa_flash: kernels 1 in the baseline, 2 here</li><li>&lt;b&gt;</li></ul>' in found
    assert "admonition failure" in found


def test_an_unsure_claim_reads_as_undecided_with_its_interval() -> None:
    from attn_examples.claims.check import Claim, Verdict
    from attn_examples.snapshot.uncertainty import Interval

    claim = Claim(
        id="x",
        statement={"en": "A is faster than B.", "zh-TW": "A 比 B 快。"},
        metric="ratio.sdpa_flash.sdpa_cudnn.device_us",
        relation=">",
        expected=1.0,
        kind="observation",
    )
    verdict = Verdict(claim, "unsure", 1.02, "", Interval(0.98, 1.07, 12, True))
    en = claims_report.claim_undecided(verdict, "en")
    assert en.startswith("This measurement cannot settle our claim “A is faster than B.”") and "0.98×–1.07×" in en
    zh = claims_report.claim_undecided(verdict, "zh-TW")
    assert "我們的主張「A 比 B 快」" in zh and "0.98×–1.07×" in zh
    inline = claims_report.claim_inline(verdict, "GPU", "en")
    assert "(95%: 0.98×–1.07×)" in inline and "<sup>?</sup>" in inline
    ranked = Verdict(
        Claim(
            id="y",
            statement={"en": "s.", "zh-TW": "s。"},
            metric="fastest.device_us",
            relation="==",
            expected="sdpa_cudnn",
            kind="observation",
        ),
        "unsure",
        "sdpa_cudnn",
        "",
        frozenset({"sdpa_cudnn", "sdpa_flash"}),
    )
    assert "could be" in claims_report.claim_undecided(ranked, "en")


def test_a_count_agrees_with_its_noun_in_both_languages():
    """ "1 kernels" and "activities (1, …)" were on the pages: a counted noun is written once, in agreement."""
    from attn_examples.render.i18n import NOUNS, counted

    assert counted("en", "kernel", 1) == "1 kernel" and counted("en", "kernel", 5) == "5 kernels"
    assert counted("en", "memcpy", 1) == "1 memory copy" and counted("en", "block", 1024, "1,024") == "1,024 blocks"
    assert counted("zh-TW", "kernel", 5) == "5 個 kernel" and counted("zh-TW", "memset", 1) == "1 次 memset"
    assert set(NOUNS["en"]) == set(NOUNS["zh-TW"])


def test_a_page_writes_a_count_with_its_noun():
    from pathlib import Path

    from attn_examples.site import build as site
    from attn_examples.snapshot.schema import load_snapshot

    m = site.BuildMeasurement(
        load_snapshot(Path(__file__).resolve().parents[1] / "snapshots" / "nvidia-h200"), False, 0.0
    )
    assert m.value("sdpa_flash.kernels | kernel", "en") == "1 kernel"
    assert m.value("naive.kernels | kernel", "zh-TW") == "5 個 kernel"


def test_a_regex_argument_with_a_bar_is_not_a_counted_noun():
    """`main_name_match[(?:rf|gmem)]` holds a `|` of its own: only ` | <noun>` after the key counts."""
    from attn_examples.site.build import _COUNTED

    assert _COUNTED.match("sdpa_efficient.main_name_match[(?<=_)(?:rf|gmem)(?=_)]") is None
    m = _COUNTED.match("sdpa_flash.kernels | kernel")
    assert m is not None and (m.group("key"), m.group("noun")) == ("sdpa_flash.kernels", "kernel")


def test_a_baseline_of_another_configuration_says_what_a_reader_can_do() -> None:
    """`accept` refuses another configuration (and --force would replace the published baseline): the box
    says what can be done instead, in the page's language, after the check's words on what differs."""
    from pathlib import Path

    from attn_examples.claims import check as claims
    from attn_examples.snapshot.schema import load_snapshot, snapshot_from_dict

    base = load_snapshot(Path(__file__).resolve().parents[1] / "snapshots" / "nvidia-h200")
    data = base.to_dict()
    data["config"]["seq_len"] = 2048
    report = claims.drift_report(snapshot_from_dict(data), base, "snapshots/nvidia-h200")
    assert (
        report.unlike_kind == "config"
        and report.difference == "configuration differs (seq_len 1024 in the baseline, 2048 here)"
    )
    assert report.unlike is not None and report.unlike.endswith("--to snapshots/<new folder>)")
    en = claims_report.drift_block(report, False, "nvidia-h200", "en")
    zh = claims_report.drift_block(report, False, "nvidia-h200", "zh-TW")
    assert "--to snapshots/&lt;new folder&gt;</code>" in en and "獨立的快照" in zh
    assert en.count("<q ") == 1 and "accept" not in en.split("<q ", 1)[1].split("</q>", 1)[0]


def test_an_intervals_ends_that_round_alike_get_more_digits():
    """ "95% interval from the timing's blocks: 1.13×–1.13×" (1.131–1.134) read as no interval at all."""
    from attn_examples.render.blocks import format_interval

    assert format_interval("ratio.naive.naive_inplace.device_us", 1.1312, 1.1344) == "1.131×–1.134×"
    assert format_interval("ratio.sdpa_math.naive_inplace.device_us", 3.7301, 3.7302) == "3.7301×–3.7302×"
    assert format_interval("ratio.sdpa_cudnn.sdpa_flash.host_us", 0.67, 2.4) == "0.67×–2.40×"  # apart already
    assert format_interval("naive.device_us", 1234.1, 1234.4) == "1,234.1 µs–1,234.4 µs"
    assert format_interval("naive.device_us", 65.91, 65.94) == "65.91 µs–65.94 µs"


def test_a_time_column_keeps_one_unit() -> None:
    from attn_examples.render.blocks import fmt_us_column

    assert fmt_us_column([943.0, 60.5, None]) == ["943 µs", "60.5 µs", "–"]
    column = fmt_us_column([943.0, 16_700.0, 8.2])
    assert all(cell.endswith(" ms") for cell in column), column
    assert column == ["0.943 ms", "16.7 ms", "0.008 ms"]
