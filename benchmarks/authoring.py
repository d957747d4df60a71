"""Edit-to-served time under `mkdocs serve`, and the cold snapshot build ratio, in one run.

    python benchmarks/authoring.py [--repeats 5] [--build-repeats 2] [--no-build] [--repo PATH]

Serves a temporary copy of the repository (its tracked and untracked, not ignored files, and its
.cache/ when there is one, as an author's checkout has after a first build) with `mkdocs serve
--strict`, as `make serve` runs it, on a free port. Once the first page answers, it makes a
one-word prose edit to docs/en/method.md and polls the page over HTTP until the new word is served
(the server answers only once a rebuild has finished), `--repeats` times with a new word each time.
Then one edit each to a snippet (the word must show in the page's code) and to a claims file and to
the snapshot (a rebuild must finish: the live-reload endpoint answers with a newer epoch). Finally
the cold and stripped builds of benchmarks/site_build.py. Prints one JSON object; the machine's
load average is part of it, since the numbers mean little without it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PAGE = Path("docs/en/method.md")
URL_PATH = "/method/"
SNIPPET = Path("snippets/profile_forward.py")
SNIPPET_ANCHOR = "# first calls pay for lazy init"
CLAIMS = Path("attn_examples/claims/claims.d/method.yml")
SNAPSHOT = Path("snapshots/nvidia-h200/snapshot.json")
REBUILD_DEADLINE_S = 30.0  # null in the report: no rebuild followed the edit


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def copy_repo(source: Path, target: Path, with_cache: bool) -> None:
    """The files git would commit (tracked, and untracked but not ignored), plus .cache/."""
    try:
        listed = subprocess.run(
            ["git", "-C", str(source), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            capture_output=True,
            check=True,
        ).stdout
        names = [n for n in listed.decode().split("\0") if n]
    except (OSError, subprocess.CalledProcessError):  # an exported tree: everything but the usual outputs
        names = [
            str(p.relative_to(source))
            for p in source.rglob("*")
            if p.is_file() and not {".venv", ".cache", "site", ".git"} & set(p.relative_to(source).parts)
        ]
    for name in names:
        src = source / name
        if src.is_file():
            dst = target / name
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst)
    if with_cache and (source / ".cache").is_dir():
        shutil.copytree(
            source / ".cache", target / ".cache", ignore=shutil.ignore_patterns("live-snapshot"), dirs_exist_ok=True
        )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url: str, timeout: float = 120) -> str | None:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.read().decode("utf-8", "replace")
    except OSError:
        return None


def wait_for(
    url: str, word: str | None, deadline_s: float, server: subprocess.Popen, started: float | None = None
) -> float:
    """Seconds from `started` (default: now) until `url` answers (and contains `word`); raises past
    the deadline or if serve died."""
    started = time.perf_counter() if started is None else started
    while time.perf_counter() - started < deadline_s:
        if server.poll() is not None:
            raise RuntimeError(f"mkdocs serve exited with {server.returncode}")
        body = get(url)
        if body is not None and (word is None or word in body):
            return time.perf_counter() - started
        time.sleep(0.05)
    raise TimeoutError(f"{url} did not serve {word!r} within {deadline_s} s")


def epoch(base: str) -> int:
    """The server's latest fully built version of the site (answers at once when asked about epoch 0)."""
    return int(get(f"{base}/livereload/0/0") or 0)


def wait_rebuilt(base: str, since: int, deadline_s: float) -> bool:
    """Block until a rebuild newer than `since` has finished (the live-reload long poll); False when
    none did within the deadline (the edited file is not watched)."""
    started = time.perf_counter()
    while time.perf_counter() - started < deadline_s:
        left = deadline_s - (time.perf_counter() - started)
        try:
            with urllib.request.urlopen(f"{base}/livereload/{since}/1", timeout=max(left, 0.1)) as response:
                if int(response.read()) > since:
                    return True
        except (OSError, ValueError):
            time.sleep(0.05)
    return False


def prose_line(text: str) -> int:
    """Index of the first prose line after the title, outside code fences."""
    lines = text.split("\n")
    fenced = False
    for i, line in enumerate(lines):
        if line.startswith("```"):
            fenced = not fenced
        elif i > 0 and not fenced and line[:1].isalpha() and "{{" not in line and "{%" not in line:
            return i
    raise ValueError("no prose line found")


