"""The notebook page's outputs: run once beside a snapshot, on the machine that measured it, and
frozen there (`<snapshot>/notebook.ipynb`); the site shows them in both languages.

The two languages' notebooks differ only in prose, comments and printed words, so one run serves
both: each language's code cells receive the run's outputs by position, after checking that the
code (without comments and string literals) is the same. A frozen notebook is untrusted input:
only plain text survives (stdout, stderr, a cell's plain-text result), and anything else is an
error naming the file and the field. No torch import here; `execute` needs Jupyter (nbclient).
"""

from __future__ import annotations

import io
import json
import os
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
FROZEN = "notebook.ipynb"
SOURCE = REPO / "docs" / "en" / "notebook.ipynb"
KINDS = ("stdout", "stderr", "result")


class NotebookError(ValueError):
    """A frozen notebook that cannot be trusted, or a run that failed; one line naming the file."""


@dataclass(frozen=True)
class Output:
    kind: str  # one of KINDS
    text: str


@dataclass(frozen=True)
class FrozenRun:
    """What one run of the notebook printed, cell by cell, and where and when it ran."""

    path: Path
    device: str
    executed_at: str
    git_commit: str | None
    code: tuple[str, ...]  # each code cell's signature (see code_signature)
    outputs: tuple[tuple[Output, ...], ...]  # per code cell


def code_signature(source: str) -> str:
    """A code cell without its comments, string literals and layout: what the two languages share."""
    lines = [line for line in source.splitlines() if not line.lstrip().startswith(("!", "%"))]
    shell = [line.strip() for line in source.splitlines() if line.lstrip().startswith(("!", "%"))]
    try:
        tokens = [
            tok.string if tok.type != tokenize.STRING else "''"
            for tok in tokenize.generate_tokens(io.StringIO("\n".join(lines) + "\n").readline)
            if tok.type
            not in (
                tokenize.COMMENT,
                tokenize.NL,
                tokenize.NEWLINE,
                tokenize.INDENT,
                tokenize.DEDENT,
                tokenize.ENDMARKER,
            )
        ]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        tokens = lines
    return " ".join(tokens + shell)


def _text(value: Any, where: str) -> str:
    if isinstance(value, str):
        text = value
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        text = "".join(value)
    else:
        raise NotebookError(f"{where}: expected text")
    # A progress bar redraws its line with carriage returns: keep what a terminal would show last.
    # A shell command's output ends its lines with \r\n, which is a plain newline.
    return "\n".join(line.rsplit("\r", 1)[-1] for line in text.replace("\r\n", "\n").split("\n"))


def _outputs(cell: dict, where: str) -> tuple[Output, ...]:
    outputs = cell.get("outputs", [])
    if not isinstance(outputs, list):
        raise NotebookError(f"{where}.outputs: expected a list")
    kept = []
    for j, out in enumerate(outputs):
        field = f"{where}.outputs[{j}]"
        kind = out.get("output_type") if isinstance(out, dict) else None
        if kind == "stream" and out.get("name") in ("stdout", "stderr"):
            kept.append(Output(out["name"], _text(out.get("text"), f"{field}.text")))
        elif kind == "execute_result" and isinstance(out.get("data"), dict) and "text/plain" in out["data"]:
            kept.append(Output("result", _text(out["data"]["text/plain"], f"{field}.data")))
        else:
            raise NotebookError(
                f"{field}.output_type: {kind!r} is not kept (only stdout, stderr and plain-text "
                f"results are; an error output means the run failed)"
            )
    return tuple(kept)


def load_frozen(snapshot_dir: Path) -> FrozenRun | None:
    """The frozen run beside a snapshot, validated; None when the snapshot has none."""
    path = Path(snapshot_dir) / FROZEN
    return read_frozen(path) if path.is_file() else None


def read_frozen(path: Path) -> FrozenRun:
    """A frozen notebook file, validated field by field."""
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise NotebookError(f"{path}: not a JSON notebook ({exc.__class__.__name__})") from None
    meta = nb.get("metadata", {}).get("attn_examples") if isinstance(nb, dict) else None
    if not isinstance(meta, dict):
        raise NotebookError(f"{path}: metadata.attn_examples: missing (not written by `attn-examples notebook`)")
    for key in ("device", "executed_at"):
        if not isinstance(meta.get(key), str) or not meta[key]:
            raise NotebookError(f"{path}: metadata.attn_examples.{key}: expected text")
    if meta.get("git_commit") is not None and not isinstance(meta["git_commit"], str):
        raise NotebookError(f"{path}: metadata.attn_examples.git_commit: expected text or null")
    cells = nb.get("cells")
    if not isinstance(cells, list):
        raise NotebookError(f"{path}: cells: expected a list")
    code, outputs = [], []
    for i, cell in enumerate(cells):
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            code.append(code_signature(_text(cell.get("source", ""), f"{path}: cells[{i}].source")))
            outputs.append(_outputs(cell, f"{path}: cells[{i}]"))
    return FrozenRun(path, meta["device"], meta["executed_at"], meta.get("git_commit"), tuple(code), tuple(outputs))


def _as_nbformat(out: Output) -> dict:
    if out.kind == "result":
        return {
            "output_type": "execute_result",
            "execution_count": None,
            "metadata": {},
            "data": {"text/plain": out.text},
        }
    return {"output_type": "stream", "name": out.kind, "text": out.text}


def matches(source: dict, run: FrozenRun) -> bool:
    """Whether a language's notebook has the run's code cells (prose, comments and strings aside)."""
    code = [
        code_signature("".join(c["source"]) if isinstance(c["source"], list) else c["source"])
        for c in source["cells"]
        if c["cell_type"] == "code"
    ]
    return tuple(code) == run.code


