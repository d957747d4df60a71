"""The live measurement cache: what its key is made of, and how a build uses it (no GPU needed:
the measuring stage is replaced by a copy of the committed CPU snapshot; the GPU run checks the rest)."""

from __future__ import annotations

import ast
import dataclasses
import shutil
import threading
from pathlib import Path

import pytest

from attn_examples.site import build as site
from attn_examples.site import live_cache
from attn_examples.snapshot.schema import load_snapshot
from tests.conftest import REPO

KEY = live_cache.MeasurementKey(
    gpu="NVIDIA H200",
    gpu_uuid="GPU-1",
    driver="580.159.04",
    cuda="13.0",
    cudnn="91900",
    torch="2.11.0+cu130",
    ncu="Nsight Compute 2025.3.1.0",
    code="abc",
    config='{"seq_len": 1024}',
    scope="full",
)


@pytest.mark.parametrize(
    "field, other",
    [
        ("torch", "2.12.0+cu130"),
        ("code", "abd"),
        ("config", '{"seq_len": 2048}'),
        ("gpu", "NVIDIA A100-SXM4-80GB"),
        ("gpu_uuid", "GPU-2"),
        ("driver", "590.1"),
        ("cuda", "13.1"),
        ("cudnn", "92000"),
        ("scope", "core"),
        ("ncu", "Nsight Compute 2026.1"),
    ],
)
def test_a_change_of_any_field_misses_and_says_which(tmp_path, field, other):
    changed = dataclasses.replace(KEY, **{field: other})
    assert changed.digest() != KEY.digest()
    live_cache.finish(_entry(tmp_path, KEY), KEY)
    found = live_cache.lookup(tmp_path, changed)
    assert not found.hit and found.why_not == f"changed since the last one: {field} {getattr(KEY, field)} → {other}"


def test_the_same_key_hits(tmp_path):
    assert dataclasses.replace(KEY).digest() == KEY.digest()
    live_cache.finish(_entry(tmp_path, KEY), KEY)
    found = live_cache.lookup(tmp_path, dataclasses.replace(KEY))
    assert found.hit and found.folder == tmp_path / KEY.digest()


def test_an_unfinished_or_tampered_entry_is_never_read(tmp_path):
    folder = _entry(tmp_path, KEY)  # measured, but key.json never written
    assert not live_cache.lookup(tmp_path, KEY).hit
    (folder / live_cache.KEY_FILE).write_text('{"gpu": 3}')
    assert not live_cache.lookup(tmp_path, KEY).hit
    with pytest.raises(ValueError, match=r"key\.json: expected the fields"):
        live_cache.MeasurementKey.from_dict({"gpu": 3}, str(folder / live_cache.KEY_FILE))


def _package_copy(tmp_path: Path) -> Path:
    package = tmp_path / "attn_examples"
    shutil.copytree(
        REPO / "attn_examples", package, symlinks=False, ignore=shutil.ignore_patterns("__pycache__", "claims.d")
    )
    return package


def test_the_code_signature_follows_the_measuring_code_and_the_snippets_only(tmp_path):
    package = _package_copy(tmp_path)
    before = live_cache.code_signature(package)
    (package / "render" / "blocks.py").write_text((package / "render" / "blocks.py").read_text() + "\n# prose only\n")
    assert live_cache.code_signature(package) == before
    (package / "measure" / "extended.py").write_text(
        (package / "measure" / "extended.py").read_text() + "\n# timing changed\n"
    )
    after_code = live_cache.code_signature(package)
    assert after_code != before
    snippet = package / "snippets" / "naive_attention.py"
    snippet.write_text(snippet.read_text() + "\n# the reader's code changed\n")
    assert live_cache.code_signature(package) != after_code


