"""Read a .ncu-rep with NVIDIA's `ncu_report` module, in a process of its own (no torch).

`ncu_report`'s native library crashes a process that has already loaded torch's CUDA libraries
(seen on the H200 builder: ncu 2025.3.1, torch 2.11), so the report is read in a fresh Python that
prints each variant's kernels as JSON:

    python -m attn_examples.measure.ncu_reader REPORT '["naive", ...]' '["dram__bytes_read.sum", ...]'
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from attn_examples.measure import counters


def read(ncu: str, report: str, variant_ids: list[str], metrics: list[str], timeout_s: int = 300) -> dict[str, Any]:
    """Each variant's kernels as `counters.read_report` gives them, read in a child process; raises
    CountersError with the child's last words when it fails."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "attn_examples.measure.ncu_reader",
            ncu,
            report,
            json.dumps(variant_ids),
            json.dumps(metrics),
        ],
        capture_output=True,
        text=True,
        timeout=timeout_s,
    )
    if done.returncode != 0:
        tail = " | ".join((done.stderr or done.stdout).strip().splitlines()[-3:])
        raise counters.CountersError(f"ncu_report could not read {report}: {tail}")
    return json.loads(done.stdout)


def main(argv: list[str]) -> int:
    ncu, report, ids, metrics = argv
    module = counters.ncu_report_module(ncu)
    if module is None:
        print("ncu_report is not installed beside this ncu", file=sys.stderr)
        return 2
    print(json.dumps(counters.read_report(module, report, json.loads(ids), json.loads(metrics))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
