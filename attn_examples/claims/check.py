"""Stage 4: the prose's statements as data, checked against every build's measurement (no torch).

`claims.d/<page>.yml` beside this file lists the statements of one page. Each has an id, the
metric it rests on (`attn_examples.render.metrics` keys), a relation and tolerance, where it applies
(device kind, dtype, shape, sections the measurement must hold) and, where the article states the
same thing, the key of the article's figure (`attn_examples.render.article`). There are two kinds:

- a **truth** holds wherever it applies: flash never writes the score matrix, `masked_fill_`
  removes exactly the copy. A measurement that breaks one fails the build, naming the claim, both
  values, the device and the way out.
- an **observation** is what this measurement happens to show: which backend is fastest, whether
  the GEMMs are launched through the driver API, whether a number matches the article's. Pages
  branch on it (`{% if holds <id> %}`), so the prose follows the measurement either way, and it
  never fails a build; a value one device at one configuration has is held by that device's
  baseline (`drift`), not by a claim.

A claim on a timed quantity is decided from the timing's blocks (`attn_examples.claims.plausible`): it
holds when its whole 95% interval (or every ranking the interval allows) satisfies it, fails when
none does, and is `unsure` when the interval straddles the statement. An unsure claim is neither
stated nor denied by the pages (`{% if unsure <id> %}`), and an unsure truth does not fail a build:
the measurement is consistent with it. Structural claims are exact.

Pages cite claims by id (`{{ claim.<id> }}`): the measured value with its verdict.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from attn_examples.claims import plausible
from attn_examples.render import article, metrics, views
from attn_examples.snapshot import uncertainty
from attn_examples.snapshot.config import DTYPES
from attn_examples.snapshot.schema import Snapshot
from attn_examples.snapshot.uncertainty import DRIFT_TOLERANCE
from attn_examples.snapshot.variants import VARIANTS

CLAIMS_DIR = Path(__file__).resolve().parent / "claims.d"
RELATIONS = ("==", "!=", "<", "<=", ">", ">=", "within", "between", "matches")
KINDS = ("truth", "observation")
# libyaml's safe loader where PyYAML was built with it: the same documents, in a tenth of the time
# (every build reads every claim).
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class ClaimsError(ValueError):
    """A claims file is malformed; the message names the file, the claim and the field."""


@dataclass(frozen=True)
class Claim:
    id: str
    statement: dict[str, str]
    metric: str
    relation: str
    expected: Any
    tolerance: float = 0.0
    applies: dict[str, Any] = field(default_factory=dict)
    article: str | None = None  # key of the article's figure (attn_examples.render.article)
    page: str | None = None  # the page whose prose makes the statement
    kind: str = "truth"

    @property
    def gates(self) -> bool:
        """A truth that fails stops the build; an observation only picks the prose."""
        return self.kind == "truth"

    @property
    def article_value(self) -> Any:
        return None if self.article is None else article.quote(f"article.{self.article}").value

    @property
    def expected_value(self) -> Any:
        """`expected: {article: <key>}` compares with the article's own figure."""
        if isinstance(self.expected, dict):
            return article.quote(f"article.{self.expected['article']}").value
        return self.expected

    def expectation(self) -> str:
        expected = self.expected_value
        if self.relation == "within":
            return f"{expected} ± {self.tolerance:.0%}"
        if self.relation == "between":
            return f"between {expected[0]} and {expected[1]}"
        return f"{self.relation} {expected}"


@dataclass(frozen=True)
class Verdict:
    claim: Claim
    status: str  # pass | fail | unsure | n/a
    measured: Any
    reason: str
    plausible: Any = None  # a timed metric's Interval or set of possible rankings (None: exact)

    @property
    def ok(self) -> bool:
        """False only for a truth that applies and does not hold (an unsure one is consistent with it)."""
        return self.status != "fail" or not self.claim.gates


