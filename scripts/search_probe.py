"""Type queries into a built site's search box in headless Chromium and print what the search answers.

    .venv/bin/python scripts/search_probe.py SITE_DIR PAGE QUERY...
    e.g. scripts/search_probe.py /tmp/try-generator/mkdocs/site zh-TW/naive/ 矩陣 縮放 分數矩陣

Serves SITE_DIR on a free local port. Material for MkDocs: the count in its result meta line;
Zensical's modern variant (its search dialog lives in a shadow root): its "N results" line.
Needs the `test` extra's Playwright and Debian's Chromium (/usr/bin/chromium), like tests/test_browser.py.
Part of the trials in docs-dev/decisions/0001-site-generator.md.
"""

from __future__ import annotations

import functools
import http.server
import re
import sys
import threading
import time

from playwright.sync_api import sync_playwright

SHADOW_TEXT = (
    "() => [...document.querySelectorAll('*')].filter(e => e.shadowRoot).map(e => e.shadowRoot.textContent).join(' ')"
)


def main(root: str, page: str, queries: list[str]) -> None:
    http.server.SimpleHTTPRequestHandler.log_message = lambda *a: None
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=root)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}/{page}"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        tab = browser.new_page()
        for query in queries:
            tab.goto(url)
            if tab.locator("input.md-search__input").count():  # Material for MkDocs
                field = tab.locator("input.md-search__input")
                field.click()
                field.fill(query)  # typed CJK needs a key event after it (tests/test_browser.py)
                field.press("Space")
                field.press("Backspace")
                meta = tab.locator(".md-search-result__meta")
                try:
                    tab.wait_for_selector(".md-search-result__item", timeout=15000)
                except Exception:
                    pass
                answer = meta.first.inner_text() if meta.count() else "no result line"
            else:  # Zensical (modern variant)
                tab.locator(".md-search__button").first.click()
                time.sleep(1)
                tab.keyboard.type(query, delay=40)
                time.sleep(3)
                text = tab.evaluate(SHADOW_TEXT)
                found = re.search(r"\d+ results?|No results", text)
                answer = found.group(0) if found else "no result line"
            print(f"{query}\t{answer}")
        browser.close()
    server.shutdown()


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
