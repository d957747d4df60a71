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
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


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
    return [
        "/" + str(p.relative_to(built.site).parent).replace(".", "").strip("/") + "/"
        for p in site_checks.pages(built.site)
    ]


def _visit(
    browser,
    server: str,
    path: str,
    scheme: str = "light",
    viewport: tuple[int, int] = (1280, 900),
    javascript: bool = True,
    before=None,
):
    context = browser.new_context(
        color_scheme=scheme, viewport={"width": viewport[0], "height": viewport[1]}, java_script_enabled=javascript
    )
    if before is not None:  # e.g. routes, set up before the page loads
        before(context)
    page = context.new_page()
    errors, outside, failed = [], [], []
    page.on("response", lambda r: failed.append(r.url) if r.status >= 400 else None)  # every failed load counts
    page.on(
        "console",
        lambda m: (
            errors.append(m.text) if m.type == "error" and not m.text.startswith("Failed to load resource") else None
        ),
    )
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on(
        "request",
        lambda r: (
            outside.append(r.url) if not r.url.startswith(server) and not r.url.startswith(("data:", "blob:")) else None
        ),
    )
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
                continue  # the narrow drawing, hidden on a desktop
            box = svg.bounding_box()
            if not box or box["width"] < 50 or box["height"] < 50 or not svg.get_attribute("aria-label"):
                problems.append(f"{path}: a figure not visible or without its label")
        context.close()
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    "path, other", [("/flash/", "/zh-TW/flash/"), ("/zh-TW/cudnn/", "/cudnn/"), ("/notebook/", "/zh-TW/notebook/")]
)
def test_language_switcher_leads_to_the_same_page(server: str, browser, path: str, other: str) -> None:
    context, page, _, _ = _visit(browser, server, path)
    target = "zh-TW" if "zh-TW" not in path else "en"
    link = page.locator(f'.md-select a[hreflang="{target}"]').first
    href = link.get_attribute("href")
    page.locator(".md-select").first.hover()  # as a reader does: open the menu, click the language
    link.click()
    page.wait_for_load_state("networkidle")
    assert page.url.endswith(other), (href, page.url)
    context.close()


@pytest.mark.parametrize(
    "path, term", [("/", "occupancy"), ("/naive/", "flash"), ("/zh-TW/", "記憶體"), ("/zh-TW/naive/", "flash")]
)
def test_search_finds_terms_in_the_pages_own_language(server: str, browser, path: str, term: str) -> None:
    """Each language searches its own index: every result links to a page of that language."""
    context, page, _, _ = _visit(browser, server, path)
    box = page.locator("input.md-search__input")
    box.click()
    box.fill(term)  # typed CJK needs a key event after it, as an input method would send
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
    styles = page.eval_on_selector_all(
        ".attn-table td.num",
        "cells => cells.map(c => [getComputedStyle(c).textAlign, getComputedStyle(c).fontVariantNumeric])",
    )
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
  // a header whose Chinese breaks leaving one character alone on a line (時 / 間)
  for (const cell of document.querySelectorAll(".attn-table th")) {
    if (!cell.offsetWidth || !/[\u4e00-\u9fff]/.test(cell.textContent)) continue;
    const lines = new Map();
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (let k = 0; k < node.length; k++) {
        const range = document.createRange(); range.setStart(node, k); range.setEnd(node, k + 1);
        const rect = range.getBoundingClientRect();
        if (!rect.height) continue;
        const top = Math.round(rect.top);
        lines.set(top, (lines.get(top) || "") + node.data[k]);
      }
    }
    for (const line of lines.values())
      if (lines.size > 1 && /^[\u4e00-\u9fff]$/.test(line.trim()))
        problems.push(`"${cell.textContent}" leaves ${line.trim()} alone on a line`);
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


def test_the_layout_check_catches_an_overwide_table_and_a_caption_sized_figure(
    built: Built, browser, tmp_path: Path
) -> None:
    """The check above, on a copy of one page broken twice: a table given a column that cannot
    wrap, and figures sized by their captions (as Material's own figure rule does)."""
    copy = tmp_path / "site"
    shutil.copytree(built.site, copy, ignore=shutil.ignore_patterns("traces", "snapshots", "zh-TW"))
    page = copy / "naive" / "index.html"
    text = page.read_text(encoding="utf-8")
    text = text.replace('<td class="num">', '<td class="num">' + "9" * 120 + " ", 1)
    text = text.replace(
        "</head>",
        "<style>.md-typeset figure.attn-figure{width:fit-content!important;"
        "display:flex!important}.md-typeset figure.attn-figure svg{width:14rem!important}</style></head>",
    )
    page.write_text(text, encoding="utf-8")
    handler = functools.partial(_QuietHandler, directory=str(copy))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        problems = _layout_problems(
            browser, f"http://127.0.0.1:{httpd.server_address[1]}", "/naive/", *WIDTHS["desktop"]
        )
    finally:
        httpd.shutdown()
    assert any("table" in p and "wide in a" in p for p in problems), problems
    assert any("figure" in p and "wide in a" in p for p in problems), problems


