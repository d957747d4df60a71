"""What a statement rests on: carried from the template to the HTML, and held to the measurement.

The first tests follow the pieces (tokens in the rendered Markdown, statements in the HTML, the
rules); the last plant each kind of false statement the issue found on real committed snapshots and
see the check refuse it, and leave the same statement alone where it is true.
"""

from __future__ import annotations

import re
from pathlib import Path

import markdown
import pytest

from attn_examples.claims import evidence as rules
from attn_examples.render import evidence, prose
from attn_examples.site import build as site
from attn_examples.site import pages
from attn_examples.snapshot.schema import load_snapshot

REPO = Path(__file__).resolve().parents[1]
SNAPSHOTS = REPO / "snapshots"


def _measurement(name: str) -> site.BuildMeasurement:
    return site.BuildMeasurement(load_snapshot(SNAPSHOTS / name), False, 0.0)


class _Facts:
    """A measurement of claims alone, for the template's side."""

    def __init__(self, statuses: dict[str, str]) -> None:
        self.statuses = statuses

    def claim_status(self, claim_id: str) -> str:
        return self.statuses[claim_id]

    def has(self, what: str) -> bool:
        return what == "counters"

    def device_kind(self) -> str:
        return "cuda"

    def dtype(self) -> str:
        return "bfloat16"

    def source(self) -> str:
        return "committed"


def _items(text: str) -> list[list[str]]:
    """The items of each token, token by token."""
    return [m.group(1).split(evidence.SEP) for m in evidence.TOKEN.finditer(text)]


# ---- the template's side ----------------------------------------------------------------------------


def test_kept_lines_carry_their_branches_and_what_was_passed_over():
    source = "Intro. {% general %}\n\n{% if holds a %}\nA one.\nA two.\n{% elif fails a %}\nNot a.\n{% endif %}\n"
    out = prose.render(source, _Facts({"a": "fail"}), str, evidence_tokens=True)
    assert _items(out) == [["general"], ["fails a", "not holds a"]]
    assert "A one" not in out and evidence.strip(out).strip().endswith("Not a.")


def test_nested_branches_and_shown_claims_add_up():
    source = (
        "{% if has counters %}\n{% if holds a %}It {{ claim.a }} and {{ claim.b.undecided }}.{% endif %}\n{% endif %}\n"
    )
    out = prose.render(source, _Facts({"a": "pass", "b": "unsure"}), lambda key: "V", evidence_tokens=True)
    found = [item for items in _items(out) for item in items]
    assert "shows a" in found and "undecided b" in found
    assert ["has counters", "holds a"] in _items(out)


def test_no_token_lands_in_code_a_heading_or_an_admonition_title():
    source = '{% if holds a %}\n## A heading\n\n```python\ncode()\n```\n\n!!! note "Title"\n    Body.\n{% endif %}\n'
    out = prose.render(source, _Facts({"a": "pass"}), str, evidence_tokens=True)
    lines = out.split("\n")
    heading = next(line for line in lines if line.startswith("## "))
    code = next(line for line in lines if line.startswith("code("))
    title = next(line for line in lines if line.startswith("!!!"))
    body = next(line for line in lines if "Body." in line)
    assert evidence.OPEN not in heading + code + title
    assert _items(body) == [["holds a"], ["holds a"]]  # its own, and the title's moved into it


def test_a_declaration_alone_on_its_line_is_refused():
    with pytest.raises(prose.ProseError, match="general"):
        prose.render("Text.\n{% general %}\n", _Facts({}), str, evidence_tokens=True)
    with pytest.raises(prose.ProseError, match="rests"):
        prose.render("Text {% rests %}.\n", _Facts({}), str, evidence_tokens=True)


def test_declarations_are_part_of_the_skeleton_the_languages_share():
    en = prose.structure("One. {% general %}\n\n{% if holds a %}Two {{ x }}. {% rests b %}{% endif %}\n")
    zh = prose.structure("一。{% general %}\n\n{% if holds a %}二 {{ x }}。{% rests b %}{% endif %}\n")
    assert en == zh and "general" in en and any("rests b" in line for line in en)
    assert en != prose.structure("One.\n\n{% if holds a %}Two {{ x }}. {% rests b %}{% endif %}\n")


