"""The built pages hold the snapshot's values, the same in both languages, with one provenance line a page."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from markupsafe import escape

from attn_examples.render import blocks as render
from attn_examples.render import views
from attn_examples.site import build as site
from attn_examples.snapshot.schema import load_snapshot
from tests.conftest import REPO, Built

LANGS = ("en", "zh-TW")
PAGES = sorted(p.relative_to(REPO / "docs" / "en") for p in (REPO / "docs" / "en").glob("*.md"))
_ARTICLE = re.compile(r'<article class="md-content__inner md-typeset">(.*?)</article>', re.S)
_BLOCK = re.compile(r'<div class="attn-table">.*?</table></div>|<figure class="attn-figure".*?</figure>', re.S)
_PROVENANCE = re.compile(r'<details class="attn-provenance" data-search-exclude(?: open)?[^>]*>(.*?)</details>', re.S)
_UNIT_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?(?:e[-+]\d+)?\s?(?:µs|%|×|MiB|KiB)")


def _page(built: Built, lang: str, page: Path) -> str:
    prefix = "" if lang == "en" else f"{lang}/"
    rel = "" if page.stem == "index" else f"{page.stem}/"
    return (built.site / prefix / rel / "index.html").read_text(encoding="utf-8")


def _body(html: str) -> str:
    match = _ARTICLE.search(html)
    assert match, "no article body"
    return match.group(1)


@pytest.fixture(scope="module")
def snap():
    return load_snapshot(site.DEFAULT_SNAPSHOT)


def test_summary_table_shows_the_snapshots_values(built: Built, snap) -> None:
    for lang in LANGS:
        body = _body(_page(built, lang, Path("index.md")))
        table = body[body.index('<div class="attn-table"') :]
        for row in views.summary_rows(snap):
            if not row["available"]:
                continue
            assert f"{row['device_us']:,.0f} µs" in table or f"{row['device_us']:,.1f} µs" in table, row["id"]
            assert f'<td class="num">{row["kernels"]}</td>' in table, row["id"]


def test_kernel_tables_list_every_kernel_of_the_snapshot(built: Built, snap) -> None:
    """Each backend page's table names each measured kernel (by its shortened name)."""
    for variant_id, page in (("sdpa_flash", "flash.md"), ("sdpa_cudnn", "cudnn.md"), ("sdpa_math", "math.md")):
        for lang in LANGS:
            body = _body(_page(built, lang, Path(page)))
            for row in views.kernel_rows(snap.variants[variant_id]):
                # as the templates escape it
                assert escape(render.short_kernel_name(row["name"])) in body, (lang, variant_id, row["name"])


@pytest.mark.parametrize("page", PAGES, ids=str)
def test_measured_blocks_are_identical_across_languages(built: Built, page: Path) -> None:
    """Tables and figures carry the same numbers in en and zh-TW; the prose injects the same values."""
    # "3.7 倍" and "3.7 times" both mean "3.7×"
    bodies = {lang: re.sub(r"(\d)(?: ?倍| times)", r"\1×", _body(_page(built, lang, page))) for lang in LANGS}
    numbers = {lang: [_UNIT_NUMBER.findall(block) for block in _BLOCK.findall(body)] for lang, body in bodies.items()}
    assert numbers["en"] == numbers["zh-TW"]
    prose = {lang: set(_UNIT_NUMBER.findall(_BLOCK.sub("", body))) for lang, body in bodies.items()}
    assert prose["en"] == prose["zh-TW"], prose["en"] ^ prose["zh-TW"]


