"""Fresh clone to first page served, with every cache empty: what a newcomer's `make serve` costs.

    python benchmarks/fresh_clone.py [--rev HEAD] [--port 8765] [--keep]

Clones this repository at --rev (committed work only) into a temporary folder, runs `make serve`
there in its steps with empty uv and pip caches (and empty jieba and XDG caches: TMPDIR
and XDG_CACHE_HOME point into the temporary folder): `make tools` (uv's bootstrap), `make
install` (what `make serve` installs first), then `make serve`, polling the dev server until its
first page answers 200. Prints one JSON object: seconds per step, clone to served, the docs
environment's size on disk, uv's cache (unpacked, partly the same files as .venv: hard links), and
the load average before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TARGET_S = 60.0


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3]) if Path("/proc/loadavg").exists() else "?"


def size_mb(path: Path) -> float | None:
    """Bytes on disk (du), so files hard-linked from uv's cache count once, where they lie."""
    if not path.exists():
        return None
    out = subprocess.run(["du", "-sk", str(path)], capture_output=True, text=True, check=True).stdout
    return round(int(out.split()[0]) / 1024, 1)


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
        return False


def run(rev: str, port: int, keep: bool, timeout_s: float) -> dict[str, object]:
    sha = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", rev], capture_output=True, text=True, check=True
    ).stdout.strip()
    tmp = Path(tempfile.mkdtemp(prefix="fresh-clone-"))
    clone = tmp / "clone"
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("UV_", "VIRTUAL_ENV", "PYTHONPATH", "MKDOCS_", "ATTN_EXAMPLES_"))
    }
    for name in ("tmp", "xdg-cache", "uv-cache", "pip-cache"):
        (tmp / name).mkdir()
    env.update(
        TMPDIR=str(tmp / "tmp"),
        XDG_CACHE_HOME=str(tmp / "xdg-cache"),
        UV_CACHE_DIR=str(tmp / "uv-cache"),
        PIP_CACHE_DIR=str(tmp / "pip-cache"),
    )
    url = f"http://127.0.0.1:{port}/"
    if answers(url):
        raise SystemExit(f"fresh_clone: something already answers on {url}; pass another --port")
    result: dict[str, object] = {"rev": sha[:10], "load_before": load()}
    seen: dict[str, float] = {}
    server = None
    log_path = tmp / "make.log"
    t0 = time.perf_counter()
    try:
        with log_path.open("w") as log:
            subprocess.run(["git", "clone", "--quiet", "--no-checkout", str(REPO), str(clone)], check=True, env=env)
            subprocess.run(["git", "-C", str(clone), "checkout", "--quiet", sha], check=True, env=env)
            seen["clone_s"] = time.perf_counter() - t0
            for key, target in (("tools_s", "tools"), ("synced_s", "install")):
                done = subprocess.run(["make", target], cwd=clone, env=env, stdout=log, stderr=subprocess.STDOUT)
                if done.returncode != 0:
                    raise SystemExit(
                        f"fresh_clone: make {target} exited {done.returncode}:\n" + log_path.read_text()[-3000:]
                    )
                seen[key] = time.perf_counter() - t0
            server = subprocess.Popen(
                ["make", "serve", f"DEV_ADDR=127.0.0.1:{port}"],
                cwd=clone,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            while not answers(url):
                if server.poll() is not None:
                    raise SystemExit(
                        f"fresh_clone: make serve exited {server.returncode}:\n" + log_path.read_text()[-3000:]
                    )
                if time.perf_counter() - t0 > timeout_s:
                    raise SystemExit(f"fresh_clone: no page after {timeout_s:.0f} s; log in {log_path}")
                time.sleep(0.1)
            seen["served_s"] = time.perf_counter() - t0
    finally:
        if server is not None and server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)  # make and the mkdocs it started, nothing else
            server.wait(timeout=30)
    built = [line for line in log_path.read_text().splitlines() if "Documentation built in" in line]
    result.update(
        {
            "clone_s": round(seen["clone_s"], 2),
            "uv_bootstrap_s": round(seen["tools_s"] - seen["clone_s"], 2),
            "docs_install_s": round(seen["synced_s"] - seen["tools_s"], 2),
            "install_s": round(seen["synced_s"] - seen["clone_s"], 2),
            "first_build_and_serve_s": round(seen["served_s"] - seen["synced_s"], 2),
            "mkdocs_build_s": float(built[0].split("built in")[1].split()[0]) if built else None,
            "clone_to_served_s": round(seen["served_s"], 2),
            "target_s": TARGET_S,
            "docs_venv_mb": size_mb(clone / ".venv"),
            "tools_mb": size_mb(clone / ".tools"),
            "uv_cache_mb": size_mb(tmp / "uv-cache"),
            "torch_in_venv": any((clone / ".venv").glob("lib/python*/site-packages/torch")),
            "load_after": load(),
        }
    )
    if keep:
        result["kept"] = str(tmp)
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rev", default="HEAD", help="the commit to clone (default: HEAD; uncommitted work is not in it)"
    )
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--timeout", type=float, default=600, help="give up after this many seconds")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (clone, caches, log)")
    args = parser.parse_args()
    print(json.dumps(run(args.rev, args.port, args.keep, args.timeout)))


if __name__ == "__main__":
    main()
