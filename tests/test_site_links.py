"""Links, anchors, translations and accessibility basics of the built site, and proof that each
check fails on a site broken on purpose."""

from __future__ import annotations

import re
import shutil

from tests import site_checks
from tests.conftest import Built


def test_no_broken_internal_links_or_anchors(built: Built) -> None:
    assert site_checks.broken_links(built.site) == []


def test_every_page_has_its_translation(built: Built) -> None:
    assert site_checks.missing_translations(built.site) == []
    assert len(site_checks.pages(built.site)) >= 2 * 18


def test_accessibility_basics(built: Built) -> None:
    assert site_checks.accessibility(built.site) == []


def test_each_check_fails_on_a_broken_copy(built: Built, tmp_path) -> None:
    """A broken link, a figure without its label and a missing translation are all reported."""
    site = tmp_path / "site"
    shutil.copytree(built.site, site)
    flash = site / "flash" / "index.html"
    html = flash.read_text(encoding="utf-8")
    html = re.sub(r'(<a [^>]*href=")\.\./cudnn/(")', r"\1../no-such-page/\2", html, count=1)
    html = re.sub(r'(<svg role="img") aria-label="[^"]*"', r"\1", html, count=1)
    flash.write_text(html, encoding="utf-8")
    shutil.rmtree(site / "zh-TW" / "scaling")
    shutil.rmtree(site / "snapshots" / "cpu" / "zh-TW" / "naive")  # a snapshot's site is checked too
    assert any("no-such-page" in p for p in site_checks.broken_links(site))
    assert any("flash" in p and "aria-label" in p for p in site_checks.accessibility(site))
    missing = site_checks.missing_translations(site)
    assert "no zh-TW page for scaling/index.html" in missing
    assert "no zh-TW page for snapshots/cpu/naive/index.html" in missing