# ---- the interactive timeline (attn_examples/render/timeline.py, docs/javascripts/timeline.js) ---------

FONT_SIZES: dict[str, float] = {}


def _timeline_pages(built: Built) -> list[str]:
    return [
        path
        for path in _urls(built)
        if 'class="attn-figure attn-timeline"'
        in (built.site / path.strip("/") / "index.html").read_text(encoding="utf-8")
    ]


# what every timeline on a page looks like once the script has run: widths, the smallest text, the tooltips
_MEASURE = """() => [...document.querySelectorAll('figure.attn-timeline')].map(fig => {
  const shown = e => e.getClientRects().length > 0 && getComputedStyle(e).display !== 'none'
                     && getComputedStyle(e).visibility !== 'hidden' && (e.textContent || '').trim() !== '';
  const texts = [...fig.querySelectorAll('svg text, li, button, .tl-range, .tl-keys, figcaption')].filter(shown);
  const marks = [...fig.querySelectorAll('.tl-mark')];
  return {
    id: fig.id,
    figure: fig.getBoundingClientRect().width,
    container: fig.parentElement.clientWidth,
    svg: fig.querySelector('svg').getBoundingClientRect().width,
    fonts: texts.map(e => parseFloat(getComputedStyle(e).fontSize)),
    marks: marks.length,
    described: marks.filter(m => (m.getAttribute('aria-label') || '').trim().length > 0).length,
    labels: fig.querySelectorAll('svg text.tl-label').length,
  };
})"""


@pytest.mark.parametrize("viewport", list(WIDTHS), ids=str)
def test_timelines_fit_read_and_show_their_tooltips(built: Built, server: str, browser, viewport: str) -> None:
    """Every page with a timeline, both languages: every mark has its tooltip text, hovering the longest
    kernel shows the tooltip with its duration, the widget fits its column (no sideways scrolling),
    and no timeline text is smaller than 11 px."""
    pages = _timeline_pages(built)
    assert any(p.startswith("/zh-TW/") for p in pages) and any(not p.startswith("/zh-TW/") for p in pages)
    problems, smallest = [], []
    for path in pages:
        context, page, errors, outside = _visit(browser, server, path, viewport=WIDTHS[viewport])
        if errors or outside:
            problems.append(f"{path}: errors {errors[:2]}, requests leaving localhost {outside[:2]}")
        # the script moves each <title> to aria-label when it starts: on a loaded machine that can come
        # after "network idle", so wait for every timeline to say it is ready
        page.wait_for_function(
            "[...document.querySelectorAll('figure.attn-timeline')].every(f => f.hasAttribute('data-ready'))",
            timeout=20000,
        )
        for fig in page.evaluate(_MEASURE):
            where = f"{path}#{fig['id']}"
            if not fig["marks"] or fig["described"] != fig["marks"]:
                problems.append(
                    f"{where}: {fig['marks'] - fig['described']} of {fig['marks']} marks without tooltip text"
                )
            if fig["figure"] > fig["container"] + 0.5 or fig["svg"] > fig["figure"] + 0.5:
                problems.append(f"{where}: wider than its column ({fig})")
            smallest.append(min(fig["fonts"]))
        if page.evaluate("document.documentElement.scrollWidth") > WIDTHS[viewport][0]:
            problems.append(f"{path}: the page scrolls sideways")
        figure = page.locator("figure.attn-timeline").first
        marks = figure.locator(".tl-mark.tl-gpu:not(.tl-other)")
        if marks.count() == 0:
            marks = figure.locator(".tl-mark")
        spans = [float(m.get_attribute("data-e")) - float(m.get_attribute("data-s")) for m in marks.all()]
        longest = marks.nth(spans.index(max(spans)))
        longest.hover()
        tip = figure.locator(".tl-tip")
        tip.wait_for(state="visible", timeout=3000)
        duration = next(
            (
                line
                for line in (longest.get_attribute("aria-label") or "").split("\n")
                if line.startswith(("Duration: ", "耗時："))
            ),
            None,
        )
        if duration is None or duration not in tip.inner_text().split("\n"):
            problems.append(f"{path}: the tooltip does not show {duration!r}: {tip.inner_text()[:120]!r}")
        box, tip_box = figure.bounding_box(), tip.bounding_box()
        if tip_box["x"] < box["x"] - 0.5 or tip_box["x"] + tip_box["width"] > box["x"] + box["width"] + 0.5:
            problems.append(f"{path}: the tooltip reaches past the figure")
        context.close()
    FONT_SIZES[viewport] = min(smallest)
    print(f"smallest timeline text at {WIDTHS[viewport][0]} px wide: {min(smallest)} px")
    assert not problems, "\n".join(problems)
    assert min(smallest) >= 11, f"timeline text of {min(smallest)} px at {viewport}"


