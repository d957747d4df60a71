"""The one Jinja environment the site's HTML blocks are rendered with (no torch).

Autoescaped: every value a template is given is text and comes out escaped, so a kernel name, a
device name or a reason from a snapshot can never become markup; a fragment that is already HTML
says so by being a `markupsafe.Markup`. Strict: a value a template names but is not given is an
error, not an empty string. Created on first use and kept for the process, so each template is
compiled once (Jinja still checks a template's file before reusing it, so `mkdocs serve` shows an
edited one).

The templates are written one element a line, for reading, and render with no whitespace between
tags, as the blocks always have (a line break between two Chinese characters would even be taken
out by the zh-TW page hook): a line's break goes with a `-` on the tag that follows it (`{%- if %}`,
`{#- why -#}`, or `{{- "" }}` before a line that starts with markup).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import jinja2

# Where the templates live: a package and the folder inside it. The one place to change when they move.
TEMPLATES = ("attn_examples.render", "templates")


@functools.cache
def environment() -> jinja2.Environment:
    import jinja2  # here, not at import: a command that renders no HTML never loads Jinja (20 ms)

    return jinja2.Environment(
        loader=jinja2.PackageLoader(*TEMPLATES),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=False,
    )


def render(template: str, **values: Any) -> str:
    """A block of HTML from its template. A plain `str`, as the site's helpers have always returned: a
    `Markup` would escape the page HTML that a hook joins it to with `+`. A caller that nests the block
    in another template wraps it in `Markup` there."""
    return environment().get_template(template).render(values)
