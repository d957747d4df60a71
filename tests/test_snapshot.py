"""Snapshots round-trip; bad ones fail with the file and the field named; writes are atomic."""

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from attn_examples.snapshot import schema as snapshot_module
from attn_examples.snapshot.schema import SnapshotError, load_snapshot, write_snapshot


@pytest.fixture
def snap_copy(cpu_snapshot_dir, tmp_path):
    target = tmp_path / "snap"
    shutil.copytree(cpu_snapshot_dir, target)
    return target


@pytest.fixture
def h200_copy(tmp_path):
    """The committed H200 snapshot (counters, sweep, training), copied to be broken."""
    target = tmp_path / "h200"
    shutil.copytree(snapshot_module.snapshot_home() / "nvidia-h200", target)
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
    # written readable for others as the umask allows (not mkstemp's private 0600)
    mask = os.umask(0o022)
    os.umask(mask)
    for written in [tmp_path / "again" / "snapshot.json", *(tmp_path / "again" / "traces").iterdir()]:
        assert written.stat().st_mode & 0o777 == 0o666 & ~mask, written


def test_truncated_json_names_the_file(snap_copy):
    path = snap_copy / "snapshot.json"
    path.write_text(path.read_text()[:500])
    with pytest.raises(SnapshotError, match=r"snapshot\.json: not valid JSON"):
        load_snapshot(snap_copy)


