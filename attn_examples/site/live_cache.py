"""A live measurement kept for the next build on the same machine (no torch import at module level).

A live build measures for about a minute; an author restarting `mkdocs serve` on a GPU machine
should not wait that minute again when nothing that determines the numbers has changed. What
determines them is the key: the GPU (its name and UUID), the driver, CUDA, cuDNN and torch, the
code that measures (`MEASURED_CODE`, hashed), the configuration and the live scope, and ncu's
version for the counters. A measurement is stored under the key's digest, and `key.json` is
written last, after the counters: an entry without it is unfinished and never read. One lock per
key: two builds starting together measure once, the second waits and reuses.
`ATTN_EXAMPLES_MEASURE=live` (CI, the GPU workflow) always measures afresh and replaces the entry.
Each entry is a whole snapshot with its traces (a few MB): after a measurement, all but the `KEEP`
entries used last are removed, sparing any used within `GRACE_S` or locked by a build.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import hashlib
import json
import os
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]
KEY_FILE = "key.json"
KEEP = 4  # finished entries kept, the ones used last (another torch, another scope, ...)
GRACE_S = 3600.0  # an entry used this recently may still be read by a build: never removed

# The code that decides what a live measurement holds: the measuring stage (torch) and the
# snapshot stage it writes through, whole folders, and the reader-facing snippets.
# tests/test_live_cache.py checks that the measuring code imports nothing from elsewhere.
MEASURED_CODE = ("measure", "snapshot", "snippets")


@dataclass(frozen=True)
class MeasurementKey:
    """Everything a live measurement's numbers depend on; equal keys, interchangeable measurements."""

    gpu: str
    gpu_uuid: str
    driver: str
    cuda: str
    cudnn: str
    torch: str
    ncu: str
    code: str  # code_signature()
    config: str  # the AttnConfig as sorted JSON
    scope: str  # the live scope: full or core

    def digest(self) -> str:
        return hashlib.sha256(json.dumps(dataclasses.asdict(self), sort_keys=True).encode()).hexdigest()[:16]

    def differences(self, other: MeasurementKey) -> list[str]:
        """'torch 2.11.0 → 2.12.0' for each field that differs (why a cached measurement is not used)."""
        mine, theirs = dataclasses.asdict(self), dataclasses.asdict(other)
        return [f"{name} {theirs[name]} → {mine[name]}" for name in mine if mine[name] != theirs[name]]

    @classmethod
    def from_dict(cls, data: dict, where: str) -> MeasurementKey:
        fields = [f.name for f in dataclasses.fields(cls)]
        if not isinstance(data, dict) or sorted(data) != sorted(fields):
            raise ValueError(f"{where}: expected the fields {', '.join(fields)}")
        bad = [name for name in fields if not isinstance(data[name], str)]
        if bad:
            raise ValueError(f"{where}: field {bad[0]!r} must be a string")
        return cls(**data)


def code_signature(package: Path = PACKAGE) -> str:
    """A hash of the measuring modules and of every snippet (the code readers see is the code that runs)."""
    digest = hashlib.sha256()
    files = [package / "__init__.py"] + [f for folder in MEASURED_CODE for f in sorted((package / folder).glob("*.py"))]
    for path in files:
        digest.update(path.relative_to(package).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() if path.exists() else b"<missing>")
        digest.update(b"\0")
    return digest.hexdigest()[:16]


def _torch_build() -> tuple[str, str]:
    """(torch's version with its git revision, its CUDA version), read from torch/version.py without
    importing torch (seconds a warm `mkdocs serve` does not spend)."""
    import ast
    import importlib.util

    spec = importlib.util.find_spec("torch")
    if spec is None or spec.origin is None:
        raise RuntimeError("torch is not installed: a live measurement needs the `measure` extra")
    values: dict[str, str] = {}
    tree = ast.parse(Path(spec.origin).with_name("version.py").read_text(encoding="utf-8"))
    for node in tree.body:
        target = node.targets[0] if isinstance(node, ast.Assign) else getattr(node, "target", None)
        value = getattr(node, "value", None)
        if isinstance(target, ast.Name) and isinstance(value, ast.Constant):
            values[target.id] = str(value.value)
    return f"{values.get('__version__', '?')} ({values.get('git_version', '?')[:12]})", values.get("cuda", "None")


def _cudnn() -> str:
    """The cuDNN torch loads: the version of its pip distribution (nvidia-cudnn-cu*), else torch's own
    answer (imports torch: a machine whose cuDNN is not a pip package pays that second)."""
    import importlib.metadata

    for dist in importlib.metadata.distributions():
        name = (dist.metadata["Name"] or "").lower()
        if name.startswith("nvidia-cudnn"):
            return f"{name} {dist.version}"
    import torch

    return str(torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None)


