"""MkDocs hooks that feed the pages from one measurement (loaded by path from mkdocs.yml).

- before the first page: take the build's measurement (live once on a GPU builder, else the
  committed snapshot), so a progress bar shows up front and both languages share it;
- every claim (`attn_examples/claims/claims.d/`) is checked against it, and a live measurement is
  compared with the committed baseline of its device class; a failure fails the build;
- a page's Markdown is a template over that measurement (`attn_examples.render.prose`): `{% if … %}`
  branches keep the text that is true of it, `{{ key }}` becomes a formatted value
  (`attn_examples.render.metrics` lists the keys), `{{ claim.<id> }}` the claim's value and verdict,
  `{{ article.<key> }}` a labelled quotation. A value this measurement does not have fails the
  build, naming the page and the key: the sentence that needs it belongs in a branch;
- a page that shows a measured block (a table or figure from `attn_examples.site.build`) gets one
  provenance line under its title (`render.provenance`: the device, dtype and shape, the rest on
  demand); a page without one gets none;
- `@root@/` in rendered HTML becomes the page's relative path to the site root; in Chinese pages a
  line break between two Chinese characters is joined (a browser would show it as a space);
- after the build, each measured variant's trace is copied to `traces/<device>/`, and beside them
  the counters pass's Nsight Compute report, decompressed, where the snapshot keeps one.

No torch import unless the build measures live.
"""

from __future__ import annotations

import posixpath
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import mkdocs.plugins
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.pages import Page

if TYPE_CHECKING:
    from attn_examples.snapshot.schema import Snapshot


def _site():
    from attn_examples.site import build as site

    return site


@mkdocs.plugins.event_priority(100)
def on_pre_build(config: MkDocsConfig) -> None:
    """Measure (or load), then hold the measurement to every claim, and a live one to its baseline."""
    from attn_examples.claims import check as claims

    try:
        m = _site().current()
    except Exception as exc:
        raise PluginError(f"attn-examples: could not obtain this build's measurement: {exc}") from exc
    verdicts = list(m.verdicts.values())
    if not all(v.ok for v in verdicts):
        raise PluginError(claims.failure_report(m.snapshot, verdicts))
    report = m.drift  # every build computes it; a snapshot build shows it on the reproducibility page
    if m.live and report is not None and report.unlike:  # its own words say what to do
        raise PluginError(
            f"attn-examples: the live measurement cannot be held to the committed baseline "
            f"{report.baseline}:\n  - {report.unlike}"
        )
    if m.live and report is not None and report.drifted:
        raise PluginError(
            f"attn-examples: the live measurement drifted from the committed baseline "
            f"{report.baseline}:\n  - "
            + "\n  - ".join(report.problems)
            + "\nIf the new numbers are right, promote them with `attn-examples accept "
            f"{m.snapshot.root}` and review the claims; otherwise find the cause first."
        )


@mkdocs.plugins.event_priority(-120)  # after site_hooks re-wrapped the notebooks as pages (-110)
def on_files(files, config: MkDocsConfig):
    """A notebook page renders its language's notebook with the outputs frozen beside this build's
    snapshot (`attn_examples.site.notebook`), or says why there are none."""
    from attn_examples.site import notebook

    m = _site().current()
    import hashlib

    # one folder per snapshot folder: sites built in parallel from different snapshots never share one
    key = hashlib.sha256(str(Path(m.snapshot.root).resolve()).encode()).hexdigest()[:12] if m.snapshot.root else "none"
    cache = Path(config.config_file_path).parent / ".cache" / "notebook-pages" / key
    for file in files:
        if not file.src_uri.endswith(".ipynb") or file.abs_src_path is None:
            continue
        lang = file.src_uri.split("/", 1)[0]
        lang = lang if lang in ("en", "zh-TW") else "en"
        try:
            file.abs_src_path = str(notebook.page_source(Path(file.abs_src_path), m.snapshot.root, lang, cache))
        except notebook.NotebookError as exc:
            raise PluginError(f"attn-examples: {exc}") from None
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files) -> str:
    from attn_examples.render import prose

    m = _site().current()
    lang = page.file.src_uri.split("/", 1)[0]
    lang = lang if lang in ("en", "zh-TW") else "en"

    def value(key: str) -> str:
        try:
            return m.value(key, lang)
        except KeyError as exc:  # UnknownMetric, an unknown quotation, a claim that does not apply
            raise PluginError(
                f"{page.file.src_uri}: {{{{ {key} }}}}: {exc.args[0]} (a sentence that needs a "
                f"value this measurement may lack belongs inside {{% if has … %}})"
            ) from None

    page.meta["attn_measured"] = prose.is_measured(markdown)
    try:
        return prose.render(markdown, m, value, where=page.file.src_uri, evidence_tokens=True)
    except prose.ProseError as exc:
        raise PluginError(str(exc)) from None


