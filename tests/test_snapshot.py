"""Snapshots round-trip; bad ones fail with the file and the field named; writes are atomic."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from attn_examples import snapshot as snapshot_module
from attn_examples.snapshot import SnapshotError, load_snapshot, write_snapshot


@pytest.fixture
def snap_copy(cpu_snapshot_dir, tmp_path):
    target = tmp_path / "snap"
    shutil.copytree(cpu_snapshot_dir, target)
    return target


def _edit(folder, change) -> None:
    path = folder / "snapshot.json"
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def test_round_trip_is_lossless(snap_copy, tmp_path):
    first = load_snapshot(snap_copy)
    data = first.to_dict()
    traces = {v: first.trace_path(v).read_bytes() for v, r in first.variants.items() if r.profile}
    write_snapshot(data, traces, tmp_path / "again")
    second = load_snapshot(tmp_path / "again")
    assert second == first
    assert second.to_dict() == data


def test_truncated_json_names_the_file(snap_copy):
    path = snap_copy / "snapshot.json"
    path.write_text(path.read_text()[:500])
    with pytest.raises(SnapshotError, match=r"snapshot\.json: not valid JSON"):
        load_snapshot(snap_copy)


def test_missing_field_is_named(snap_copy):
    _edit(snap_copy, lambda d: d["variants"]["sdpa_flash"]["timing"].pop("rel_error"))
    with pytest.raises(SnapshotError, match=r"snapshot\.json: field 'variants\.sdpa_flash\.timing\.rel_error': missing"):
        load_snapshot(snap_copy)


def test_wrong_type_is_named(snap_copy):
    _edit(snap_copy, lambda d: d["variants"]["naive"]["profile"]["steps"][0].__setitem__("transposes", "two"))
    with pytest.raises(SnapshotError, match=r"field 'variants\.naive\.profile\.steps\[0\]\.transposes': expected int"):
        load_snapshot(snap_copy)


def test_wrong_schema_version_is_refused(snap_copy):
    _edit(snap_copy, lambda d: d.__setitem__("schema_version", 99))
    with pytest.raises(SnapshotError, match=r"snapshot\.json: field 'schema_version'.*has 99"):
        load_snapshot(snap_copy)


def test_unknown_variant_is_refused(snap_copy):
    _edit(snap_copy, lambda d: d["variants"].__setitem__("flash3", d["variants"]["sdpa_flash"]))
    with pytest.raises(SnapshotError, match=r"field 'variants\.flash3': unknown variant 'flash3'"):
        load_snapshot(snap_copy)


def test_bad_config_is_named(snap_copy):
    _edit(snap_copy, lambda d: d["config"].__setitem__("dtype", "int8"))
    with pytest.raises(SnapshotError, match=r"field 'config'.*dtype"):
        load_snapshot(snap_copy)


def test_missing_trace_file_is_named(snap_copy):
    for trace in (snap_copy / "traces").glob("naive-*.json.gz"):
        trace.unlink()
    with pytest.raises(SnapshotError, match=r"field 'variants\.naive\.profile\.trace_file'.*does not exist"):
        load_snapshot(snap_copy)


def test_invalid_data_writes_nothing(snap_copy, tmp_path):
    data = load_snapshot(snap_copy).to_dict()
    del data["provenance"]["torch"]
    with pytest.raises(SnapshotError, match="provenance.torch"):
        write_snapshot(data, {}, tmp_path / "never")
    assert not (tmp_path / "never").exists()


def test_a_failed_write_leaves_the_old_snapshot_intact(snap_copy, monkeypatch):
    before = (snap_copy / "snapshot.json").read_bytes()
    old = load_snapshot(snap_copy)
    data = old.to_dict()
    data["provenance"]["measured_at"] = "2099-01-01T00:00:00+00:00"
    traces = {v: b"changed" + old.trace_path(v).read_bytes() for v, r in old.variants.items() if r.profile}
    real_replace = os.replace

    def failing_replace(src, dst):
        if str(dst).endswith("snapshot.json"):
            raise OSError("disk full")
        return real_replace(src, dst)

    monkeypatch.setattr(snapshot_module.os, "replace", failing_replace)
    with pytest.raises(OSError, match="disk full"):
        write_snapshot(data, traces, snap_copy)
    assert (snap_copy / "snapshot.json").read_bytes() == before
    assert load_snapshot(snap_copy) == old
    assert not list(snap_copy.glob(".snapshot.json.*.tmp"))


def test_loading_and_viewing_never_import_torch(cpu_snapshot_dir):
    code = ("import sys; from attn_examples.snapshot import load_snapshot; from attn_examples import views; "
            f"views.summary_rows(load_snapshot({str(cpu_snapshot_dir)!r})); "
            "from attn_examples.cli import main; main(['show', " + repr(str(cpu_snapshot_dir)) + "]); "
            "assert 'torch' not in sys.modules, 'torch was imported'")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
