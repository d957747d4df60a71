"""The site as a reader meets it: Debian's Chromium driven by Playwright, on localhost, offline.

Needs the `playwright` package and /usr/bin/chromium (the project's setup installs both; no
browser is downloaded). Without them the tests skip, unless ATTN_EXAMPLES_REQUIRE_BROWSER=1
(set by .ci/run), where a missing browser is a failure. Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import functools
import http.server
import os
import re
import shutil
import threading
from pathlib import Path

import pytest

from tests import site_checks
from tests.conftest import REPO, Built

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = REPO / "test-artifacts" / "screenshots"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


def _browser_missing() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed"
    if not Path(CHROMIUM).exists():
        return f"no Chromium at {CHROMIUM}"
    return None


_missing = _browser_missing()
if _missing and os.environ.get("ATTN_EXAMPLES_REQUIRE_BROWSER") == "1":
    raise RuntimeError(f"browser tests required but {_missing}")
pytestmark = [pytest.mark.browser, pytest.mark.skipif(bool(_missing), reason=_missing or "")]


@pytest.fixture(scope="module")
def server(built: Built):
    handler = functools.partial(_QuietHandler, directory=str(built.site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


def _urls(built: Built) -> list[str]:
    return ["/" + str(p.relative_to(built.site).parent).replace(".", "").strip("/") + "/"
            for p in site_checks.pages(built.site)]


def _visit(browser, server: str, path: str, scheme: str = "light"):
    context = browser.new_context(color_scheme=scheme, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors, outside, failed = [], [], []
    # Material fetches sitemap.xml beside every <link rel="alternate">, which i18n points at the same
    # page in the other language: a 404 per language and page, harmless to readers (the selector's
    # links are right, see test_language_switcher_leads_to_the_same_page). Any other failed load counts.
    page.on("response", lambda r: failed.append(r.url) if r.status >= 400 and not r.url.endswith("/sitemap.xml")
            else None)
    page.on("console", lambda m: errors.append(m.text) if m.type == "error"
            and not m.text.startswith("Failed to load resource") else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: outside.append(r.url) if not r.url.startswith(server) and
            not r.url.startswith(("data:", "blob:")) else None)
    page.goto(server + path.replace("//", "/"), wait_until="networkidle")
    errors.extend(f"failed to load {url}" for url in failed)
    return context, page, errors, outside


def test_every_page_loads_cleanly_and_offline(built: Built, server: str, browser) -> None:
    problems = []
    for path in _urls(built):
        context, page, errors, outside = _visit(browser, server, path)
        if errors:
            problems.append(f"{path}: console errors {errors[:2]}")
        if outside:
            problems.append(f"{path}: requests leaving localhost {outside[:2]}")
        if page.locator(".attn-table td").count():
            cells = " ".join(page.locator(".attn-table td").all_inner_texts())
            if not re.search(r"\d", cells):
                problems.append(f"{path}: tables without numbers")
        for svg in page.locator("figure.attn-figure svg").all():
            if not svg.is_visible():
                continue   # the narrow drawing, hidden on a desktop
            box = svg.bounding_box()
            if not box or box["width"] < 50 or box["height"] < 50 or not svg.get_attribute("aria-label"):
                problems.append(f"{path}: a figure not visible or without its label")
        context.close()
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("path, other", [("/flash/", "/zh-TW/flash/"), ("/zh-TW/cudnn/", "/cudnn/"),
                                         ("/notebook/", "/zh-TW/notebook/")])
def test_language_switcher_leads_to_the_same_page(server: str, browser, path: str, other: str) -> None:
    context, page, _, _ = _visit(browser, server, path)
    target = "zh-TW" if "zh-TW" not in path else "en"
    link = page.locator(f'.md-select a[hreflang="{target}"]').first
    href = link.get_attribute("href")
    page.locator(".md-select").first.hover()   # as a reader does: open the menu, click the language
    link.click()
    page.wait_for_load_state("networkidle")
    assert page.url.endswith(other), (href, page.url)
    context.close()


@pytest.mark.parametrize("path, term", [("/", "occupancy"), ("/naive/", "flash"), ("/zh-TW/", "記憶體"),
                                        ("/zh-TW/naive/", "flash")])
def test_search_finds_terms_in_the_pages_own_language(server: str, browser, path: str, term: str) -> None:
    """Each language searches its own index: every result links to a page of that language."""
    context, page, _, _ = _visit(browser, server, path)
    box = page.locator("input.md-search__input")
    box.click()
    box.fill(term)            # typed CJK needs a key event after it, as an input method would send
    box.press("Space")
    box.press("Backspace")
    page.wait_for_selector(".md-search-result__item", timeout=15000)
    links = [a.get_attribute("href") for a in page.locator(".md-search-result__item a").all()]
    assert links
    chinese = [link for link in links if "/zh-TW/" in link]
    assert chinese == links if path.startswith("/zh-TW/") else not chinese, links
    context.close()


def test_notebook_page_renders_as_a_notebook(server: str, browser) -> None:
    for path in ("/notebook/", "/zh-TW/notebook/"):
        context, page, errors, _ = _visit(browser, server, path)
        assert page.locator(".jp-Cell").count() > 0 and not errors
        # the default snapshot carries a frozen run: its outputs show, under a banner naming the device
        assert page.locator(".jp-OutputArea-output").count() >= 8
        assert "NVIDIA H200" in page.locator(".admonition").first.inner_text()
        context.close()


def _luminance(rgb: str) -> float:
    values = [int(x) / 255 for x in re.findall(r"\d+", rgb)[:3]]
    lin = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in values]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_figures_are_legible_in_both_schemes(server: str, browser, scheme: str) -> None:
    """Figure ink follows the page's text colour: contrast against the page background."""
    context, page, _, _ = _visit(browser, server, "/", scheme)
    ink = page.eval_on_selector("figure.attn-figure svg", "e => getComputedStyle(e).color")
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    if background in ("rgba(0, 0, 0, 0)", "transparent"):
        background = page.evaluate("getComputedStyle(document.querySelector('.md-main')).backgroundColor")
    lighter, darker = sorted([_luminance(ink), _luminance(background)], reverse=True)
    assert (lighter + 0.05) / (darker + 0.05) >= 4.5, (scheme, ink, background)
    context.close()


