"""Page templates: branches keep exactly the text that is true of the measurement."""

from __future__ import annotations

import pytest

from attn_examples.render import prose


class Facts:
    """A measurement reduced to what conditions ask: claim verdicts, sections, device, dtype."""

    def __init__(self, claims=None, has=(), device="cuda", dtype="bfloat16", source="committed"):
        self.claims, self._has, self._device, self._dtype = claims or {}, set(has), device, dtype
        self._source = source

    def claim_status(self, claim_id):
        return self.claims[claim_id]

    def has(self, what):
        return what in self._has

    def device_kind(self):
        return self._device

    def dtype(self):
        return self._dtype

    def source(self):
        return self._source


PAGE = """Intro {{ a }}.
{% if holds fast %}
Fast: {{ b }}.
{% elif fails fast %}
Slow: {{ c }}.
{% endif %}
Inline {% if has counters %}with counters{% else %}without counters{% endif %} here.
{% if device cpu %}
CPU text.
{% elif dtype half and not holds fast %}
Half and not fast.
{% endif %}
End.
"""


def render(facts):
    return prose.render(PAGE, facts, lambda key: f"<{key}>")


def test_a_holding_claim_keeps_its_branch_and_drops_the_other():
    out = render(Facts({"fast": "pass"}))
    assert "Fast: <b>." in out and "Slow" not in out and "<c>" not in out


def test_a_failing_claim_keeps_the_other_branch():
    out = render(Facts({"fast": "fail"}))
    assert "Slow: <c>." in out and "Fast" not in out and "Half and not fast." in out


def test_a_claim_that_does_not_apply_removes_both_branches_without_a_trace():
    out = render(Facts({"fast": "n/a"}))
    assert "Fast" not in out and "Slow" not in out
    assert out.startswith("Intro <a>.\nInline") and "\n\n" not in out  # tag lines leave no blank lines


def test_inline_branches_and_else():
    assert "Inline with counters here." in render(Facts({"fast": "pass"}, has={"counters"}))
    assert "Inline without counters here." in render(Facts({"fast": "pass"}))


def test_device_and_dtype_conditions():
    assert "CPU text." in render(Facts({"fast": "pass"}, device="cpu"))
    assert "Half and not fast." not in render(Facts({"fast": "fail"}, dtype="float32"))


def test_values_are_asked_only_for_the_kept_text():
    asked = []
    prose.render(PAGE, Facts({"fast": "pass"}), lambda key: asked.append(key) or "")
    assert asked == ["a", "b"]


def test_a_space_beside_a_value_goes_only_where_chinese_meets_chinese():
    values = {"who": "手寫版", "name": "efficient", "code": "<code>x</code>"}
    out = prose.render(
        "而 {{ who }} 至少；而 {{ name }} 至少；是 {{ code }} 的；is {{ who }} here", Facts(), values.__getitem__
    )
    assert out == "而手寫版至少；而 efficient 至少；是 <code>x</code> 的；is 手寫版 here"


@pytest.mark.parametrize(
    "text, message",
    [
        ("{% if holds x %}open", "never closed"),
        ("{% endif %}", "without an open"),
        ("{% if holds x %}{% else %}{% else %}{% endif %}", "a second {% else %}"),
        ("{% if holds x %}{% else %}{% elif holds x %}{% endif %}", "elif %} after {% else"),
        ("{% if quickly x %}{% endif %}", "cannot read condition"),
        ("{% if holds nope %}{% endif %}", "no claim 'nope'"),
        ("{% if device gpu %}{% endif %}", "device takes cuda or cpu"),
    ],
)
def test_a_malformed_template_names_the_line(text, message):
    with pytest.raises(
        prose.ProseError,
        match="page.md:1: .*" + message.replace("{", r"\{").replace("}", r"\}").replace("(", r"\(").replace(")", r"\)"),
    ):
        prose.render(text, Facts({"x": "pass"}), str, where="page.md")


def test_an_unknown_claim_fails_even_in_a_branch_not_taken():
    with pytest.raises(prose.ProseError, match="no claim 'typo'"):
        prose.render("{% if holds x %}a{% elif holds typo %}b{% endif %}", Facts({"x": "pass"}), str)


def test_the_skeleton_compares_languages_by_branches_values_and_blocks():
    en = '{% if holds x %}It took {{ t }} and {{ u }}.{% endif %}\n```python exec="1"\nfrom attn_examples.site.build import en as site\n```\n'
    zh = '{% if holds x %}{{ u }} 之後花了 {{ t }}。{% endif %}\n```python exec="1"\nfrom attn_examples.site.build import zh_TW as site\n```\n'
    assert prose.structure(en) == prose.structure(zh)
    assert prose.structure(en) != prose.structure(zh.replace("{{ u }}", "{{ v }}"))
    assert prose.structure(en) != prose.structure(zh.replace("holds x", "fails x"))


@pytest.mark.parametrize(
    "status, holds, fails, unsure, applies",
    [
        ("pass", True, False, False, True),
        ("fail", False, True, False, True),
        ("unsure", False, False, True, True),
        ("n/a", False, False, False, False),
    ],
)
def test_each_predicate_on_each_verdict(status, holds, fails, unsure, applies):
    facts = Facts({"x": status})
    assert prose.evaluate("holds x", facts) is holds
    assert prose.evaluate("fails x", facts) is fails
    assert prose.evaluate("unsure x", facts) is unsure
    assert prose.evaluate("applies x", facts) is applies
    assert prose.evaluate("not holds x", facts) is not holds
    assert prose.evaluate("holds x or fails x or unsure x", facts) is applies


def test_an_unsure_claim_keeps_only_its_own_branch():
    text = "{% if holds x %}A{% elif fails x %}B{% elif unsure x %}C{% endif %}"
    assert prose.render(text, Facts({"x": "unsure"}), lambda k: k) == "C"
    assert prose.render(text.replace("{% elif unsure x %}C", ""), Facts({"x": "unsure"}), lambda k: k) == ""


def test_no_space_is_left_between_chinese_characters_but_code_keeps_its_own():
    html = (
        "<p>主機端成本，\n  只有在比較大時。\nflash 與\ncuDNN</p><pre>第一行\n第二行</pre><p>之前，\n自己</p>"
        "<p><strong>完全不比。</strong> 不同；只 <em>寫</em> 了；以 <code>torch.randn</code> 產生</p>"
    )
    assert prose.join_wide_lines(html) == (
        "<p>主機端成本，只有在比較大時。\nflash 與\ncuDNN</p>"
        "<pre>第一行\n第二行</pre><p>之前，自己</p>"
        "<p><strong>完全不比。</strong>不同；只<em>寫</em>了；以 <code>torch.randn</code> 產生</p>"
    )