def on_page_content(html: str, page: Page, config: MkDocsConfig, files) -> str:
    """Each statement of a measured page gets what it rests on (`data-rests-on`) and its mark, and a
    statement that declares nothing, or rests on a claim that does not hold here, fails the build
    (`attn_examples.claims.evidence`). Then one provenance line per page that shows a measured block,
    under its title: where the page's tables, figures and values come from, once; and each trace
    offered once."""
    from attn_examples.render import blocks as render

    html = _evidence(html, page)
    if render.MEASURED_MARK not in html:
        return html
    html = render.one_trace_line_per_trace(html.replace(render.MEASURED_MARK, ""))
    if 'class="attn-provenance"' in html:  # the page shows it itself (about.md)
        return html
    m = _site().current()
    lang = "zh-TW" if page.file.src_uri.startswith("zh-TW/") else "en"
    line = render.provenance(m.snapshot, lang, m.live, reused=m.reused, given=m.given)
    title_end = html.find("</h1>")
    if title_end == -1:
        return line + html
    title_end += len("</h1>")
    return html[:title_end] + "\n" + line + html[title_end:]


def _evidence(html: str, page: Page) -> str:
    from attn_examples.claims import evidence as rules
    from attn_examples.render import evidence, prose

    if not page.meta.get("attn_measured"):
        return evidence.strip(html)
    m = _site().current()
    lang = "zh-TW" if page.file.src_uri.startswith("zh-TW/") else "en"
    uids = iter(range(1, 10**6))

    def mark(statement: evidence.Statement) -> str:
        return rules.mark(statement, m.verdicts, lang, f"attn-ev-{next(uids)}")

    html, statements = evidence.attach(html, mark)
    found = rules.problems(
        statements, m.verdicts, lambda item: prose.evaluate_item(item, m, page.file.src_uri), m.snapshot
    )
    if found:
        raise PluginError(
            f"attn-examples: {page.file.src_uri}: {len(found)} statement(s) without a basis on this measurement "
            f"({m.snapshot.root or m.snapshot.device_slug}):\n  - " + "\n  - ".join(found)
        )
    return html


def on_post_page(output: str, page: Page, config: MkDocsConfig) -> str:
    from attn_examples.render.blocks import SITE_ROOT
    from attn_examples.render.prose import join_wide_lines

    if page.file.src_uri.startswith("zh-TW/"):
        output = join_wide_lines(output)
    if SITE_ROOT not in output:
        return output
    depth = page.url.count("/") if page.url else 0
    root = posixpath.join(*([".."] * depth)) + "/" if depth else ""
    return output.replace(SITE_ROOT, root)


@mkdocs.plugins.event_priority(-150)  # after i18n built the other languages in the first pass (-100)
def on_post_build(config: MkDocsConfig) -> None:
    snap = _site().current().snapshot
    target = Path(config.site_dir) / "traces" / snap.device_slug
    target.mkdir(parents=True, exist_ok=True)
    for variant_id in snap.variants:
        source = snap.trace_path(variant_id)
        if source is not None:
            shutil.copyfile(source, target / source.name)
    _publish_report(snap, Path(config.site_dir))


def _publish_report(snap: Snapshot, site_dir: Path) -> None:
    """The counters' report where the counters page links it (`render.published_report`), as a plain
    .ncu-rep: Nsight Compute does not open a gzipped one."""
    from attn_examples.render.blocks import published_report
    from attn_examples.snapshot.schema import SnapshotError, load_report

    where = published_report(snap)
    if where is None:
        return
    try:
        payload = load_report(snap)
    except SnapshotError as exc:
        raise PluginError(f"attn-examples: {exc}") from None
    if payload is not None:
        (site_dir / where).parent.mkdir(parents=True, exist_ok=True)
        (site_dir / where).write_bytes(payload)
