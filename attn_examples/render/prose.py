"""Page sources as templates over one measurement: branches and values (no torch).

A page's Markdown holds two kinds of markers:

- `{% if <condition> %} … {% elif <condition> %} … {% else %} … {% endif %}` keeps the text whose
  condition is true of this measurement and drops the rest. A tag alone on its line takes the line
  with it. Conditions (`and`, `or`, `not` combine them):
    `holds <claim>`   the claim applies here and holds (a timed one: with 95% confidence)
    `fails <claim>`   the claim applies here and does not hold (a timed one: with 95% confidence)
    `unsure <claim>`  a timed claim whose 95% interval straddles the statement: neither may be said
    `applies <claim>` the claim applies here (either way)
    `has <what>`      a section (counters, sweep, training, ceilings, limits), an available
                      variant (`has sdpa_flash`) or any metric key with a value here
    `device cuda|cpu`, `dtype bfloat16|float16|float32|half`
    `source committed|given|live`  where this build's measurement came from: a snapshot committed
                      with the site, one given to the build (ATTN_EXAMPLES_SNAPSHOT, `--snapshot`)
                      or one measured live; only a committed one can be rebuilt from a checkout
  A claim that does not apply is neither held nor failed: `{% if holds x %}A{% elif fails x %}B
  {% endif %}` shows nothing where x does not apply, which is how a sentence disappears rather
  than shows a dash.
- `{{ key }}` becomes a value, formatted by the caller; only the text that survived the branches is
  looked at, so a value that exists in one branch only is asked for only there. `{{ key | noun }}`
  writes a count with its noun in agreement ("1 kernel", "3 kernels"; 「3 個 kernel」:
  `attn_examples.render.i18n.NOUNS`).
- A claim shown where the text says it fails (`{{ claim.x }}` in the paragraph of a taken branch on
  `fails x`, or on an alternative of an `or` that needs `fails x` and holds here, or on the `else` of
  `holds x`: "only 6.3% reaches HBM") is asked for as
  `claim.x.denied`: its mark then says the sentence is borne out (✓), not that the value is wrong.
- `{% general %}` inside a statement (a paragraph, a list item, an admonition) declares it true of
  attention, of the article or of PyTorch whatever the measurement; `{% rests <claim> … %}` declares
  that it rests on those claims holding here. A statement inside a branch rests on the branch's
  conditions, and one that shows `{{ claim.<id> }}` on that claim, without a word written.

With `evidence=True` the rendered Markdown carries what each piece of text rests on as invisible
tokens (`attn_examples.render.evidence`): the conditions of the branches it lies in (and the negation
of the branches passed over before it), the claims it shows and its declarations. The page's HTML
turns them into each statement's `data-rests-on` and its mark.

The same function serves the build hook and the tests, which compare the branch structure of the
two languages of a page (`structure`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from attn_examples.render import evidence

TAG = re.compile(r"\{%\s*(if|elif|else|endif|general|rests)\b(.*?)%\}")
DECLARATIONS = ("general", "rests")
PLACEHOLDER = re.compile(r"\{\{\s*(.+?)\s*\}\}")
PREDICATES = ("holds", "fails", "unsure", "applies", "has", "device", "dtype", "source")
SOURCES = ("committed", "given", "live")


class ProseError(ValueError):
    """A malformed page template; the message names the line."""


class Facts(Protocol):
    """What conditions are evaluated against: one measurement and its verdicts."""

    def claim_status(self, claim_id: str) -> str: ...  # pass | fail | unsure | n/a; unknown id raises KeyError
    def has(self, what: str) -> bool: ...
    def device_kind(self) -> str: ...
    def dtype(self) -> str: ...
    def source(self) -> str: ...  # committed | given | live


@dataclass
class _Branch:
    condition: str | None  # None: the else branch
    line: int
    body: list = field(default_factory=list)


@dataclass
class _If:
    line: int
    branches: list[_Branch]


@dataclass
class _Declaration:
    """`{% general %}` or `{% rests <claim> … %}`: what the statement around it rests on."""

    items: tuple[str, ...]
    line: int


def _line_of(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def _tokens(text: str, where: str = "page"):
    """Text and tags in order; a tag alone on its line swallows the line (and its newline)."""
    pos = 0
    for match in TAG.finditer(text):
        start, end = match.start(), match.end()
        line_start = text.rfind("\n", 0, start) + 1
        line_end = text.find("\n", end)
        line_end = len(text) if line_end == -1 else line_end
        alone = not text[line_start:start].strip() and not text[end:line_end].strip()
        if alone and match.group(1) in DECLARATIONS:  # it would make a paragraph of its own, with no words
            raise ProseError(
                f"{where}:{_line_of(text, start)}: {{% {match.group(1)} %}} alone on its line: write it inside the "
                "statement it declares (after its last words)"
            )
        if alone:
            start, end = line_start, min(line_end + 1, len(text))
        if start > pos:
            yield ("text", text[pos:start], None)
        yield (match.group(1), match.group(2).strip(), _line_of(text, match.start()))
        pos = max(pos, end)
    if pos < len(text):
        yield ("text", text[pos:], None)


def parse(text: str, where: str = "page") -> list:
    """The template as a tree: strings and `_If` nodes."""
    root: list = []
    stack: list[tuple[list, _If | None]] = [(root, None)]
    for kind, payload, line in _tokens(text, where):
        body, node = stack[-1]
        if kind == "text":
            body.append(payload)
        elif kind in DECLARATIONS:
            body.append(_declaration(kind, payload, where, line))
        elif kind == "if":
            if not payload:
                raise ProseError(f"{where}:{line}: {{% if %}} without a condition")
            new = _If(line, [_Branch(payload, line)])
            body.append(new)
            stack.append((new.branches[0].body, new))
        elif node is None:
            raise ProseError(f"{where}:{line}: {{% {kind} %}} without an open {{% if %}}")
        elif kind == "elif":
            if node.branches[-1].condition is None:
                raise ProseError(f"{where}:{line}: {{% elif %}} after {{% else %}}")
            if not payload:
                raise ProseError(f"{where}:{line}: {{% elif %}} without a condition")
            node.branches.append(_Branch(payload, line))
            stack[-1] = (node.branches[-1].body, node)
        elif kind == "else":
            if node.branches[-1].condition is None:
                raise ProseError(f"{where}:{line}: a second {{% else %}}")
            if payload:
                raise ProseError(f"{where}:{line}: {{% else %}} takes no condition (use elif)")
            node.branches.append(_Branch(None, line))
            stack[-1] = (node.branches[-1].body, node)
        else:  # endif
            stack.pop()
    if len(stack) > 1:
        unclosed = stack[-1][1]
        assert unclosed is not None  # only the root's entry (stack[0]) has no node
        raise ProseError(f"{where}:{unclosed.line}: {{% if %}} is never closed with {{% endif %}}")
    return root


def _declaration(kind: str, payload: str, where: str, line: int) -> _Declaration:
    if kind == "general":
        if payload:
            raise ProseError(f"{where}:{line}: {{% general %}} takes nothing (a statement that rests on claims: rests)")
        return _Declaration(("general",), line)
    ids = payload.split()
    if not ids or any(not re.fullmatch(r"[a-z0-9][a-z0-9\-]*", i) for i in ids):
        raise ProseError(f"{where}:{line}: {{% rests %}} takes claim ids: {{% rests <claim> … %}}")
    return _Declaration(tuple(f"rests {i}" for i in ids), line)


def _predicate(term: str, facts: Facts, where: str, line: int) -> bool:
    words = term.split()
    if len(words) != 2 or words[0] not in PREDICATES:
        raise ProseError(
            f"{where}:{line}: cannot read condition {term!r}; expected one of "
            f"{', '.join(p + ' <arg>' for p in PREDICATES)}, joined by and/or/not"
        )
    verb, arg = words
    if verb in ("holds", "fails", "unsure", "applies"):
        try:
            status = facts.claim_status(arg)
        except KeyError:
            raise ProseError(f"{where}:{line}: no claim {arg!r} in attn_examples/claims/claims.d") from None
        return {
            "holds": status == "pass",
            "fails": status == "fail",
            "unsure": status == "unsure",
            "applies": status != "n/a",
        }[verb]
    if verb == "has":
        return facts.has(arg)
    if verb == "device":
        if arg not in ("cuda", "cpu"):
            raise ProseError(f"{where}:{line}: device takes cuda or cpu, not {arg!r}")
        return facts.device_kind() == arg
    if verb == "source":
        if arg not in SOURCES:
            raise ProseError(f"{where}:{line}: source takes {', '.join(SOURCES)}, not {arg!r}")
        return facts.source() == arg
    if arg == "half":
        return facts.dtype() in ("bfloat16", "float16")
    if arg not in ("bfloat16", "float16", "float32"):
        raise ProseError(f"{where}:{line}: dtype takes bfloat16, float16, float32 or half, not {arg!r}")
    return facts.dtype() == arg


def evaluate(condition: str, facts: Facts, where: str = "page", line: int = 0) -> bool:
    """`a and not b or c`: `not` binds tightest, then `and`, then `or` (no parentheses)."""

    def term(text: str) -> bool:
        words = text.split()
        negated = False
        while words and words[0] == "not":
            negated, words = not negated, words[1:]
        return _predicate(" ".join(words), facts, where, line) != negated

    return any(all(term(t) for t in re.split(r"\s+and\s+", alt)) for alt in re.split(r"\s+or\s+", condition))


def _negated(condition: str) -> str:
    """What a branch passed over says: its condition did not hold."""
    if condition.startswith("not ") and not re.search(r"\s(and|or)\s", condition):
        return condition[len("not ") :]
    return f"not ({condition})" if re.search(r"\s(and|or)\s", condition) else f"not {condition}"


def is_measured(text: str) -> bool:
    """A page that depends on the measurement: it has a branch, a value or a measured block."""
    return bool(TAG.search(text) or PLACEHOLDER.search(text) or EXEC_BLOCK.search(text))


def evaluate_item(item: str, facts: Facts, where: str = "page") -> bool:
    """An evidence item that is a condition (`holds x`, `not holds x`, `not (holds a and holds b)`)."""
    if item.startswith("not (") and item.endswith(")"):
        return not evaluate(item[len("not (") : -1], facts, where)
    return evaluate(item, facts, where)


# where a paragraph (a statement) of the source begins: a blank line, a list item, an admonition
_STATEMENT_START = re.compile(r"(?:^|\n)[ \t]*(?:\x00|(?:[-*+]|\d+\.)[ \t]|!!!|\?\?\?)")
_CLAIM_SHOWN = re.compile(r"\{\{\s*claim\.([a-z0-9][a-z0-9\-]*)\s*\}\}")


def _denied_by(condition: str | None, passed: list[str], facts: Facts, where: str, line: int) -> frozenset[str]:
    """The claims a taken branch says fail: a `fails x` (or `not holds x`) that an alternative of its
    condition needs and that alternative holds here (in `fails x or fails y` where both fail, the
    text was written for either failing, and each does), or a single `holds x` passed over before it."""
    found = set()
    for alternative in re.split(r"\s+or\s+", condition) if condition is not None else []:
        if not evaluate(alternative, facts, where, line):
            continue
        for term in re.split(r"\s+and\s+", alternative.strip()):
            m = re.fullmatch(r"(?:fails|not\s+holds)\s+([a-z0-9][a-z0-9\-]*)", term.strip())
            if m:
                found.add(m.group(1))
    for earlier in passed:
        m = re.fullmatch(r"holds\s+([a-z0-9][a-z0-9\-]*)", earlier.strip())
        if m:
            found.add(m.group(1))
    return frozenset(found)


def _deny(text: str, denied: frozenset[str]) -> str:
    """`{{ claim.x }}` as `{{ claim.x.denied }}` for each claim the text around it says fails."""
    if not denied:
        return text
    return _CLAIM_SHOWN.sub(
        lambda m: f"{{{{ claim.{m.group(1)}.denied }}}}" if m.group(1) in denied else m.group(0), text
    )


def _render_tree(
    nodes: list, facts: Facts, where: str, basis: tuple[str, ...] | None = None, denied: frozenset[str] = frozenset()
) -> str:
    """The kept text; with `basis` (evidence mode) each kept line carries the conditions it rests on.
    A claim shown in a paragraph that a taken branch says fails is asked for as `claim.x.denied`:
    inside the branch, and in the rest of the paragraph the branch lies in ("costs 1.34× what flash's
    does{% elif fails x %}, so flash is the cheaper call")."""
    out: list[str] = []
    after: frozenset[str] = frozenset()  # denied by a branch earlier in this paragraph
    for node in nodes:
        if isinstance(node, str):
            head, start, tail = node, None, ""
            if after and (start := _STATEMENT_START.search(node)) is not None:
                head, tail = node[: start.start()], node[start.start() :]
                after = frozenset()
            text = _deny(head, denied | after) + _deny(tail, denied)
            out.append(evidence.annotate(text, basis) if basis else text)
            continue
        if isinstance(node, _Declaration):
            if basis is not None:
                out.append(evidence.token(node.items))
            continue
        passed: list[str] = []
        for branch in node.branches:
            if branch.condition is None or evaluate(branch.condition, facts, where, branch.line):
                inner = None
                if basis is not None:
                    taken = [] if branch.condition is None else [branch.condition]
                    inner = (*basis, *taken, *(_negated(c) for c in passed))
                says = _denied_by(branch.condition, passed, facts, where, branch.line) - denied
                out.append(_render_tree(branch.body, facts, where, inner, denied | says))
                if says:
                    _deny_back(out, says)
                    after |= says
                break
            passed.append(branch.condition)
    return "".join(out)


def _deny_back(out: list[str], denied: frozenset[str]) -> None:
    """The claims a branch says fail, denied in the kept text of its paragraph before it."""
    for i in range(len(out) - 2, -1, -1):
        starts = list(_STATEMENT_START.finditer(out[i]))
        if starts:
            cut = starts[-1].start()
            out[i] = out[i][:cut] + _deny(out[i][cut:], denied)
            return
        out[i] = _deny(out[i], denied)


def render(
    text: str, facts: Facts, value: Callable[[str], str], where: str = "page", evidence_tokens: bool = False
) -> str:
    """Keep the branches that hold, then fill in the values the kept text asks for. With
    `evidence_tokens`, the text carries what each line rests on (`attn_examples.render.evidence`)."""
    for condition, line in conditions(text, where):  # an unknown claim fails even in a branch not taken
        evaluate(condition, facts, where, line)
    # Blank lines of the source are marked, so that a line emptied by a dropped inline branch can be
    # told from one the author left blank: the first disappears, the second stays.
    marked = re.sub(r"(?m)^[ \t]*$", _BLANK, text)
    kept = _render_tree(parse(marked, where), facts, where, () if evidence_tokens else None)
    kept = re.sub(r"(?m)^[ \t]*\n", "", kept).replace(_BLANK, "")
    filled = _fill(kept, value, evidence_tokens)
    return evidence.place(filled) if evidence_tokens else filled


_SPACED = re.compile(r"( ?)" + PLACEHOLDER.pattern + r"( ?)")
# a Chinese character or full-width punctuation: no space is set beside one (Taiwan typesetting)
WIDE = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")
_W = "\u3000-\u303f\u4e00-\u9fff\uff00-\uffef"
_INLINE = r"(?:strong|em|b|i|a|span|q|sup)"
_WIDE_GAPS = [
    re.compile(rf"(?<=[{_W}])[ \t]*\n?[ \t]*(?=[{_W}])"),  # 字 字, a wrapped line
    re.compile(rf"(?<=[{_W}])((?:</{_INLINE}>)+)[ \t]*\n?[ \t]*(?=[{_W}])"),  # 。</strong> 不
    re.compile(rf"(?<=[{_W}])[ \t]*\n?[ \t]*((?:<{_INLINE}\b[^>]*>)+)(?=[{_W}])"),  # 只 <em>寫
]
_KEEP = re.compile(r"<(pre|code|script|style|textarea)\b.*?</\1>", re.S)


def _close_gaps(html: str) -> str:
    for gap in _WIDE_GAPS:
        html = gap.sub(lambda m: m.group(1) if m.groups() else "", html)
    return html


def join_wide_lines(html: str) -> str:
    """No space between two Chinese characters: a wrapped source line or a space beside emphasis
    (`。** 不`, `只 *寫* 了`) shows as one in a browser, and Chinese text has none. Beside code and
    Latin words the space stays, as Taiwan's technical writing has it; code, scripts and styles are
    left alone."""
    out, last = [], 0
    for match in _KEEP.finditer(html):
        out.append(_close_gaps(html[last : match.start()]))
        out.append(match.group(0))
        last = match.end()
    out.append(_close_gaps(html[last:]))
    return "".join(out)


def _fill(text: str, value: Callable[[str], str], evidence_tokens: bool = False) -> str:
    """Put the values in. A space written beside a placeholder is dropped where the value turns out to
    meet a Chinese character on that side ("而 {{ lowest.rel_error }} 至少" with the value 手寫版), and
    kept where it meets a Latin word or a number, as Taiwan typesetting does."""

    def one(m: re.Match) -> str:
        filled = value(m.group(2))
        shown = re.sub(r"<[^>]+>", "", filled)
        before = text[m.start() - 1 : m.start()] if m.start() else ""
        after = text[m.end() : m.end() + 1]
        left = "" if m.group(1) and WIDE.match(before) and WIDE.match(shown[:1]) else m.group(1)
        right = "" if m.group(3) and WIDE.match(after) and WIDE.match(shown[-1:]) else m.group(3)
        if evidence_tokens:
            filled += evidence.claim_token(m.group(2))
        return left + filled + right

    return _SPACED.sub(one, text)


_BLANK = "\x00"


EXEC_BLOCK = re.compile(r"^```python exec=.*?\n(.*?)^```", re.M | re.S)
_LANG_IMPORT = re.compile(r"import (en|zh_TW) as site")


def structure(text: str, where: str = "page") -> list[str]:
    """The skeleton of a page, for comparing its languages: every tag with its condition, and in each
    branch the values it asks for (sorted: word order differs between languages) and its measured
    blocks (the language of the import left out)."""
    out: list[str] = []

    def contents(texts: list[str], depth: int) -> None:
        joined = "".join(texts)
        keys = sorted(placeholders(joined))
        if keys:
            out.append("  " * depth + "values: " + ", ".join(keys))
        for block in EXEC_BLOCK.findall(joined):
            out.append("  " * depth + "block: " + _LANG_IMPORT.sub("import <lang> as site", block.strip()))

    def walk(nodes: list, depth: int) -> None:
        texts: list[str] = []
        for node in nodes:
            if isinstance(node, str):
                texts.append(node)
                continue
            if isinstance(node, _Declaration):
                contents(texts, depth)
                texts = []
                out.append("  " * depth + "; ".join(node.items))
                continue
            contents(texts, depth)
            texts = []
            for i, branch in enumerate(node.branches):
                out.append(
                    "  " * depth
                    + ("if " if i == 0 else "elif " if branch.condition else "else")
                    + (branch.condition or "")
                )
                walk(branch.body, depth + 1)
            out.append("  " * depth + "endif")
        contents(texts, depth)

    walk(parse(text, where), 0)
    return out


def conditions(text: str, where: str = "page") -> list[tuple[str, int]]:
    """Every condition of the page with its line, in every branch (to check them all, taken or not)."""
    out: list[tuple[str, int]] = []

    def walk(nodes: list) -> None:
        for node in nodes:
            if isinstance(node, _If):
                for branch in node.branches:
                    if branch.condition is not None:
                        out.append((branch.condition, branch.line))
                    walk(branch.body)

    walk(parse(text, where))
    return out


def placeholders(text: str) -> list[str]:
    return PLACEHOLDER.findall(text)
