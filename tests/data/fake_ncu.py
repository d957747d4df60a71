"""A stand-in for `ncu` that speaks its protocol without a GPU (tests/test_counters.py).

Profile run: runs nothing; prints the driver's `ready`, waits for the go file, announces each
variant it names and writes them into the report file. Import: one kernel per variant, named
`kernel_of_<id>`, or `<id>` with --print-nvtx-rename kernel. `--query-metrics` and `--version` answer.
"""

import json
import sys
import time
from pathlib import Path

args = sys.argv[1:]
HEADER = '"ID","Kernel Name","Block Size","Grid Size","Metric Name","Metric Unit","Metric Value"'
if args == ["--version"]:
    print("NVIDIA (R) Nsight Compute Command Line Profiler\nVersion 2099.1.0.0 (fake)")
elif args == ["--query-metrics"]:
    print("Metric Name   Metric Description\ndram__bytes_read   # of bytes read from DRAM")
elif args[0] == "--import":
    ids = json.loads(Path(args[1]).read_text())
    renamed = "--print-nvtx-rename" in args
    print(HEADER)
    for i, variant in enumerate(ids):
        name = variant if renamed else f"kernel_of_{variant}"
        print(f'"{i}","{name}","(128, 1, 1)","(8, 8, 16)","dram__bytes_read.sum","byte","{1000 * (i + 1)}"')
else:
    report = Path(args[args.index("--export") + 1])
    go = Path(args[args.index("--go") + 1])
    print("counters_driver: ready", flush=True)
    if "--hang" in args:
        time.sleep(600)
    while not go.exists():
        time.sleep(0.01)
    ids = json.loads(go.read_text())
    for variant in ids:
        print(f"counters_driver: {variant}", flush=True)
    report.write_text(json.dumps(ids))