def test_a_timeline_without_javascript_still_reads(server: str, browser) -> None:
    """The server-rendered SVG: marks with their <title>, labels where they fit, no dead buttons."""
    context, page, _errors, outside = _visit(
        browser, server, "/zh-TW/math/", viewport=WIDTHS["desktop"], javascript=False
    )
    figure = page.locator("figure.attn-timeline").first
    assert figure.locator(".tl-mark").count() == figure.locator(".tl-mark > title").count() > 10
    visible = [t for t in figure.locator("text.tl-label").all() if t.is_visible()]
    assert visible, "no label shown without JavaScript"
    assert not figure.locator(".tl-toolbar").is_visible()
    assert not page.locator("button.attn-perfetto").first.is_visible()
    assert page.locator(".attn-perfetto-manual").first.is_visible()
    assert not outside
    context.close()


def test_keyboard_moves_between_marks_and_zooms(server: str, browser) -> None:
    context, page, errors, _ = _visit(browser, server, "/flash/", viewport=WIDTHS["desktop"])
    figure = page.locator("figure.attn-timeline").first

    def view() -> tuple[float, float]:
        return float(figure.get_attribute("data-view-start")), float(figure.get_attribute("data-view-end"))

    start = view()
    first = figure.locator('.tl-mark[tabindex="0"]')  # one Tab stop per timeline
    assert first.count() == 1
    first.focus()
    tip = figure.locator(".tl-tip")
    tip.wait_for(state="visible", timeout=3000)
    assert tip.inner_text().split("\n")[0] == first.get_attribute("aria-label").split("\n")[0]
    page.keyboard.press("+")
    page.wait_for_function(
        "f => +f.dataset.viewEnd - +f.dataset.viewStart < %f" % (start[1] - start[0] - 1e-6),
        arg=figure.element_handle(),
        timeout=3000,
    )
    zoomed = view()
    assert zoomed[1] - zoomed[0] < start[1] - start[0]
    before = page.evaluate("document.activeElement.dataset.i")
    page.keyboard.press("ArrowDown")
    after = page.evaluate("document.activeElement.dataset.i")
    assert after is not None and after != before
    assert figure.locator('.tl-mark[tabindex="0"]').count() == 1  # the Tab stop moved along
    page.keyboard.press("0")
    page.wait_for_function("f => +f.dataset.viewStart === 0", arg=figure.element_handle(), timeout=3000)
    assert not errors
    context.close()


# Like Perfetto, the stub listens only once it has "loaded" (a second after opening): a message posted
# before then is lost, so the page must keep pinging until it hears PONG.
_PERFETTO_STUB = """<!doctype html><title>stub</title><script>
window.received = null;
window.pings = 0;
setTimeout(function () {
  window.addEventListener("message", function (e) {
    if (e.data === "PING") { window.pings += 1; e.source.postMessage("PONG", "*"); return; }
    if (e.data && e.data.perfetto) {
      const p = e.data.perfetto;
      window.received = {bytes: p.buffer.byteLength, isBuffer: p.buffer instanceof ArrayBuffer, title: p.title,
                         fileName: p.fileName, origin: e.origin, pings: window.pings};
    }
  });
}, 1000);
</script>"""


