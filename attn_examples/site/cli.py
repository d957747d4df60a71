"""`attn-examples`: measure, show and compare snapshots from the terminal.

`show`, `diff`, `check` and `pages` never import torch; `measure` and `notebook` do (measuring is
the only stage that needs it).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from attn_examples import __version__
from attn_examples.snapshot.config import DTYPES, AttnConfig
from attn_examples.snapshot.schema import Snapshot, SnapshotError, load_snapshot, snapshot_home
from attn_examples.snapshot.variants import VARIANTS

if TYPE_CHECKING:
    from rich.table import Table

BASELINE = "nvidia-h200"  # the committed snapshot `check` reads when none is named


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
        raise RuntimeError(
            f"`{command}` needs torch, which this environment lacks: install the `measure` extra "
            "(pip install 'attn-examples[measure]'; in a checkout, `make test` installs it)"
        )


def cmd_measure(args: argparse.Namespace) -> int:
    config = AttnConfig(
        batch=args.batch,
        heads=args.heads,
        seq_len=args.seq_len,
        head_dim=args.head_dim,
        dtype=args.dtype,
        timing_repeats=args.repeats,
    )
    _require_torch("measure")
    from attn_examples.measure.run import default_output, measure
    from attn_examples.snapshot.schema import write_snapshot

    if args.output:
        _check_writable(Path(args.output))  # before minutes of measuring, not after
    data, traces = measure(
        config,
        args.device,
        args.variants,
        progress=not args.quiet,
        argv=["attn-examples", *sys.argv[1:]],
        extended=args.extended,
    )
    out = Path(args.output) if args.output else default_output(data["device_slug"])
    path = write_snapshot(data, traces, out)
    print(f"snapshot written: {path}")
    if not args.quiet:
        _show(
            load_snapshot(path),
            variants=None,
            cpu_ops=not traces or data["provenance"]["device_kind"] == "cpu",
            full_names=False,
        )
    return 0


def _check_writable(folder: Path) -> None:
    """The output folder can be created and written to; raises OSError naming it."""
    if folder.exists() and not folder.is_dir():
        raise NotADirectoryError(f"{folder}: the output must be a folder, and this is a file")
    folder.mkdir(parents=True, exist_ok=True)
    probe = folder / ".attn-examples-write-test"
    probe.write_bytes(b"")
    probe.unlink()


NAME_COLUMNS = ("name", "main kernel", "op")


def _table(title: str, columns: list[str], rows: list[list[str]], width: int, cut: bool) -> Table:
    """A table that fits a terminal `width` wide, with no vertical rules. Each other column is as wide
    as its widest cell, so a number is never cut or split; the name columns share what is left, each
    name cut to one line with an ellipsis (`cut`) or wrapped whole."""
    from rich import box
    from rich.cells import cell_len
    from rich.table import Table

    widest = [max([cell_len(column), *(cell_len(row[i]) for row in rows)]) for i, column in enumerate(columns)]
    fixed = sum(w for column, w in zip(columns, widest) if column not in NAME_COLUMNS)
    named = sum(column in NAME_COLUMNS for column in columns)
    room = (width - fixed - 2 * (len(columns) - 1) - 1) // max(named, 1)
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
    for column, w in zip(columns, widest):
        if column in NAME_COLUMNS:
            table.add_column(column, no_wrap=cut, overflow="ellipsis" if cut else "fold", width=max(8, min(w, room)))
        else:
            text = column in ("variant", "API")
            table.add_column(column, no_wrap=not text, min_width=w, justify="left" if text else "right")
    for row in rows:
        table.add_row(*row)
    return table


def _launch(api: str | None, full: bool) -> str:
    """The launch API; at terminal width, which of CUDA's two APIs launched it (the full name with --full-names)."""
    if api is None:
        return "–"
    return _plain(api) if full else ("runtime" if api.startswith("cuda") else "driver")


def _dims(value: object) -> str:
    """A grid or block without its trailing 1s: 131072 rather than 131072×1×1."""
    if not isinstance(value, list):
        return _fmt(value)
    while len(value) > 1 and value[-1] == 1:
        value = value[:-1]
    return "×".join(str(x) for x in value)


def _kib(value: int | None) -> str:
    return "–" if value is None else "0" if value == 0 else f"{value / 1024:,.0f}K"


