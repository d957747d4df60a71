"""A snapshot is outside input: markup in any of its strings must reach the reader as text.

Every free-text string of the committed H200 snapshot (GPU name, versions, kernel and operator
names, launch APIs, reasons, commands) gets a script appended, and so does every event name in its
Kineto traces (what the timelines read); the site must still build strictly and no page may carry
the script as markup."""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SCRIPT = '<script>alert("x")</script>'
# strings the schema or the code reads as identifiers, checked elsewhere (tests/test_snapshot.py)
STRUCTURAL = {
    "id",
    "kind",
    "trace_file",
    "device_kind",
    "timer",
    "auto_backend",
    "fused_sdp_choice",
    "device_slug",
    "compute_capability",
    "variant",
    "measured_at",
    "dtype",
    "block",
    "grid",
    "reader",
    "report_file",
}


def _poison(node, key=None, inside=()):
    """Append the script to every free-text string; aten operator names are left alone, since claims
    count operators by their exact names (a renamed operator is a different measurement)."""
    if isinstance(node, dict):
        return {k: _poison(v, k, inside + (k,)) for k, v in node.items()}
    if isinstance(node, list):
        return [_poison(v, key, inside) for v in node]
    if (
        isinstance(node, str)
        and key not in STRUCTURAL
        and "units" not in inside
        and not ("cpu_ops" in inside and key == "name")
    ):
        return node + SCRIPT
    return node


def test_markup_in_a_snapshot_is_shown_as_text(tmp_path: Path) -> None:
    folder = tmp_path / "hostile"
    shutil.copytree(REPO / "snapshots" / "nvidia-h200", folder)
    data = json.loads((folder / "snapshot.json").read_text())
    poisoned = _poison(data)
    assert poisoned["provenance"]["device_name"].endswith(SCRIPT)
    (folder / "snapshot.json").write_text(json.dumps(poisoned))
    for trace in (folder / "traces").glob("*.json.gz"):  # the step and record_function labels stay
        events = json.loads(gzip.decompress(trace.read_bytes()))
        for event in events["traceEvents"]:
            if event.get("cat") in ("cpu_op", "cuda_runtime", "cuda_driver", "kernel", "gpu_memcpy", "gpu_memset"):
                event["name"] += SCRIPT
        trace.write_bytes(gzip.compress(json.dumps(events).encode()))
    env = dict(
        os.environ,
        NO_MKDOCS_2_WARNING="1",
        ATTN_EXAMPLES_MEASURE="snapshot",
        ATTN_EXAMPLES_SNAPSHOT=str(folder),
        MKDOCS_JUPYTER_CACHE_DIR=str(tmp_path / "nb"),
    )
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(site)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 30
    found = [str(p.relative_to(site)) for p in pages if re.search(r"<script>alert", p.read_text(encoding="utf-8"))]
    assert not found, found
    escaped = (site / "index.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;alert" in escaped  # the device name arrived, as text
    timeline = (site / "flash" / "index.html").read_text(encoding="utf-8")
    mark = re.search(r'<g class="tl-mark tl-gpu[^>]*>(.*?)</g>', timeline, re.S)
    assert mark and "&lt;script&gt;alert" in mark.group(1)  # a kernel's name from the trace, as text
