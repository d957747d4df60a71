"""No measured fact is typed into a page: the lint finds them, and the pages have none."""

from __future__ import annotations

import pytest

from attn_examples.claims import lint
from tests.conftest import REPO


@pytest.mark.parametrize(
    "typed, rule",
    [
        ("Flash takes 97 µs per call.", "number with a unit"),
        ("The forward launches 5 kernels.", "a count"),
        ("每次 forward 啟動 5 個 kernel。", "a count"),
        ("Each thread holds 255 registers.", "a count"),
        ("It is 2.8× slower.", "number with a unit"),
        ("A score matrix is 256 MiB.", "number with a unit"),
        ("at 1,024 tokens", "a count"),
        ("The GEMMs are `nvjet_sm90_tst_256x128` kernels.", "a kernel name"),
        ("cuDNN generated an sm90 kernel with knob_7.", "a kernel name"),
        ("It is launched with `cuLaunchKernelEx`.", "a launch API"),
        ("What the H200 ran", "a GPU's name"),
    ],
)
def test_the_lint_finds_a_typed_measurement(typed, rule):
    findings = lint.lint_text(f"# Page\n\nSome prose.\n\n{typed}\n", "docs/en/page.md")
    assert any(f.rule == rule and f.line == 5 for f in findings), findings


@pytest.mark.parametrize(
    "bound",
    [
        "Flash takes {{ sdpa_flash.device_us }} per call.",
        "The forward launches {{ claim.naive-five-kernels }} kernels.",
        "{% if holds cudnn-fastest %}cuDNN is the fastest.{% endif %}",
        "The article measured {{ article.device_us.sdpa_flash }} on its {{ article.gpu_short }}.",
        "```python\nx = torch.randn(8, 16, 1024, 64)  # 256 MiB\n```",
        "See [the paper](https://arxiv.org/abs/2407.08608) (Shah and Dao, 2024).",
        "## Registers against occupancy { #registers }",
    ],
)
def test_values_claims_quotes_code_and_links_are_not_findings(bound):
    assert lint.lint_text(f"{bound}\n", "docs/en/page.md") == []


def test_an_allowed_definition_passes_only_on_its_own_page():
    phrase = "`cuLaunchKernelEx`"
    assert lint.lint_text(f"Driver calls such as {phrase}.\n", "docs/en/method.md") == []
    assert lint.lint_text(f"Driver calls such as {phrase}.\n", "docs/en/naive.md")


def test_no_page_has_a_measured_fact_typed_in():
    findings = lint.lint(REPO / "docs")
    assert not findings, "\n".join(map(str, findings))


def test_about_says_what_the_lint_guarantees():
    """The sentence about what a person typed is true because this lint passes; it must stay there
    (on About, where how the pages are made is told)."""
    for lang, words in (("en", "typed"), ("zh-TW", "手動")):
        text = (REPO / "docs" / lang / "about.md").read_text(encoding="utf-8")
        assert "attn_examples/claims/lint.py" in text and words in text, lang


@pytest.mark.parametrize(
    "page, found",
    [
        ("{% if holds cudnn-fastest %}\nA\n{% elif fails cudnn-fastest %}\nB\n{% endif %}\n", True),
        ("{% if holds cudnn-fastest %}\nA\n{% elif fails cudnn-fastest %}\nB\n{% else %}\nC\n{% endif %}\n", True),
        (
            "{% if holds cudnn-fastest %}\nA\n{% elif fails cudnn-fastest %}\nB\n{% elif unsure cudnn-fastest %}\n"
            "{{ claim.cudnn-fastest.undecided }}\n{% endif %}\n",
            False,
        ),
        ("{% if holds cudnn-fastest %}\nA\n{% endif %}\n", False),  # speaks only when it holds
        ("Text {% if holds cudnn-fastest %}A{% elif fails cudnn-fastest %}B{% endif %}.\n", False),  # in a sentence
        ("{% if holds naive-one-memcpy %}\nA\n{% elif fails naive-one-memcpy %}\nB\n{% endif %}\n", False),  # exact
    ],
)
def test_a_paragraph_on_both_outcomes_of_a_timed_claim_must_say_what_it_says_when_unsure(page, found):
    findings = lint.lint_unsure(page, "page.md")
    assert bool(findings) is found, findings
    if found:
        assert findings[0].text == "{% elif unsure cudnn-fastest %}"
