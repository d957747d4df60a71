import json
from pathlib import Path

import pytest

from attn_examples.site.cli import main


def test_show_prints_tables_and_provenance(cpu_snapshot_dir, capsys):
    assert main(["show", str(cpu_snapshot_dir)]) == 0
    out = capsys.readouterr().out
    assert "Naive (masked_fill)" in out and "unavailable on this device" in out
    assert "aten::" in out and "Summary" in out


def test_diff_puts_two_snapshots_side_by_side(cpu_snapshot_dir, capsys):
    assert main(["diff", str(cpu_snapshot_dir), str(cpu_snapshot_dir)]) == 0
    out = capsys.readouterr().out
    assert "A against B" in out and "1.00×" in out and "like with like" in out


def test_diff_names_what_differs_and_compares_shares_across_configurations(capsys, monkeypatch):
    """Two devices at one configuration compare times; two configurations compare only each
    variant's share of its own run (their raw times measure different work)."""
    monkeypatch.setenv("COLUMNS", "300")  # one line per table row: headers whole
    snapshots = Path(__file__).resolve().parent.parent / "snapshots"
    assert main(["diff", str(snapshots / "cpu"), str(snapshots / "nvidia-h200")]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "different devices: A cpu" in out and "different software" in out
    assert "device µs A" in out and "different configurations" not in out
    assert main(["diff", str(snapshots / "nvidia-h200"), str(snapshots / "nvidia-h200-b1-h8-s512")]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "different configurations (batch 8 in A, 1 in B" in out and "share A" in out
    assert "device µs A" not in out and "like with like" not in out


def test_bad_snapshot_gives_a_clear_error_and_exit_2(tmp_path, capsys):
    (tmp_path / "snapshot.json").write_text(json.dumps({"schema_version": 2}))
    assert main(["show", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "snapshot.json" in err and "field 'device_slug': missing" in err


def test_unknown_variant_on_the_command_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as done:
        main(["measure", "--device", "cpu", "--variants", "flash3", "-o", str(tmp_path)])
    assert done.value.code == 2 and "invalid choice: 'flash3'" in capsys.readouterr().err


@pytest.mark.measure
def test_measure_writes_a_loadable_snapshot(tmp_path, capsys):
    out = tmp_path / "snap"
    args = [
        "measure",
        "--device",
        "cpu",
        "--variants",
        "naive_inplace",
        "sdpa_cudnn",
        "--batch",
        "1",
        "--heads",
        "1",
        "--seq-len",
        "64",
        "--head-dim",
        "32",
        "--quiet",
        "-o",
        str(out),
    ]
    assert main(args) == 0
    data = json.loads((out / "snapshot.json").read_text())
    assert list(data["variants"]) == ["naive_inplace", "sdpa_cudnn"]
    assert data["config"]["seq_len"] == 64
    assert not data["variants"]["sdpa_cudnn"]["available"]


def test_show_and_check_print_a_snapshots_brackets_as_text(tmp_path, capsys, monkeypatch):
    """Kernel names carry template arguments in brackets; a terminal table must not read them as markup."""
    import json
    import shutil

    from attn_examples.snapshot.schema import snapshot_home

    folder = tmp_path / "snap"
    shutil.copytree(snapshot_home() / "nvidia-h200", folder)
    data = json.loads((folder / "snapshot.json").read_text())
    data["provenance"]["device_name"] = "GPU [bold]X[/bold] [/]"
    gpu = data["variants"]["naive"]["profile"]["steps"][0]["gpu"]
    for activity in gpu:
        activity["name"] = activity["name"] + " [with T=float]"
    (folder / "snapshot.json").write_text(json.dumps(data))
    monkeypatch.setenv("COLUMNS", "400")  # no folding: each name on one line
    assert main(["show", str(folder), "--full-names"]) == 0
    out = capsys.readouterr().out
    assert "GPU [bold]X[/bold] [/]" in out and "[with T=float]" in out
    main(["check", str(folder)])
    assert "GPU [bold]X[/bold] [/]" in capsys.readouterr().out


REPO_SNAPSHOTS = Path(__file__).resolve().parent.parent / "snapshots"


def test_show_reads_well_at_80_columns(capsys, monkeypatch):
    """Short kernel names, one line per kernel, no number split across lines; --full-names gives the
    whole names back."""
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["show", str(REPO_SNAPSHOTS / "nvidia-h200")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in lines) <= 80 and len(lines) < 250, len(lines)
    from attn_examples.render import views
    from attn_examples.snapshot.schema import load_snapshot

    tokens = " ".join(lines).split()
    snap = load_snapshot(REPO_SNAPSHOTS / "nvidia-h200")
    for variant_id, result in snap.variants.items():  # every duration and grid whole, none cut short
        for row in views.kernel_rows(result):
            assert f"{row['dur_us']:,.1f}" in tokens, (variant_id, row["name"], row["dur_us"])
    summary = {row["id"]: row for row in views.summary_rows(snap)}
    assert f"{summary['sdpa_math']['device_us']:,.1f}" in tokens
    assert main(["show", str(REPO_SNAPSHOTS / "nvidia-h200"), "--full-names", "--variants", "naive"]) == 0
    assert "at::native::" in capsys.readouterr().out


def test_version_help_and_choices(capsys):
    from attn_examples import __version__

    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0 and capsys.readouterr().out.strip() == f"attn-examples {__version__}"
    with pytest.raises(SystemExit):
        main(["measure", "--help"])
    text = capsys.readouterr().out
    assert "example" in text.lower() and "(default: 1024)" in " ".join(text.split())
    with pytest.raises(SystemExit):
        main(["diff", "--help"])
    assert "the published one" in capsys.readouterr().out
    with pytest.raises(SystemExit) as done:
        main(["show", str(REPO_SNAPSHOTS / "cpu"), "--variants", "flash3"])
    assert done.value.code == 2 and "invalid choice: 'flash3'" in capsys.readouterr().err


def test_check_finds_its_default_snapshot_from_any_directory(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["check"]) == 0
    assert "applicable truths hold" in " ".join(capsys.readouterr().out.split())


def test_the_version_has_one_source():
    """pyproject.toml's; the package reads it from its installed metadata, never types it again."""
    tomllib = pytest.importorskip("tomllib")
    from attn_examples import __version__

    project = tomllib.loads((REPO_SNAPSHOTS.parent / "pyproject.toml").read_text())["project"]
    assert __version__ == project["version"]
    assert project["version"] not in (REPO_SNAPSHOTS.parent / "attn_examples" / "__init__.py").read_text()


def test_every_argument_of_every_command_says_what_it_is():
    """`--help` is the command line's documentation: an argument without help text shows as a
    bare name (the counters command's snapshot once did)."""
    import argparse

    from attn_examples.site.cli import build_parser

    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    bare = [
        f"{name} {action.dest}"
        for name, sub in commands.items()
        for action in sub._actions
        if not isinstance(action, argparse._HelpAction) and not action.help
    ]
    assert not bare, f"arguments without help: {bare}"
