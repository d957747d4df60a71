"""How the drift gate and the timed claims behave over many independent measurements of one device.

    python benchmarks/drift_gate_runs.py --baseline snapshots/nvidia-h200 RUN [RUN ...]

For every run: the truths that fail (a build would stop), the drift against the baseline (a live
build would stop), and for every timed claim its verdict and 95% interval. Prints a Markdown
report: false failures first, then one row per timed claim with the verdicts counted and the range
of its measured values and interval ends across the runs. No torch: the runs are snapshot folders.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from attn_examples.claims import check as claims
from attn_examples.claims import plausible
from attn_examples.snapshot.schema import SnapshotError, load_snapshot
from attn_examples.snapshot.uncertainty import Interval


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, required=True)
    parser.add_argument("runs", nargs="+", type=Path)
    args = parser.parse_args(argv)
    baseline = load_snapshot(args.baseline)
    rows: dict[str, dict] = {}
    gate_failures = []
    for run in args.runs:
        snap = load_snapshot(run)
        verdicts = claims.check(snap)
        broken = [v.claim.id for v in verdicts if not v.ok]
        drifted = claims.drift(snap, baseline)
        if broken or drifted:
            gate_failures.append((run.name, broken, drifted))
        for v in verdicts:
            if v.plausible is None or v.status == "n/a":
                continue
            row = rows.setdefault(
                v.claim.id,
                {
                    "kind": v.claim.kind,
                    "expect": v.claim.expectation(),
                    "status": Counter(),
                    "measured": [],
                    "low": [],
                    "high": [],
                    "sets": Counter(),
                },
            )
            row["status"][v.status] += 1
            if isinstance(v.plausible, Interval):
                row["measured"].append(v.measured)
                row["low"].append(v.plausible.low)
                row["high"].append(v.plausible.high)
            else:
                row["sets"][plausible.describe(v.plausible)] += 1
    print(f"{len(args.runs)} runs against {args.baseline}: {len(gate_failures)} would stop a build")
    for name, broken, drifted in gate_failures:
        print(f"- {name}: truths failing {broken or 'none'}; drift {drifted or 'none'}")
    print(
        "\n| claim | kind | expected | pass / fail / unsure | measured (min–max) | interval low (min–max) | "
        "interval high (min–max) |"
    )
    print("|---|---|---|---|---|---|---|")
    for claim_id, row in rows.items():
        counts = f"{row['status']['pass']} / {row['status']['fail']} / {row['status']['unsure']}"
        if row["measured"]:
            spans = [f"{min(x):.3g}–{max(x):.3g}" for x in (row["measured"], row["low"], row["high"])]
        else:
            spans = ["; ".join(f"{k} ×{n}" for k, n in row["sets"].items()), "–", "–"]
        print(f"| {claim_id} | {row['kind']} | {row['expect']} | {counts} | " + " | ".join(spans) + " |")
    return 1 if gate_failures else 0


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except SnapshotError as exc:
        print(f"drift_gate_runs: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