def test_key_pages_screenshots(server: str, browser) -> None:
    """Saved for people to look at (test-artifacts/screenshots): the overview, naive, flash and cuDNN
    pages in both languages, at a desktop's and a phone's width, light and dark; asserts only that
    they were taken."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shots = []
    for base in ("/", "/naive/", "/flash/", "/cudnn/", "/scaling/"):
        for path in (base, "/zh-TW" + base):
            for device, (width, height) in WIDTHS.items():
                for scheme in ("light", "dark"):
                    if base == "/scaling/" and (device, scheme) != ("desktop", "light"):
                        continue
                    context = browser.new_context(color_scheme=scheme, viewport={"width": width, "height": height})
                    page = context.new_page()
                    page.goto(server + path, wait_until="networkidle")
                    name = (path.strip("/").replace("/", "_") or "index") + f"-{device}-{scheme}.png"
                    page.screenshot(path=str(ARTIFACTS / name), full_page=True)
                    shots.append(ARTIFACTS / name)
                    context.close()
    assert all(p.stat().st_size > 10_000 for p in shots)


@pytest.mark.parametrize("path", ["/naive/", "/zh-TW/cudnn/"])
def test_numbers_in_tables_are_right_aligned_and_tabular(server: str, browser, path: str) -> None:
    """Material's own table rule is more specific than a plain class rule; ours must still win."""
    context, page, _, _ = _visit(browser, server, path)
    styles = page.eval_on_selector_all(".attn-table td.num", "cells => cells.map(c => [getComputedStyle(c).textAlign,"
                                       " getComputedStyle(c).fontVariantNumeric])")
    assert styles and all(align == "right" and "tabular-nums" in numeric for align, numeric in styles), styles[:3]
    context.close()


