"""Check the page sources against every committed snapshot, without building the site (no torch).

For each page and language, and each snapshot under `snapshots/`: the branches resolve, every
value the kept text asks for exists, every measured block (`site.kernels(...)`, …) renders, and the
English and Chinese sources have the same skeleton (the same branches, values and blocks). The
lint (`attn_examples.claims.lint`) runs over the same sources. This is what `attn-examples pages` prints
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


def render_page(source: str, measurement, lang: str, where: str) -> str:
    def value(key: str) -> str:
        try:
            return measurement.value(key, lang)
        except KeyError as exc:
            raise KeyError(f"{{{{ {key} }}}}: {exc.args[0]}") from None

    return prose.render(source, measurement, value, where=where)


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
