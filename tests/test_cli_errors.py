"""Every way the CLI is handed something it cannot use ends in one line naming the file or argument,
no traceback, and exit code 2 (documented in attn_examples.site.cli.main)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
CPU = REPO / "snapshots" / "cpu"


def _copy(tmp: Path, name: str, change=None) -> Path:
    folder = tmp / name
    shutil.copytree(CPU, folder)
    if change:
        data = json.loads((folder / "snapshot.json").read_text())
        change(data)
        (folder / "snapshot.json").write_text(json.dumps(data))
    return folder


def _h200(tmp: Path) -> Path:
    folder = tmp / "h200"
    shutil.copytree(REPO / "snapshots" / "nvidia-h200", folder)
    return folder


def _naive_timing(data):
    return data["variants"]["naive"]["timing"]["device_us"]


def _corrupt_trace(tmp: Path, payload: bytes) -> Path:
    folder = _copy(tmp, "s")
    next((folder / "traces").glob("naive-*.json.gz")).write_bytes(payload)
    return folder


CASES = {
    "no variants": (lambda t: ["show", str(_copy(t, "s", lambda d: d.update(variants={})))], "field 'variants'"),
    "no steps": (
        lambda t: ["check", str(_copy(t, "s", lambda d: d["variants"]["naive"]["profile"].update(steps=[])))],
        "profile.steps",
    ),
    "NaN time": (
        lambda t: ["show", str(_copy(t, "s", lambda d: _naive_timing(d).update(median=float("nan"))))],
        "device_us.median",
    ),
    "negative time": (
        lambda t: ["check", str(_copy(t, "s", lambda d: _naive_timing(d).update(median=-1.0)))],
        "device_us.median",
    ),
    "zero time": (
        lambda t: ["show", str(_copy(t, "s", lambda d: _naive_timing(d).update(median=0.0)))],
        "device_us.median",
    ),
    "not UTF-8": (
        lambda t: (
            (t / "x").mkdir() or ((t / "x" / "snapshot.json").write_bytes(b"\xff\xfe{") and ["show", str(t / "x")])
        ),
        "not UTF-8",
    ),
    "a file, not a folder": (lambda t: (t / "f").write_text("x") and ["show", str(t / "f")], "no such snapshot"),
    "missing folder": (lambda t: ["show", str(t / "nowhere")], "no such snapshot"),
    "corrupt trace (not gzip)": (
        lambda t: ["check", str(_corrupt_trace(t, b"not gzip at all"))],
        "json.gz: not a readable gzip file",
    ),
    "corrupt trace (not a Kineto trace)": (
        lambda t: ["show", str(_corrupt_trace(t, __import__("gzip").compress(b'{"traceEvents": 3}')))],
        "json.gz: not a Kineto trace",
    ),
    "escaping trace path": (
        lambda t: [
            "show",
            str(_copy(t, "s", lambda d: d["variants"]["naive"]["profile"].update(trace_file="../../etc/passwd"))),
        ],
        "trace_file",
    ),
    "slug with ..": (
        lambda t: ["accept", str(_copy(t, "s", lambda d: d.update(device_slug="../x"))), "--to", str(t / "to")],
        "device_slug",
    ),
    "no CUDA": (lambda t: ["measure", "--device", "cuda", "-q", "-o", str(t / "o")], "no CUDA GPU"),
    "unknown device": (lambda t: ["measure", "--device", "tpu", "-q", "-o", str(t / "o")], "device 'tpu'"),
    "bad shape": (lambda t: ["measure", "--batch", "0", "-q", "-o", str(t / "o")], "'batch'"),
    "shape that cannot fit": (
        lambda t: [
            "measure",
            "--device",
            "cpu",
            "--batch",
            "1",
            "--heads",
            "1",
            "--head-dim",
            "8",
            "--seq-len",
            "400000",
            "-q",
            "-o",
            str(t / "o"),
        ],
        "GiB free",
    ),
    "output is a file": (
        lambda t: (t / "f").write_text("x") and ["measure", "--device", "cpu", "-q", "-o", str(t / "f")],
        "this is a file",
    ),
    "counters without ncu over measured counters": (
        lambda t: ["counters", str(_h200(t))],
        "keeps the counters it holds",
    ),
    "accept over another configuration": (
        lambda t: [
            "accept",
            str(_copy(t, "s", lambda d: d["config"].update(seq_len=256))),
            "--to",
            str(_copy(t, "base")),
        ],
        "differs from the baseline",
    ),
}


# These reach the measurement itself (the device, its memory, the output folder after torch's check).
NEEDS_TORCH = {"no CUDA", "unknown device", "shape that cannot fit", "output is a file"}


@pytest.mark.parametrize("case", [pytest.param(c, marks=pytest.mark.measure) if c in NEEDS_TORCH else c for c in CASES])
def test_a_cli_error_is_one_line_and_exit_2(case: str, tmp_path: Path) -> None:
    make, words = CASES[case]
    argv = make(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "attn_examples.site.cli", *argv],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2, (done.returncode, done.stdout[-500:], done.stderr[-2000:])
    assert "Traceback" not in done.stderr and len(lines) == 1, done.stderr
    assert lines[0].startswith("attn-examples: ") and words in lines[0], lines[0]


def test_debug_shows_the_traceback(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "attn_examples.site.cli", "--debug", "show", str(tmp_path / "nowhere")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0 and "Traceback" in done.stderr
