"""Check the page sources against every committed snapshot, without building the site (no torch).

For each page and language, and each snapshot under `snapshots/`: the branches resolve, every
value the kept text asks for exists, every measured block (`site.kernels(...)`, …) renders, every
statement of a measured page declares what it rests on and rests on nothing that fails or is
undecided there (`attn_examples.claims.evidence`), and the English and Chinese sources have the same
skeleton (the same branches, values, declarations and blocks). The lint (`attn_examples.claims.lint`)
runs over the same sources. This is what `attn-examples pages` prints
and what the tests hold every page to; a full `mkdocs build` per snapshot then checks the HTML.
"""

from __future__ import annotations

import contextlib
import io
from dataclasses import dataclass
from pathlib import Path

from attn_examples.claims import lint
from attn_examples.render import prose
from attn_examples.render.i18n import LANGS

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
SNAPSHOTS = REPO / "snapshots"


@dataclass(frozen=True)
class Problem:
    page: str  # en/naive.md
    snapshot: str  # folder name, or "" for problems of the source itself
    message: str

    def __str__(self) -> str:
        return f"{self.page}" + (f" @ {self.snapshot}" if self.snapshot else "") + f": {self.message}"


def committed_snapshots(root: Path = SNAPSHOTS) -> list[Path]:
    """Every committed snapshot folder, the published baseline first."""
    folders = sorted(p.parent for p in root.glob("*/snapshot.json"))
    return sorted(folders, key=lambda p: (p.name != "nvidia-h200", p.name))


def page_names(docs: Path = DOCS) -> list[str]:
    return sorted(p.name for p in (docs / "en").glob("*.md"))


def _run_blocks(markdown: str, lang: str) -> list[str]:
    """Execute the kept measured blocks the way markdown-exec would; return the errors."""
    errors = []
    for code in prose.EXEC_BLOCK.findall(markdown):
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(code, f"<{lang} block>", "exec"), {"__name__": "__page__"})
        except Exception as exc:
            errors.append(f"block {code.strip().splitlines()[-1]!r}: {type(exc).__name__}: {exc}")
    return errors


def render_page(source: str, measurement, lang: str, where: str, evidence_tokens: bool = False) -> str:
    def value(key: str) -> str:
        try:
            return measurement.value(key, lang)
        except KeyError as exc:
            raise KeyError(f"{{{{ {key} }}}}: {exc.args[0]}") from None

    return prose.render(source, measurement, value, where=where, evidence_tokens=evidence_tokens)


# The Markdown the site's pages are written in, less what turns no prose into HTML (code highlighting,
# snippets, the table of contents): enough to find every paragraph, list item and admonition.
MARKDOWN_EXTENSIONS = ["admonition", "attr_list", "md_in_html", "tables", "pymdownx.superfences", "pymdownx.details"]


def statements(rendered: str) -> list:
    """The statements of a page rendered with evidence tokens, each with what it rests on (the measured
    blocks left out: their own captions declare theirs in the build)."""
    import markdown

    from attn_examples.render import evidence

    prose_only = prose.EXEC_BLOCK.sub("", rendered)
    html = markdown.markdown(prose_only, extensions=MARKDOWN_EXTENSIONS)
    return evidence.attach(html)[1]


def evidence_problems(source: str, measurement, lang: str, where: str) -> list[str]:
    """What `mkdocs build` would refuse in a measured page's statements on this measurement."""
    from attn_examples.claims import evidence as rules

    if not prose.is_measured(source):
        return []
    rendered = render_page(source, measurement, lang, where, evidence_tokens=True)
    return rules.problems(
        statements(rendered),
        measurement.verdicts,
        lambda item: prose.evaluate_item(item, measurement, where),
        measurement.snapshot,
    )


