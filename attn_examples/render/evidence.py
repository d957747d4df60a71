"""What each statement of a page rests on: tokens in the rendered Markdown, attributes in its HTML (no torch).

A measured page says things that depend on the measurement. Each statement (a paragraph, a list
item, an admonition, a caption) either rests on claims, which the build checks against the
measurement, or is declared general: true of attention, of the article or of PyTorch whatever was
measured. The page source says which (`attn_examples.render.prose`): the branches a statement lies
in, the claims it shows (`{{ claim.<id> }}`), `{% general %}` and `{% rests <claim> %}`.

This module carries that basis from the template to the HTML:

1. `prose.render(..., evidence_tokens=True)` leaves an invisible token (`token`) at the end of each
   line of kept text, naming the conditions it rests on; a claim value leaves `shows <id>`, an
   undecided claim's wording `undecided <id>`; `place` then takes the tokens out of code, headings
   and tables, and moves those of an admonition's title into its body.
2. `attach` reads the page's HTML once, finds the statement each token lies in (a paragraph inside a
   list item or an admonition speaks for it), writes the statement's items into `data-rests-on`,
   inserts the statement's mark where the caller draws one, removes the tokens, and returns every
   statement with what it rests on: its own items and those of the statements around it.

An item is one of: a branch condition as written (`holds cudnn-fastest`, `has counters`,
`device cuda`, `not holds x` for a branch passed over), `shows <id>`, `undecided <id>`,
`rests <id>`, `ranks <key>` (a value named by a ranking: `fastest.device_us`, `winner.…`),
`regime <key>` (a regime shown, which says itself where the timings leave it undecided),
`general`, and `measured`, which only a measured block's template writes. `attn_examples.claims.evidence` holds the rules they must satisfy.
"""

from __future__ import annotations

import html as html_lib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from html.parser import HTMLParser

OPEN, CLOSE, SEP = "\ue000", "\ue001", "\ue002"
TOKEN = re.compile(f"{OPEN}([^{CLOSE}]*){CLOSE}")
# a token with the blanks before it, where blanks or the end of a line follow it: "done. {% general %}"
# leaves "done."; a token between a word and the next ("is ⟦…⟧wrong") leaves its neighbours' space alone
_SPACED_TOKEN = re.compile(f"[ \\t]*{OPEN}[^{CLOSE}]*{CLOSE}(?=[ \\t]|\\n|$|<|{OPEN})")
CLAIM_KEY = re.compile(r"^claim\.([a-z0-9][a-z0-9\-]*)(?:\.(undecided|expected|denied))?$")
CLAIM_IN_ITEM = re.compile(r"\b(holds|fails|unsure|applies|shows|undecided|rests)\s+([a-z0-9][a-z0-9\-]*)")
ATTRIBUTE = "data-rests-on"
GENERAL = "general"
# what a measured block's template declares on its own captions and notes: words its code chose from
# the measurement's exact facts and values (a page's prose cannot declare it: it has claims)
MEASURED = "measured"


def token(items: Iterable[str]) -> str:
    return OPEN + SEP.join(items) + CLOSE


def items_of(text: str) -> list[str]:
    """Every item of every token in `text`, in order."""
    return [item for m in TOKEN.finditer(text) for item in m.group(1).split(SEP) if item]


def strip(text: str) -> str:
    return TOKEN.sub("", _SPACED_TOKEN.sub("", text))


RANKING_KEY = re.compile(r"^(?:(?:fastest|slowest)\.\w+|winner\.\w+|(?:ratio|diff)\.(?:winner\.\w+|\w+\.winner)\.\w+)$")
# a regime shown (`naive.regime`, `list.regime[…]`): the value words its own uncertainty ("undecided
# between launch-bound and compute-bound"), so a statement that shows it rests on it
REGIME_KEY = re.compile(r"^(?:\w+\.regime|list\.regime\[[^\]]*\])$")
REGIME = "regime"


def claim_token(key: str) -> str:
    """The token a filled-in placeholder leaves: a claim value is shown, an undecided claim worded, a
    ranking named (the fastest variant, or a value of it: the timings must single it out), a regime
    shown (a basis of its own: where the timings cannot decide it, its words say so)."""
    key = key.strip()
    if RANKING_KEY.match(key):
        return token([f"ranks {key}"])
    if REGIME_KEY.match(key):
        return token([f"{REGIME} {key}"])
    m = CLAIM_KEY.match(key)
    if m is None or m.group(2) == "expected":  # an expectation is the claim's words, not this measurement's
        return ""
    return token([f"{'undecided' if m.group(2) == 'undecided' else 'shows'} {m.group(1)}"])


