"""The HTML blocks' templates: one autoescaping environment, each template compiled once, and a
value from a snapshot shown as text wherever a block puts it (no MkDocs, no torch: a second)."""

from __future__ import annotations

import json
import shutil

import jinja2
import pytest

from attn_examples.render import blocks as render
from attn_examples.render import templating
from attn_examples.snapshot.schema import Snapshot, load_snapshot
from tests.conftest import REPO

HOSTILE = '<script>alert("x")</script> & co'
ESCAPED = "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; co"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Snapshot:
    """The H200 snapshot with markup, a quote and an ampersand in its GPU's name."""
    folder = tmp_path_factory.mktemp("hostile") / "nvidia-h200"
    shutil.copytree(REPO / "snapshots" / "nvidia-h200", folder)
    data = json.loads((folder / "snapshot.json").read_text(encoding="utf-8"))
    data["provenance"]["device_name"] = HOSTILE
    (folder / "snapshot.json").write_text(json.dumps(data), encoding="utf-8")
    return load_snapshot(folder)


def _blocks(snap: Snapshot) -> dict[str, str]:
    """Blocks that show the GPU's name: in text (provenance line, devices table) and in an attribute
    (the trace line's data-trace-title)."""
    return {
        "provenance": render.provenance(snap, "en", live=False, opened=True),
        "trace_link": render.trace_link(snap, "sdpa_flash", "en"),
        "devices_table": render.devices_table([(snap, "@root@/snapshots/x/", True)], "en", "device_us"),
    }


@pytest.mark.parametrize("lang", ["en", "zh-TW"])
def test_a_snapshot_value_is_escaped_by_the_template(hostile: Snapshot, lang: str) -> None:
    blocks = _blocks(hostile) | {"provenance_" + lang: render.provenance(hostile, lang, live=False)}
    for name, html in blocks.items():
        assert "<script" not in html, f"{name}: markup from the snapshot reached the page"
        assert 'alert("x")' not in html, f"{name}: a raw quote from the snapshot (it would end an attribute)"
        assert ESCAPED in html, f"{name}: the GPU's name is not shown as text"
    assert f'data-trace-title="SDPA: flash · {ESCAPED}"' in blocks["trace_link"]


def test_the_check_above_catches_a_template_that_does_not_escape(
    hostile: Snapshot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With autoescape off the same blocks carry the script: the assertions above have teeth."""
    loose = jinja2.Environment(
        loader=jinja2.PackageLoader(*templating.TEMPLATES), autoescape=False, trim_blocks=True, lstrip_blocks=True
    )
    monkeypatch.setattr(templating, "environment", lambda: loose)
    assert all("<script>" in html for html in _blocks(hostile).values())


def test_one_environment_autoescaping_and_strict() -> None:
    env = templating.environment()
    assert env is templating.environment()
    assert env.autoescape is True and env.undefined is jinja2.StrictUndefined
    assert env.trim_blocks and env.lstrip_blocks and not env.keep_trailing_newline
    with pytest.raises(jinja2.UndefinedError):
        templating.render("paragraph.html.j2")  # `text` not given: an error, never an empty paragraph


def test_each_template_is_compiled_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A build renders hundreds of blocks: compiling a template per call would be a bug."""
    snap = load_snapshot(REPO / "snapshots" / "nvidia-h200")

    def render_some() -> None:
        _blocks(snap)
        render.kernel_table(snap, "sdpa_flash", "zh-TW")

    render_some()  # compiles whatever this process has not compiled yet
    compiled: list[str | None] = []
    original = jinja2.Environment.compile

    def counting(self: jinja2.Environment, source, name=None, filename=None, raw=False, defer_init=False):
        compiled.append(name)
        return original(self, source, name, filename, raw, defer_init)

    monkeypatch.setattr(jinja2.Environment, "compile", counting)
    for _ in range(3):
        render_some()
    assert compiled == []


def test_every_template_compiles_and_ships() -> None:
    """Each file in the templates folder parses, and pyproject.toml ships the folder's files."""
    env = templating.environment()
    names = env.list_templates()
    package, folder = templating.TEMPLATES
    where = REPO.joinpath(*package.split("."), folder)
    assert names == sorted(p.name for p in where.glob("*.html.j2"))
    for name in names:
        env.get_template(name)
    import tomllib

    shipped = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    assert package in shipped["packages"] and f"{folder}/*.html.j2" in shipped["package-data"][package]
