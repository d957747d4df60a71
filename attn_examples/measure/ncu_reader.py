"""Read a .ncu-rep with NVIDIA's `ncu_report` module, in a process of its own (no torch).

`ncu_report`'s native library crashes a process that has already loaded torch's CUDA libraries
(seen on the H200 builder: ncu 2025.3.1, torch 2.11), so the report is read in a fresh Python that
prints each variant's kernels as JSON (`counters.read_in_child` starts it and reads its answer):

    python -m attn_examples.measure.ncu_reader NCU REPORT '["naive", ...]' '["dram__bytes_read.sum", ...]'
"""

from __future__ import annotations

import json
import sys

from attn_examples.measure import counters


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