def annotate(text: str, basis: tuple[str, ...]) -> str:
    """Kept text inside branches: a token at the end of each line that has words (before the line's
    break, or at the end of an inline piece), so that every statement the text makes carries them."""
    if not basis or not text.strip(" \t\n\x00"):
        return text
    mark = token(basis)
    lines = text.split("\n")
    # before a line's trailing blanks: "is " + a branch's word keeps its space wherever the token goes
    return "\n".join(
        (line.rstrip(" \t") + mark + line[len(line.rstrip(" \t")) :]) if line.strip(" \t\x00") else line
        for line in lines
    )


_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
_ADMONITION = re.compile(r"^(\s*)(!!!|\?\?\?\+?)\s")
_TABLE_ROW = re.compile(r"^\s*\|")
_HTML_LINE = re.compile(r"^\s*</?(div|table|figure|details|section|ul|ol|pre|script|style|svg|hr|h\d|blockquote)\b")


def place(markdown: str) -> str:
    """Tokens only where a statement's words are: none in code (a measured block's source), headings,
    table rows or raw HTML lines; an admonition title's tokens move to the end of its first body line."""
    out: list[str] = []
    in_fence = False
    carried = ""  # tokens of an admonition's title line, waiting for its body
    for line in markdown.split("\n"):
        if _FENCE.match(strip(line)):
            in_fence = not in_fence
            out.append(strip(line))
            continue
        if in_fence or _HEADING.match(line) or _TABLE_ROW.match(line) or _HTML_LINE.match(strip(line)):
            out.append(strip(line))
            continue
        if _ADMONITION.match(line):
            found = items_of(line)
            carried += token(found) if found else ""
            out.append(strip(line))
            continue
        if carried and line.strip():
            line, carried = line + carried, ""
        out.append(line)
    return "\n".join(out)


# ---- the HTML -----------------------------------------------------------------------------------

STATEMENT_TAGS = ("p", "li", "dd", "dt", "details", "figcaption", "blockquote")
OPAQUE_TAGS = ("table", "pre", "svg", "script", "style", "nav", "code")  # measured blocks and code: no prose
_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


@dataclass
class Statement:
    """One statement of a page and what it rests on."""

    kind: str  # p, li, admonition, details, figcaption, …
    text: str  # its words (for messages and the tests)
    own: list[str] = field(default_factory=list)  # items written on it (tokens, a template's attribute)
    inherited: list[str] = field(default_factory=list)  # items of the statements it lies in
    declared_in_template: bool = False

    @property
    def items(self) -> list[str]:
        return list(dict.fromkeys(self.own + self.inherited))

    @property
    def claims(self) -> list[str]:
        """The claims it rests on or shows, each once, in order."""
        return list(dict.fromkeys(m.group(2) for item in self.items for m in CLAIM_IN_ITEM.finditer(item)))


@dataclass
class _Element:
    tag: str
    classes: tuple[str, ...]
    start: int  # offset of '<'
    open_end: int  # offset just past the start tag's '>'
    parent: _Element | None
    attrs: dict[str, str | None]
    end: int = -1  # offset of its end tag's '<'
    children: list[_Element] = field(default_factory=list)

    @property
    def kind(self) -> str:
        if self.tag == "div" and "admonition" in self.classes:
            return "admonition"
        return self.tag

    @property
    def is_candidate(self) -> bool:
        return self.tag in STATEMENT_TAGS or self.kind == "admonition"


