"""Find measured facts typed into the page sources (no torch).

A number with a unit, a count of kernels, a kernel name, a launch API or a GPU's name written into
a page is true of one measurement at best. On this site such facts reach the prose only through
`{{ key }}` (a measured value), `{{ claim.<id> }}` (a checked claim) or `{{ article.<key> }}` (a
labelled quotation), and sentences that depend on the outcome sit in `{% if … %}` branches. This
lint reads every page with those markers, code blocks and link targets blanked out and reports
what is left that looks measured. Run it with `python -m attn_examples.claims.lint [docs]`; the tests run
it on every page, and show it failing on a page with a typed measurement.

A few definitions name a launch API or a kernel family on purpose (what a trace category holds,
for example). They are listed in `ALLOWED`, phrase by phrase, with the reason.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

_UNITS = (
    r"µs|us|ms|ns|s|KiB|MiB|GiB|TiB|KB|MB|GB|TB|B|GB/s|TB/s|TFLOP/s|PFLOP/s|GFLOP|TFLOP|FLOPs?|%|×|x|"
    r"times|倍|秒|毫秒|微秒"
)
_COUNTED = (
    r"kernels?|registers?|warps?|threads?|blocks?|SMs?|GPU activities|activities|memsets?|memcpys?|copies|"
    r"transposes?|(?:op(?:erator)? )?calls?|tiles?|tokens?|heads?|bytes|steps?"
)
_COUNTED_ZH = r"個\s?(?:kernel|暫存器|warp|執行緒|block|SM|GPU 活動|tile|token|記憶體複製|memset|memcpy|transpose|主機端運算子)|次"

RULES: dict[str, re.Pattern] = {
    "number with a unit": re.compile(rf"(?<![\w.\-])\d[\d,]*(?:\.\d+)?\s?(?:{_UNITS})(?![\w/])"),
    "a count": re.compile(rf"(?<![\w.\-])\d[\d,]*\s?(?:{_COUNTED})\b|(?<![\w.\-])\d[\d,]*\s?(?:{_COUNTED_ZH})"),
    "a large number": re.compile(r"(?<![\w.,])(?:\d{1,3}(?:,\d{3})+|\d{4,})(?![\w,])"),
    "a kernel name": re.compile(
        r"nvjet\w*|fmha_\w+|flash_fwd\w*|cudnn_generated\w*|\bsm_?\d{2,3}(?:_\w+)?\b|knob_\d+|\b\d+x\d+(?:x\d+)?\b|"
        r"triu_tril\w*|softmax_warp_forward|cunn_SoftMax\w*|\w*elementwise_kernel\w*|triton_\w+|\bsgemm\b|s16816|"
        r"xmma\w*|_ffma_|f32f32\w*|direct_copy_kernel\w*|bfloat16_copy\w*"
    ),
    "a launch API": re.compile(r"cudaLaunchKernel\w*|cuLaunchKernel\w*|cudaMemcpyAsync|cudaMemsetAsync"),
    "a GPU's name": re.compile(r"\b(?:[ABH]100|H200|B200|L4|L40S?|RTX \d+)\b"),
}

# (page, phrase) -> why the phrase is not a measurement. The page is the name under docs/<lang>/.
ALLOWED: dict[tuple[str, str], str] = {
    (
        "method.md",
        "`cudaLaunchKernel`, `cudaMemcpyAsync` and `cudaMemsetAsync`",
    ): "what Kineto's cuda_runtime category holds: a definition of the trace format",
    (
        "method.md",
        "`cudaLaunchKernel`、`cudaMemcpyAsync` 與 `cudaMemsetAsync`",
    ): "the same definition, in the Chinese page's punctuation",
    ("method.md", "`cuLaunchKernelEx`"): "what Kineto's cuda_driver category holds: a definition of the trace format",
}

_BLANK = [
    re.compile(r"^(```|~~~).*?^\1", re.M | re.S),  # fenced code (exec blocks, snippets, commands)
    re.compile(r"\{\{.*?\}\}", re.S),  # values
    re.compile(r"\{%.*?%\}", re.S),  # branches
    re.compile(r"<!--.*?-->", re.S),
    re.compile(r"\]\([^)]*\)"),  # link targets
    re.compile(r"\{\s*#[\w-]+\s*\}"),  # heading anchors
    re.compile(r"https?://\S+"),
    re.compile(r"[(（][^()（）]*?(?:19|20)\d\d\s*[)）]"),  # citations: (Authors, 2024)
    re.compile(r"--8<--.*"),
]


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    rule: str
    text: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.rule}: {self.text!r}"


def _blank(text: str) -> str:
    """Replace what the lint must not read with spaces, keeping every line where it was."""
    for pattern in _BLANK:
        text = pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    return text


def lint_text(text: str, path: str, page: str | None = None) -> list[Finding]:
    """Findings in one page source; `page` (e.g. 'method.md') selects its allowed phrases."""
    page = page or Path(path).name
    for allowed_page, phrase in ALLOWED:
        if allowed_page == page:
            text = text.replace(phrase, " " * len(phrase))
    blanked = _blank(text)
    findings = []
    for number, line in enumerate(blanked.splitlines(), start=1):
        for rule, pattern in RULES.items():
            for match in pattern.finditer(line):
                findings.append(Finding(path, number, rule, match.group(0).strip()))
    return findings


_CLAIM_TERM = re.compile(r"\b(holds|fails|unsure)\s+([a-z0-9][a-z0-9\-]*)")


def _timed_claims() -> set[str]:
    from attn_examples.claims import check as claims
    from attn_examples.claims import plausible

    return {c.id for c in claims.load_claims() if plausible.is_timed(c.metric)}


def lint_unsure(text: str, path: str, timed: set[str] | None = None) -> list[Finding]:
    """A paragraph-level `{% if %}` that speaks for both outcomes of a timed claim (`holds` and
    `fails`) must also say what it says when the claim is unsure (`{% elif unsure <id> %}`):
    otherwise the paragraph silently vanishes when the measurement cannot decide, or an `{% else %}`
    meant for another case speaks instead. A chain that speaks only when the claim holds says
    nothing when unsure, as when it fails; a branch inside a sentence may vanish."""
    from attn_examples.render import prose

    timed = _timed_claims() if timed is None else timed
    lines = text.splitlines()
    findings = []

    def walk(nodes: list) -> None:
        for node in nodes:
            if not isinstance(node, prose._If):
                continue
            said: dict[str, set[str]] = {"holds": set(), "fails": set(), "unsure": set()}
            for branch in node.branches:
                for verb, claim in _CLAIM_TERM.findall(branch.condition or ""):
                    said[verb].add(claim)
            tested, unsure = said["holds"] & said["fails"], said["unsure"]
            own_line = lines[node.line - 1].strip()
            alone = own_line.startswith("{%") and own_line.endswith("%}") and own_line.count("{%") == 1
            for claim in sorted((tested & timed) - unsure):
                if alone:
                    findings.append(
                        Finding(path, node.line, "timed claim without an unsure branch", f"{{% elif unsure {claim} %}}")
                    )
            for branch in node.branches:
                walk(branch.body)

    walk(prose.parse(text, path))
    return findings


def _notebook_markdown(path: Path) -> str:
    """A notebook's Markdown cells, one after another (its code cells are code: not linted)."""
    import json

    cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
    return "\n\n".join("".join(c.get("source", [])) for c in cells if c.get("cell_type") == "markdown")


def lint(docs: Path) -> list[Finding]:
    out = []
    timed = _timed_claims()
    for path in sorted(docs.rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        out += lint_text(text, str(path), path.name) + lint_unsure(text, str(path), timed)
    for path in sorted(docs.rglob("*.ipynb")):
        out += lint_text(_notebook_markdown(path), str(path), path.name)
    return out


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    docs = Path(args[0] if args else "docs")
    findings = lint(docs)
    for finding in findings:
        print(finding)
    print(f"{len(findings)} measured fact(s) typed into {docs}" if findings else f"{docs}: nothing measured is typed")
    return 1 if findings else 0


if __name__ == "__main__":
    raise SystemExit(main())