@pytest.mark.parametrize("page", PAGES, ids=str)
@pytest.mark.parametrize("lang", LANGS)
def test_a_page_with_tables_or_figures_carries_one_provenance_line_under_its_title(
    built: Built, lang: str, page: Path
) -> None:
    body = _body(_page(built, lang, page))
    lines = _PROVENANCE.findall(body)
    if _BLOCK.search(body):
        assert len(lines) == 1, f"{lang}/{page}: {len(lines)} provenance lines"
        if (
            '<details class="attn-provenance" data-search-exclude open' not in body
        ):  # about.md shows it opened, in its text
            after_title = body[body.index("</h1>") + len("</h1>") :].lstrip()
            assert after_title.startswith(
                '<details class="attn-provenance" data-search-exclude data-rests-on="measured">'
            ), f"{lang}/{page}"
    assert "attn:measured" not in body
    word = "from the committed snapshot" if lang == "en" else "取自已提交的快照"
    for line in lines:
        assert word in line and "NVIDIA H200" in line, line


@pytest.mark.parametrize("lang", LANGS)
def test_figures_are_inline_svg_with_alt_text(built: Built, lang: str) -> None:
    seen = 0
    for page in PAGES:
        for figure in re.findall(r'<figure class="attn-figure".*?</figure>', _page(built, lang, page), re.S):
            seen += 1
            # a static figure is one image; an interactive timeline is a group of images, each mark
            # named by its own <title> (what a screen reader reads when the mark takes focus)
            interactive = 'class="attn-figure attn-timeline"' in figure
            role = "group" if interactive else "img"
            label = re.search(rf'<svg[^>]*role="{role}"[^>]*aria-label="([^"]+)"', figure)
            assert label and len(label.group(1)) > 20, figure[:200]
            if interactive:
                marks = re.findall(r'<g class="tl-mark[^"]*"[^>]*role="img"[^>]*><title>[^<]+</title>', figure)
                assert marks and len(marks) == figure.count('<g class="tl-mark'), figure[:200]
            assert "<title>" in figure and "<figcaption" in figure
            assert "currentColor" in figure, "figure ink must follow the colour scheme"
    assert seen >= 4


def test_trace_links_resolve_to_copied_traces(built: Built) -> None:
    links = 0
    for lang in LANGS:
        for page in PAGES:
            prefix = "" if lang == "en" else f"{lang}/"
            folder = built.site / prefix / ("" if page.stem == "index" else page.stem)
            for href in re.findall(r'href="([^"]*traces/[^"]+)"', _page(built, lang, page)):
                links += 1
                assert (folder / href).resolve().is_file(), f"{lang}/{page}: {href}"
    assert links > 0


@pytest.mark.parametrize("page", PAGES, ids=str)
@pytest.mark.parametrize("lang", LANGS)
def test_no_traceback_or_unrendered_placeholder(built: Built, lang: str, page: Path) -> None:
    html = _page(built, lang, page)
    assert "Traceback" not in html and "{{" not in _body(html) and render.SITE_ROOT not in html


