"""Chinese wraps between words: a one-character word never stands alone between two break points."""

from __future__ import annotations

import re

import pytest

from attn_examples.render import blocks, cjk

pytest.importorskip("jieba")


def _units(marked: str) -> list[str]:
    """The pieces a line may break between: <wbr> and ordinary spaces."""
    return [u for u in re.split(r"<wbr>| ", marked) if u]


@pytest.mark.parametrize(
    "text",
    ["每次呼叫的裝置時間", "每次呼叫的記憶體峰值", "相對 float64 的誤差", "Kernel 數", "名稱看不出來", "1 個 kernel"],
)
def test_no_piece_between_break_points_is_one_chinese_character(text: str) -> None:
    marked = str(cjk.words(text))
    assert "<wbr>" in marked or "&nbsp;" in marked or " " in marked, marked
    for unit in _units(marked):
        plain = unit.replace("&nbsp;", " ")
        assert not re.fullmatch(r"[\u4e00-\u9fff]", plain), (text, marked)
    assert re.sub(r"<wbr>", "", marked).replace("&nbsp;", " ") == text


def test_words_stay_whole_and_text_without_chinese_is_only_escaped() -> None:
    assert "時<wbr>間" not in str(cjk.words("每次呼叫的裝置時間"))
    assert "佔<wbr>用率" not in str(cjk.words("佔用率估計"))
    assert str(cjk.words("a < b")) == "a &lt; b"


def test_a_chinese_table_marks_its_headers_and_an_english_one_does_not() -> None:
    zh = blocks.html_table(["實作", "每次呼叫的裝置時間"], [["手寫版", "1 µs"]], lang="zh-TW")
    en = blocks.html_table(["Variant", "Device time per call"], [["naive", "1 µs"]], lang="en")
    assert "呼叫的<wbr>裝置時間" in zh and "<wbr>" not in en
