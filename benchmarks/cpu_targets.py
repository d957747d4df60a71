"""Issue 14's CPU targets in one run, one JSON object (each part is its own benchmark):

    python benchmarks/cpu_targets.py

- a prose edit served again under `mkdocs serve` (benchmarks/authoring.py; target ≤ 3 s), and the
  cold snapshot build against the stripped one (benchmarks/site_build.py through it; target ≤ 1.3);
- fresh clone to first page served with every cache empty, and the docs-only environment's size
  (benchmarks/fresh_clone.py; target ≤ 60 s).
Run it on a quiet machine: the parts run one after another, and the load average is recorded.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def part(script: str, *args: str) -> dict:
    done = subprocess.run([sys.executable, str(HERE / script), *args], capture_output=True, text=True)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode or not lines:
        return {"error": f"{script} exited {done.returncode}: {done.stderr.strip().splitlines()[-1:]}"}
    return json.loads(lines[-1])


def main() -> None:
    result = {"load_before": " ".join(f"{x:.2f}" for x in os.getloadavg())}
    result["authoring"] = part("authoring.py", "--repeats", "5", "--build-repeats", "3")
    result["fresh_clone"] = part("fresh_clone.py")
    result["load_after"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(json.dumps(result))


if __name__ == "__main__":
    main()