def _show(snap: Snapshot, variants: list[str] | None, cpu_ops: bool, full_names: bool) -> None:
    from rich.console import Console

    from attn_examples.render import views
    from attn_examples.render.blocks import short_title

    console = Console()
    name = (lambda text: _plain(text)) if full_names else (lambda text: _plain(views.short_kernel_name(text, 40)))
    console.print(f"[dim]{_provenance_line(snap)}[/]")
    auto = _plain(snap.dispatch.auto_backend or "unknown")
    console.print(f"un-pinned SDPA ran: [bold]{auto}[/] ({_plain(snap.dispatch.evidence or 'no evidence')})")
    for variant_id, result in snap.variants.items():
        if variants and variant_id not in variants:
            continue
        if not result.available:
            console.print(
                f"\n[bold]{result.title}[/] — unavailable on this device: {_plain(result.unavailable_reason)}"
            )
            continue
        rows = views.kernel_rows(result)
        if rows:
            cells = [
                [
                    str(r["position"]),
                    name(r["name"]),
                    _launch(r["launch_api"], full_names),
                    _dims(r["grid"]),
                    _dims(r["block"]),
                    _fmt(r["registers_per_thread"]),
                    _kib(r["shared_memory_bytes"]),
                    _fmt(r["est_occupancy_pct"]),
                    _fmt(r["dur_us"]),
                ]
                for r in rows
            ]
            console.print(
                _table(
                    f"{result.title}: {len(rows)} GPU activities per forward",
                    ["#", "name", "API", "grid", "block", "regs", "smem", "occ %", "µs"],
                    cells,
                    console.width,
                    cut=not full_names,
                )
            )
        if cpu_ops or not rows:
            cells = [
                [_plain(r["name"]), str(r["count"]), _fmt(r["self_us"]), _fmt(r["total_us"])]
                for r in views.cpu_op_rows(result, limit=12)
            ]
            console.print(
                _table(
                    f"{result.title}: host ops per forward (top 12 by self time)",
                    ["op", "count", "self µs", "total µs"],
                    cells,
                    console.width,
                    cut=not full_names,
                )
            )
        if result.profile and not result.profile.consistent:
            console.print(f"[red]steps disagree:[/] {_plain(result.profile.inconsistency)}")
    cells = []
    for row in views.summary_rows(snap):
        title = row["title"] if full_names else short_title("en", row["id"])
        if not row["available"]:
            cells.append(
                [title, "–", "–", "–", "unavailable: " + _plain(row["unavailable_reason"]), "–", "–", "–", "–"]
            )
            continue
        main_kernel = name(row["main_kernel"]) if row["main_kernel"] else "–"
        peak = "–" if row["peak_memory_bytes"] is None else f"{row['peak_memory_bytes'] / 2**20:,.0f}"
        cells.append(
            [
                title,
                _fmt(row.get("kernels")),
                _fmt(row["device_us"]),
                _fmt(row["host_us"]),
                main_kernel,
                _fmt(row["main_registers"]),
                _fmt(row["main_occupancy_pct"]),
                peak,
                f"{row['rel_error']:.1e}",
            ]
        )
    console.print(
        _table(
            "Summary (kernels, device and host µs per call, main kernel, its registers and occupancy, "
            "peak MiB, relative error)",
            ["variant", "#k", "dev µs", "host µs", "main kernel", "regs", "occ%", "MiB", "error"],
            cells,
            console.width,
            cut=not full_names,
        )
    )


def cmd_show(args: argparse.Namespace) -> int:
    snap = load_snapshot(args.snapshot)
    _show(snap, args.variants, cpu_ops=args.cpu_ops or snap.provenance.device_kind == "cpu", full_names=args.full_names)
    return 0


