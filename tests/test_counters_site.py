"""The counters pass's Nsight Compute report on the site: the counters page offers it in both
languages where the snapshot keeps one (and names the reader), the build publishes it as a plain
.ncu-rep beside the traces, and a snapshot without one gets no link.

The snapshot with a report is a copy of the committed H200 snapshot given a few bytes as its
report: the page and the build do not look inside it."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from attn_examples.render import blocks as render
from attn_examples.site import measurement_hooks
from attn_examples.snapshot.schema import compress_blob, load_snapshot, snapshot_from_dict, write_snapshot
from tests import site_checks
from tests.conftest import REPO

REPORT = b"a stand-in for an Nsight Compute report"
H200 = REPO / "snapshots" / "nvidia-h200"
LINK = re.compile(r'<p class="attn-trace"[^>]*><a href="([^"]+\.ncu-rep)" download>([^<]+)</a>([^<]+)</p>')


def _h200_copy(folder: Path, reader: str | None, report: bytes | None) -> Path:
    """The committed H200 snapshot, copied into `folder` with its counters' reader and report replaced."""
    shutil.copytree(H200, folder)
    snap = load_snapshot(folder)
    data = snap.to_dict()
    data["counters"].update(reader=reader, reader_fallback=None, report_file=None)
    write_snapshot(data, snap.trace_blobs(), folder, None if report is None else compress_blob(report))
    return folder


@pytest.fixture(scope="module")
def with_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the H200 snapshot whose counters pass kept a report (a stand-in), read by ncu_report."""
    return _h200_copy(tmp_path_factory.mktemp("report") / "nvidia-h200", "ncu_report", REPORT)


def test_the_counters_page_offers_the_report_in_both_languages(with_report: Path) -> None:
    snap = load_snapshot(with_report)
    where = render.published_report(snap)
    assert where == f"traces/nvidia-h200/nvidia-h200-{Path(snap.counters.report_file).name[: -len('.gz')]}"
    for lang, words in (("en", "Download the Nsight Compute report (.ncu-rep)"), ("zh-TW", "下載 Nsight Compute 報告")):
        status = render.counters_status(snap, lang)
        link = LINK.search(status)
        assert link, status
        assert link.group(1) == render.SITE_ROOT + where and words in link.group(2)
        assert "NVTX" in link.group(3) and "File › Open" in link.group(3)
    assert "，" in LINK.search(render.counters_status(snap, "zh-TW")).group(3)  # full-width punctuation


def test_the_source_line_names_the_reader_in_both_languages(with_report: Path) -> None:
    snap = load_snapshot(with_report)
    assert "report read with <code>ncu_report</code>" in render.counters_source(snap, "en")
    assert "以 <code>ncu_report</code> 讀取報告" in render.counters_source(snap, "zh-TW")
    data = json.loads((with_report / "snapshot.json").read_text())
    data["counters"]["reader"] = "csv"
    by_csv = snapshot_from_dict(data, with_report)
    assert "report read from ncu's CSV export" in render.counters_source(by_csv, "en")
    assert "從 ncu 匯出的 CSV 讀取報告" in render.counters_source(by_csv, "zh-TW")


@pytest.fixture(scope="module")
def without_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the H200 snapshot as its counters were kept before the report was: no reader, no report."""
    return _h200_copy(tmp_path_factory.mktemp("bare") / "nvidia-h200", None, None)


def test_a_snapshot_without_a_report_gets_no_link_and_no_reader(without_report: Path) -> None:
    snap = load_snapshot(without_report)
    assert render.published_report(snap) is None
    for lang in ("en", "zh-TW"):
        status = render.counters_status(snap, lang)
        assert LINK.search(status) is None and "download" not in status
        assert "ncu_report" not in render.counters_source(snap, lang) and "CSV" not in render.counters_source(
            snap, lang
        )


def test_the_build_hook_publishes_the_report_decompressed_and_nothing_without_one(
    with_report: Path, without_report: Path, tmp_path: Path
) -> None:
    snap = load_snapshot(with_report)
    measurement_hooks._publish_report(snap, tmp_path / "site")
    assert (tmp_path / "site" / render.published_report(snap)).read_bytes() == REPORT
    measurement_hooks._publish_report(load_snapshot(without_report), tmp_path / "bare")
    assert not (tmp_path / "bare").exists()


@pytest.fixture(scope="module")
def site_with_report(with_report: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site strictly built from the snapshot with a report, as publishing builds a snapshot's site."""
    from attn_examples.site import sites

    tmp = tmp_path_factory.mktemp("site")
    env = {**os.environ, "ATTN_EXAMPLES_MEASURE": "snapshot", "ATTN_EXAMPLES_SNAPSHOT": str(with_report)}
    env.pop(sites.TOP_ENV, None)
    build = sites.build_one("with-report", tmp / "site", env, cache_root=tmp / "nbcache")
    assert build.ok, build.log[-3000:]
    return tmp / "site"


def test_the_built_counters_pages_link_the_published_report(site_with_report: Path, with_report: Path) -> None:
    where = render.published_report(load_snapshot(with_report))
    assert (site_with_report / where).read_bytes() == REPORT  # a plain .ncu-rep, not gzip
    for page in (Path("counters"), Path("zh-TW") / "counters"):
        html = (site_with_report / page / "index.html").read_text(encoding="utf-8")
        hrefs = [m.group(1) for m in LINK.finditer(html)]
        assert len(hrefs) == 1, page
        assert (site_with_report / page / hrefs[0]).resolve() == (site_with_report / where).resolve()
    # the devices page links the other measurements' sites, which this lone build does not have
    others = re.compile(r"devices/index\.html: link to missing (\.\./)+snapshots/")
    broken = [p for p in site_checks.broken_links(site_with_report) if not others.search(p)]
    assert not broken, broken