# ---- the HTML's side --------------------------------------------------------------------------------


def _html(text: str) -> str:
    return markdown.markdown(text, extensions=pages.MARKDOWN_EXTENSIONS)


def test_a_paragraph_inside_a_list_item_or_an_admonition_speaks_for_it():
    tok = evidence.token
    text = (
        f"Lead {tok(['general'])}\n\n- item one {tok(['holds a'])}\n- item two\n\n"
        f'!!! note "T"\n    First.\n\n    Second {tok(["fails b"])}\n'
    )
    html, statements = evidence.attach(_html(text))
    kinds = [(s.kind, s.own) for s in statements]
    assert kinds == [("p", ["general"]), ("li", ["holds a"]), ("li", []), ("admonition", ["fails b"])]
    assert evidence.OPEN not in html and evidence.CLOSE not in html
    assert html.count('data-rests-on="') == 3


def test_a_declaration_on_a_box_covers_what_lies_inside_it():
    text = f'??? note "Answer"\n    From the article: {evidence.token(["general"])}\n\n    - one\n    - two\n'
    _, statements = evidence.attach(_html(text))
    items = [s for s in statements if s.kind == "li"]
    assert len(items) == 2 and all(s.inherited == ["general"] and not s.own for s in items)
    assert rules.problems(statements, {}) == []


def test_the_mark_goes_after_the_last_words_and_the_attribute_is_escaped():
    text = f"Words {evidence.token(['has sdpa_flash.main_name_match[(?<=a)b]', 'holds a'])}\n"
    html, _ = evidence.attach(_html(text), mark=lambda s: "<MARK>")
    assert html.endswith("Words<MARK></p>")
    assert 'data-rests-on="has sdpa_flash.main_name_match[(?&lt;=a)b]; holds a"' in html


def test_measured_blocks_and_code_are_not_prose():
    html = (
        '<p data-rests-on="measured">A caption.</p><table><tr><td><p>cell</p></td></tr></table>'
        "<pre><code>x</code></pre><figure><p>inside</p><figcaption>Fig.</figcaption></figure>"
    )
    _, statements = evidence.attach(html)
    assert [(s.kind, s.text) for s in statements] == [("p", "A caption."), ("figcaption", "Fig.")]
    assert rules.problems(statements, {}) == [
        "“Fig.” declares nothing: rest it on a claim (a branch, {{ claim.x }}, {% rests x %}) or add {% general %}"
    ]


# ---- the rules, on planted statements and real measurements -----------------------------------------


def _problems(source: str, snapshot: str, lang: str = "en") -> list[str]:
    return pages.evidence_problems(source, _measurement(snapshot), lang, f"{lang}/planted.md")


def test_a_statement_that_declares_nothing_is_refused():
    assert any("declares nothing" in p for p in _problems("The GPU runs {{ naive.kernels }} kernels.\n", "nvidia-h200"))
    assert _problems("The GPU runs {{ naive.kernels }} kernels. {% general %}\n", "nvidia-h200") == []


def test_a_branch_on_a_fact_alone_does_not_declare():
    source = "{% if device cuda %}\nThe longest kernel is at the top.\n{% endif %}\n"
    assert any("name no claim" in p for p in _problems(source, "nvidia-h200"))


# The cuDNN page said "PyTorch knows this: an un-pinned SDPA call already runs CUDNN_ATTENTION" on the
# default picking cuDNN alone, where another backend was the fastest: a sentence that says two things
# rests on both.
TWO_THINGS = (
    "{% if holds auto-picks-cudnn %}\nAn un-pinned call already gets the fastest kernel, "
    "{{ claim.auto-picks-cudnn }}. {% rests auto-is-fastest %}\n{% endif %}\n"
)


def test_a_sentence_that_says_two_things_rests_on_both():
    found = _problems(TWO_THINGS, "nvidia-h200-float16-b64-s128-d32")
    assert any("rests on claim 'auto-is-fastest', which fails here" in p for p in found)
    assert _problems(TWO_THINGS, "nvidia-h200") == []


# The flash page gave "the age of the design" as the reason flash lost, where the winner was itself
# an sm80 mma.sync kernel: an explanation rests on claims that test it, not only on the outcome.
AGE_OF_DESIGN = (
    "The likely reason cuDNN wins is the age of flash's design: flash uses `mma.sync` and cuDNN the newer "
    "instructions. {% rests flash-no-wgmma cudnn-uses-wgmma cudnn-fastest %}\n"
)