def test_missing_field_is_named(snap_copy):
    _edit(snap_copy, lambda d: d["variants"]["sdpa_flash"]["timing"].pop("rel_error"))
    with pytest.raises(
        SnapshotError, match=r"snapshot\.json: field 'variants\.sdpa_flash\.timing\.rel_error': missing"
    ):
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
    with pytest.raises(SnapshotError, match=r"provenance\.torch"):
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
    code = (
        "import sys; from attn_examples.snapshot.schema import load_snapshot; from attn_examples.render import views; "
        f"views.summary_rows(load_snapshot({str(cpu_snapshot_dir)!r})); "
        "from attn_examples.site.cli import main; main(['show', " + repr(str(cpu_snapshot_dir)) + "]); "
        "assert 'torch' not in sys.modules, 'torch was imported'"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


# ---- a snapshot from outside: numbers and paths checked for what they can be ---------------------


def _gpu(data):
    return data["variants"]["naive"]["profile"]["steps"][0]["gpu"][0]


def _set(path):
    """A change to data at a dotted path (list indices as ints)."""

    def change(data, value):
        *head, last = path
        target = data
        for part in head:
            target = target[part]
        target[last] = value

    return change


_TIMING = ("variants", "naive", "timing", "device_us")


@pytest.mark.parametrize(
    "path, value, field, words",
    [
        (_TIMING + ("median",), float("nan"), "variants.naive.timing.device_us.median", "not a finite number"),
        (_TIMING + ("median",), float("inf"), "variants.naive.timing.device_us.median", "not a finite number"),
        (_TIMING + ("median",), 0.0, "variants.naive.timing.device_us.median", "must be positive"),
        (_TIMING + ("min",), -94.0, "variants.naive.timing.device_us.min", "must be positive"),
        (("variants", "naive", "profile", "steps", 0, "gpu", 0, "dur_us"), -94.0, "gpu[0].dur_us", "must be positive"),
        (("variants", "naive", "profile", "steps", 0, "gpu", 0, "dur_us"), 0.0, "gpu[0].dur_us", "must be positive"),
        (
            ("variants", "naive", "profile", "steps", 0, "gpu", 0, "dur_us"),
            float("nan"),
            "gpu[0].dur_us",
            "not a finite",
        ),
        (
            ("variants", "naive", "profile", "steps", 0, "gpu", 0, "dur_us"),
            float("inf"),
            "gpu[0].dur_us",
            "not a finite",
        ),
        (_TIMING + ("blocks", 3), float("inf"), "device_us.blocks[3]", "not a finite number"),
        (_TIMING + ("blocks", 0), 0.0, "device_us.blocks[0]", "must be positive"),
        (("variants", "naive", "profile", "steps", 0, "transposes"), -1, "transposes", "must not be negative"),
        (("variants", "naive", "timing", "peak_memory_bytes"), -5, "peak_memory_bytes", "must not be negative"),
        (("variants", "naive", "profile", "trace_file"), "../../../etc/passwd", "profile.trace_file", "under traces/"),
        (("variants", "naive", "profile", "trace_file"), "/etc/passwd", "profile.trace_file", "under traces/"),
        (
            ("variants", "naive", "profile", "trace_file"),
            "traces/../../x.json.gz",
            "profile.trace_file",
            "under traces/",
        ),
        (("device_slug",), "../elsewhere", "device_slug", "plain folder name"),
        (("device_slug",), "a/b", "device_slug", "plain folder name"),
        (("provenance", "compute_capability"), "<script>", "provenance.compute_capability", "major.minor"),
        (("counters", "report_file"), "../../etc/passwd", "counters.report_file", "under counters/"),
        (("counters", "report_file"), "/etc/passwd", "counters.report_file", "under counters/"),
        (("counters", "report_file"), "counters/../x.ncu-rep.gz", "counters.report_file", "under counters/"),
        (("counters", "report_file"), "traces/r.ncu-rep.gz", "counters.report_file", "under counters/"),
        (("counters", "report_file"), "counters/r.ncu-rep", "counters.report_file", "*.ncu-rep.gz"),
        (("counters", "report_file"), "counters/r.ncu-rep.gz", "counters.report_file", "does not exist"),
        (("counters", "report_file"), 7, "counters.report_file", "expected str"),
        (("counters", "reader"), "guesswork", "counters.reader", "known: ncu_report, csv"),
    ],
)
def test_a_value_a_measurement_cannot_have_is_refused_by_name(h200_copy, path, value, field, words):
    _edit(h200_copy, lambda data: _set(path)(data, value))
    with pytest.raises(SnapshotError) as info:
        load_snapshot(h200_copy)
    message = str(info.value)
    assert "snapshot.json" in message and field in message and words in message, message
    assert "\n" not in message


def test_counter_readings_keep_their_sign_but_must_be_finite(h200_copy):
    def change(data, value):
        kernel = next(iter(data["counters"]["variants"].values()))[0]
        kernel["metrics"][next(iter(kernel["metrics"]))] = value

    _edit(h200_copy, lambda data: change(data, -1.0))
    load_snapshot(h200_copy)
    _edit(h200_copy, lambda data: change(data, float("nan")))
    with pytest.raises(SnapshotError, match="not a finite number"):
        load_snapshot(h200_copy)


_WRITER = """
import gzip, json, sys
from attn_examples.snapshot.schema import compress_trace, load_snapshot, write_snapshot
source, out, tag = sys.argv[1], sys.argv[2], sys.argv[3]
snap = load_snapshot(source)
data = snap.to_dict()
for i in range(15):
    # traces that differ per writer and per round, so each write names its own trace files
    traces = {}
    for v, r in snap.variants.items():
        if r.profile:
            trace = json.loads(gzip.decompress(snap.trace_path(v).read_bytes()))
            traces[v] = compress_trace(json.dumps({**trace, "writer": f"{tag}{i}"}))
    write_snapshot(data, traces, out)
"""


def test_two_writers_on_one_folder_leave_a_complete_snapshot(tmp_path):
    """Each writer removes trace files its JSON does not name; interleaved, one deleted the other's.
    The last complete write must win, with every trace it names present."""
    source = snapshot_module.snapshot_home() / "cpu"
    out = tmp_path / "shared"
    for attempt in range(3):
        writers = [subprocess.Popen([sys.executable, "-c", _WRITER, str(source), str(out), tag]) for tag in ("a", "b")]
        assert [w.wait(timeout=300) for w in writers] == [0, 0]
        snap = load_snapshot(out)  # checks that every named trace exists
        named = {snap.trace_path(v) for v, r in snap.variants.items() if r.profile}
        assert set((out / "traces").glob("*.json.gz")) == named, attempt
        assert not list(out.glob("**/.*.tmp"))


# ---- the counters pass's Nsight Compute report ---------------------------------------------------

REPORT = b"NVIDIA Nsight Compute report, or any bytes in a test"


def _with_report(folder, out, report: bytes = REPORT):
    """The snapshot at `folder` written to `out` with `report` as its counters' report."""
    snap = load_snapshot(folder)
    return write_snapshot(snap.to_dict(), snap.trace_blobs(), out, snapshot_module.compress_blob(report))


def test_a_snapshot_from_before_the_report_still_loads(h200_copy):
    """Counters written before the report was kept have no reader, fallback or report fields."""

    def forget_the_report(data):
        for key in ("reader", "reader_fallback", "report_file"):
            del data["counters"][key]

    _edit(h200_copy, forget_the_report)
    shutil.rmtree(h200_copy / "counters")
    counters = load_snapshot(h200_copy).counters
    assert counters is not None and counters.available
    assert counters.reader is None and counters.report_file is None
    assert snapshot_module.load_report(load_snapshot(h200_copy)) is None


def test_the_published_snapshot_keeps_its_report():
    snap = load_snapshot(snapshot_module.snapshot_home() / "nvidia-h200")
    assert snap.counters is not None and snap.counters.reader == "ncu_report"
    report = snapshot_module.load_report(snap)
    assert report is not None and report[:4] == b"NVR\x00"  # an Nsight Compute report, stored gzipped


def test_a_report_round_trips_gzipped_under_counters_and_survives_a_rewrite(h200_copy, tmp_path):
    _with_report(h200_copy, tmp_path / "first")
    first = load_snapshot(tmp_path / "first")
    name = first.counters.report_file
    assert re.fullmatch(r"counters/counters-[0-9a-f]{12}\.ncu-rep\.gz", name), name
    assert snapshot_module.load_report(first) == REPORT
    assert (tmp_path / "first" / name).read_bytes()[:2] == b"\x1f\x8b"  # stored gzipped
    # rewriting the loaded snapshot (accept, the counters command) hands the report through
    write_snapshot(first.to_dict(), first.trace_blobs(), tmp_path / "again", first.report_blob())
    again = load_snapshot(tmp_path / "again")
    assert again == first and again.to_dict() == first.to_dict()
    assert snapshot_module.load_report(again) == REPORT


def test_a_new_report_replaces_the_old_file_and_none_is_refused_while_one_is_named(h200_copy, tmp_path):
    _with_report(h200_copy, tmp_path / "snap")
    old = load_snapshot(tmp_path / "snap").counters.report_file
    _with_report(tmp_path / "snap", tmp_path / "snap", b"a later pass")
    snap = load_snapshot(tmp_path / "snap")
    assert snap.counters.report_file != old and not (tmp_path / "snap" / old).exists()
    assert list((tmp_path / "snap" / "counters").iterdir()) == [tmp_path / "snap" / snap.counters.report_file]
    with pytest.raises(SnapshotError, match=r"field 'counters\.report_file': names a report, but no report"):
        write_snapshot(snap.to_dict(), snap.trace_blobs(), tmp_path / "snap")
    assert snapshot_module.load_report(load_snapshot(tmp_path / "snap")) == b"a later pass"


def test_a_report_without_measured_counters_is_refused(h200_copy, tmp_path):
    from attn_examples.measure.counters import unavailable

    snap = load_snapshot(h200_copy)
    data = snap.to_dict()
    data["counters"] = unavailable("no ncu here")
    with pytest.raises(SnapshotError, match=r"field 'counters\.report_file': a report was given, but no counters"):
        write_snapshot(data, snap.trace_blobs(), tmp_path / "out", snapshot_module.compress_blob(REPORT))
    assert not (tmp_path / "out" / "snapshot.json").exists()
    _with_report(h200_copy, tmp_path / "snap")
    _edit(tmp_path / "snap", lambda d: d["counters"].update(available=False, reason="gone"))
    with pytest.raises(SnapshotError, match=r"field 'counters\.report_file': a pass that read no counters"):
        load_snapshot(tmp_path / "snap")


def test_a_missing_or_broken_report_is_named_in_one_line(h200_copy, tmp_path):
    _with_report(h200_copy, tmp_path / "snap")
    stored = tmp_path / "snap" / load_snapshot(tmp_path / "snap").counters.report_file
    stored.write_bytes(b"not gzip")
    with pytest.raises(SnapshotError) as info:
        snapshot_module.load_report(load_snapshot(tmp_path / "snap"))
    message = str(info.value)
    assert str(stored) in message and "counters.report_file" in message and "gzip" in message
    assert "\n" not in message
    stored.unlink()
    with pytest.raises(SnapshotError) as info:
        load_snapshot(tmp_path / "snap")
    message = str(info.value)
    assert "snapshot.json" in message and "field 'counters.report_file'" in message and "does not exist" in message
    assert "\n" not in message
