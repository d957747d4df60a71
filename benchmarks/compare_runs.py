"""Kernel counts and device times of several snapshots of one device, side by side.

    python benchmarks/compare_runs.py RUN1 RUN2 RUN3

Used to show that separate `measure` runs agree on structure (kernel counts must be equal)
and how much their timings move. No torch import.
"""

from __future__ import annotations

import sys

from attn_examples.render import views
from attn_examples.snapshot.schema import load_snapshot


def main(paths: list[str]) -> int:
    snaps = [load_snapshot(p) for p in paths]
    rows = [{r["id"]: r for r in views.summary_rows(s)} for s in snaps]
    identical = True
    print(f"{'variant':16} {'kernels per run':22} {'GPU activities':18} device µs (median) per run")
    common = [v for v in rows[0] if all(v in r for r in rows)]  # an --extended run measures more variants
    for variant_id in common:
        per_run = [r[variant_id] for r in rows]
        if not per_run[0]["available"]:
            print(f"{variant_id:16} unavailable: {per_run[0]['unavailable_reason'][:60]}")
            continue
        kernels = [r["kernels"] for r in per_run]
        activities = [r["gpu_activities"] for r in per_run]
        host_ops = [r["cpu_ops"] for r in per_run]
        identical &= len(set(kernels)) == 1 and len(set(activities)) == 1 and len(set(host_ops)) == 1
        times = " ".join(f"{r['device_us']:.1f}" for r in per_run)
        print(f"{variant_id:16} {kernels!s:22} {activities!s:18} {times}   host ops {host_ops}")
    print("kernel counts identical across runs:", identical)
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
