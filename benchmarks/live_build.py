"""A live GPU build as a new user runs it, stage by stage, then a warm `mkdocs serve`.

    python benchmarks/live_build.py [--out DIR] [--scopes full,standard] [--serve-timeout 120]

1. `mkdocs build --strict` with ATTN_EXAMPLES_MEASURE=live, once per live scope, the first on an
   empty measurement cache: the wall time of the whole process (torch import and both languages
   included), and the measurement's stages (attn_examples.snapshot.stages) written by the build itself;
2. `mkdocs serve --strict` in auto mode, which finds that measurement in the cache: seconds from
   start until the first page answers, and whether its provenance says the measurement was reused;
3. the fast measurement against the committed baseline of its device (`attn-examples check
   --baseline`): every claim, and drift.
Prints one JSON object; the logs go to --out. Needs a CUDA GPU, and the docs stack installed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def live_build(out: Path, scope: str) -> dict:
    stages_file = out / f"stages-{scope}.json"
    env = dict(
        os.environ,
        ATTN_EXAMPLES_MEASURE="live",
        ATTN_EXAMPLES_STAGES_FILE=str(stages_file),
        ATTN_EXAMPLES_NCU_LOG=str(out / f"ncu-{scope}"),
        ATTN_EXAMPLES_LIVE_SCOPE=scope,
        NO_MKDOCS_2_WARNING="1",
    )
    started = time.perf_counter()
    with open(out / f"live-build-{scope}.log", "w") as log:
        done = subprocess.run(
            [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out / "site")],
            cwd=REPO,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    wall = time.perf_counter() - started
    stages = json.loads(stages_file.read_text()) if stages_file.exists() else {}
    measuring = stages.get("live", 0.0)
    return {
        "live_build_wall_s": round(wall, 1),
        "live_build_rc": done.returncode,
        "measure_s": round(measuring, 1),
        "render_and_rest_s": round(wall - measuring, 1),
        "stages_s": {k: round(v, 2) for k, v in stages.items()},
    }


def warm_serve(out: Path, timeout_s: float) -> dict:
    port = free_port()
    env = dict(os.environ, ATTN_EXAMPLES_MEASURE="auto", NO_MKDOCS_2_WARNING="1")
    env.pop("ATTN_EXAMPLES_SNAPSHOT", None)
    env.pop("ATTN_EXAMPLES_LIVE_SCOPE", None)  # the default scope, measured by the first build
    log = open(out / "warm-serve.log", "w")  # noqa: SIM115 - the server writes to it until the finally below
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "mkdocs", "serve", "--strict", "-a", f"127.0.0.1:{port}"],
        cwd=REPO,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    first_page_s, page = None, ""
    try:
        while time.perf_counter() - started < timeout_s and proc.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as answer:
                    page = answer.read().decode("utf-8", "replace")
                    first_page_s = time.perf_counter() - started
                    break
            except OSError:
                time.sleep(0.2)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        log.close()
    (out / "warm-serve-index.html").write_text(page)
    return {
        "warm_serve_first_page_s": None if first_page_s is None else round(first_page_s, 1),
        "warm_serve_says_reused": "reused" in page,
    }


def check(out: Path) -> dict:
    """The default scope's measurement (the first build's) against the committed baseline."""
    folders = sorted((REPO / ".cache" / "measurements").glob("*/key.json"), key=lambda p: p.stat().st_mtime)
    if not folders:
        return {"check": "no cached live measurement"}
    live = folders[0].parent
    shutil.copyfile(live / "snapshot.json", out / "live-snapshot.json")
    snap = json.loads((live / "snapshot.json").read_text())
    baseline = REPO / "snapshots" / snap["device_slug"]
    cmd = ["attn-examples", "check", str(live)] + (["--baseline", str(baseline)] if baseline.exists() else [])
    done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
    (out / "check.txt").write_text(done.stdout + done.stderr)
    return {"check_rc": done.returncode, "check_tail": done.stdout.strip().splitlines()[-3:]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / ".cache" / "live-build-bench")
    parser.add_argument("--serve-timeout", type=float, default=120.0)
    parser.add_argument("--scopes", default="full,standard", help="live scopes to build, the default (full) first")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(REPO / ".cache" / "measurements", ignore_errors=True)  # cold: nothing to reuse
    result = {f"build_{scope}": live_build(args.out, scope) for scope in args.scopes.split(",")}
    result.update(warm_serve(args.out, args.serve_timeout))
    result.update(check(args.out))
    (args.out / "result.json").write_text(json.dumps(result, indent=1))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
