import json
from pathlib import Path

import pytest

from attn_examples.cli import main


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
    monkeypatch.setenv("COLUMNS", "300")   # one line per table row: headers whole
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


def test_unknown_variant_on_the_command_line(tmp_path):
    with pytest.raises(SystemExit, match="unknown variant 'flash3'"):
        main(["measure", "--device", "cpu", "--variants", "flash3", "-o", str(tmp_path)])


@pytest.mark.measure
def test_measure_writes_a_loadable_snapshot(tmp_path, capsys):
    out = tmp_path / "snap"
    args = ["measure", "--device", "cpu", "--variants", "naive_inplace", "sdpa_cudnn", "--batch", "1",
            "--heads", "1", "--seq-len", "64", "--head-dim", "32", "--quiet", "-o", str(out)]
    assert main(args) == 0
    data = json.loads((out / "snapshot.json").read_text())
    assert list(data["variants"]) == ["naive_inplace", "sdpa_cudnn"]
    assert data["config"]["seq_len"] == 64
    assert not data["variants"]["sdpa_cudnn"]["available"]


def test_show_and_check_print_a_snapshots_brackets_as_text(tmp_path, capsys, monkeypatch):
    """Kernel names carry template arguments in brackets; a terminal table must not read them as markup."""
    import json
    import shutil

    from attn_examples.snapshot import snapshot_home

    folder = tmp_path / "snap"
    shutil.copytree(snapshot_home() / "nvidia-h200", folder)
    data = json.loads((folder / "snapshot.json").read_text())
    data["provenance"]["device_name"] = "GPU [bold]X[/bold] [/]"
    gpu = data["variants"]["naive"]["profile"]["steps"][0]["gpu"]
    for activity in gpu:
        activity["name"] = activity["name"] + " [with T=float]"
    (folder / "snapshot.json").write_text(json.dumps(data))
    monkeypatch.setenv("COLUMNS", "400")      # no folding: each name on one line
    assert main(["show", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "GPU [bold]X[/bold] [/]" in out and "[with T=float]" in out
    main(["check", str(folder)])
    assert "GPU [bold]X[/bold] [/]" in capsys.readouterr().out
