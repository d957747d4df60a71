"""`attn-examples`: measure, show and compare snapshots from the terminal.

`show` and `diff` never import torch; `measure` does (it is the only stage that needs it).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

from attn_examples.config import DTYPES, AttnConfig
from attn_examples.snapshot import Snapshot, SnapshotError, load_snapshot
from attn_examples.variants import VARIANTS


def _plain(value: object) -> str:
    """Text from a snapshot, printed as it is: rich would read "[...]" in a kernel's template
    arguments or a reason as markup (and drop it, or fail)."""
    from rich.markup import escape

    return escape(str(value))


def _fmt(value: object, digits: int = 1) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    if isinstance(value, list):
        return "×".join(str(x) for x in value)
    return _plain(value)


def _mib(value: int | None) -> str:
    return "–" if value is None else f"{value / 2**20:,.1f} MiB"


def _provenance_line(snap: Snapshot) -> str:
    p = snap.provenance
    versions = f"torch {p.torch}" + (f", CUDA {p.cuda}" if p.cuda else "") + (f", cuDNN {p.cudnn}" if p.cudnn else "")
    commit = (p.git_commit or "unknown")[:10] + (" (dirty)" if p.git_dirty else "")
    c = snap.config
    shape = f"[{c.batch}, {c.heads}, {c.seq_len}, {c.head_dim}] {c.dtype}"
    return _plain(f"{p.device_name} · {versions} · {shape} · measured {p.measured_at} · commit {commit}")


def _require_torch(command: str) -> None:
    """torch is the optional `measure` extra (a docs install has none): say so in one line, before
    an import deep inside would print a traceback."""
    if importlib.util.find_spec("torch") is None:
        raise RuntimeError(f"`{command}` needs torch, which this environment lacks: install the `measure` extra "
                           "(pip install 'attn-examples[measure]'; in a checkout, `make test` installs it)")


def cmd_measure(args: argparse.Namespace) -> int:
    for variant_id in args.variants or []:
        if variant_id not in VARIANTS:
            raise SystemExit(f"attn-examples: unknown variant {variant_id!r}; known: {', '.join(VARIANTS)}")
    config = AttnConfig(batch=args.batch, heads=args.heads, seq_len=args.seq_len, head_dim=args.head_dim,
                        dtype=args.dtype, timing_repeats=args.repeats)
    _require_torch("measure")
    from attn_examples.measure import default_output, measure
    from attn_examples.snapshot import write_snapshot

    if args.output:
        _check_writable(Path(args.output))     # before minutes of measuring, not after
    data, traces = measure(config, args.device, args.variants, progress=not args.quiet,
                           argv=["attn-examples", *sys.argv[1:]], extended=args.extended)
    out = Path(args.output) if args.output else default_output(data["device_slug"])
    path = write_snapshot(data, traces, out)
    print(f"snapshot written: {path}")
    if not args.quiet:
        _show(load_snapshot(path), variants=None, cpu_ops=not traces or data["provenance"]["device_kind"] == "cpu")
    return 0


def _check_writable(folder: Path) -> None:
    """The output folder can be created and written to; raises OSError naming it."""
    if folder.exists() and not folder.is_dir():
        raise NotADirectoryError(f"{folder}: the output must be a folder, and this is a file")
    folder.mkdir(parents=True, exist_ok=True)
    probe = folder / ".attn-examples-write-test"
    probe.write_bytes(b"")
    probe.unlink()


def _show(snap: Snapshot, variants: list[str] | None, cpu_ops: bool) -> None:
    from rich.console import Console
    from rich.table import Table

    from attn_examples import views

    console = Console()
    console.print(f"[dim]{_provenance_line(snap)}[/]")
    auto = _plain(snap.dispatch.auto_backend or "unknown")
    console.print(f"un-pinned SDPA ran: [bold]{auto}[/] ({_plain(snap.dispatch.evidence or 'no evidence')})")
    for variant_id, result in snap.variants.items():
        if variants and variant_id not in variants:
            continue
        if not result.available:
            console.print(f"\n[bold]{result.title}[/] — unavailable on this device: {_plain(result.unavailable_reason)}")
            continue
        rows = views.kernel_rows(result)
        if rows:
            table = Table(title=f"{result.title}: {len(rows)} GPU activities per forward", title_justify="left")
            for column in ("#", "kind", "name", "launch", "grid", "block", "regs", "smem", "occ %", "µs"):
                table.add_column(column, overflow="fold")
            for r in rows:
                table.add_row(str(r["position"]), r["kind"], _plain(r["name"]), _fmt(r["launch_api"]), _fmt(r["grid"]),
                              _fmt(r["block"]), _fmt(r["registers_per_thread"]), _fmt(r["shared_memory_bytes"]),
                              _fmt(r["est_occupancy_pct"]), _fmt(r["dur_us"]))
            console.print(table)
        if cpu_ops or not rows:
            table = Table(title=f"{result.title}: host ops per forward (top 12 by self time)", title_justify="left")
            for column in ("op", "count", "self µs", "total µs"):
                table.add_column(column)
            for r in views.cpu_op_rows(result, limit=12):
                table.add_row(_plain(r["name"]), str(r["count"]), _fmt(r["self_us"]), _fmt(r["total_us"]))
            console.print(table)
        if result.profile and not result.profile.consistent:
            console.print(f"[red]steps disagree:[/] {_plain(result.profile.inconsistency)}")
    summary = Table(title="Summary", title_justify="left")
    for column in ("variant", "kernels", "device µs", "host µs", "main kernel", "regs", "occ %", "peak", "rel err"):
        summary.add_column(column, overflow="fold")
    for row in views.summary_rows(snap):
        if not row["available"]:
            summary.add_row(row["title"], "unavailable", "", "", _plain(row["unavailable_reason"][:60]), "", "", "", "")
            continue
        summary.add_row(row["title"], _fmt(row.get("kernels")), _fmt(row["device_us"]), _fmt(row["host_us"]),
                        _fmt(row["main_kernel"]), _fmt(row["main_registers"]), _fmt(row["main_occupancy_pct"]),
                        _mib(row["peak_memory_bytes"]), f"{row['rel_error']:.1e}")
    console.print(summary)


def cmd_show(args: argparse.Namespace) -> int:
    snap = load_snapshot(args.snapshot)
    _show(snap, args.variants, cpu_ops=args.cpu_ops or snap.provenance.device_kind == "cpu")
    return 0


def cmd_diff(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from attn_examples import views

    from attn_examples import claims

    a, b = load_snapshot(args.a), load_snapshot(args.b)
    console = Console()
    console.print(f"[bold]A[/] {_provenance_line(a)}\n[bold]B[/] {_provenance_line(b)}")
    console.print(f"un-pinned SDPA: A → {_plain(a.dispatch.auto_backend)}, B → {_plain(b.dispatch.auto_backend)}")
    # Like with like: the same work on two devices compares times; different work compares only
    # each variant's share of its own run (its time over the geometric mean of the variants both measured).
    config = claims.config_differences(b, a)
    stack = [f"{f} {getattr(a.provenance, f)} in A, {getattr(b.provenance, f)} in B" for f in ("torch", "cuda", "cudnn")
             if getattr(a.provenance, f) != getattr(b.provenance, f)]
    if a.device_slug != b.device_slug:
        console.print(f"[yellow]different devices[/]: A {_plain(a.device_slug)}, B {_plain(b.device_slug)}: "
                      "B/A compares the same work on two devices")
    if config:
        console.print("[yellow]different configurations[/] (" + _plain(", ".join(config).replace(" in the baseline", " in A")
                      .replace(" live", " in B")) + "): the work differs, so raw times are not compared; "
                      "each variant's share of its own run is")
    if stack:
        console.print("[yellow]different software[/]: " + _plain(", ".join(stack)))
    if not (config or stack or a.device_slug != b.device_slug):
        console.print("same device class, configuration and software: like with like")
    common = {v for v in set(a.variants) & set(b.variants)}
    shares_a, shares_b = claims.device_time_shares(a, common), claims.device_time_shares(b, common)
    rows_a = {r["id"]: r for r in views.summary_rows(a)}
    rows_b = {r["id"]: r for r in views.summary_rows(b)}
    table = Table(title="A against B", title_justify="left")
    times = ("share A", "share B") if config else ("device µs A", "device µs B")
    for column in ("variant", "kernels A", "kernels B", *times, "B/A", "main kernel A", "main kernel B"):
        table.add_column(column, overflow="fold")
    for variant_id in VARIANTS:
        ra, rb = rows_a.get(variant_id), rows_b.get(variant_id)
        if ra is None and rb is None:
            continue

        def cell(row: dict | None, key: str) -> str:
            if row is None:
                return "not measured"
            if not row["available"]:
                return "unavailable"
            return _fmt(row.get(key))

        ratio = "–"
        if config:
            pair = [f"{shares[variant_id]:.3f}" if variant_id in shares else cell(row, "device_us") if row is None
                    or not row["available"] else "–" for shares, row in ((shares_a, ra), (shares_b, rb))]
            if variant_id in shares_a and variant_id in shares_b:
                ratio = f"{shares_b[variant_id] / shares_a[variant_id]:.2f}×"
        else:
            pair = [cell(ra, "device_us"), cell(rb, "device_us")]
            if ra and rb and ra.get("device_us") and rb.get("device_us"):
                ratio = f"{rb['device_us'] / ra['device_us']:.2f}×"
        main = [views.short_kernel_name(row["main_kernel"], 48) if row and row["available"] and row.get("main_kernel")
                else cell(row, "main_kernel") for row in (ra, rb)]
        table.add_row(VARIANTS[variant_id].title, cell(ra, "kernels"), cell(rb, "kernels"), *pair, ratio, *main)
    console.print(table)
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    """Claims against a snapshot (and, with --baseline, drift against the committed one)."""
    from rich.console import Console
    from rich.table import Table

    from attn_examples import claims, plausible

    snap = load_snapshot(args.snapshot)
    verdicts = claims.check(snap)
    console = Console()
    console.print(f"[dim]{_provenance_line(snap)}[/]")
    table = Table(title="Claims", title_justify="left")
    for column in ("claim", "kind", "verdict", "measured", "95%", "expected", "article"):
        table.add_column(column, overflow="fold")
    style = {"pass": "green", "fail": "bold red", "unsure": "yellow", "n/a": "dim"}
    for v in verdicts:
        measured = "–" if v.measured is None else (f"{v.measured:.4g}" if isinstance(v.measured, float) else _plain(v.measured))
        status = v.status if v.claim.gates or v.status in ("n/a", "unsure") else (
            "observed" if v.status == "pass" else "not observed")
        table.add_row(v.claim.id, v.claim.kind, f"[{style[v.status] if v.claim.gates or v.status == 'unsure' else 'cyan'}]"
                      f"{status}[/]", measured, _plain(plausible.describe(v.plausible)) or "exact",
                      _plain(v.claim.expectation()), "–" if v.claim.article is None else _plain(v.claim.article_value))
    console.print(table)
    failed = [v for v in verdicts if not v.ok]
    truths = [v for v in verdicts if v.status != "n/a" and v.claim.gates]
    observations = [v for v in verdicts if v.status != "n/a" and not v.claim.gates]
    unsure = [v for v in verdicts if v.status == "unsure"]
    console.print(f"{len(truths) - len(failed)} of {len(truths)} applicable truths hold; "
                  f"{sum(v.status == 'pass' for v in observations)} of {len(observations)} observations are "
                  f"observed; {len(unsure)} timed claim(s) undecided at 95% "
                  f"({', '.join(v.claim.id for v in unsure) or 'none'}); "
                  f"{len(verdicts) - len(truths) - len(observations)} claims do not apply here.")
    status = 0
    if failed:
        print(claims.failure_report(snap, verdicts), file=sys.stderr)
        status = 1
    if args.baseline:
        tolerance = claims.DRIFT_TOLERANCE if args.tolerance is None else args.tolerance
        problems = claims.drift(snap, load_snapshot(args.baseline), tolerance)
        for problem in problems:
            print(f"drift: {problem}", file=sys.stderr)
        console.print(f"drift against {args.baseline}: {'none' if not problems else len(problems)}")
        status = status or (1 if problems else 0)
    return status


def cmd_accept(args: argparse.Namespace) -> int:
    """Promote a (live) measurement to the committed baseline of its device class."""
    from attn_examples import claims
    from attn_examples.snapshot import snapshot_home, write_snapshot

    snap = load_snapshot(args.snapshot)
    target = Path(args.to) if args.to else snapshot_home() / snap.device_slug
    if (target / "snapshot.json").exists() and not args.force:
        current = load_snapshot(target)
        differs = claims.config_differences(snap, current)
        if current.provenance.device_name != snap.provenance.device_name:
            differs.append("device")
        if sorted(current.variants) != sorted(snap.variants):
            differs.append("variants")
        if differs:
            print(f"attn-examples: {args.snapshot} differs from the baseline {target}: {', '.join(differs)}: "
                  "not accepted (a baseline is replaced by a measurement of the same kind; --force overrides)",
                  file=sys.stderr)
            return 2
    traces = {}
    for variant_id, result in snap.variants.items():
        if result.profile is not None:
            traces[variant_id] = snap.trace_path(variant_id).read_bytes()
    path = write_snapshot(snap.to_dict(), traces, target)
    print(f"accepted {args.snapshot} as the baseline for {snap.device_slug}: {path}")
    print("Now run `attn-examples check` on it and review the claims the new numbers touch.")
    return 0


def cmd_pages(args: argparse.Namespace) -> int:
    """Render the page sources against every committed snapshot (or the ones given), without MkDocs."""
    from attn_examples import pages

    if args.show:
        if not args.snapshot or len(args.page) != 1:
            print("attn-examples pages --show needs one page and one --snapshot", file=sys.stderr)
            return 2
        print(pages.show(args.page[0], Path(args.snapshot[0]), args.lang))
        return 0
    snapshots = [Path(s) for s in args.snapshot] if args.snapshot else None
    problems = pages.check(args.page or None, snapshots, run_blocks=not args.no_blocks)
    for problem in problems:
        print(problem)
    checked = len(snapshots) if snapshots else len(pages.committed_snapshots())
    print(f"{len(problems)} problem(s) in {len(args.page) or len(pages.page_names())} page(s) "
          f"against {checked} snapshot(s)", file=sys.stderr)
    return 1 if problems else 0


def cmd_counters(args: argparse.Namespace) -> int:
    """Add Nsight Compute's hardware counters to a snapshot (recorded as unavailable without ncu)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from attn_examples import counters

    snap = load_snapshot(args.snapshot)
    ids = counters.default_variants(snap) if not args.variants else args.variants
    if counters.ncu_path() is None:     # said before the progress bar starts
        counters.keep_measured(snap, counters.NO_NCU, args.replace)
    columns = (TextColumn("[bold]ncu[/]"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TextColumn("{task.description}"))
    with Progress(*columns, console=Console(stderr=True)) as bar:
        task = bar.add_task("starting", total=len(ids))
        started: list[str] = []

        def advance(variant_id: str) -> None:
            bar.update(task, description=variant_id, completed=len(started))
            started.append(variant_id)

        path, section = counters.add_to_snapshot(snap, ids, output=args.output,
                                                 log_dir=Path(args.ncu_log) if args.ncu_log else None,
                                                 progress=advance, replace=args.replace)
        bar.update(task, completed=len(ids), description="done")
    print(f"counters {'added' if section['available'] else 'unavailable: ' + section['reason']}: {path}")
    return 0


def cmd_notebook(args: argparse.Namespace) -> int:
    """Run the site's notebook on this machine and freeze its outputs beside the snapshot it measured."""
    _require_torch("notebook")
    from attn_examples import notebook

    print(f"running {notebook.SOURCE.relative_to(notebook.REPO)} (it measures once; a few minutes)", file=sys.stderr)
    path = notebook.execute(Path(args.snapshot))
    run = notebook.load_frozen(Path(args.snapshot))
    print(f"notebook outputs frozen: {path} ({sum(len(o) for o in run.outputs)} outputs in {len(run.outputs)} "
          f"code cells, {run.device})")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="attn-examples", description=__doc__.splitlines()[0])
    parser.add_argument("--debug", action="store_true", help="show the traceback of an error")
    sub = parser.add_subparsers(dest="command", required=True)
    defaults = AttnConfig()

    m = sub.add_parser("measure", help="profile and time every variant; write a snapshot")
    m.add_argument("--device", default="auto", help="auto (a CUDA GPU if present), cpu, cuda, cuda:N")
    m.add_argument("--variants", nargs="+", metavar="ID", help=f"subset of: {', '.join(VARIANTS)}")
    m.add_argument("--batch", type=int, default=defaults.batch)
    m.add_argument("--heads", type=int, default=defaults.heads)
    m.add_argument("--seq-len", type=int, default=defaults.seq_len)
    m.add_argument("--head-dim", type=int, default=defaults.head_dim)
    m.add_argument("--dtype", choices=DTYPES, default=defaults.dtype)
    m.add_argument("--repeats", type=int, default=defaults.timing_repeats, help="timed calls per variant (CUDA)")
    m.add_argument("--output", "-o", help="snapshot folder (default: snapshots/<device-slug>/)")
    m.add_argument("--quiet", "-q", action="store_true", help="no progress bar, no tables")
    m.add_argument("--extended", action="store_true",
                   help="CUDA: also the scaling sweep (seq 512..16k, head_dim 64/128) and forward+backward")
    m.set_defaults(func=cmd_measure)

    s = sub.add_parser("show", help="print a snapshot's kernel tables")
    s.add_argument("snapshot", help="snapshot folder or its snapshot.json")
    s.add_argument("--variants", nargs="+", metavar="ID")
    s.add_argument("--cpu-ops", action="store_true", help="also list host ops for GPU snapshots")
    s.set_defaults(func=cmd_show)

    d = sub.add_parser("diff", help="compare two snapshots (e.g. your GPU against the published one)")
    d.add_argument("a")
    d.add_argument("b")
    d.set_defaults(func=cmd_diff)
    c = sub.add_parser("check", help="check every claim against a snapshot; exit 1 if one fails")
    c.add_argument("snapshot", nargs="?", default="snapshots/nvidia-h200")
    c.add_argument("--baseline", help="also compare with this committed snapshot (drift of device-time shares)")
    c.add_argument("--tolerance", type=float, default=None, help="drift tolerance (relative)")
    c.set_defaults(func=cmd_check)

    n = sub.add_parser("counters", help="add Nsight Compute hardware counters (one ncu run over all the variants)")
    n.add_argument("snapshot")
    n.add_argument("--output", "-o", help="write here instead of over the snapshot")
    n.add_argument("--ncu-log", metavar="DIR", help="keep each ncu run's whole output here")
    n.add_argument("--variants", nargs="+", metavar="ID", help="default: the article's variants in the snapshot")
    n.add_argument("--replace", action="store_true",
                   help="record that this machine has no counters even over a snapshot that holds some")
    n.set_defaults(func=cmd_counters)

    g = sub.add_parser("pages", help="check the page sources against every committed snapshot (no MkDocs)")
    g.add_argument("page", nargs="*", help="e.g. naive.md (default: every page)")
    g.add_argument("--snapshot", action="append", help="check against this snapshot folder (repeatable)")
    g.add_argument("--no-blocks", action="store_true", help="skip the measured blocks (faster)")
    g.add_argument("--show", action="store_true", help="print one page as one snapshot renders it")
    g.add_argument("--lang", default="en", choices=("en", "zh-TW"))
    g.set_defaults(func=cmd_pages)
    b = sub.add_parser("notebook", help="run the site's notebook here; freeze its outputs beside the snapshot")
    b.add_argument("snapshot", help="the snapshot this machine measured (its device must be this one)")
    b.set_defaults(func=cmd_notebook)
    a = sub.add_parser("accept", help="promote a live snapshot to the committed baseline of its device")
    a.add_argument("snapshot", help="the measured snapshot folder (e.g. .cache/live-snapshot/nvidia-h200)")
    a.add_argument("--to", help="target folder (default: snapshots/<device-slug>/)")
    a.add_argument("--force", action="store_true",
                   help="replace a baseline of another device, configuration or set of variants")
    a.set_defaults(func=cmd_accept)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Exit codes: 0 done; 1 a truth failed or the measurement drifted (check); 2 bad input, a bad
    argument or a machine that cannot do what was asked, said in one line (--debug: the traceback)."""
    from attn_examples.claims import ClaimsError

    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (SnapshotError, ClaimsError, ValueError, RuntimeError, OSError) as exc:
        if args.debug:
            raise
        print(f"attn-examples: {exc}".splitlines()[0], file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
