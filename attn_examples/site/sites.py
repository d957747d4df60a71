"""Build the whole site once per committed snapshot, so every measurement reads as a site (no torch).

    site/                      the build's own measurement: the committed baseline, or a live one
    site/snapshots/<name>/     the site built from snapshots/<name>, one per committed snapshot

The devices page of every one of them links to all the others (`ATTN_EXAMPLES_SITE_TOP` tells a
site where the top site's root is, relative to its own). Each build is a separate strict `mkdocs
build` process: the one-measurement-per-build rule holds, and a failing snapshot names itself.

    python -m attn_examples.site.sites [-d site] [--jobs 2] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TOP_ENV = "ATTN_EXAMPLES_SITE_TOP"
SUBDIR = "snapshots"


@dataclass(frozen=True)
class Build:
    name: str  # "" for the top site
    out: Path
    returncode: int
    seconds: float
    log: str

    @property
    def ok(self) -> bool:
        return self.returncode == 0


def top_prefix() -> str:
    """From this site's root to the top site's root ("" when this is the top site)."""
    prefix = os.environ.get(TOP_ENV, "")
    if prefix not in ("", "../../"):
        raise ValueError(f"{TOP_ENV}={prefix!r}: expected empty or '../../'")
    return prefix


def committed() -> list[Path]:
    from attn_examples.site.pages import committed_snapshots

    return committed_snapshots(REPO / "snapshots")


# A build from a snapshot never needs torch: it runs with torch made unimportable, so it cannot
# start depending on it unnoticed.
_WITHOUT_TORCH = """
import runpy, sys
sys.modules["torch"] = None
sys.argv = ["mkdocs", "build", "--strict", "-d", sys.argv[1]]
runpy.run_module("mkdocs", run_name="__main__")
"""


def _mkdocs(out: Path, env: dict[str, str], cache: Path, without_torch: bool) -> tuple[int, str]:
    env = dict(env, NO_MKDOCS_2_WARNING="1", MKDOCS_JUPYTER_CACHE_DIR=str(cache))
    command = (
        [sys.executable, "-c", _WITHOUT_TORCH, str(out)]
        if without_torch
        else [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)]
    )
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=1800)
    return done.returncode, done.stdout + done.stderr


def build_one(name: str, out: Path, env: dict[str, str], cache_root: Path | None = None) -> Build:
    started = time.perf_counter()
    cache = (cache_root or REPO / ".cache" / "mkdocs-jupyter") / (name or "top")
    code, log = _mkdocs(out, env, cache, without_torch=env.get("ATTN_EXAMPLES_MEASURE") == "snapshot")
    return Build(name, out, code, time.perf_counter() - started, log)


def build_all(
    out: Path,
    only: list[str] | None = None,
    jobs: int = 2,
    top: bool = True,
    progress=print,
    cache_root: Path | None = None,
) -> list[Build]:
    """The top site from this environment's measurement, then one site per committed snapshot."""
    results = []
    base_env = {k: v for k, v in os.environ.items() if k != TOP_ENV}
    if top:
        progress(f"site: top ({base_env.get('ATTN_EXAMPLES_MEASURE', 'auto')})")
        results.append(build_one("", out, base_env, cache_root))
        if not results[-1].ok:
            return results
    folders = [f for f in committed() if not only or f.name in only]
    sub = out / SUBDIR
    if not top and sub.exists():
        shutil.rmtree(sub)

    def one(folder: Path) -> Build:
        env = dict(
            base_env, ATTN_EXAMPLES_MEASURE="snapshot", ATTN_EXAMPLES_SNAPSHOT=str(folder), **{TOP_ENV: "../../"}
        )
        result = build_one(folder.name, sub / folder.name, env, cache_root)
        progress(f"site: {folder.name} {'ok' if result.ok else 'FAILED'} ({result.seconds:.1f} s)")
        return result

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        results += list(pool.map(one, folders))
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m attn_examples.site.sites", description=__doc__.split("\n\n")[0])
    parser.add_argument("-d", "--site-dir", default="site", help="output folder (default: site)")
    parser.add_argument("--jobs", type=int, default=2, help="snapshot sites built at once (default: 2)")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="only these snapshots (folder names)")
    parser.add_argument("--no-top", action="store_true", help="leave the top site as it is")
    args = parser.parse_args(argv)
    results = build_all(Path(args.site_dir), args.only, args.jobs, top=not args.no_top)
    failed = [r for r in results if not r.ok]
    for r in failed:
        print(f"\n--- {r.name or 'top'} failed:\n{r.log[-4000:]}", file=sys.stderr)
    print(f"{len(results) - len(failed)} of {len(results)} site(s) built into {args.site_dir}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
