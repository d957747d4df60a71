"""Chinese that wraps between words: break opportunities for the narrow places text is set in (no torch).

A browser breaks Chinese between any two characters, so a narrow table header splits 時間 into 時 / 間
and leaves one character alone on a line. Where Chinese is set narrow, the pages turn that off
(`word-break: keep-all`, docs/stylesheets/attn.css) and mark where a line may break instead: between
two words as jieba segments them (the same segmenter the search index uses), never next to a word of
one character, which joins its neighbour. Without jieba the text is returned escaped, unmarked.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Callable

from markupsafe import Markup, escape

from attn_examples.render import glossary

_CJK = re.compile(r"^[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+$")
_HAS_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")

# Words jieba's dictionary (mostly Simplified Chinese) splits, kept whole besides the glossary's terms.
_WORDS = ("手寫版", "理論值", "主機端", "峰值", "實作", "位元組", "頻寬", "對角線", "記憶體")


@functools.cache
def _segmenter() -> Callable[[str], list[str]] | None:
    try:
        import jieba  # type: ignore[import-untyped]
    except ImportError:
        return None
    jieba.setLogLevel(logging.WARNING)
    for word in (*glossary.zh_terms(), *_WORDS):
        jieba.add_word(word)
    return lambda text: list(jieba.cut(text))


def _is_cjk(token: str) -> bool:
    return bool(_CJK.match(token))


def words(text: str) -> Markup:
    """`text` escaped, with <wbr> between two Chinese words and a no-break space where an ordinary
    space would leave a one-character word alone; text without Chinese comes back only escaped."""
    segment = _segmenter()
    if segment is None or not _HAS_CJK.search(text):
        return escape(text)
    tokens = segment(text)
    n = len(tokens)
    # may_break[i]: a break is allowed between tokens[i - 1] and tokens[i]
    may_break = [False] + [_is_cjk(tokens[i - 1]) and _is_cjk(tokens[i]) for i in range(1, n)]
    glue_space = [False] * n
    for i, token in enumerate(tokens):
        if not (_is_cjk(token) and len(token) == 1):
            continue
        if i > 0 and _is_cjk(tokens[i - 1]):
            may_break[i] = False  # joins the word before it
        elif i + 1 < n and _is_cjk(tokens[i + 1]):
            may_break[i + 1] = False  # joins the word after it
        elif i > 0 and tokens[i - 1] == " ":  # no Chinese beside it: it holds to the word before it
            glue_space[i - 1] = True
        elif i + 1 < n and tokens[i + 1] == " ":  # or, first, to the word after it
            glue_space[i + 1] = True
    parts: list[Markup] = []
    for i, token in enumerate(tokens):
        if may_break[i]:
            parts.append(Markup("<wbr>"))
        parts.append(Markup("&nbsp;") if glue_space[i] else escape(token))
    return Markup("").join(parts)