def _imported_modules(path: Path) -> set[str]:
    """The package's modules `path` imports, as paths below the package ("render/blocks")."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("attn_examples."):
            parts = node.module.split(".")[1:]
            if len(parts) == 1:  # from attn_examples.render import blocks
                names |= {f"{parts[0]}/{alias.name}" for alias in node.names}
            else:
                names.add("/".join(parts))
        elif isinstance(node, ast.Import):
            names |= {"/".join(a.name.split(".")[1:]) for a in node.names if a.name.startswith("attn_examples.")}
    return names


def test_every_module_the_measurement_imports_is_in_the_signature():
    package = REPO / "attn_examples"
    todo = [p.relative_to(package).with_suffix("").as_posix() for p in (package / "measure").glob("*.py")]
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo += sorted(_imported_modules(package / f"{name}.py"))
    missing = sorted(name for name in seen if name.split("/")[0] not in live_cache.MEASURED_CODE)
    assert not missing, f"the measuring code imports modules the signature does not hash: {missing}"


def _entry(cache: Path, key: live_cache.MeasurementKey) -> Path:
    folder = cache / key.digest()
    shutil.copytree(REPO / "snapshots" / "cpu", folder)
    return folder


@pytest.fixture
def stubbed(tmp_path, monkeypatch):
    """site's live path with this machine's key fixed and the measuring stage a copy of the CPU snapshot."""
    calls: list[Path] = []
    lock = threading.Lock()

    def measure_into(folder: Path, scope: str, early=None) -> None:
        with lock:
            calls.append(folder)
        shutil.copytree(REPO / "snapshots" / "cpu", folder)

    monkeypatch.setattr(site, "CACHE_DIR", tmp_path / "measurements")
    monkeypatch.setattr(site, "LIVE_DIR", tmp_path / "live-snapshot")
    monkeypatch.setattr(
        live_cache, "current_key", lambda config, scope: dataclasses.replace(KEY, config=config, scope=scope)
    )
    monkeypatch.setattr(site, "_measure_into", measure_into)
    return calls


def test_a_second_build_reuses_and_live_mode_measures_afresh(stubbed, tmp_path):
    folder, reused = site._measure_live(fresh=False)
    assert not reused and len(stubbed) == 1 and load_snapshot(folder).device_slug == "cpu"
    assert (tmp_path / "live-snapshot" / "cpu" / "snapshot.json").exists()  # where CI and `accept` look
    assert site._measure_live(fresh=False) == (folder, True) and len(stubbed) == 1
    assert site._measure_live(fresh=True) == (folder, False) and len(stubbed) == 2


def test_builds_starting_together_measure_once(stubbed):
    results: list[tuple[Path, bool]] = []
    threads = [threading.Thread(target=lambda: results.append(site._measure_live(fresh=False))) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(stubbed) == 1 and sorted(reused for _, reused in results) == [False, True, True]


def test_a_reused_measurement_says_so_in_both_languages():
    from attn_examples.render import blocks as render

    snap = load_snapshot(REPO / "snapshots" / "cpu")
    for lang, words in (("en", "reused"), ("zh-TW", "沿用")):
        line = render.provenance(snap, lang, True, reused=True)
        assert words in line and snap.provenance.measured_at[:10] in line
        assert words not in render.provenance(snap, lang, True)
        assert words in render.value(snap, "build.mode", True, lang, reused=True)


def test_the_live_scopes_and_a_wrong_one(monkeypatch):
    for scope in ("full", "standard", "core"):
        monkeypatch.setenv(site.SCOPE_ENV, scope.upper())
        assert site.live_scope() == scope
    monkeypatch.setenv(site.SCOPE_ENV, "everything")
    with pytest.raises(ValueError, match="expected full, standard, core"):
        site.live_scope()


def _finished(cache: Path, n: int, age_s: float) -> Path:
    """The n-th entry, finished and last used age_s ago."""
    import os
    import time

    key = dataclasses.replace(KEY, code=f"code{n}")
    folder = _entry(cache, key)
    live_cache.finish(folder, key)
    stamp = time.time() - age_s
    os.utime(folder / live_cache.KEY_FILE, (stamp, stamp))
    return folder


def test_the_cache_keeps_the_entries_used_last_and_spares_any_in_use(tmp_path):
    import fcntl

    day = 86400
    folders = [_finished(tmp_path, n, age_s=(n + 1) * day) for n in range(live_cache.KEEP + 3)]
    recent = _finished(tmp_path, 99, age_s=60)  # beyond the newest KEEP? no: used a minute ago
    locked = folders[-1]  # oldest, but a build holds its lock
    abandoned = tmp_path / ("0" * 8)  # a crashed build's unfinished entry
    abandoned.mkdir()
    (abandoned / "snapshot.json").write_text("{}")
    import os

    os.utime(abandoned, (0, 0))
    with open(tmp_path / f"{locked.name}.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        removed = live_cache.prune(tmp_path)
    kept = sorted(p.parent for p in tmp_path.glob(f"*/{live_cache.KEY_FILE}"))
    assert recent in kept and locked in kept and not abandoned.exists()
    assert set(folders[: live_cache.KEEP - 1]) <= set(kept)  # the newest by last use, with `recent`
    assert set(removed) == set(folders[live_cache.KEEP - 1 : -1]) | {abandoned}


def test_reusing_an_entry_counts_as_using_it(stubbed, tmp_path):
    import os

    folder, _ = site._measure_live(fresh=False)
    os.utime(folder / live_cache.KEY_FILE, (0, 0))
    site._measure_live(fresh=False)
    assert (folder / live_cache.KEY_FILE).stat().st_mtime > 1e9


def test_serve_keeps_a_live_measurement_until_its_measuring_code_changes(stubbed, monkeypatch):
    """`mkdocs serve` refreshes after an edit: a claim or a page keeps the live measurement; an edit to
    the code that measures (the key's `code`) makes the next build measure again."""
    signature = {"code": "abc"}
    monkeypatch.setattr(site, "build_mode", lambda: "live")
    monkeypatch.delenv(site.MODE_ENV, raising=False)
    monkeypatch.setattr(site, "_current", None)
    monkeypatch.setattr(site, "_pinned", None)
    monkeypatch.setattr(live_cache, "code_signature", lambda *args: signature["code"])
    monkeypatch.setattr(
        live_cache,
        "current_key",
        lambda config, scope: dataclasses.replace(KEY, code=signature["code"], config=config, scope=scope),
    )
    first = site.current()
    site.refresh()
    assert site.current().snapshot.root == first.snapshot.root and len(stubbed) == 1
    signature["code"] = "abd"
    site.refresh()
    again = site.current()
    assert len(stubbed) == 2 and not again.reused and again.snapshot.root != first.snapshot.root
