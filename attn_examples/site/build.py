"""What the pages call: one measurement per build, rendered per language (no torch import
unless this build measures live).

Build modes, chosen by ATTN_EXAMPLES_MEASURE:
- `auto` (default): measure live when an NVIDIA GPU is present (`nvidia-smi` answers), else
  render from the committed snapshot; a live measurement this machine already took with the same
  GPU, driver, CUDA, cuDNN, torch, measuring code and configuration is reused
  (`attn_examples.site.live_cache`), and the provenance says so;
- `live`: always measure afresh (fails without a CUDA GPU);
- `snapshot`: never measure; render from ATTN_EXAMPLES_SNAPSHOT (default snapshots/nvidia-h200).

The measurement is cached at module level, so it happens once per build process although
mkdocs-static-i18n builds the site once per language, and `mkdocs serve` re-renders a prose
edit without measuring again.

Pages use it from markdown-exec blocks, e.g.::

    ```python exec="1" html="1"
    from attn_examples.site.build import en as site
    print(site.kernels("sdpa_flash"))
    ```

(markdown-exec captures the block's own `print`, not sys.stdout: helpers return HTML.)
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar, cast

from attn_examples.claims import check as claims
from attn_examples.claims import plausible
from attn_examples.claims import report as claims_report
from attn_examples.render import blocks as render
from attn_examples.render import metrics, prose, regime
from attn_examples.render.i18n import BOUND_WORDS, REGIME_WORDS, counted, t
from attn_examples.snapshot.schema import Snapshot, load_snapshot
from attn_examples.snapshot.variants import VARIANTS

REPO = Path(__file__).resolve().parents[2]
_T = TypeVar("_T")
MODE_ENV = "ATTN_EXAMPLES_MEASURE"
SNAPSHOT_ENV = "ATTN_EXAMPLES_SNAPSHOT"
SCOPE_ENV = "ATTN_EXAMPLES_LIVE_SCOPE"
STAGES_ENV = "ATTN_EXAMPLES_STAGES_FILE"  # where a live build writes its stage times (benchmarks/live_build.py)
NCU_LOG_ENV = "ATTN_EXAMPLES_NCU_LOG"  # where a live build keeps ncu's output and report
DEFAULT_SNAPSHOT = REPO / "snapshots" / "nvidia-h200"
LIVE_DIR = REPO / ".cache" / "live-snapshot"  # the latest live measurement of each device class
CACHE_DIR = REPO / ".cache" / "measurements"  # live measurements by key (attn_examples.site.live_cache)


# `<key> | <noun>`, the noun a word and the key's brackets closed: a regex argument's `|` is not it
_COUNTED = re.compile(r"^(?P<key>[^\[\]]*(?:\[[^\]]*\][^\[\]]*)*?)\s+\|\s+(?P<noun>[a-z]+)$")


def _kind_words(kind: str, held: bool, lang: str) -> str:
    """A regime among those a timed ratio leaves open: a side of the roofline is "-bound" only where its
    roof holds the forward back (Regime.held), else named as the side."""
    if kind not in ("memory", "compute"):
        return REGIME_WORDS[lang][kind]
    return BOUND_WORDS[lang][kind] if held else t(lang, "regime_either_side").format(side=t(lang, f"side_{kind}"))


@dataclass(frozen=True, eq=False)
class BuildMeasurement:
    snapshot: Snapshot
    live: bool
    stamp: float  # mtime of the snapshot file when loaded (serve reloads a changed snapshot)
    reused: bool = False  # live, but taken by an earlier build on this machine (same key)

    @functools.cached_property
    def given(self) -> bool:
        """A snapshot the build was given (ATTN_EXAMPLES_SNAPSHOT, a test's copy), not one committed with
        the site: its pages must not call it committed."""
        return not self.live and not committed(self.snapshot.root)

    @functools.cached_property
    def verdicts(self) -> dict[str, claims.Verdict]:
        """Every claim checked against this measurement, by id."""
        return {v.claim.id: v for v in claims.check(self.snapshot)}

    # -- what page conditions are evaluated against (attn_examples.render.prose.Facts) --

    def claim_status(self, claim_id: str) -> str:
        verdicts = self.verdicts
        if claim_id not in verdicts:
            raise KeyError(claim_id)
        return verdicts[claim_id].status

    @functools.cached_property
    def _memo(self) -> dict[tuple, object]:
        """Answers already given (`has`, `value`): a page asks for hundreds, and `mkdocs serve`
        renders every page again after each edit. Another measurement (a changed snapshot) starts empty."""
        return {}

    def _remembered(self, key: tuple, compute: Callable[[], _T]) -> _T:
        memo = self._memo
        if key not in memo:
            memo[key] = compute()  # an exception is not remembered: it is raised again next time
        # each key starts with the question's name ("has", "value"), and one question always has the same
        # compute: what is stored under the key came from a compute of this type
        return cast(_T, memo[key])

    def has(self, what: str) -> bool:
        """A section, an available variant, or a metric key with a value in this measurement."""
        return self._remembered(("has", what), lambda: self._has(what))

    def _has(self, what: str) -> bool:
        snap = self.snapshot
        if what in ("sweep", "training", "ceilings"):
            return getattr(snap, what) is not None
        if what == "counters":
            return snap.counters is not None and snap.counters.available
        if what == "limits":
            return snap.provenance.device_limits is not None
        if what in VARIANTS:
            return what in snap.variants and snap.variants[what].available
        try:
            return metrics.metric(snap, what) is not None
        except metrics.UnknownMetric:
            return False

    def device_kind(self) -> str:
        return self.snapshot.provenance.device_kind

    def dtype(self) -> str:
        return self.snapshot.config.dtype

    def source(self) -> str:
        """Where the measurement came from: `committed` with the site (a checkout rebuilds it), `given`
        to the build (ATTN_EXAMPLES_SNAPSHOT, `--snapshot`) or measured `live` by it."""
        return "live" if self.live else "given" if self.given else "committed"

    def value(self, key: str, lang: str) -> str:
        """`{{ key }}` in a page: a claim with its verdict, a quotation, or a measured value."""
        return self._remembered(("value", key, lang), lambda: self._value(key, lang))

    def _value(self, key: str, lang: str) -> str:
        counted_key = _COUNTED.match(key)
        if counted_key:  # `{{ naive.kernels | kernel }}`: the count with its noun, in agreement
            inner, noun = counted_key.group("key"), counted_key.group("noun")
            raw = metrics.metric(self.snapshot, inner)
            if not isinstance(raw, (int, float)) or isinstance(raw, bool):
                raise KeyError(f"{inner} is not a count: `| {noun}` takes one")
            return counted(lang, noun, raw, self.value(inner, lang))
        if key.startswith("claim."):
            claim_id, _, part = key[len("claim.") :].partition(".")
            verdict = self.verdicts.get(claim_id)
            if verdict is None:
                raise KeyError(f"no claim {claim_id!r} in attn_examples/claims/claims.d")
            if part == "expected":
                return claims_report.claim_expected(verdict.claim, lang)
            if part == "undecided":
                return claims_report.claim_undecided(verdict, lang)
            if part.startswith("when[") and part.endswith("]"):
                return claims_report.claim_bound(verdict.claim, part[len("when[") : -1], lang)
            if part and part != "denied":  # denied: shown where the text says the claim fails (prose.py)
                raise KeyError(
                    "claim placeholders are {{ claim.<id> }}, {{ claim.<id>.expected }}, "
                    "{{ claim.<id>.undecided }} or {{ claim.<id>.when[<metric>] }}"
                )
            return claims_report.claim_inline(
                verdict, self.snapshot.provenance.device_name, lang, denied=part == "denied"
            )
        if key.startswith("list."):
            return self._list(key, lang)
        if re.fullmatch(r"\w+\.regime", key):  # launch-bound rests on a timed ratio: say where it is undecided
            variant = key.split(".")[0]
            kinds = plausible.plausible(self.snapshot, key)
            if isinstance(kinds, frozenset) and len(kinds) > 1:
                # off the launch floor, a side is "-bound" only where its roof holds the forward back
                other = regime.classify(self.snapshot, variant, host_per_device=0.0)
                held = other is not None and other.held
                words = [_kind_words(k, held, lang) for k in regime.KINDS if k in kinds]
                return t(lang, "regime_undecided").format(kinds=render.join_words(words, lang))
            side = metrics.metric(self.snapshot, key)
            if side in ("memory", "compute"):  # a side of the roofline, with how close it comes to that roof:
                # where the roof does not hold it back (Regime.reach) the words name only the side, and where
                # its average clears half of the roof, the time its kernels spend off every roof of theirs
                limit = regime.classify(self.snapshot, variant)
                reach = limit.reach if limit is not None else None
                phrase = {"held": "regime_roof", "mixed": "regime_mixed"}.get(reach or "", "regime_side")
                return t(lang, phrase).format(
                    regime=BOUND_WORDS[lang][side],
                    side=t(lang, f"side_{side}"),
                    share=self.value(f"{variant}.roof_share", lang),
                    off=self.value(f"{variant}.off_roof_share", lang) if reach == "mixed" else "",
                )
        return render.value(self.snapshot, key, self.live, lang, self.reused, self.given)

    def _list(self, key: str, lang: str) -> str:
        """`list.<metric>[a,b,c]`: "x (a), y (b) and z (c)" over the variants measured here; the
        unavailable ones are left out (their pages say why), so a sentence can name what ran."""
        head, _, args = key[len("list.") :].partition("[")
        ids = [v.strip() for v in args.rstrip("]").split(",") if v.strip()]
        if not head or not ids or any(v not in VARIANTS for v in ids):
            raise KeyError(f"malformed list key {key!r}: list.<metric>[variant,variant,...]")
        paren = "{value} ({name})" if lang == "en" else "{value}（{name}）"
        if head == "regime" and lang != "en":  # a clause each, its subject first: 「手寫版受限於…」
            paren = "{name}{gap}{value}"
        items = []
        for v in ids:
            if not self.has(v):
                continue
            value, name = self.value(f"{v}.{head}", lang), render.short_title(lang, v)
            gap = "" if prose.WIDE.match(name[-1:]) and prose.WIDE.match(value[:1]) else " "
            items.append(paren.format(value=value, name=name, gap=gap))
        if not items:
            raise metrics.UnknownMetric(f"none of {', '.join(ids)} was measured here")
        if head == "regime" and lang != "en":  # clauses: 「手寫版受限於…；math 落在…」
            return "；".join(items)
        if head == "regime" and any(", " in item for item in items):  # commas of their own: semicolons between
            return "; ".join(items[:-1]) + "; and " + items[-1]
        return render.join_words(items, lang)

    def baseline(self) -> Snapshot | None:
        """The committed snapshot of this device class, if there is one (what a live build is held to)."""
        folder = REPO / "snapshots" / self.snapshot.device_slug
        return load_snapshot(folder) if (folder / "snapshot.json").exists() else None

    @functools.cached_property
    def drift(self) -> claims.DriftReport | None:
        """This measurement held to the committed baseline of its device class (None: there is none).
        A live build fails on drift; a snapshot build shows it on the reproducibility page."""
        baseline = self.baseline()
        if baseline is None:
            return None
        return claims.drift_report(self.snapshot, baseline, f"snapshots/{self.snapshot.device_slug}")

    @property
    def is_baseline(self) -> bool:
        """The build renders the committed baseline itself (nothing to compare it with)."""
        root = self.snapshot.root
        return root is not None and root.resolve() == (REPO / "snapshots" / self.snapshot.device_slug).resolve()


@functools.cache
def committed(root: Path | None) -> bool:
    """A snapshot folder committed with the site: it lies in the repository's snapshots/ and git
    tracks its snapshot.json (where git cannot answer, lying there is taken as enough)."""
    if root is None:
        return False
    home = (REPO / "snapshots").resolve()
    folder = root.resolve()
    if folder.parent != home:
        return False
    try:
        done = subprocess.run(
            ["git", "-C", str(REPO), "ls-files", "--error-unmatch", f"snapshots/{folder.name}/snapshot.json"],
            capture_output=True,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired):
        return True
    if done.returncode != 0 and b"not a git repository" in done.stderr.lower():
        return True
    return done.returncode == 0


_current: BuildMeasurement | None = None
_pinned: BuildMeasurement | None = None  # set by pinned(): a caller renders pages from a measurement of its own


@contextlib.contextmanager
def pinned(measurement: BuildMeasurement):
    """Render pages from `measurement` inside the block (`attn-examples pages`, the tests)."""
    global _pinned
    previous, _pinned = _pinned, measurement
    try:
        yield measurement
    finally:
        _pinned = previous


def gpu_present() -> bool:
    """An NVIDIA GPU answers `nvidia-smi -L`. Checked without importing torch."""
    if shutil.which("nvidia-smi") is None:
        return False
    try:
        done = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0 and "GPU" in done.stdout


def build_mode() -> str:
    mode = os.environ.get(MODE_ENV, "auto").strip().lower()
    if mode not in ("auto", "live", "snapshot"):
        raise ValueError(f"{MODE_ENV}={mode!r}: expected auto, live or snapshot")
    if mode == "auto":  # a snapshot someone names is the one they want to read, GPU or not
        return "snapshot" if os.environ.get(SNAPSHOT_ENV) or not gpu_present() else "live"
    return mode


LIVE_SCOPES = ("full", "standard", "core")


def live_scope() -> str:
    """What a live build measures: `full` (default: the article's variants, the compiled ones, the
    sweep, training and the hardware counters, everything the pages can show), `standard` (the same
    without the compiled variants, whose first call compiles them: about ten seconds on a machine
    whose compile cache is cold) or `core` (the article's variants only: about a tenth of the time,
    for a builder that only needs the gate)."""
    scope = os.environ.get(SCOPE_ENV, "full").strip().lower()
    if scope not in LIVE_SCOPES:
        raise ValueError(f"{SCOPE_ENV}={scope!r}: expected {', '.join(LIVE_SCOPES)}")
    return scope


def _counters_pass(scope: str):
    """The counters' ncu run, started now (None for the core scope)."""
    if scope == "core":
        return None
    from attn_examples.measure import counters
    from attn_examples.snapshot.config import AttnConfig
    from attn_examples.snapshot.variants import ARTICLE_VARIANTS

    log_dir = os.environ.get(NCU_LOG_ENV)
    return counters.CountersPass(
        AttnConfig().to_dict(),
        [v.id for v in ARTICLE_VARIANTS],
        log_dir=Path(log_dir) if log_dir else None,
        progress=lambda v: print(f"attn-examples: ncu: {v}", file=sys.stderr),
    )


def _measure_into(folder: Path, scope: str, early=None) -> None:
    """Measure the default configuration into `folder`: the article's variants, with `standard`
    also the scaling sweep, training and the hardware counters where ncu can read them, and with
    `full` the compiled variants too.

    The counters' ncu run starts first and gets ready (ncu, Python, torch, CUDA, cuDNN) while this
    process imports and sets up; the measurement waits for it to be idle before it profiles or
    times anything, and ncu profiles once the measurement is done (`counters.CountersPass`).
    `early`: that run, if the caller started it already (the caller then stops it)."""
    from attn_examples.snapshot.config import AttnConfig
    from attn_examples.snapshot.schema import write_snapshot
    from attn_examples.snapshot.stages import stage
    from attn_examples.snapshot.variants import ARTICLE_VARIANTS

    config = AttnConfig()
    own = early is None
    early = early or _counters_pass(scope)
    report: bytes | None = None  # the counters' Nsight Compute report, gzipped, kept in the snapshot
    try:
        from attn_examples.measure.run import measure  # imports torch

        data, traces = measure(
            config,
            "cuda",
            progress=True,
            argv=["mkdocs", f"build (live, {scope})"],
            extended=scope != "core",
            variant_ids=None if scope == "full" else [v.id for v in ARTICLE_VARIANTS],
            before_profiling=(lambda: early.wait_ready()) if early else None,
        )
        if early is not None:
            print("attn-examples: hardware counters (one ncu run over all the variants)", file=sys.stderr)
            with stage("counters"):
                early.go(
                    [v for v, r in data["variants"].items() if r["available"] and v in {a.id for a in ARTICLE_VARIANTS}]
                )
                data["counters"], report = early.finish()
            if not data["counters"]["available"]:
                print(f"attn-examples: no hardware counters: {data['counters']['reason']}", file=sys.stderr)
    finally:
        if own and early is not None:
            early.abort()  # a failure mid-measurement leaves no ncu behind
    with stage("write"):
        write_snapshot(data, traces, folder, report)


def _measure_live(fresh: bool) -> tuple[Path, bool]:
    """This build's live measurement: the one this machine already took with the same key, unless
    `fresh`, else measured now and kept under that key. (folder, reused)."""
    import json

    from attn_examples.site import live_cache
    from attn_examples.snapshot import stages
    from attn_examples.snapshot.config import AttnConfig

    scope = live_scope()
    # measuring afresh is known before torch is imported: ncu starts now, beside the import
    early = _counters_pass(scope) if fresh else None
    try:
        with stages.stage("live"):
            with stages.stage("key"):  # no torch import: a build that reuses never imports it
                key = live_cache.current_key(json.dumps(AttnConfig().to_dict(), sort_keys=True), scope)
            with live_cache.locked(CACHE_DIR, key):
                found = live_cache.lookup(CACHE_DIR, key)
                reused = found.hit and not fresh
                if reused:
                    live_cache.touch(found.folder)
                    print(
                        f"attn-examples: reusing the live measurement in {found.folder} (same GPU, driver, CUDA, "
                        f"cuDNN, torch, measuring code and configuration; {MODE_ENV}=live measures afresh)",
                        file=sys.stderr,
                    )
                else:
                    why = "asked to measure afresh" if fresh else f"no reusable measurement: {found.why_not}"
                    print(
                        f"attn-examples: measuring live for this build ({scope} scope; once, both languages "
                        f"render from it; {why})",
                        file=sys.stderr,
                    )
                    live_cache.forget(found.folder)
                    with stages.stage("import torch"):
                        import torch  # noqa: F401 - timed on its own: every measurement pays it
                    _measure_into(found.folder, scope, early)
                    live_cache.finish(found.folder, key)
                    live_cache.prune(CACHE_DIR)
                    _publish_latest(found.folder, LIVE_DIR / load_snapshot(found.folder).device_slug)
    finally:
        if early is not None:
            early.abort()  # unused (a failure before measuring), or already finished
    if os.environ.get(STAGES_ENV):
        Path(os.environ[STAGES_ENV]).write_text(json.dumps(stages.totals(), indent=1))
    if not reused:
        print(
            f"attn-examples: live measurement took {stages.totals()['live']:.1f} s "
            f"({stages.summary()}); snapshot: {found.folder}",
            file=sys.stderr,
        )
    return found.folder, reused


def _publish_latest(folder: Path, target: Path) -> None:
    """A copy of the newest live measurement under .cache/live-snapshot/<device>/ (what CI checks and
    uploads, and what `attn-examples accept` promotes), swapped in whole."""
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(folder, tmp, ignore=shutil.ignore_patterns("key.json", ".*"))
    old = target.with_name(f".{target.name}.{os.getpid()}.old")
    if target.exists():
        os.replace(target, old)
    os.replace(tmp, target)
    shutil.rmtree(old, ignore_errors=True)


def current() -> BuildMeasurement:
    """The build's one measurement: measured live once (or reused from this machine's cache), or the
    committed snapshot."""
    global _current
    if _pinned is not None:
        return _pinned
    if _current is not None and _current.live:
        return _current
    if build_mode() == "live":
        fresh = os.environ.get(MODE_ENV, "auto").strip().lower() == "live"
        folder, reused = _measure_live(fresh)
        _current = BuildMeasurement(load_snapshot(folder), True, (folder / "snapshot.json").stat().st_mtime, reused)
        return _current
    folder = Path(os.environ.get(SNAPSHOT_ENV, DEFAULT_SNAPSHOT))
    stamp = (folder / "snapshot.json").stat().st_mtime if (folder / "snapshot.json").exists() else 0.0
    if _current is None or _current.stamp != stamp or _current.snapshot.root != folder:
        _current = BuildMeasurement(load_snapshot(folder), False, stamp)
    return _current


def refresh() -> None:
    """Forget what was derived from the build's measurement (`mkdocs serve`, after a claim, a
    snapshot or the package changed): a snapshot is read again and every claim checked again. A
    live measurement is kept (it takes a minute) and only its verdicts and drift are computed again,
    unless the code that measures changed since it was taken: then the next build measures again."""
    global _current
    if _current is None:
        return
    if _current.live and _measured_by_this_code(_current.snapshot.root):
        _current = BuildMeasurement(_current.snapshot, True, _current.stamp, _current.reused)
    else:
        if _current.live:
            print(
                "attn-examples: the measuring code changed since the live measurement; measuring again", file=sys.stderr
            )
        _current = None


def _measured_by_this_code(folder: Path | None) -> bool:
    """Whether a live measurement's key (key.json in its cache entry) names the measuring code on disk
    now; a folder outside the cache has nothing to compare, and is kept."""
    import json

    from attn_examples.site import live_cache

    if folder is None:  # nothing to compare (was the TypeError of None / KEY_FILE below)
        return True
    try:
        stored = json.loads((folder / live_cache.KEY_FILE).read_text(encoding="utf-8"))["code"]
    except (TypeError, OSError, ValueError, KeyError):
        return True
    return stored == live_cache.code_signature()


def adopt_live(folder: Path, stamp: float, reused: bool = False) -> None:
    """Take over a live measurement already written to `folder` (`mkdocs serve` imports this module
    afresh after an edit to the package; measuring again would take a minute)."""
    global _current
    _current = BuildMeasurement(load_snapshot(folder), True, stamp, reused)


_COMMITTED: dict[tuple[str, int, int], Snapshot] = {}


def _committed_snapshot(folder: Path) -> Snapshot:
    """A committed snapshot as the devices table reads it, loaded once per version of its
    snapshot.json: the table shows every committed snapshot twice a language, and `mkdocs serve`
    renders it again on every rebuild (a changed file is loaded again; nothing here mutates it)."""
    stat = (folder / "snapshot.json").stat()
    key = (str(folder.resolve()), stat.st_mtime_ns, stat.st_size)
    if key not in _COMMITTED:
        for old in [k for k in _COMMITTED if k[0] == key[0]]:  # an earlier version of the file
            del _COMMITTED[old]
        _COMMITTED[key] = load_snapshot(folder)
    return _COMMITTED[key]


class Page:
    """Rendering helpers for one language; each returns HTML for a markdown-exec block to print."""

    def __init__(self, lang: str) -> None:
        self.lang = lang

    @staticmethod
    def _m() -> BuildMeasurement:
        return current()

    def _with_provenance(self, body: str) -> str:
        """A measured block: marked, so that the page hook gives its page one provenance line
        (render.MEASURED_MARK), not one line per table or figure."""
        return body + render.MEASURED_MARK

    def summary(self) -> str:
        return self._with_provenance(render.summary_table(self._m().snapshot, self.lang))

    def kernels(self, variant_id: str) -> str:
        return self._with_provenance(render.kernel_table(self._m().snapshot, variant_id, self.lang))

    def roles(self, variant_id: str) -> str:
        """The forward's kernels grouped by what they do."""
        return self._with_provenance(render.roles_table(self._m().snapshot, variant_id, self.lang))

    def cpu_ops(self, variant_id: str, limit: int = 12) -> str:
        return self._with_provenance(render.cpu_ops_table(self._m().snapshot, variant_id, self.lang, limit))

    def article(self) -> str:
        return self._with_provenance(render.article_table(self._m().snapshot, self.lang))

    def dispatch(self) -> str:
        return self._with_provenance(render.dispatch_note(self._m().snapshot, self.lang))

    def provenance(self) -> str:
        """The page's provenance line, unfolded (the about page shows it in full; a page that shows it
        gets no second one from the hook)."""
        m = self._m()
        return render.provenance(m.snapshot, self.lang, m.live, opened=True, reused=m.reused, given=m.given)

    def subcommands(self) -> str:
        """`attn-examples`'s subcommands with their summaries, read from the CLI's parser: what the tool
        has, in its own (English) words, whatever the language of the page."""
        from markupsafe import Markup

        from attn_examples.site import cli

        lines = [f"attn-examples {name:<9} # {summary}" for name, summary in cli.subcommands()]
        return str(Markup('<div class="highlight"><pre><code>{}</code></pre></div>').format("\n".join(lines)))

    def glossary(self) -> str:
        """The site's terms in both languages, each linking the page where it matters (titled as the
        nav of this language titles it)."""
        from attn_examples.render import evidence, glossary

        general = evidence.token([evidence.GENERAL])  # a definition is true whatever was measured

        def href(page: str) -> str:  # from <lang>/glossary/ (MkDocs' directory URLs)
            return "../" if page == "index.md" else f"../{Path(page).stem}/"

        lines = glossary.markdown(self.lang, nav_titles(self.lang), href).splitlines()
        return "\n".join(line + general for line in lines) + "\n"

    def drift(self) -> str:
        """This build's measurement against the committed baseline of its device class."""
        m = self._m()
        return claims_report.drift_block(
            m.drift,
            m.is_baseline,
            m.snapshot.device_slug,
            self.lang,
            m.snapshot.provenance.device_kind,
            committed=m.source() == "committed",
        )

    def claims(self) -> str:
        """Every claim: the article's value, ours, the expectation and the verdict."""
        return self._with_provenance(claims_report.claims_table(list(self._m().verdicts.values()), self.lang))

    def occupancy(self) -> str:
        """Kineto's occupancy against the calculator reproduced and the hardware's limits."""
        return self._with_provenance(render.occupancy_table(self._m().snapshot, self.lang))

    def sweep_kernels(self, head_dim: int) -> str:
        return self._with_provenance(render.sweep_kernels_table(self._m().snapshot, head_dim, self.lang))

    def training(self) -> str:
        return self._with_provenance(render.training_table(self._m().snapshot, self.lang))

    def autograd(self) -> str:
        return self._with_provenance(render.autograd_capture(self._m().snapshot, self.lang))

    def devices(self, metric: str = "device_us") -> str:
        """Every committed snapshot side by side with the article's figures, each row linking to the site
        built from it (attn_examples.site.sites); the build's own measurement is always a row, marked as
        this site's: a committed one in its place, a live or given one first (it has no site of its own)."""
        from attn_examples.site import sites
        from attn_examples.site.pages import committed_snapshots

        m = self._m()
        top = sites.top_prefix()
        own = m.source() != "committed"
        here = m.snapshot.root.resolve() if m.snapshot.root else None
        entries: list[tuple[Snapshot, str | None, bool]] = [(m.snapshot, None, True)] if own else []
        for folder in committed_snapshots(REPO / "snapshots"):
            href = f"{render.SITE_ROOT}{top}{sites.SUBDIR}/{folder.name}/"
            entries.append((_committed_snapshot(folder), href, not own and folder.resolve() == here))
        return render.devices_table(entries, self.lang, metric)

    def counters_status(self) -> str:
        """Where the counters come from, or a warning that this measurement has none, and why."""
        return render.counters_status(self._m().snapshot, self.lang)

    def counters(self) -> str:
        """HBM traffic and work per variant, from Nsight Compute's counters."""
        snap = self._m().snapshot
        return self._with_provenance(render.counters_table(snap, self.lang)) + render.counters_command(snap, self.lang)

    def counter_kernels(self) -> str:
        """Every kernel: Kineto's occupancy estimate beside the counters' readings."""
        snap = self._m().snapshot
        return self._with_provenance(render.counter_kernels_table(snap, self.lang)) + render.counters_command(
            snap, self.lang
        )

    def figure(self, name: str, variant_id: str | None = None) -> str:
        from attn_examples.render import figures, hardware

        snap = self._m().snapshot
        if name == "timeline":  # interactive, drawn from the variant's trace (attn_examples.render.timeline)
            from attn_examples.render import timeline

            if variant_id is None:
                raise KeyError("figure 'timeline': a variant is required")
            return self._with_provenance(timeline.figure_html(snap, variant_id, self.lang))
        if variant_id is not None:
            raise KeyError(f"figure {name!r}: a variant is not accepted")
        if name in figures.COUNTER_FIGURES and not hardware.available(snap):
            return self._with_provenance(render.counters_table(snap, self.lang))  # says why there are none
        if name not in figures.COUNTER_FIGURES:
            return self._with_provenance(figures.figure_html(snap, name, self.lang))
        return self._with_provenance(
            figures.figure_html(snap, name, self.lang) + render.counters_source(snap, self.lang)
        ) + render.counters_command(snap, self.lang)


def _mkdocs_config() -> dict:
    """mkdocs.yml read for its nav and i18n's translations: its tags (!ENV, !!python/…) become None."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("", lambda loader, suffix, node: None)
    return yaml.load((REPO / "mkdocs.yml").read_text(encoding="utf-8"), Loader=Loader) or {}


def nav_titles(lang: str) -> dict[str, str]:
    """Page file -> its nav title in `lang` (mkdocs.yml's nav, translated by i18n's nav_translations)."""
    config = _mkdocs_config()
    translations: dict[str, str] = {}
    for plugin in config.get("plugins", []):
        if isinstance(plugin, dict) and "i18n" in plugin:
            for language in plugin["i18n"].get("languages", []):
                if language.get("locale") == lang:
                    translations = language.get("nav_translations", {}) or {}
    titles: dict[str, str] = {}

    def walk(items: list) -> None:
        for item in items:
            for title, value in item.items():
                if isinstance(value, list):
                    walk(value)
                else:
                    titles[value] = translations.get(title, title)

    walk(config.get("nav", []))
    return titles


en = Page("en")
zh_TW = Page("zh-TW")