def test_an_explanation_rests_on_what_tests_it():
    found = _problems(AGE_OF_DESIGN, "nvidia-h200-float16-b64-s128-d32")
    assert any("cudnn-fastest" in p and "fails here" in p for p in found)
    assert _problems(AGE_OF_DESIGN, "nvidia-h200") == []


# The math page said "The slowest variant measured here is math" in the else of a timed claim that
# was undecided: an else speaks for a claim that failed, and an undecided one did not.
SLOWEST = (
    "{% if holds math-slowest %}\nMath is the slowest. {% general %}\n{% else %}\n"
    "The slowest variant measured here is {{ slowest.device_us }}. {% general %}\n{% endif %}\n"
)


def test_the_else_of_an_undecided_claim_is_refused():
    assert any("math-slowest" in p and "undecided here" in p for p in _problems(SLOWEST, "cpu-float32"))
    assert _problems(SLOWEST, "cpu") == []


def test_a_claim_shown_undecided_needs_its_undecided_words():
    source = "Math takes {{ claim.math-slowdown }} as long as naive in place.\n"
    assert any("states claim 'math-slowdown' as decided" in p for p in _problems(source, "cpu-float32"))
    honest = (
        "Math takes {{ claim.math-slowdown }} as long as naive in place"
        "{% if unsure math-slowdown %}, a ratio this measurement cannot settle{% endif %}.\n"
    )
    assert _problems(honest, "cpu-float32") == []


# cuDNN's host cost: "1.53× (95%: 0.67×–2.40×)? as much, an interval that reaches across the line of a
# clear gap: this measurement cannot decide" named the 1.5× line only, where the interval reached below
# 1× too (and "1.05×✗ as much, short of the clear gap" where 0.99× was in it): whether cuDNN costs the
# host more at all was undecided as well. A weaker claim on the same ratio, undecided, is said so.
CLEAR_GAP_ONLY = (
    "cuDNN costs the host {{ claim.cudnn-host-repeat-clear-gap }} what flash's costs"
    "{% if unsure cudnn-host-repeat-clear-gap %}, across the line of a clear gap{% endif %}.\n"
)


def test_a_weaker_claim_on_the_same_ratio_left_undecided_is_said_so():
    for snapshot in ("nvidia-h200-float16", "nvidia-h200-b1-h8-s512"):  # both lines crossed; the clear gap failed
        found = _problems(CLEAR_GAP_ONLY, snapshot)
        assert any("weaker 'cudnn-host-repeat-above-flash'" in p for p in found), snapshot
        honest = CLEAR_GAP_ONLY.replace(
            "{% endif %}", "{% endif %}{% if unsure cudnn-host-repeat-above-flash %}, and more at all{% endif %}"
        )
        assert _problems(honest, snapshot) == [], snapshot
    assert _problems(CLEAR_GAP_ONLY, "nvidia-h200") == []  # the direction held there
    claims = {v.claim.id: v.claim for v in _measurement("nvidia-h200").verdicts.values()}
    gap, above = claims["cudnn-host-repeat-clear-gap"], claims["cudnn-host-repeat-above-flash"]
    assert rules.weaker(gap, above) and not rules.weaker(above, gap)
    assert not rules.weaker(claims["math-slowdown"], claims["math-slowdown-below-article"])  # the other way


# Occupancy: "That reading is wrong" about a zero that was honest, a grid of one or two blocks.
READING_WRONG = (
    "{% if holds cudnn-zero-occupancy-reading %}\nThat reading is wrong: the kernel keeps warps resident. "
    "{% rests cudnn-grid-fills-sms %}\n{% endif %}\n"
)


def test_an_occupancy_verdict_rests_on_a_grid_that_fills_the_gpu():
    assert any("cudnn-grid-fills-sms" in p for p in _problems(READING_WRONG, "nvidia-h200-b1-h2-s128"))
    assert _problems(READING_WRONG, "nvidia-h200") == []


