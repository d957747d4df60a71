"""Wall time of a full default measurement in a fresh process, and of loading its snapshot.

    python benchmarks/measure_wall.py [--device cuda] [--snapshot snapshots/nvidia-h200]

Measures `attn-examples measure` end to end (interpreter start and torch import included),
then loads a snapshot and builds every view in another fresh process, checking that torch
was never imported there. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LOAD = """
import sys, time
t0 = time.perf_counter()
from attn_examples.snapshot.schema import load_snapshot
from attn_examples.render import views
snap = load_snapshot(sys.argv[1])
rows = views.summary_rows(snap)
tables = [views.kernel_rows(r) for r in snap.variants.values()]
print(time.perf_counter() - t0, 'torch' in sys.modules)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="auto")
    parser.add_argument("--snapshot", help="snapshot to load (default: the one just measured)")
    parser.add_argument("--skip-measure", action="store_true")
    args = parser.parse_args()

    result: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "snap"
        if not args.skip_measure:
            t0 = time.perf_counter()
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "attn_examples.site.cli",
                    "measure",
                    "--device",
                    args.device,
                    "--quiet",
                    "-o",
                    str(out),
                ],
                check=True,
            )
            result["measure_wall_s"] = round(time.perf_counter() - t0, 2)
        target = args.snapshot or str(out)
        t0 = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", LOAD, target], check=True, capture_output=True, text=True)
        result["load_process_wall_s"] = round(time.perf_counter() - t0, 3)
        inner, torch_imported = done.stdout.split()
        result["load_in_process_s"] = round(float(inner), 4)
        result["torch_imported_by_load"] = torch_imported == "True"
    print(json.dumps(result))


if __name__ == "__main__":
    main()