# ---- layout: what fits the reading column at a desktop's and a phone's width --------------------

WIDTHS = {"desktop": (1440, 900), "phone": (390, 844)}
MIN_FIGURE_TEXT_PX = 11

_LAYOUT_JS = """(minText) => {
  const problems = [];
  const column = document.querySelector(".md-content__inner");
  for (const [i, box] of [...document.querySelectorAll(".attn-table")].entries()) {
    const table = box.querySelector("table");
    if (table.scrollWidth > box.clientWidth + 1)
      problems.push(`table ${i + 1} is ${table.scrollWidth} px wide in a ${box.clientWidth} px column`);
  }
  for (const [i, svg] of [...document.querySelectorAll("figure.attn-figure svg")].entries()) {
    const rect = svg.getBoundingClientRect();
    if (rect.width === 0) continue;                   // the other layout's drawing, hidden at this width
    if (rect.width < column.clientWidth - 4)
      problems.push(`figure ${i + 1} is ${Math.round(rect.width)} px wide in a ${column.clientWidth} px column`);
    const scale = rect.width / svg.viewBox.baseVal.width;
    let smallest = Infinity;
    for (const text of svg.querySelectorAll("text")) {
      if (!text.getBBox().width) continue;
      smallest = Math.min(smallest, parseFloat(getComputedStyle(text).fontSize) * scale);
    }
    if (smallest < minText) problems.push(`figure ${i + 1} has text at ${smallest.toFixed(1)} px`);
  }
  return problems;
}"""


def _layout_problems(browser, base: str, path: str, width: int, height: int) -> list[str]:
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.goto(base + path.replace("//", "/"), wait_until="load")
    problems = page.evaluate(_LAYOUT_JS, MIN_FIGURE_TEXT_PX)
    context.close()
    return [f"{path} at {width} px: {p}" for p in problems]


@pytest.mark.parametrize("device", WIDTHS)
def test_tables_fit_and_figures_fill_the_column_legibly(built: Built, server: str, browser, device: str) -> None:
    """Every page, both languages, of the top site and of the site of every committed snapshot (they
    are served under snapshots/: a CPU's tables and an FP32 run's differ from the H200's): no table
    (in its default columns) wider than the column, no figure narrower than the column, no figure
    text below the minimum."""
    width, height = WIDTHS[device]
    problems = [p for path in _urls(built) for p in _layout_problems(browser, server, path, width, height)]
    assert not problems, "\n".join(problems)


def test_the_layout_check_catches_an_overwide_table_and_a_caption_sized_figure(built: Built, browser,
                                                                            tmp_path: Path) -> None:
    """The check above, on a copy of one page broken twice: a table given a column that cannot
    wrap, and figures sized by their captions (as Material's own figure rule does)."""
    copy = tmp_path / "site"
    shutil.copytree(built.site, copy, ignore=shutil.ignore_patterns("traces", "snapshots", "zh-TW"))
    page = copy / "naive" / "index.html"
    text = page.read_text(encoding="utf-8")
    text = text.replace("<td class=\"num\">", "<td class=\"num\">" + "9" * 120 + " ", 1)
    text = text.replace("</head>", "<style>.md-typeset figure.attn-figure{width:fit-content!important;"
                        "display:flex!important}.md-typeset figure.attn-figure svg{width:14rem!important}</style></head>")
    page.write_text(text, encoding="utf-8")
    handler = functools.partial(_QuietHandler, directory=str(copy))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        problems = _layout_problems(browser, f"http://127.0.0.1:{httpd.server_address[1]}", "/naive/", *WIDTHS["desktop"])
    finally:
        httpd.shutdown()
    assert any("table" in p and "wide in a" in p for p in problems), problems
    assert any("figure" in p and "wide in a" in p for p in problems), problems