# A CPU read as a GPU: a statement about kernels rests on a claim that does not apply on a CPU.
def test_a_gpu_statement_on_a_cpu_is_refused():
    source = "Flash's kernel issues no `wgmma` instructions on this GPU. {% rests flash-no-wgmma %}\n"
    assert any("flash-no-wgmma" in p and "does not apply" in p for p in _problems(source, "cpu-float32"))
    assert _problems(source, "nvidia-h200") == []


def test_both_languages_are_held_alike():
    zh = "{% if holds auto-picks-cudnn %}\n未指定後端的呼叫已經拿到最快的 kernel：{{ claim.auto-picks-cudnn }}。{% rests auto-is-fastest %}\n{% endif %}\n"
    assert any("auto-is-fastest" in p for p in _problems(zh, "nvidia-h200-float16-b64-s128-d32", "zh-TW"))


# ---- the built site --------------------------------------------------------------------------------

_ARTICLE = re.compile(r'<article class="md-content__inner md-typeset">(.*?)</article>', re.S)
_POP = re.compile(r'<span class="attn-ev-pop"[^>]*>(.*?)</span></span>', re.S)


def _article(path: Path) -> str:
    match = _ARTICLE.search(path.read_text(encoding="utf-8"))
    assert match, path
    return match.group(1)


def _measured_pages() -> list[str]:
    return [name for name in pages.page_names() if prose.is_measured((pages.DOCS / "en" / name).read_text())]


@pytest.mark.parametrize("name", ["", "nvidia-h200-b1-h2-s128", "cpu-float32"])
def test_every_statement_of_a_built_page_carries_its_basis(sites, name):
    """Asserted on the built HTML: no token is left, every statement of a measured page declares what it
    rests on (its own or its box's), and the marks open onto claims with their verdicts in the page's
    language."""
    marks = 0
    for lang in ("en", "zh-TW"):
        for page in _measured_pages():
            stem = Path(page).stem
            path = (
                sites.site(name) / ("" if lang == "en" else "zh-TW") / ("" if stem == "index" else stem) / "index.html"
            )
            body = _article(path)
            assert evidence.OPEN not in body and evidence.CLOSE not in body and evidence.SEP not in body, path
            _, statements = evidence.attach(body)
            bare = [s.text[:80] for s in statements if s.text and not s.items]
            assert not bare, f"{lang}/{page} @ {name or 'top'}: {bare}"
            marks += body.count('class="attn-ev-mark"')
            for pop in _POP.findall(body):
                words = ("holds", "fails", "undecided", "observed") if lang == "en" else ("成立", "無法判定", "觀察到")
                assert any(w in pop for w in words), (lang, page, pop[:200])
    assert marks > 40, marks  # a CPU has the fewest: its claims on kernels do not apply, and leave no mark


def test_statements_after_a_drawing_are_found_where_they_are():
    """The insides of drawings and code are skipped (they are most of a page), and the offsets of what
    follows still land in the right element."""
    svg = "<svg>\n" + "<g>\n<path/>\n</g>\n" * 50 + "</svg>"
    html = f"<figure>{svg}<figcaption>F</figcaption></figure>\n<pre><code>a\nb\n</code></pre>\n<p>After {evidence.token(['general'])}</p>"
    out, statements = evidence.attach(html, mark=lambda s: "<M>")
    assert [(s.kind, s.own) for s in statements] == [("figcaption", []), ("p", ["general"])]
    assert out.endswith('<p data-rests-on="general">After<M></p>') and svg in out


def test_a_named_ranking_the_timings_cannot_single_out_is_refused():
    """On the CPU at float32 math and the naive versions overlap: "the slowest is X" names one of several."""
    source = "The slowest variant measured here is {{ slowest.device_us }}. {% general %}\n"
    assert any("cannot single out" in p for p in _problems(source, "cpu-float32"))
    assert _problems(source, "nvidia-h200") == []


def test_a_stream_ranking_is_held_to_its_own_intervals():
    """On float16 the GPU singles out cuDNN but a stream of calls allows cuDNN or flash: naming the
    cheapest call in a stream is refused there, not checked against the device-time ranking."""
    source = "The cheapest call in a stream is {{ fastest.stream_us }}'s. {% general %}\n"
    assert any("cannot single out" in p for p in _problems(source, "nvidia-h200-float16"))
    assert _problems(source, "nvidia-h200-b1-h8-s512") == []