def check(
    pages: list[str] | None = None, snapshots: list[Path] | None = None, docs: Path = DOCS, run_blocks: bool = True
) -> list[Problem]:
    from attn_examples.site import build as site
    from attn_examples.snapshot.schema import load_snapshot

    problems: list[Problem] = []
    names = pages or page_names(docs)
    measurements = [
        (folder.name, site.BuildMeasurement(load_snapshot(folder), False, 0.0))
        for folder in (snapshots or committed_snapshots())
    ]
    for name in names:
        sources = {
            lang: (docs / lang / name).read_text(encoding="utf-8") for lang in LANGS if (docs / lang / name).exists()
        }
        for lang in LANGS:
            if lang not in sources:
                problems.append(Problem(f"{lang}/{name}", "", "missing in this language"))
        try:
            skeletons = {lang: prose.structure(text, f"{lang}/{name}") for lang, text in sources.items()}
        except prose.ProseError as exc:
            problems.append(Problem(name, "", str(exc)))
            continue
        if len({tuple(s) for s in skeletons.values()}) > 1:
            en, zh = skeletons.get("en", []), skeletons.get("zh-TW", [])
            first = next((i for i, (a, b) in enumerate(zip(en, zh)) if a != b), min(len(en), len(zh)))
            problems.append(
                Problem(
                    name,
                    "",
                    f"the languages differ at skeleton line {first + 1}: "
                    f"en {en[first] if first < len(en) else '(end)'!r} / "
                    f"zh-TW {zh[first] if first < len(zh) else '(end)'!r}",
                )
            )
        for lang, text in sources.items():
            for finding in lint.lint_text(text, f"{lang}/{name}", name):
                problems.append(Problem(f"{lang}/{name}", "", f"line {finding.line}: {finding.rule}: {finding.text!r}"))
        for snap_name, measurement in measurements:
            for lang, text in sources.items():
                where = f"{lang}/{name}"
                try:
                    rendered = render_page(text, measurement, lang, where)
                except (prose.ProseError, KeyError) as exc:
                    problems.append(Problem(where, snap_name, str(exc.args[0] if isinstance(exc, KeyError) else exc)))
                    continue
                problems += [Problem(where, snap_name, e) for e in evidence_problems(text, measurement, lang, where)]
                if run_blocks:
                    with site.pinned(measurement):
                        problems += [Problem(where, snap_name, e) for e in _run_blocks(rendered, lang)]
    return problems


def show(page: str, snapshot: Path, lang: str = "en", docs: Path = DOCS) -> str:
    """One page's Markdown as a build from `snapshot` would render it (values and branches only)."""
    from attn_examples.site import build as site
    from attn_examples.snapshot.schema import load_snapshot

    measurement = site.BuildMeasurement(load_snapshot(snapshot), False, 0.0)
    return render_page((docs / lang / page).read_text(encoding="utf-8"), measurement, lang, f"{lang}/{page}")


def show_evidence(page: str, snapshot: Path, lang: str = "en", docs: Path = DOCS) -> str:
    """Each statement of one page as `snapshot` renders it, with what it rests on: the claims and their
    verdicts there (for a reader checking the page sentence by sentence), and what the build refuses."""
    from attn_examples.claims import evidence as rules
    from attn_examples.site import build as site
    from attn_examples.snapshot.schema import load_snapshot

    measurement = site.BuildMeasurement(load_snapshot(snapshot), False, 0.0)
    where = f"{lang}/{page}"
    source = (docs / lang / page).read_text(encoding="utf-8")
    found = statements(render_page(source, measurement, lang, where, evidence_tokens=True))
    lines = []
    for number, s in enumerate(found, 1):
        lines.append(f"[{number}] {s.kind}: {s.text}")
        basis = ", ".join(s.items) or "nothing"
        lines.append(f"    rests on: {basis}")
        for claim_id in s.claims:
            verdict = measurement.verdicts.get(claim_id)
            if verdict is not None:
                lines.append(f"      {claim_id}: {verdict.status} ({verdict.reason})")
        for problem in rules.problems(
            [s], measurement.verdicts, lambda item: prose.evaluate_item(item, measurement, where), measurement.snapshot
        ):
            lines.append(f"    REFUSED: {problem}")
    return "\n".join(lines)