_WIDE_SPACE = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]\s+[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")
_CODE = re.compile(r"<(pre|code|script|style)\b.*?</\1>", re.S)


@pytest.mark.parametrize("page", PAGES, ids=str)
def test_chinese_text_has_no_space_between_two_chinese_characters(built: Built, page: Path) -> None:
    """A source line break inside a Chinese sentence would show as a space; none survives."""
    body = _CODE.sub("x", _body(_page(built, "zh-TW", page)))  # code reads as a Latin word
    for block in re.findall(r"<(p|li|td|th|figcaption)\b[^>]*>(.*?)</\1>", body, re.S):
        text = re.sub(r"<[^>]+>", "", block[1])
        assert not _WIDE_SPACE.search(text), (page, text[max(0, _WIDE_SPACE.search(text).start() - 20) :][:60])


# ---- build modes -------------------------------------------------------------------------------


def test_build_mode_defaults_to_the_snapshot_without_a_gpu(monkeypatch) -> None:
    monkeypatch.delenv(site.MODE_ENV, raising=False)
    monkeypatch.delenv(site.SNAPSHOT_ENV, raising=False)
    monkeypatch.setattr(site, "gpu_present", lambda: False)
    assert site.build_mode() == "snapshot"
    monkeypatch.setattr(site, "gpu_present", lambda: True)
    assert site.build_mode() == "live"
    # a reader who names their own snapshot on a GPU machine gets that snapshot, not a new measurement
    monkeypatch.setenv(site.SNAPSHOT_ENV, "snapshots/cpu")
    assert site.build_mode() == "snapshot"
    monkeypatch.delenv(site.SNAPSHOT_ENV)
    monkeypatch.setenv(site.MODE_ENV, "snapshot")
    assert site.build_mode() == "snapshot"
    monkeypatch.setenv(site.MODE_ENV, "sometimes")
    with pytest.raises(ValueError, match="ATTN_EXAMPLES_MEASURE"):
        site.build_mode()


def test_a_live_build_measures_once_for_both_languages(tmp_path, monkeypatch) -> None:
    """A whole bilingual build in live mode, with the GPU measurement replaced by a copy of the
    committed snapshot: measurement runs once, and every page says the numbers are live."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    calls = []

    def fake_measure(fresh: bool) -> tuple[Path, bool]:
        calls.append(fresh)  # live mode: always measured afresh, never reused
        target = tmp_path / "live" / "nvidia-h200"
        shutil.copytree(site.DEFAULT_SNAPSHOT, target, dirs_exist_ok=True)
        return target, False

    monkeypatch.setenv(site.MODE_ENV, "live")
    monkeypatch.setenv("MKDOCS_JUPYTER_CACHE_DIR", str(tmp_path / "nbcache"))
    monkeypatch.setattr(site, "_measure_live", fake_measure)
    monkeypatch.setattr(site, "_current", None)
    monkeypatch.chdir(REPO)
    build(load_config(str(REPO / "mkdocs.yml"), site_dir=str(tmp_path / "site"), strict=True))
    assert calls == [True]
    en = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    zh = (tmp_path / "site" / "zh-TW" / "index.html").read_text(encoding="utf-8")
    assert "measured live by this build" in en and "本次建置即時量測" in zh
    assert "from the committed snapshot" not in en


def test_one_trace_line_per_trace_keeps_the_timelines() -> None:
    line = '<p class="attn-trace" data-rests-on="measured"><a href="t/{}.json.gz" download>x</a> y</p>'
    html = "<table></table>" + line.format("a") + '<figure class="attn-timeline"></figure>' + line.format("a")
    html += "<table></table>" + line.format("b")
    out = render.one_trace_line_per_trace(html)
    assert out.count("t/a.json.gz") == 1 and "</figure>" + line.format("a") in out
    assert out.count("t/b.json.gz") == 1


@pytest.mark.parametrize("lang", LANGS)
def test_each_trace_is_offered_once_a_page(built: Built, lang: str) -> None:
    for page in PAGES:
        body = _body(_page(built, lang, page))
        hrefs = re.findall(r'<p class="attn-trace"[^>]*><a href="([^"]+)" download>', body)
        assert len(hrefs) == len(set(hrefs)), (lang, page, hrefs)


@pytest.mark.parametrize("lang", LANGS)
def test_the_devices_time_table_keeps_one_unit_per_column(built: Built, lang: str) -> None:
    body = _body(_page(built, lang, Path("devices.md")))
    table = body[body.index('data-kind="devices"') :]
    table = table[: table.index("</table>")]
    rows = [re.findall(r"<td[^>]*>(.*?)</td>", row, re.S) for row in re.findall(r"<tr>(.*?)</tr>", table, re.S)]
    measured = [row for row in rows if row and "attn-quote" not in "".join(row) and "quoted" not in "".join(row)]
    for col in range(1, max(len(row) for row in measured)):
        units = {m for row in measured if col < len(row) for m in re.findall(r"\d (µs|ms)\b", row[col])}
        assert len(units) <= 1, (lang, col, units)
