"""When and at which commit something was measured (no torch import: the counters pass uses it too)."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def run(cmd: list[str]) -> str | None:
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=10, cwd=REPO)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 and done.stdout.strip() else None


def git() -> tuple[str | None, bool | None]:
    """Commit of the measured code. ATTN_EXAMPLES_GIT_COMMIT stands in where no .git travels
    (the GPU builder gets a copy of the working tree); its dirty flag is then unknown."""
    override = os.environ.get("ATTN_EXAMPLES_GIT_COMMIT")
    if override:
        return override, None
    commit = run(["git", "rev-parse", "HEAD"])
    if commit is None:
        return None, None
    status = run(["git", "status", "--porcelain", "--untracked-files=no"])
    return commit, bool(status)


def now() -> str:
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat()


def stamp() -> dict:
    """For sections added after `measure` (the counters pass): when, and at which commit."""
    return {"measured_at": now(), "git_commit": git()[0]}