@pytest.mark.parametrize("path", ["/flash/", "/zh-TW/math/"])
def test_open_in_perfetto_hands_the_trace_over_only_when_clicked(built: Built, server: str, browser, path: str) -> None:
    """Before the click nothing leaves localhost; after it, a stub standing in for ui.perfetto.dev
    answers PING with PONG and receives the trace file's bytes."""
    requests: list[str] = []

    def stub(context) -> None:
        context.route(
            "https://ui.perfetto.dev/**",
            lambda route: route.fulfill(status=200, content_type="text/html", body=_PERFETTO_STUB),
        )
        context.on("request", lambda r: requests.append(r.url))  # the new tab's too

    context, page, errors, outside = _visit(browser, server, path, viewport=WIDTHS["desktop"], before=stub)
    page.wait_for_timeout(500)
    assert not outside, outside
    trace = page.locator("figure.attn-timeline + p.attn-trace").first
    button = trace.locator("button.attn-perfetto")
    assert button.is_visible() and not trace.locator(".attn-perfetto-manual").is_visible()
    href = trace.locator("a[download]").get_attribute("href")
    local = (built.site / path.strip("/") / href).resolve()
    assert local.is_file(), href
    with context.expect_page() as opened:
        button.click()
    popup = opened.value
    popup.wait_for_function("window.received !== null", timeout=15000)
    received = popup.evaluate("window.received")
    assert received["pings"] >= 1, "the trace came before the handshake"
    assert received["isBuffer"] and received["bytes"] == local.stat().st_size
    assert received["fileName"] == local.name and received["title"]
    assert received["origin"] == server
    elsewhere = [url for url in requests if not url.startswith((server, "data:", "blob:"))]
    assert elsewhere and all(url.startswith("https://ui.perfetto.dev/") for url in elsewhere), elsewhere
    status = trace.locator(".attn-perfetto-status")
    status.filter(has_text=button.get_attribute("data-sent")).wait_for(timeout=3000)
    assert not errors
    context.close()


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_a_statements_mark_opens_what_it_rests_on_and_stays_on_screen(server: str, browser, viewport: str) -> None:
    """The mark after a statement: a tap opens its popup (the claims it rests on, with verdicts), the
    popup lies inside the screen, Escape closes it and gives the focus back, a tap elsewhere closes it."""
    context, page, errors, outside = _visit(browser, server, "/zh-TW/cudnn/", viewport=WIDTHS[viewport])
    marks = page.locator("button.attn-ev-mark")
    assert marks.count() > 10
    mark = marks.nth(3)
    mark.scroll_into_view_if_needed()
    mark.click()
    pop = page.locator(f"#{mark.get_attribute('aria-controls')}")
    assert mark.get_attribute("aria-expanded") == "true" and pop.is_visible()
    assert pop.locator(".attn-ev-row").count() >= 1 and re.search("成立|此處觀察到|不成立|無法判定", pop.inner_text())
    box, width = pop.bounding_box(), page.viewport_size["width"]
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, (box, width)
    page.keyboard.press("Escape")
    assert mark.get_attribute("aria-expanded") == "false" and not pop.is_visible()
    assert page.evaluate("document.activeElement.classList.contains('attn-ev-mark')")
    mark.click()
    page.mouse.click(2, 2)
    assert not pop.is_visible()
    assert not errors and not outside
    context.close()


def test_the_layout_check_catches_a_chinese_header_that_leaves_a_character_alone(
    built: Built, browser, tmp_path: Path
) -> None:
    """The check above, on a copy of the Chinese overview with its word breaks taken out: the browser
    then breaks its summary table's headers anywhere, and one leaves a character alone."""
    copy = tmp_path / "site"
    shutil.copytree(built.site, copy, ignore=shutil.ignore_patterns("traces", "snapshots"))
    page = copy / "zh-TW" / "index.html"
    text = page.read_text(encoding="utf-8").replace("<wbr>", "").replace("&nbsp;", " ")
    text = text.replace("</head>", "<style>.md-typeset .attn-table th{word-break:normal!important}</style></head>")
    page.write_text(text, encoding="utf-8")
    handler = functools.partial(_QuietHandler, directory=str(copy))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        problems = _layout_problems(browser, f"http://127.0.0.1:{httpd.server_address[1]}", "/zh-TW/", *WIDTHS["phone"])
    finally:
        httpd.shutdown()
    assert any("alone on a line" in p for p in problems), problems


def test_open_in_perfetto_gives_up_with_a_message_when_perfetto_never_answers(server: str, browser) -> None:
    """A Perfetto tab that never answers PONG (offline, say): after 30 s of pings the status says so
    instead of "Opening…" for ever. The page's clock is run forward; no half minute is waited."""

    def silent(context) -> None:
        context.route(
            "https://ui.perfetto.dev/**",
            lambda route: route.fulfill(status=200, content_type="text/html", body="<!doctype html><title>x</title>"),
        )

    context, page, errors, _ = _visit(browser, server, "/flash/", viewport=WIDTHS["desktop"], before=silent)
    page.clock.install()
    trace = page.locator("figure.attn-timeline + p.attn-trace").first
    button = trace.locator("button.attn-perfetto")
    with context.expect_page():
        button.click()
    status = trace.locator(".attn-perfetto-status")
    opening, silent_text = button.get_attribute("data-opening"), button.get_attribute("data-silent")
    assert opening and silent_text
    status.filter(has_text=opening).wait_for(timeout=5000)
    page.clock.run_for(31_000)
    status.filter(has_text=silent_text).wait_for(timeout=5000)
    assert not errors
    context.close()