_FIELDS = {"id", "kind", "statement", "metric", "relation", "expected", "tolerance", "applies", "article"}
_APPLIES = {"device_kind", "dtype", "shape", "requires", "when"}
# `applies.when`: conditions on exact metrics of the measurement ("config.seq_len >= 512"): where a
# statement can be tested at all (a tile skipped needs more than one tile in a row)
WHEN = re.compile(r"^\s*(?P<metric>[a-z0-9_.\[\]]+)\s*(?P<relation>==|!=|<=|>=|<|>)\s*(?P<value>-?[0-9.]+)\s*$")
_SECTIONS = {"sweep", "training", "ceilings", "counters", "limits"}


def _check_article_key(where: str, name: str, key: Any) -> None:
    try:
        article.quote(f"article.{key}")
    except (article.UnknownQuote, TypeError):
        raise ClaimsError(f"{where}: field {name!r}: no figure {key!r} in attn_examples/render/article.py") from None


def _validate(item: Any, where: str, seen: set[str]) -> None:
    if not isinstance(item, dict):
        raise ClaimsError(f"{where}: expected a mapping")
    unknown = set(item) - _FIELDS
    if unknown:
        raise ClaimsError(f"{where}: unknown field {sorted(unknown)[0]!r}")
    for required in ("id", "statement", "metric", "relation", "expected"):
        if required not in item:
            raise ClaimsError(f"{where}: field {required!r} missing")
    if not re.fullmatch(r"[a-z0-9][a-z0-9\-]*", str(item["id"])):
        raise ClaimsError(f"{where}: field 'id' must be lowercase letters, digits and '-'")
    if item["id"] in seen:
        raise ClaimsError(f"{where}: duplicate id (ids are unique across claims.d)")
    if item.get("kind", "truth") not in KINDS:
        raise ClaimsError(f"{where}: field 'kind' must be one of {KINDS}")
    if item["relation"] not in RELATIONS:
        raise ClaimsError(f"{where}: field 'relation' must be one of {RELATIONS}")
    if not isinstance(item["statement"], dict) or set(item["statement"]) != {"en", "zh-TW"}:
        raise ClaimsError(f"{where}: field 'statement' needs exactly 'en' and 'zh-TW'")
    applies = item.get("applies") or {}
    if not isinstance(applies, dict) or set(applies) - _APPLIES:
        raise ClaimsError(
            f"{where}: field 'applies' takes only {sorted(_APPLIES)} (a value only one device "
            "has belongs to its baseline, not to a claim)"
        )
    if applies.get("device_kind", "cuda") not in ("cuda", "cpu"):
        raise ClaimsError(f"{where}: field 'applies.device_kind' must be cuda or cpu")
    if applies.get("dtype", "bfloat16") not in DTYPES:
        raise ClaimsError(f"{where}: field 'applies.dtype' must be one of {DTYPES}")
    when = applies.get("when", [])
    if not isinstance(when, list) or any(not isinstance(w, str) or not WHEN.match(w) for w in when):
        raise ClaimsError(f"{where}: field 'applies.when' takes a list of '<metric> <relation> <number>'")
    for section in applies.get("requires", []):
        if section not in _SECTIONS and section not in VARIANTS:
            raise ClaimsError(
                f"{where}: field 'applies.requires': {section!r} is neither a section "
                f"({sorted(_SECTIONS)}) nor a variant"
            )
    expected = item["expected"]
    if isinstance(expected, dict):
        if set(expected) != {"article"}:
            raise ClaimsError(f"{where}: field 'expected': a mapping must be {{article: <key>}}")
        _check_article_key(where, "expected", expected["article"])
    if item.get("article") is not None:
        _check_article_key(where, "article", item["article"])
    if item["relation"] == "between" and not (isinstance(expected, list) and len(expected) == 2):
        raise ClaimsError(f"{where}: field 'expected' must be [low, high] for 'between'")
    if item["relation"] == "within" and not item.get("tolerance"):
        raise ClaimsError(f"{where}: field 'tolerance' (relative) is required for 'within'")
    if item.get("tolerance") and item["relation"] not in ("within", "=="):
        raise ClaimsError(f"{where}: field 'tolerance' is read only by 'within' and '==', not by {item['relation']!r}")