def with_outputs(source: dict, run: FrozenRun, banner: str) -> dict:
    """A copy of one language's notebook with the run's outputs and a banner cell saying where they
    come from. `banner` is Markdown, already localized."""
    nb = json.loads(json.dumps(source))
    outputs = iter(run.outputs)
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            cell["outputs"] = [_as_nbformat(o) for o in next(outputs)]
    first_heading = 1 if nb["cells"] and nb["cells"][0]["cell_type"] == "markdown" else 0
    nb["cells"].insert(
        first_heading, {"cell_type": "markdown", "id": "attn-outputs-banner", "metadata": {}, "source": banner}
    )
    return nb


_SITE_PACKAGES = re.compile(r"/[^\s'\"]*/site-packages/")


def portable(text: str, home: str | None = None) -> str:
    """Printed paths without the machine they ran on: the checkout as <repo>, the home folder as ~,
    an installed package from <site-packages>/ (the site shows files of this project only)."""
    home = home if home is not None else str(Path.home())
    text = text.replace(str(REPO), "<repo>")
    if home not in ("", "/"):
        text = text.replace(home + "/", "~/")
    return _SITE_PACKAGES.sub("<site-packages>/", text)


def make_portable(nb: Any, home: str | None = None) -> None:
    """`portable` over every kept output of a notebook, in place."""
    for cell in nb["cells"]:
        for out in cell.get("outputs", []) if cell["cell_type"] == "code" else []:
            if "text" in out:
                out["text"] = portable("".join(out["text"]) if isinstance(out["text"], list) else out["text"], home)
            if "text/plain" in out.get("data", {}):
                value = out["data"]["text/plain"]
                out["data"]["text/plain"] = portable("".join(value) if isinstance(value, list) else value, home)


def execute(snapshot_dir: Path, source: Path = SOURCE, timeout_s: int = 1800) -> Path:
    """Run the notebook here, from the repository root, and freeze its outputs beside the snapshot
    (written atomically). Refuses when this machine is not the snapshot's device."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    from attn_examples.snapshot.schema import load_snapshot
    from attn_examples.snapshot.stamp import stamp

    snap = load_snapshot(snapshot_dir)
    device = snap.provenance.device_name
    nb = nbformat.read(str(source), as_version=4)
    client = NotebookClient(nb, timeout=timeout_s, kernel_name="python3", resources={"metadata": {"path": str(REPO)}})
    try:
        client.execute()
    except CellExecutionError as exc:
        first = str(exc).strip().splitlines()[-1] if str(exc).strip() else exc.__class__.__name__
        raise NotebookError(f"{source}: a cell failed: {first}") from None
    printed = "".join(
        o.get("text", "")
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if o.get("output_type") == "stream"
    )
    if device not in printed:
        raise NotebookError(
            f"{source}: the run did not report the snapshot's device {device!r} (run it on the "
            f"machine that measured {snapshot_dir})"
        )
    make_portable(nb)
    when = stamp()
    nb.metadata["attn_examples"] = {
        "device": device,
        "git_commit": when["git_commit"],
        "executed_at": when["measured_at"],
    }
    target = Path(snapshot_dir) / FROZEN
    tmp = target.with_name(f".{FROZEN}.{os.getpid()}.tmp")
    nbformat.write(nb, str(tmp))
    try:
        read_frozen(tmp)  # what is kept must read back: an output the site refuses fails here, not there
    except NotebookError as exc:
        tmp.unlink()
        raise NotebookError(str(exc).replace(str(tmp), str(target))) from None
    os.chmod(tmp, 0o644)
    os.replace(tmp, target)
    return target


def banner(run: FrozenRun | None, fresh: bool, lang: str) -> str:
    """Where the outputs on the page come from, in the page's language (HTML: the notebook's Markdown
    renderer is not Python-Markdown, so no admonition syntax). The sentence is the translation's own
    markup; `Markup.format` escapes every value from the run that goes into it."""
    from markupsafe import Markup

    from attn_examples.render import templating
    from attn_examples.render.i18n import t

    key, kind = ("nb_no_run", "note") if run is None else ("nb_frozen", "info") if fresh else ("nb_stale", "warning")
    sentence = Markup(t(lang, key))
    if run is not None:
        sentence = sentence.format(device=run.device, date=run.executed_at[:10], commit=(run.git_commit or "?")[:8])
    return templating.render("notebook_banner.html.j2", kind=kind, title=t(lang, f"{key}_title"), sentence=sentence)


def page_source(source: Path, snapshot_dir: Path | None, lang: str, cache_dir: Path) -> Path:
    """The notebook a page renders: the language's source with the snapshot's frozen outputs and a
    banner, written under `cache_dir` (rewritten only when it changes, so the renderer's own cache
    keeps its entry)."""
    nb = json.loads(Path(source).read_text(encoding="utf-8"))
    run = load_frozen(snapshot_dir) if snapshot_dir is not None else None
    fresh = run is not None and matches(nb, run)
    if fresh and run is not None:  # fresh implies a run
        nb = with_outputs(nb, run, banner(run, True, lang))
    else:
        nb["cells"].insert(
            1 if nb["cells"] and nb["cells"][0]["cell_type"] == "markdown" else 0,
            {"cell_type": "markdown", "id": "attn-outputs-banner", "metadata": {}, "source": banner(run, False, lang)},
        )
    text = json.dumps(nb, ensure_ascii=False, indent=1) + "\n"
    target = Path(cache_dir) / lang / Path(source).name
    if target.is_file() and target.read_text(encoding="utf-8") == text:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, target)
    return target