class _Scanner(HTMLParser):
    """Every element with its offsets in the source (no rewriting: the page's markup stays as it is)."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.text = text
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.root = _Element("#root", (), 0, 0, None, {}, len(text))
        self.stack = [self.root]

    def _offset(self) -> int:
        line, col = self.getpos()
        return self.line_starts[line - 1] + col

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        start = self._offset()
        raw = self.get_starttag_text() or ""
        parent = self.stack[-1]
        element = _Element(
            tag, tuple((dict(attrs).get("class") or "").split()), start, start + len(raw), parent, dict(attrs)
        )
        parent.children.append(element)
        if tag not in _VOID:
            self.stack.append(element)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        start = self._offset()
        raw = self.get_starttag_text() or ""
        parent = self.stack[-1]
        element = _Element(tag, (), start, start + len(raw), parent, dict(attrs), start + len(raw))
        parent.children.append(element)

    def handle_endtag(self, tag: str) -> None:
        if not any(e.tag == tag for e in self.stack[1:]):
            return  # a stray end tag
        end = self._offset()
        while self.stack[-1].tag != tag:
            self.stack.pop().end = end  # an element closed implicitly
        self.stack.pop().end = end


def _statement_of(element: _Element) -> _Element | None:
    """The statement a piece of text inside `element` belongs to: the innermost candidate, where a
    paragraph inside a list item, an admonition or a details box speaks for its container."""
    node: _Element | None = element
    while node is not None and node.tag != "#root":
        if node.tag in OPAQUE_TAGS:
            return None
        if node.is_candidate:
            parent = node.parent
            if node.tag == "p" and parent is not None and parent.is_candidate:
                return parent
            return node
        node = node.parent
    return None


def _innermost(root: _Element, offset: int) -> _Element:
    node = root
    while True:
        inside = next((c for c in node.children if c.start < offset and (c.end == -1 or offset < c.end)), None)
        if inside is None:
            return node
        node = inside


def _words(text: str, element: _Element) -> str:
    body = text[element.open_end : element.end if element.end != -1 else len(text)]
    body = re.sub(r"<(script|style|svg)\b.*?</\1>", " ", body, flags=re.S)
    body = html_lib.unescape(re.sub(r"<[^>]+>", " ", strip(body)))
    return re.sub(r"\s+", " ", body).strip()


def _in_opaque(element: _Element) -> bool:
    node = element.parent
    while node is not None:
        if node.tag in OPAQUE_TAGS or (node.tag == "figure" and element.tag != "figcaption"):
            return True
        node = node.parent
    return False


def _mark_at(element: _Element) -> int:
    """Where a statement's mark goes: after its last words, not after a nested list or below a box."""
    paragraphs = [c for c in element.children if c.tag == "p" and "admonition-title" not in c.classes]
    if element.kind in ("admonition", "details", "li") and paragraphs:
        return paragraphs[-1].end
    if element.tag == "li":
        nested = next((c for c in element.children if c.tag in ("ul", "ol", "div", "table", "pre")), None)
        if nested is not None:
            return nested.start
    return element.end


_OPAQUE_REGION = re.compile(r"(<(svg|script|style|pre|table)\b[^>]*>)(.*?)(</\2>)", re.S)


def _masked(text: str) -> str:
    """The page with the insides of drawings, scripts, code and tables blanked out (same length, so
    every offset holds): no statement lies there, and a page's timelines are most of its markup."""
    return _OPAQUE_REGION.sub(lambda m: m.group(1) + " " * len(m.group(3)) + m.group(4), text)


def attach(text: str, mark: Callable[[Statement], str] | None = None) -> tuple[str, list[Statement]]:
    """The page's HTML with each statement's `data-rests-on` (and mark), the tokens gone; and every
    statement of the page, in order, with what it rests on."""
    masked = _masked(text)
    scanner = _Scanner(masked)  # offsets are the page's: the masked text has its length, lines of its own
    scanner.feed(masked)
    scanner.close()
    own: dict[int, list[str]] = {}  # statement element's start -> items
    elements: dict[int, _Element] = {}
    for m in TOKEN.finditer(text):
        holder = _statement_of(_innermost(scanner.root, m.start()))
        if holder is None:
            continue
        elements[holder.start] = holder
        # the items passed through Markdown as text: `<` in a condition's regex came out as `&lt;`
        own.setdefault(holder.start, []).extend(html_lib.unescape(i) for i in m.group(1).split(SEP) if i)

    statements: list[Statement] = []
    found: dict[int, Statement] = {}

    def visit(node: _Element, inherited: list[str]) -> None:
        here = inherited
        if node.is_candidate and node.end != -1 and not _in_opaque(node) and _statement_of(node) is node:
            declared = node.attrs.get(ATTRIBUTE)
            items = list(dict.fromkeys(own.get(node.start, [])))
            if declared:
                items += [i.strip() for i in declared.split(";") if i.strip() and i.strip() not in items]
            statement = Statement(node.kind, _words(text, node), items, list(inherited), bool(declared))
            statements.append(statement)
            found[node.start] = statement
            here = list(dict.fromkeys(inherited + items))
        for child in node.children:
            visit(child, here)

    visit(scanner.root, [])

    edits: list[tuple[int, int, str]] = []  # (start, end, replacement), applied from the back
    for start, element in elements.items():
        statement = found.get(start)
        if statement is None or not statement.own:
            continue
        if ATTRIBUTE not in element.attrs:
            value = html_lib.escape("; ".join(statement.own), quote=True)
            at = element.open_end - 1  # before '>'
            edits.append((at, at, f' {ATTRIBUTE}="{value}"'))
        drawn = mark(statement) if mark is not None else ""
        if drawn:
            at = _mark_at(element)
            edits.append((at, at, drawn))
    out = text
    for start, end, replacement in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        out = out[:start] + replacement + out[end:]
    return strip(out), statements