def test_an_undecided_regime_says_so():
    """flash on float16 may be launch-bound or on the compute side: a regime shown as a value names both."""
    measurement = _measurement("nvidia-h200-float16")
    assert (
        measurement.value("sdpa_flash.regime", "en")
        == "undecided between launch-bound and the compute side of the roofline"
    )
    assert measurement.value("sdpa_math.regime", "en") == "memory-bound at 55.8% of its roof"


def test_the_space_before_an_inline_branch_stays():
    """ "That reading is {% if … %}wrong" must not become "iswrong" when the tokens go."""
    source = (
        "{% if holds a %}\nThat reading is {% if holds b %}wrong{% endif %}: see. {% general %} Done.\n{% endif %}\n"
    )
    out = prose.render(source, _Facts({"a": "pass", "b": "pass"}), str, evidence_tokens=True)
    html, _ = evidence.attach(_html(out))
    assert "That reading is wrong: see. Done." in html


# "only 6.3%✗ reaches HBM", "The GPU runs 2✗ kernels where the article saw one": a ✗ on a value the
# sentence itself says falls short of its claim read as "this value is wrong". Where the text says the
# claim fails, the value is asked for as `claim.x.denied` and its mark says the sentence is borne out.
def test_a_value_the_sentence_says_fails_its_claim_is_marked_as_borne_out():
    facts = _Facts({"x": "fail", "y": "fail", "z": "pass"})
    source = (
        "Only {{ claim.x }} reaches HBM{% if fails x %}, a floor{% endif %}.\n\n"  # before the branch, same paragraph
        "{% if holds x %}\nMost, {{ claim.x }}.\n{% else %}\nFew, {{ claim.x }}.\n{% endif %}\n\n"  # else of holds
        "Listed: {{ claim.x }} and {{ claim.y }}{% if fails x or fails y %}: floors{% endif %}.\n\n"  # each alternative holds
        "Either: {{ claim.x }} and {{ claim.z }}{% if fails z or fails x %}: floors{% endif %}.\n\n"  # only x's holds
        "Other: {{ claim.x }}{% if fails x and fails z or holds z %}: fine{% endif %}.\n\n"  # x's alternative does not
        "{% if fails x and holds z %}\nBelow, {{ claim.x }}; {{ claim.z }}.\n{% endif %}\n\n"
        "Next paragraph: {{ claim.x }}.\n"
    )
    out = prose.render(source, facts, lambda key: f"[{key}]")
    assert "Only [claim.x.denied] reaches HBM, a floor." in out
    assert "Few, [claim.x.denied]." in out
    assert "Listed: [claim.x.denied] and [claim.y.denied]: floors." in out
    assert "Either: [claim.x.denied] and [claim.z]: floors." in out
    assert "Other: [claim.x]: fine." in out
    assert "Below, [claim.x.denied]; [claim.z]." in out
    assert "Next paragraph: [claim.x]." in out
    tokens = prose.render("{% if fails x %}\nFew, {{ claim.x }}.\n{% endif %}\n", facts, str, evidence_tokens=True)
    assert any("shows x" in items for items in _items(tokens))
    # on a measurement: naive's written share at the tiny shape, where almost nothing reaches HBM
    page = pages.render_page(
        (REPO / "docs" / "en" / "naive.md").read_text(encoding="utf-8"),
        _measurement("nvidia-h200-b1-h2-s128"),
        "en",
        "en/naive.md",
    )
    shown = re.search(r'<span class="attn-claim attn-claim-denied" title="([^"]*)">0%<sup>(.)</sup>', page)
    assert shown and shown.group(2) == "✓" and shown.group(1).endswith("not observed here, as the sentence says")
    assert "<sup>✗</sup>" not in page.split("reaches HBM within their replays")[0].rsplit("\n\n", 1)[-1]
    # and where the branch is on either of two claims failing: the fused kernels' written shares
    page = pages.render_page(
        (REPO / "docs" / "en" / "counters.md").read_text(encoding="utf-8"),
        _measurement("nvidia-h200"),
        "en",
        "en/counters.md",
    )
    floors = page.split("These bytes are floors")[1].split("\n\n")[0]
    assert floors.count("<sup>✓</sup>") == 2 and "<sup>✗</sup>" not in floors
