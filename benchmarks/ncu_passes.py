"""How many replay passes each of the counters' metrics costs (GPU builder, Nsight Compute).

The counters pass replays every kernel once per pass, and on the H200 the whole metric list takes
15 passes: most of the pass's time. This profiles one attention kernel under ncu with the full list,
with each metric alone, and with each metric left out, and prints the passes and wall time of each
run as JSON lines, so the metrics that force extra passes can be named (and the facts they carry weighed).

    python benchmarks/ncu_passes.py --out passes.jsonl
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time

from attn_examples.measure.counters import METRICS, ncu_path

# One forward of SDPA's flash backend at a small shape: a single Tensor Core kernel.
TARGET = """
import torch
from torch.nn.attention import SDPBackend, sdpa_kernel
q, k, v = (torch.randn(1, 8, 512, 64, device="cuda", dtype=torch.bfloat16) for _ in range(3))
with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
    torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
torch.cuda.synchronize()
"""
PASSES = re.compile(r"100% - (\d+) pass")


def passes(ncu: str, metrics: list[str]) -> tuple[int | None, float]:
    started = time.perf_counter()
    done = subprocess.run(
        [
            ncu,
            "--clock-control",
            "none",
            "--cache-control",
            "all",
            "-k",
            "regex:flash",
            "--launch-count",
            "1",
            "--metrics",
            ",".join(metrics),
            sys.executable,
            "-c",
            TARGET,
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    found = PASSES.findall(done.stdout + done.stderr)
    return (int(found[-1]) if found else None), time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="JSON lines, one per ncu run")
    args = parser.parse_args()
    ncu = ncu_path()
    if ncu is None:
        sys.exit("ncu_passes: no ncu on PATH")
    names = list(METRICS)
    runs = (
        [("all", names)]
        + [(f"only {m}", [m]) for m in names]
        + [(f"without {m}", [n for n in names if n != m]) for m in names]
    )
    with open(args.out, "w") as out:
        for label, metrics in runs:
            count, wall = passes(ncu, metrics)
            line = json.dumps({"run": label, "passes": count, "wall_s": round(wall, 2)})
            print(line, flush=True)
            out.write(line + "\n")


if __name__ == "__main__":
    main()