def _parse(text: str) -> Any:
    """libyaml's fast loader; on an error, PyYAML's own, whose message names the line as an author
    reads it (libyaml's can point a line further)."""
    try:
        return yaml.load(text, Loader=_LOADER)
    except yaml.YAMLError:
        if _LOADER is yaml.SafeLoader:
            raise
        return yaml.safe_load(text)


def _load_file(path: Path, seen: set[str]) -> list[Claim]:
    try:
        raw = _parse(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" (line {mark.line + 1})" if mark is not None else ""
        raise ClaimsError(f"{path}: not valid YAML{line}: {getattr(exc, 'problem', None) or exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ClaimsError(f"{path}: cannot be read: {exc}") from None
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise ClaimsError(f"{path}: expected a list of claims")
    out = []
    for index, item in enumerate(raw):
        where = f"{path}: claim #{index + 1}"
        if isinstance(item, dict) and "id" in item:
            where = f"{path}: claim {item['id']!r}"
        _validate(item, where, seen)
        seen.add(item["id"])
        expected = item["expected"]
        article_key = item.get("article") or (expected["article"] if isinstance(expected, dict) else None)
        out.append(
            Claim(**{**item, "applies": item.get("applies") or {}, "article": article_key, "page": f"{path.stem}.md"})
        )
    return out


def load_claims(path: Path = CLAIMS_DIR) -> list[Claim]:
    """Parse and validate every claims file (a folder of `<page>.yml`, or one file)."""
    files = sorted(path.glob("*.yml")) if path.is_dir() else [path]
    seen: set[str] = set()
    return [claim for file in files for claim in _load_file(file, seen)]


def applies(claim: Claim, snap: Snapshot) -> str | None:
    """None when the claim applies to this snapshot; otherwise why not."""
    where = claim.applies
    p, c = snap.provenance, snap.config
    parts = claim.metric.split("[")[0].split(".")
    named = parts[1:3] if parts[0] in ("ratio", "diff") else parts[:1]
    for section in list(where.get("requires", [])) + named:
        if section in ("sweep", "training", "ceilings") and getattr(snap, section) is None:
            return f"this snapshot has no {section} (measure --extended on a GPU)"
        if section == "limits" and p.device_limits is None:
            return "this snapshot has no device limits (a GPU measurement has them)"
        if section == "counters" and (snap.counters is None or not snap.counters.available):
            return (
                "this snapshot has no hardware counters (attn-examples counters)"
                if snap.counters is None
                else f"hardware counters unavailable: {snap.counters.reason}"
            )
        if section in VARIANTS and section not in snap.variants:
            return f"variant {section} was not measured in this snapshot"
        if (
            section in VARIANTS
            and not snap.variants[section].available
            and not claim.metric.split("[")[0].endswith(".available")
        ):
            # a backend that refused this device or dtype: its page says so; no claim about its kernels applies
            return f"variant {section} is unavailable here: {views.short_reason(snap.variants[section].unavailable_reason)}"
    if "device_kind" in where and p.device_kind != where["device_kind"]:
        return f"only for {where['device_kind']} devices"
    if "dtype" in where and c.dtype != where["dtype"]:
        return f"only for {where['dtype']}"
    if "shape" in where and list(c.shape) != list(where["shape"]):
        return f"only for shape {where['shape']}"
    for condition in where.get("when", []):
        m = WHEN.match(condition)
        assert m is not None  # validated on load
        try:
            value = metrics.metric(snap, m.group("metric"))
        except metrics.UnknownMetric as exc:
            return f"only where {condition} ({exc})"
        if not _holds(m.group("relation"), value, float(m.group("value")), 0.0):
            return f"only where {condition} (here {value})"
    return None


def _holds(relation: str, measured: Any, expected: Any, tolerance: float) -> bool:
    if relation == "matches":
        return isinstance(measured, str) and re.search(str(expected), measured) is not None
    if relation == "==":
        if isinstance(measured, float) or isinstance(expected, float):
            return math.isclose(measured, expected, rel_tol=tolerance, abs_tol=0.0 if tolerance else 1e-9)
        return measured == expected
    if relation == "!=":
        return measured != expected
    if relation == "within":
        return abs(measured - expected) <= tolerance * abs(expected)
    if relation == "between":
        return expected[0] <= measured <= expected[1]
    return {"<": measured < expected, "<=": measured <= expected, ">": measured > expected, ">=": measured >= expected}[
        relation
    ]


def evaluate(claim: Claim, snap: Snapshot) -> Verdict:
    skip = applies(claim, snap)
    if skip:
        return Verdict(claim, "n/a", None, skip)
    try:
        measured = metrics.metric(snap, claim.metric)
    except metrics.UnknownMetric as exc:
        if not claim.gates:  # an observation about something this measurement lacks says nothing
            return Verdict(claim, "n/a", None, f"not measured here: {exc}")
        return Verdict(claim, "fail", None, f"cannot be measured: {exc}")
    try:
        spread = plausible.plausible(snap, claim.metric)
    except metrics.UnknownMetric:
        spread = None
    reason = f"{claim.metric} = {measured!r}, expected {claim.expectation()}"
    if spread is not None:
        status = _decide(claim, spread)
        kind = "interval" if isinstance(spread, uncertainty.Interval) else "plausible"
        return Verdict(claim, status, measured, f"{reason}; 95% {kind} {plausible.describe(spread)}", spread)
    try:
        ok = _holds(claim.relation, measured, claim.expected_value, claim.tolerance)
    except TypeError:
        ok = False
    return Verdict(claim, "pass" if ok else "fail", measured, reason)


def _region(relation: str, expected: Any, tolerance: float) -> tuple[float, float] | None:
    """The values for which a numeric relation holds, as [low, high] (open ends taken as closed: an
    interval touching the bound is not a confident pass, see uncertainty.decide)."""
    inf = math.inf
    if relation == "between":
        return float(expected[0]), float(expected[1])
    if relation in ("within", "==") and isinstance(expected, (int, float)) and not isinstance(expected, bool):
        return expected - tolerance * abs(expected), expected + tolerance * abs(expected)
    return (
        {
            "<": (-inf, math.nextafter(expected, -inf)),
            "<=": (-inf, expected),
            ">": (math.nextafter(expected, inf), inf),
            ">=": (expected, inf),
        }.get(relation)
        if isinstance(expected, (int, float))
        else None
    )


def _decide(claim: Claim, spread: Any) -> str:
    """pass / fail / unsure for a timed claim, from its interval or its set of possible values."""
    if isinstance(spread, frozenset):
        held = [_holds(claim.relation, value, claim.expected_value, claim.tolerance) for value in spread]
        return "pass" if all(held) else "fail" if not any(held) else "unsure"
    region = _region(claim.relation, claim.expected_value, claim.tolerance)
    if region is None:
        return "unsure"
    return uncertainty.decide(spread, *region)


def check(snap: Snapshot, claims: list[Claim] | None = None) -> list[Verdict]:
    return [evaluate(claim, snap) for claim in (claims if claims is not None else load_claims())]


def failure_report(snap: Snapshot, verdicts: list[Verdict]) -> str:
    """What a failed build prints: each broken truth, both values, the device, the way out."""
    failed = [v for v in verdicts if not v.ok]
    lines = [
        f"{len(failed)} claim(s) do not hold on {snap.provenance.device_name} ({snap.device_slug}, "
        f"torch {snap.provenance.torch}, measured {snap.provenance.measured_at}):"
    ]
    for v in failed:
        quoted = (
            f"; the article ({article.QUOTES['gpu_short'].text}) had {v.claim.article_value!r}"
            if v.claim.article is not None
            else ""
        )
        lines.append(f"  - claim '{v.claim.id}' (claims.d/{(v.claim.page or '?')[:-3]}.yml): {v.reason}{quoted}")
    lines.append(
        "To resolve: a truth is meant to hold on every device. If the measurement is right, the "
        "statement was not a truth: make it an observation and write the page's other branch, in both "
        "languages; if a live build measured it and it should become the published baseline, run "
        "`attn-examples accept <live snapshot>`; if the measurement is wrong, find out why first."
    )
    return "\n".join(lines)


# ---- baseline drift ------------------------------------------------------------------------------


def device_time_shares(snap: Snapshot, among: set[str]) -> dict[str, float]:
    """Each variant's device time over the geometric mean of the `among` variants' in the same run:
    ratios measured together, insensitive to a GPU that is uniformly faster or slower today."""
    times = {
        v: r.timing.device_us.median
        for v, r in snap.variants.items()
        if v in among and r.available and r.timing and r.timing.device_us
    }
    if not times:
        return {}
    mean = math.exp(sum(math.log(t) for t in times.values()) / len(times))
    return {v: t / mean for v, t in times.items()}


def _kernel_structure(result) -> list[tuple]:
    """What a variant's kernels are, apart from their times: family (the function's name without
    template arguments), launch API, registers, shared memory, grid and block, in launch order."""
    from attn_examples.render import hardware, views

    return [
        (
            hardware.base_name(r["name"]),
            r["launch_api"],
            r["registers_per_thread"],
            r["shared_memory_bytes"],
            tuple(r["grid"] or ()),
            tuple(r["block"] or ()),
        )
        for r in views.kernel_rows(result)
        if r["kind"] == "kernel"
    ]


_STRUCTURE_FIELDS = ("kernel family", "launch API", "registers", "shared memory", "grid", "block")


def config_differences(live: Snapshot, baseline: Snapshot) -> list[str]:
    """The measured configuration's fields that differ (dtype and shape), worded for a message;
    drift and `accept` both hold a baseline to one configuration."""
    a, b = baseline.config, live.config
    return [
        f"{f} {getattr(a, f)} in the baseline, {getattr(b, f)} here"
        for f in ("dtype", "batch", "heads", "seq_len", "head_dim")
        if getattr(a, f) != getattr(b, f)
    ]


# What a reader can do about a measurement that cannot be held to its baseline, by what differs
# (English: the check's and a live build's words; the reproducibility page words it per language,
# i18n `drift_unlike_<kind>`). A device class has one baseline, `accept` refuses to replace it with
# another configuration unless --force, and --force would replace the published one.
UNLIKE_ADVICE = {
    "device": "a device class is held only to its own baseline",
    "config": "a device class has one baseline, of one configuration: to check this GPU and software for "
    "drift, measure that configuration; to keep this measurement beside the others, commit it as a "
    "snapshot of its own (attn-examples accept <folder> --to snapshots/<new folder>)",
    "software": "kernels may change with the software stack: if this stack is the one to publish, "
    "attn-examples accept <folder> makes this measurement the baseline",
}


def _unlike(live: Snapshot, baseline: Snapshot) -> tuple[str, str] | None:
    """Why two measurements cannot be compared for drift, as (kind, what differs), or None when they
    can; kind is a key of UNLIKE_ADVICE."""
    if live.device_slug != baseline.device_slug:
        return "device", f"device class differs: {live.device_slug} here, {baseline.device_slug} in the baseline"
    config = config_differences(live, baseline)
    if config:
        return "config", "configuration differs (" + ", ".join(config) + ")"
    stack = [
        (f, getattr(baseline.provenance, f), getattr(live.provenance, f))
        for f in ("torch", "cuda", "cudnn")
        if getattr(baseline.provenance, f) != getattr(live.provenance, f)
    ]
    if stack:
        differs = ", ".join(f"{f} {x} in the baseline, {y} here" for f, x, y in stack)
        return "software", f"software differs ({differs})"
    return None


def _like(live: Snapshot, baseline: Snapshot) -> str | None:
    """Why two measurements cannot be compared for drift, and what to do about it; None when they can."""
    found = _unlike(live, baseline)
    return None if found is None else f"{found[1]}: {UNLIKE_ADVICE[found[0]]}"


@dataclass(frozen=True)
class DriftReport:
    """A measurement held to a baseline: why the two cannot be compared, or what moved."""

    baseline: str  # the baseline's folder, as shown to a reader
    unlike: str | None  # another device class, configuration or software stack, and what to do
    problems: list[str]
    unlike_kind: str | None = None  # device | config | software (UNLIKE_ADVICE)
    difference: str | None = None  # what differs, without the advice

    @property
    def drifted(self) -> bool:
        return self.unlike is None and bool(self.problems)


def drift_report(live: Snapshot, baseline: Snapshot, where: str, tolerance: float = DRIFT_TOLERANCE) -> DriftReport:
    found = _unlike(live, baseline)
    if found is not None:
        return DriftReport(where, _like(live, baseline), [], found[0], found[1])
    return DriftReport(where, None, drift(live, baseline, tolerance))


def drift(live: Snapshot, baseline: Snapshot, tolerance: float = DRIFT_TOLERANCE) -> list[str]:
    """Where a live measurement departs from the committed baseline of its device class: which
    backend an un-pinned call runs, the set of variants, each kernel's structure (family, launch API, registers, shared memory, grid, block) and
    the counts exactly, device-time shares beyond `tolerance`. Measurements of another device,
    configuration or software stack are named as such, not compared. Host times are left out: they
    moved up to 3x between separate runs on the H200 and would only raise false alarms."""
    from attn_examples.render import views

    unlike = _like(live, baseline)
    if unlike:
        return [unlike]
    problems = []
    if live.dispatch.auto_backend != baseline.dispatch.auto_backend:
        problems.append(
            f"un-pinned SDPA: ran {baseline.dispatch.auto_backend} in the baseline, {live.dispatch.auto_backend} here"
        )
    for variant_id, result in baseline.variants.items():
        other = live.variants.get(variant_id)
        if other is None:
            if VARIANTS[variant_id].in_article:  # the compiled ones come with --extended only
                problems.append(f"{variant_id}: measured in the baseline, missing here")
            continue
        if other.available != result.available:
            problems.append(f"{variant_id}: available {result.available} in the baseline, {other.available} here")
            continue
        if not result.available:
            continue
        a, b = views.counts(result), views.counts(other)
        for key in ("kernels", "memcpys", "memsets"):
            if a[key] != b[key]:
                problems.append(f"{variant_id}: {key} {a[key]} in the baseline, {b[key]} here")
        if a["kernels"] == b["kernels"]:
            for position, (was, now) in enumerate(zip(_kernel_structure(result), _kernel_structure(other)), 1):
                changed = [
                    f"{field} {x} in the baseline, {y} here"
                    for field, x, y in zip(_STRUCTURE_FIELDS, was, now)
                    if x != y
                ]
                if changed:
                    problems.append(f"{variant_id}: kernel {position} ({was[0]}): " + "; ".join(changed))
    common = set(baseline.variants) & set(live.variants)
    base_shares, live_shares = device_time_shares(baseline, common), device_time_shares(live, common)
    for variant_id in sorted(set(base_shares) & set(live_shares)):
        change = live_shares[variant_id] / base_shares[variant_id] - 1
        if abs(change) > tolerance:
            problems.append(f"{variant_id}: device-time share moved {change:+.0%} (tolerance ±{tolerance:.0%})")
    return problems
