"""What a figure says on its axes (matplotlib runs here; no torch)."""

from __future__ import annotations

import re

import pytest

from attn_examples import figures
from attn_examples.pages import committed_snapshots
from attn_examples.snapshot import load_snapshot
from tests.conftest import REPO


@pytest.mark.parametrize("folder", committed_snapshots(REPO / "snapshots"), ids=lambda p: p.name)
def test_a_count_axis_has_whole_number_ticks(folder) -> None:
    svg = figures.draw_kernels(load_snapshot(folder))
    ticks = re.findall(r'<g id="[^"]*xtick_\d+">.*?<text[^>]*>([^<]*)</text>', svg, re.S)
    assert ticks and all(re.fullmatch(r"\d+", t.replace(",", "")) for t in ticks), ticks