def cmd_diff(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from attn_examples.claims import check as claims
    from attn_examples.render import views

    a, b = load_snapshot(args.a), load_snapshot(args.b)
    console = Console()
    console.print(f"[bold]A[/] {_provenance_line(a)}\n[bold]B[/] {_provenance_line(b)}")
    console.print(f"un-pinned SDPA: A → {_plain(a.dispatch.auto_backend)}, B → {_plain(b.dispatch.auto_backend)}")
    # Like with like: the same work on two devices compares times; different work compares only
    # each variant's share of its own run (its time over the geometric mean of the variants both measured).
    config = claims.config_differences(b, a)
    stack = [
        f"{f} {getattr(a.provenance, f)} in A, {getattr(b.provenance, f)} in B"
        for f in ("torch", "cuda", "cudnn")
        if getattr(a.provenance, f) != getattr(b.provenance, f)
    ]
    if a.device_slug != b.device_slug:
        console.print(
            f"[yellow]different devices[/]: A {_plain(a.device_slug)}, B {_plain(b.device_slug)}: "
            "B/A compares the same work on two devices"
        )
    if config:
        console.print(
            "[yellow]different configurations[/] ("
            + _plain(", ".join(config).replace(" in the baseline", " in A").replace(" here", " in B"))
            + "): the work differs, so raw times are not compared; "
            "each variant's share of its own run is"
        )
    if stack:
        console.print("[yellow]different software[/]: " + _plain(", ".join(stack)))
    if not (config or stack or a.device_slug != b.device_slug):
        console.print("same device class, configuration and software: like with like")
    common = set(a.variants) & set(b.variants)
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
            pair = [
                f"{shares[variant_id]:.3f}"
                if variant_id in shares
                else cell(row, "device_us")
                if row is None or not row["available"]
                else "–"
                for shares, row in ((shares_a, ra), (shares_b, rb))
            ]
            if variant_id in shares_a and variant_id in shares_b:
                ratio = f"{shares_b[variant_id] / shares_a[variant_id]:.2f}×"
        else:
            pair = [cell(ra, "device_us"), cell(rb, "device_us")]
            if ra and rb and ra.get("device_us") and rb.get("device_us"):
                ratio = f"{rb['device_us'] / ra['device_us']:.2f}×"
        main = [
            views.short_kernel_name(row["main_kernel"], 48)
            if row and row["available"] and row.get("main_kernel")
            else cell(row, "main_kernel")
            for row in (ra, rb)
        ]
        table.add_row(VARIANTS[variant_id].title, cell(ra, "kernels"), cell(rb, "kernels"), *pair, ratio, *main)
    console.print(table)
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    """Claims against a snapshot (and, with --baseline, drift against the committed one)."""
    from rich.console import Console
    from rich.table import Table

    from attn_examples.claims import check as claims
    from attn_examples.claims import plausible

    snap = load_snapshot(args.snapshot or snapshot_home() / BASELINE)
    verdicts = claims.check(snap)
    console = Console()
    console.print(f"[dim]{_provenance_line(snap)}[/]")
    table = Table(title="Claims", title_justify="left")
    for column in ("claim", "kind", "verdict", "measured", "95%", "expected", "article"):
        table.add_column(column, overflow="fold")
    style = {"pass": "green", "fail": "bold red", "unsure": "yellow", "n/a": "dim"}
    for v in verdicts:
        measured = (
            "–"
            if v.measured is None
            else (f"{v.measured:.4g}" if isinstance(v.measured, float) else _plain(v.measured))
        )
        label = (
            v.status
            if v.claim.gates or v.status in ("n/a", "unsure")
            else ("observed" if v.status == "pass" else "not observed")
        )
        table.add_row(
            v.claim.id,
            v.claim.kind,
            f"[{style[v.status] if v.claim.gates or v.status == 'unsure' else 'cyan'}]{label}[/]",
            measured,
            _plain(plausible.describe(v.plausible)) or "exact",
            _plain(v.claim.expectation()),
            "–" if v.claim.article is None else _plain(v.claim.article_value),
        )
    console.print(table)
    failed = [v for v in verdicts if not v.ok]
    truths = [v for v in verdicts if v.status != "n/a" and v.claim.gates]
    observations = [v for v in verdicts if v.status != "n/a" and not v.claim.gates]
    unsure = [v for v in verdicts if v.status == "unsure"]
    console.print(
        f"{len(truths) - len(failed)} of {len(truths)} applicable truths hold; "
        f"{sum(v.status == 'pass' for v in observations)} of {len(observations)} observations are "
        f"observed; {len(unsure)} timed claim(s) undecided at 95% "
        f"({', '.join(v.claim.id for v in unsure) or 'none'}); "
        f"{len(verdicts) - len(truths) - len(observations)} claims do not apply here."
    )
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
    from attn_examples.claims import check as claims
    from attn_examples.snapshot.schema import snapshot_home, write_snapshot

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
            print(
                f"attn-examples: {args.snapshot} differs from the baseline {target}: {', '.join(differs)}: "
                "not accepted (a baseline is replaced by a measurement of the same kind; --force overrides)",
                file=sys.stderr,
            )
            return 2
    path = write_snapshot(snap.to_dict(), snap.trace_blobs(), target, snap.report_blob())
    print(f"accepted {args.snapshot} as the baseline for {snap.device_slug}: {path}")
    print("Now run `attn-examples check` on it and review the claims the new numbers touch.")
    return 0


def cmd_pages(args: argparse.Namespace) -> int:
    """Render the page sources against every committed snapshot (or the ones given), without MkDocs."""
    from attn_examples.site import pages

    if args.show:
        if not args.snapshot or len(args.page) != 1:
            print("attn-examples pages --show needs one page and one --snapshot", file=sys.stderr)
            return 2
        if args.evidence:
            print(pages.show_evidence(args.page[0], Path(args.snapshot[0]), args.lang))
        else:
            print(pages.show(args.page[0], Path(args.snapshot[0]), args.lang))
        return 0
    snapshots = [Path(s) for s in args.snapshot] if args.snapshot else None
    problems = pages.check(args.page or None, snapshots, run_blocks=not args.no_blocks)
    for problem in problems:
        print(problem)
    checked = len(snapshots) if snapshots else len(pages.committed_snapshots())
    print(
        f"{len(problems)} problem(s) in {len(args.page) or len(pages.page_names())} page(s) "
        f"against {checked} snapshot(s)",
        file=sys.stderr,
    )
    return 1 if problems else 0


def cmd_counters(args: argparse.Namespace) -> int:
    """Add Nsight Compute's hardware counters to a snapshot (recorded as unavailable without ncu)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from attn_examples.measure import counters

    snap = load_snapshot(args.snapshot)
    ids = counters.default_variants(snap) if not args.variants else args.variants
    if counters.ncu_path() is None:  # said before the progress bar starts
        counters.keep_measured(snap, counters.NO_NCU, args.replace)
    columns = (
        TextColumn("[bold]ncu[/]"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.description}"),
    )
    with Progress(*columns, console=Console(stderr=True)) as bar:
        task = bar.add_task("starting", total=len(ids))
        started: list[str] = []

        def advance(variant_id: str) -> None:
            bar.update(task, description=variant_id, completed=len(started))
            started.append(variant_id)

        path, section = counters.add_to_snapshot(
            snap,
            ids,
            output=args.output,
            log_dir=Path(args.ncu_log) if args.ncu_log else None,
            progress=advance,
            replace=args.replace,
        )
        bar.update(task, completed=len(ids), description="done")
    if section["available"]:
        print(f"counters added (read with {section['reader']}): {path}")
    else:
        print(f"counters unavailable: {section['reason']}: {path}")
    return 0


def cmd_notebook(args: argparse.Namespace) -> int:
    """Run the site's notebook on this machine and freeze its outputs beside the snapshot it measured."""
    _require_torch("notebook")
    from attn_examples.site import notebook

    print(f"running {notebook.SOURCE.relative_to(notebook.REPO)} (it measures once; a few minutes)", file=sys.stderr)
    path = notebook.execute(Path(args.snapshot))
    run = notebook.load_frozen(Path(args.snapshot))
    if run is None:  # execute() has just written it
        raise notebook.NotebookError(f"{args.snapshot}: the notebook ran but left no frozen outputs")
    print(
        f"notebook outputs frozen: {path} ({sum(len(o) for o in run.outputs)} outputs in {len(run.outputs)} "
        f"code cells, {run.device})"
    )
    return 0


class _Help(argparse.RawDescriptionHelpFormatter):
    """Descriptions and examples kept as written; each option's default after its help, where it has
    one worth saying (not None, not a switch's False)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if action.default not in (None, False, argparse.SUPPRESS) and "default" not in text and action.option_strings:
            text += (" " if text else "") + "(default: %(default)s)"
        return text


def _command(
    sub: argparse._SubParsersAction,
    name: str,
    summary: str,
    details: str,
    examples: str,
    func: Callable[[argparse.Namespace], int],
) -> argparse.ArgumentParser:
    parser = sub.add_parser(
        name,
        help=summary,
        description=f"{summary[0].upper()}{summary[1:]}.\n\n{details}",
        epilog="examples:\n" + "\n".join(f"  {line}" for line in examples.strip().splitlines()),
        formatter_class=_Help,
    )
    parser.set_defaults(func=func)
    return parser


def subcommands() -> list[tuple[str, str]]:
    """Each subcommand with its one-line summary, as `attn-examples --help` lists them (the reproduce
    page prints this list rather than a count typed beside it)."""
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return [(choice.dest, choice.help or "") for choice in action._choices_actions]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="attn-examples",
        description=__doc__.split("\n\n")[0].split(": ", 1)[1],
        formatter_class=_Help,
        epilog="`attn-examples COMMAND --help` describes a command, with examples.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("--debug", action="store_true", help="show the traceback of an error")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    defaults = AttnConfig()
    variant_ids = list(VARIANTS)

    m = _command(
        sub,
        "measure",
        "profile and time the article's variants (--extended: every one); write a snapshot",
        "One forward of each variant is profiled with torch.profiler (its kernels, launches and host ops)\n"
        "and timed with CUDA events; the result is a snapshot folder: snapshot.json and one Kineto trace\n"
        "per variant. Needs torch (the `measure` extra).",
        """
attn-examples measure                           the default shape on this machine's GPU (or CPU)
attn-examples measure --extended -o /tmp/h200   also the scaling sweep and training
attn-examples measure --variants sdpa_flash sdpa_cudnn --seq-len 4096 --dtype float16""",
        cmd_measure,
    )
    m.add_argument("--device", default="auto", help="auto (a CUDA GPU if present), cpu, cuda, cuda:N")
    m.add_argument(
        "--variants",
        nargs="+",
        metavar="ID",
        choices=variant_ids,
        help=f"measure only these: {', '.join(variant_ids)} (default: the article's six; "
        "--extended adds the variants beyond the article)",
    )
    m.add_argument("--batch", type=int, default=defaults.batch, help="sequences per forward")
    m.add_argument("--heads", type=int, default=defaults.heads, help="attention heads")
    m.add_argument("--seq-len", type=int, default=defaults.seq_len, help="tokens per sequence")
    m.add_argument("--head-dim", type=int, default=defaults.head_dim, help="features per head")
    m.add_argument("--dtype", choices=DTYPES, default=defaults.dtype, help="q, k and v's element type")
    m.add_argument("--repeats", type=int, default=defaults.timing_repeats, help="timed calls per variant (CUDA)")
    m.add_argument("--output", "-o", help="snapshot folder (default: snapshots/<device-slug>/)")
    m.add_argument("--quiet", "-q", action="store_true", help="no progress bar, no tables")
    m.add_argument(
        "--extended",
        action="store_true",
        help="also the variants beyond the article; on CUDA, the scaling sweep (seq 512..16k, "
        "head_dim 64/128) and forward+backward too",
    )

    s = _command(
        sub,
        "show",
        "print a snapshot's kernel tables",
        "Per variant: its GPU activities (kernel, launch API, grid, block, registers, shared memory,\n"
        "Kineto's occupancy estimate, duration), then a summary. Kernel names are shortened to fit the\n"
        "terminal; --full-names prints them whole. No torch needed.",
        """
attn-examples show snapshots/nvidia-h200
attn-examples show snapshots/nvidia-h200 --variants naive --full-names
attn-examples show snapshots/cpu --cpu-ops""",
        cmd_show,
    )
    s.add_argument("snapshot", help="snapshot folder or its snapshot.json")
    s.add_argument("--variants", nargs="+", metavar="ID", choices=variant_ids, help="only these variants")
    s.add_argument("--cpu-ops", action="store_true", help="also list host ops for GPU snapshots")
    s.add_argument("--full-names", action="store_true", help="whole kernel names and launch APIs (wrapped)")

    d = _command(
        sub,
        "diff",
        "compare two snapshots (e.g. your GPU against the published one)",
        "Kernel counts, device time and main kernel per variant, side by side. The same configuration\n"
        "on two devices compares times (B/A); two configurations compare each variant's share of its\n"
        "own run, since their raw times measure different work. No torch needed.",
        """
attn-examples diff snapshots/nvidia-h200 .cache/live-snapshot/nvidia-a100-sxm4-80gb
attn-examples diff snapshots/nvidia-h200 snapshots/nvidia-h200-b1-h8-s512""",
        cmd_diff,
    )
    d.add_argument("a", help="snapshot A, the reference (e.g. the published one, snapshots/nvidia-h200)")
    d.add_argument("b", help="snapshot B, set against A (e.g. one you measured)")

    c = _command(
        sub,
        "check",
        "check every claim against a snapshot; exit 1 if a truth fails",
        "Truths must hold wherever they apply (exit 1 if one fails); observations are reported. Timed\n"
        "claims are decided with their 95% interval. --baseline adds drift: each variant's share of\n"
        "the run against the committed snapshot of the same device.",
        f"""
attn-examples check                                   the committed {BASELINE} snapshot
attn-examples check .cache/live-snapshot/nvidia-h200 --baseline snapshots/nvidia-h200""",
        cmd_check,
    )
    c.add_argument(
        "snapshot", nargs="?", help=f"snapshot folder (default: the committed {BASELINE}, from any directory)"
    )
    c.add_argument("--baseline", help="also compare with this committed snapshot (drift of device-time shares)")
    c.add_argument("--tolerance", type=float, default=None, help="drift tolerance, relative (default: the claims' own)")

    n = _command(
        sub,
        "counters",
        "add Nsight Compute hardware counters (one ncu run over all the variants)",
        "Runs every variant's forward once under ncu, in its own NVTX range, and adds HBM traffic, FLOPs,\n"
        "occupancy and Tensor Core use per kernel to the snapshot. Without ncu, records why.",
        """
attn-examples counters snapshots/nvidia-h200
attn-examples counters /tmp/h200 --variants sdpa_flash --ncu-log /tmp/ncu""",
        cmd_counters,
    )
    n.add_argument(
        "snapshot", help="the snapshot folder the counters are added to (written back in place unless --output)"
    )
    n.add_argument("--output", "-o", help="write here instead of over the snapshot")
    n.add_argument("--ncu-log", metavar="DIR", help="keep ncu's whole output and report here")
    n.add_argument(
        "--variants",
        nargs="+",
        metavar="ID",
        choices=variant_ids,
        help="default: the article's variants in the snapshot",
    )
    n.add_argument(
        "--replace",
        action="store_true",
        help="record that this machine has no counters even over a snapshot that holds some",
    )

    g = _command(
        sub,
        "pages",
        "check the page sources against every committed snapshot (no MkDocs)",
        "Renders each page's template (values, claims, branches, measured blocks) against each snapshot\n"
        "and lists what would fail a build; --show prints one page as one snapshot renders it.",
        """
attn-examples pages
attn-examples pages naive.md --snapshot snapshots/cpu --no-blocks
attn-examples pages cudnn.md --show --snapshot snapshots/nvidia-h200 --lang zh-TW
attn-examples pages cudnn.md --show --evidence --snapshot snapshots/nvidia-h200-b1-h2-s128""",
        cmd_pages,
    )
    g.add_argument("page", nargs="*", help="e.g. naive.md (default: every page)")
    g.add_argument("--snapshot", action="append", help="check against this snapshot folder (repeatable)")
    g.add_argument("--no-blocks", action="store_true", help="skip the measured blocks (faster)")
    g.add_argument("--show", action="store_true", help="print one page as one snapshot renders it")
    g.add_argument("--lang", default="en", choices=("en", "zh-TW"), help="the page's language (with --show)")
    g.add_argument(
        "--evidence",
        action="store_true",
        help="with --show: each statement with what it rests on and those claims' verdicts, instead of the page",
    )

    b = _command(
        sub,
        "notebook",
        "run the site's notebook here; freeze its outputs beside the snapshot",
        "Executes docs/notebook on this machine (it measures once) and stores its outputs next to the\n"
        "snapshot this machine measured, so the site can show them. Needs torch.",
        """
attn-examples notebook snapshots/nvidia-h200""",
        cmd_notebook,
    )
    b.add_argument("snapshot", help="the snapshot this machine measured (its device must be this one)")

    a = _command(
        sub,
        "accept",
        "promote a live snapshot to the committed baseline of its device",
        "Copies a measurement (and its traces) over snapshots/<device-slug>/; refuses one of another\n"
        "device, configuration or set of variants unless --force.",
        """
attn-examples accept .cache/live-snapshot/nvidia-h200""",
        cmd_accept,
    )
    a.add_argument("snapshot", help="the measured snapshot folder (e.g. .cache/live-snapshot/nvidia-h200)")
    a.add_argument("--to", help="target folder (default: snapshots/<device-slug>/)")
    a.add_argument(
        "--force", action="store_true", help="replace a baseline of another device, configuration or set of variants"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Exit codes: 0 done; 1 a truth failed or the measurement drifted (check); 2 bad input, a bad
    argument or a machine that cannot do what was asked, said in one line (--debug: the traceback)."""
    from attn_examples.claims.check import ClaimsError

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
