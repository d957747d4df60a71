"""The Chinese pages use Taiwan's words, one term per concept (a glossary the tests hold them to)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

# a word a Chinese page must not use -> the word it uses instead (and why)
AVOID: dict[str, str] = {
    r"(?<!演)算法": "演算法",
    "數據": "數字 (a figure) or 資料 (data)",
    "變體": "實作 (a way of computing attention) or 變形 (a variation of the formula)",
    "反向傳播": "backward (the pass, as engineers say it beside forward)",
    "內存": "記憶體",
    "顯存": "GPU 記憶體",
    "線程": "執行緒",
    "寄存器": "暫存器",
    "默認": "預設",
    "信息": "資訊",
    "軟件": "軟體",
    "硬件": "硬體",
    "調用": "呼叫",
    "緩存": "快取",
    "代碼": "程式碼",
    "接口": "介面",
    "文檔": "文件",
    "優化": "最佳化",
    "運行": "執行",
    "封頂": "上限 (a cap), 所限 (capped by)",
    "灌大": "拉高",
    "簿記": "中繼資料操作 (bookkeeping on the host)",
    "向上取整": "無條件進位",
    "跳轉到": "前往",
    "這張硬體": "這張 GPU",
}


def _chinese_sources() -> list[Path]:
    return (
        sorted((REPO / "docs" / "zh-TW").rglob("*.md"))
        + sorted((REPO / "docs" / "zh-TW").rglob("*.ipynb"))
        + [REPO / "attn_examples" / "render" / "i18n.py"]
        + sorted((REPO / "attn_examples" / "claims.d").glob("*.yml"))
    )


@pytest.mark.parametrize("path", _chinese_sources(), ids=lambda p: str(p.relative_to(REPO)))
def test_chinese_text_uses_one_taiwanese_term_per_concept(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    found = [(word, instead) for word, instead in AVOID.items() if re.search(word, text)]
    assert not found, f"{path.name}: " + "; ".join(f"{w!r} -> {i}" for w, i in found)


def test_each_glossary_term_is_the_word_its_page_uses() -> None:
    """The glossary's Chinese term is written on the Chinese page it points to, and its English on the
    English one: the glossary names the site's words, not other ones."""
    from attn_examples.render.glossary import TERMS

    missing = []
    for term in TERMS:
        if term.zh not in (REPO / "docs" / "zh-TW" / term.page).read_text(encoding="utf-8"):
            missing.append(f"{term.zh} not on zh-TW/{term.page}")
        if term.en.lower() not in (REPO / "docs" / "en" / term.page).read_text(encoding="utf-8").lower():
            missing.append(f"{term.en} not on en/{term.page}")
    assert not missing, missing


def test_the_glossary_page_lists_every_term_in_both_languages() -> None:
    from attn_examples.render.glossary import TERMS
    from attn_examples.site.build import en, zh_TW

    for page in (en, zh_TW):
        table = page.glossary()
        for term in TERMS:
            assert f"**{term.en}**" in table or f"**{term.zh}**（{term.en}）" in table, (page.lang, term.en)
            assert term.zh in table, (page.lang, term.zh)
        assert table.count("](../") == len(TERMS)