def _gpu() -> tuple[str, str, str]:
    """(name, UUID, driver) of the GPU a build measures on (the first visible one), from nvidia-smi."""
    from attn_examples.snapshot.stamp import run

    rows = [
        [c.strip() for c in line.split(",")]
        for line in (
            run(["nvidia-smi", "--query-gpu=index,name,uuid,driver_version", "--format=csv,noheader"]) or ""
        ).splitlines()
        if line.count(",") == 3
    ]
    if not rows:
        raise RuntimeError("nvidia-smi lists no GPU")
    visible = os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",")[0].strip()
    chosen = next((r for r in rows if visible and visible in (r[0], r[2])), rows[0])
    return chosen[1], chosen[2], chosen[3]


def current_key(config_json: str, scope: str) -> MeasurementKey:
    """This machine's key for a live measurement of `config_json`, without importing torch."""
    from attn_examples.measure import counters

    gpu, uuid, driver = _gpu()
    torch_version, cuda = _torch_build()
    ncu = counters.ncu_path()
    return MeasurementKey(
        gpu=gpu,
        gpu_uuid=uuid,
        driver=driver,
        cuda=cuda,
        cudnn=_cudnn(),
        torch=torch_version,
        ncu=counters.ncu_version(ncu) if ncu and scope != "core" else "",
        code=code_signature(),
        config=config_json,
        scope=scope,
    )


@dataclass(frozen=True)
class Lookup:
    """Where the key's measurement lives, and whether it is there (and if not, what the last one differed in)."""

    folder: Path
    hit: bool
    why_not: str  # empty on a hit


def entry_folder(cache: Path, key: MeasurementKey) -> Path:
    return cache / key.digest()


def lookup(cache: Path, key: MeasurementKey) -> Lookup:
    """The cached measurement for `key`, or why there is none (nothing yet; or the newest entry's key
    differs in these fields)."""
    folder = entry_folder(cache, key)
    try:
        stored = MeasurementKey.from_dict(
            json.loads((folder / KEY_FILE).read_text(encoding="utf-8")), str(folder / KEY_FILE)
        )
    except (OSError, ValueError):
        stored = None
    if stored == key and (folder / "snapshot.json").exists():
        return Lookup(folder, True, "")
    return Lookup(folder, False, _nearest_difference(cache, key))


def _nearest_difference(cache: Path, key: MeasurementKey) -> str:
    """What the most recent finished entry differs in, for the build's log."""
    entries = (
        sorted(cache.glob(f"*/{KEY_FILE}"), key=lambda p: p.stat().st_mtime, reverse=True) if cache.is_dir() else []
    )
    for path in entries:
        try:
            other = MeasurementKey.from_dict(json.loads(path.read_text(encoding="utf-8")), str(path))
        except (OSError, ValueError):
            continue
        changed = key.differences(other)
        return "changed since the last one: " + "; ".join(changed) if changed else "the entry is incomplete"
    return "none measured on this machine yet"


def finish(folder: Path, key: MeasurementKey) -> None:
    """Mark the entry complete: `key.json`, written atomically, after everything else."""
    tmp = folder / f".{KEY_FILE}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps(dataclasses.asdict(key), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, folder / KEY_FILE)


def forget(folder: Path) -> None:
    """Unmark and empty an entry before measuring into it again (a reader then sees no entry, not a stale one)."""
    (folder / KEY_FILE).unlink(missing_ok=True)
    if folder.exists():
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def locked(cache: Path, key: MeasurementKey) -> Iterator[None]:
    """One build at a time measures a key; the others wait, then find its entry."""
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / f"{key.digest()}.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def touch(folder: Path) -> None:
    """Mark an entry used now (a reuse counts: `prune` keeps the entries used last)."""
    os.utime(folder / KEY_FILE)


def prune(cache: Path, keep: int = KEEP, grace_s: float = GRACE_S) -> list[Path]:
    """Remove all but the `keep` finished entries used last, and unfinished ones a crashed build left;
    never one used within `grace_s` or one whose lock a build holds. The removed folders."""
    if not cache.is_dir():
        return []
    now = time.time()

    def used(folder: Path) -> float:
        marker = folder / KEY_FILE
        try:
            return (marker if marker.exists() else folder).stat().st_mtime
        except OSError:
            return now

    folders = [p for p in cache.iterdir() if p.is_dir() and not p.name.startswith(".")]
    finished = sorted((p for p in folders if (p / KEY_FILE).exists()), key=used, reverse=True)
    stale = finished[keep:] + [p for p in folders if not (p / KEY_FILE).exists()]
    removed = []
    for folder in stale:
        if now - used(folder) < grace_s:
            continue
        with open(cache / f"{folder.name}.lock", "w") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue  # a build is measuring into it or about to read it
            forget(folder)
            fcntl.flock(handle, fcntl.LOCK_UN)
        removed.append(folder)
    return removed