def settle() -> None:
    """Let the polling observer (0.5 s) see the previous edit's rebuild through before the next edit."""
    time.sleep(2.0)


def serve_benchmark(repo: Path, repeats: int, with_cache: bool, log_path: Path | None) -> dict:
    with tempfile.TemporaryDirectory(prefix="attn-authoring-") as name:
        work = Path(name) / "repo"
        copy_repo(repo, work, with_cache)
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        env = dict(os.environ, NO_MKDOCS_2_WARNING="1", ATTN_EXAMPLES_MEASURE="snapshot")
        env.pop("ATTN_EXAMPLES_SNAPSHOT", None)
        log = open(log_path or Path(name) / "serve.log", "w", encoding="utf-8")  # noqa: SIM115 - the server writes to it until stopped
        started = time.perf_counter()
        server = subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "serve", "--strict", "-a", f"127.0.0.1:{port}"],
            cwd=work,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            wait_for(base + URL_PATH, None, 600, server)
            first = time.perf_counter() - started
            page = work / PAGE
            original = page.read_text(encoding="utf-8")
            lines = original.split("\n")
            at = prose_line(original)
            prose = []
            for i in range(repeats):
                settle()
                word = f"zqxprose{i}{os.getpid()}"
                edited = lines.copy()
                edited[at] = f"{edited[at]} {word}"
                t0 = time.perf_counter()
                page.write_text("\n".join(edited), encoding="utf-8")
                prose.append(wait_for(base + URL_PATH, word, 120, server, t0))
            settle()
            before = epoch(base)
            page.write_text(original, encoding="utf-8")
            wait_rebuilt(base, before, 120)  # the restored page is built before the next edit

            settle()  # a snippet: its code shows in the page
            snippet = work / SNIPPET
            code = snippet.read_text(encoding="utf-8")
            word = f"zqxsnippet{os.getpid()}"
            t0 = time.perf_counter()
            snippet.write_text(code.replace(SNIPPET_ANCHOR, f"{SNIPPET_ANCHOR} {word}", 1), encoding="utf-8")
            try:
                snippet_s: float | None = round(wait_for(base + URL_PATH, word, REBUILD_DEADLINE_S, server, t0), 2)
            except TimeoutError:  # snippets/ is not watched
                snippet_s = None

            data = {}
            for label, path in (("claims", CLAIMS), ("snapshot", SNAPSHOT)):  # a rebuild must follow
                settle()
                target = work / path
                before = epoch(base)
                t0 = time.perf_counter()
                if path.suffix == ".yml":
                    target.write_text(target.read_text(encoding="utf-8") + "\n# touched\n", encoding="utf-8")
                else:
                    os.utime(target)
                rebuilt = wait_rebuilt(base, before, REBUILD_DEADLINE_S)
                data[f"{label}_edit_to_rebuilt_s"] = round(time.perf_counter() - t0, 2) if rebuilt else None
        finally:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
            log.close()
    return {
        "first_page_s": round(first, 2),
        "prose_edit_to_served_s": [round(s, 2) for s in prose],
        "prose_best_s": round(min(prose), 2),
        "prose_median_s": round(statistics.median(prose), 2),
        "snippet_edit_to_served_s": snippet_s,
        **data,
        "cache": "copied from the checkout" if with_cache and (repo / ".cache").is_dir() else "cold",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="prose edits (default 5)")
    parser.add_argument("--build-repeats", type=int, default=2, help="repeats of each build in site_build (default 2)")
    parser.add_argument("--no-build", action="store_true", help="skip the cold/stripped build ratio")
    parser.add_argument("--cold", action="store_true", help="serve without the checkout's .cache/")
    parser.add_argument("--repo", type=Path, default=REPO, help="the checkout to copy (default: this one)")
    parser.add_argument("--log", type=Path, help="keep mkdocs serve's log here")
    args = parser.parse_args()
    result: dict = {"load_before": load()}
    result["serve"] = serve_benchmark(args.repo.resolve(), args.repeats, not args.cold, args.log)
    result["load_after_serve"] = load()
    if not args.no_build:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import site_build

        result["build"] = site_build.measure(args.build_repeats, repo=args.repo.resolve())
        result["load_after_build"] = load()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
