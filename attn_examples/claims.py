"""Stage 4: the prose's statements as data, checked against every build's measurement (no torch).

`claims.yml` beside this file lists each quantitative or structural statement the pages make:
an id, the metric it rests on (`attn_examples.metrics` keys), a relation and tolerance, where it
applies (device class, dtype, shape) and the article's own A100 value. Pages cite claims by id
(`{{ claim.<id> }}`), so a sentence shows the measured value with its verdict; a build whose
measurement breaks a claim fails, naming the claim, both values, the device and the way out.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from attn_examples import metrics
from attn_examples.snapshot import Snapshot
from attn_examples.variants import VARIANTS

CLAIMS_FILE = Path(__file__).resolve().parent / "claims.yml"
RELATIONS = ("==", "!=", "<", "<=", ">", ">=", "within", "between", "matches")
DRIFT_TOLERANCE = 0.10   # relative, on device-time shares within one run (see drift())


class ClaimsError(ValueError):
    """claims.yml is malformed; the message names the file, the claim and the field."""


@dataclass(frozen=True)
class Claim:
    id: str
    statement: dict[str, str]
    metric: str
    relation: str
    expected: Any
    tolerance: float = 0.0
    applies: dict[str, Any] = field(default_factory=dict)
    article: Any = None
    page: str | None = None

    def expectation(self) -> str:
        if self.relation == "within":
            return f"{self.expected} ± {self.tolerance:.0%}"
        if self.relation == "between":
            return f"between {self.expected[0]} and {self.expected[1]}"
        return f"{self.relation} {self.expected}"


@dataclass(frozen=True)
class Verdict:
    claim: Claim
    status: str            # pass | fail | n/a
    measured: Any
    reason: str

    @property
    def ok(self) -> bool:
        return self.status != "fail"


_FIELDS = {"id", "statement", "metric", "relation", "expected", "tolerance", "applies", "article", "page"}
_APPLIES = {"device_kind", "device", "dtype", "shape", "requires"}


def load_claims(path: Path = CLAIMS_FILE) -> list[Claim]:
    """Parse and validate claims.yml."""
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise ClaimsError(f"{path}: not valid YAML: {exc}") from None
    if not isinstance(raw, list):
        raise ClaimsError(f"{path}: expected a list of claims")
    claims, seen = [], set()
    for index, item in enumerate(raw):
        where = f"{path}: claim #{index + 1}"
        if not isinstance(item, dict):
            raise ClaimsError(f"{where}: expected a mapping")
        if "id" in item:
            where = f"{path}: claim {item['id']!r}"
        unknown = set(item) - _FIELDS
        if unknown:
            raise ClaimsError(f"{where}: unknown field {sorted(unknown)[0]!r}")
        for required in ("id", "statement", "metric", "relation", "expected"):
            if required not in item:
                raise ClaimsError(f"{where}: field {required!r} missing")
        if not re.fullmatch(r"[a-z0-9][a-z0-9\-]*", str(item["id"])):
            raise ClaimsError(f"{where}: field 'id' must be lowercase letters, digits and '-'")
        if item["id"] in seen:
            raise ClaimsError(f"{where}: duplicate id")
        seen.add(item["id"])
        if item["relation"] not in RELATIONS:
            raise ClaimsError(f"{where}: field 'relation' must be one of {RELATIONS}")
        if set(item["statement"]) != {"en", "zh-TW"}:
            raise ClaimsError(f"{where}: field 'statement' needs exactly 'en' and 'zh-TW'")
        if set(item.get("applies") or {}) - _APPLIES:
            raise ClaimsError(f"{where}: field 'applies' takes only {sorted(_APPLIES)}")
        if item["relation"] == "between" and not (isinstance(item["expected"], list) and len(item["expected"]) == 2):
            raise ClaimsError(f"{where}: field 'expected' must be [low, high] for 'between'")
        if item["relation"] == "within" and not item.get("tolerance"):
            raise ClaimsError(f"{where}: field 'tolerance' (relative) is required for 'within'")
        claims.append(Claim(**{**item, "applies": item.get("applies") or {}}))
    return claims


def applies(claim: Claim, snap: Snapshot) -> str | None:
    """None when the claim applies to this snapshot; otherwise why not."""
    where = claim.applies
    p, c = snap.provenance, snap.config
    parts = claim.metric.split("[")[0].split(".")
    named = parts[1:3] if parts[0] in ("ratio", "diff") else parts[:1]
    for section in list(where.get("requires", [])) + named:
        if section in ("sweep", "training", "ceilings") and getattr(snap, section) is None:
            return f"this snapshot has no {section} (measure --extended)"
        if section == "counters" and (snap.counters is None or not snap.counters.available):
            return ("this snapshot has no hardware counters (attn-examples counters)" if snap.counters is None
                    else f"hardware counters unavailable: {snap.counters.reason}")
        if section in VARIANTS and section not in snap.variants:
            return f"variant {section} was not measured in this snapshot"
    if "device_kind" in where and p.device_kind != where["device_kind"]:
        return f"only for {where['device_kind']} devices"
    if "device" in where and snap.device_slug not in where["device"]:
        return f"only for {', '.join(where['device'])}"
    if "dtype" in where and c.dtype != where["dtype"]:
        return f"only for {where['dtype']}"
    if "shape" in where and list(c.shape) != list(where["shape"]):
        return f"only for shape {where['shape']}"
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
    return {"<": measured < expected, "<=": measured <= expected, ">": measured > expected,
            ">=": measured >= expected}[relation]


def evaluate(claim: Claim, snap: Snapshot) -> Verdict:
    skip = applies(claim, snap)
    if skip:
        return Verdict(claim, "n/a", None, skip)
    try:
        measured = metrics.metric(snap, claim.metric)
    except metrics.UnknownMetric as exc:
        return Verdict(claim, "fail", None, f"cannot be measured: {exc}")
    try:
        ok = _holds(claim.relation, measured, claim.expected, claim.tolerance)
    except TypeError:
        ok = False
    return Verdict(claim, "pass" if ok else "fail", measured,
                   f"{claim.metric} = {measured!r}, expected {claim.expectation()}")


def check(snap: Snapshot, claims: list[Claim] | None = None) -> list[Verdict]:
    return [evaluate(claim, snap) for claim in (claims if claims is not None else load_claims())]


def failure_report(snap: Snapshot, verdicts: list[Verdict]) -> str:
    """What a failed build prints: each broken claim, both values, the device, the way out."""
    failed = [v for v in verdicts if not v.ok]
    lines = [f"{len(failed)} claim(s) do not hold on {snap.provenance.device_name} ({snap.device_slug}, "
             f"torch {snap.provenance.torch}, measured {snap.provenance.measured_at}):"]
    for v in failed:
        article = f"; the article (A100) had {v.claim.article!r}" if v.claim.article is not None else ""
        lines.append(f"  - claim '{v.claim.id}' ({v.claim.page or 'no page'}): {v.reason}{article}")
    lines.append("To resolve: if the measurement is right, correct the sentence in both languages and the claim "
                 f"in {CLAIMS_FILE.name}; if a live build measured it and it should become the published "
                 "baseline, run `attn-examples accept <live snapshot>` and review the claims; if the "
                 "measurement is wrong, find out why before changing anything.")
    return "\n".join(lines)


# ---- baseline drift ------------------------------------------------------------------------------

def _shares(snap: Snapshot, among: set[str]) -> dict[str, float]:
    """Each variant's device time over the geometric mean of the `among` variants' in the same run:
    ratios measured together, insensitive to a GPU that is uniformly faster or slower today."""
    times = {v: r.timing.device_us.median for v, r in snap.variants.items()
             if v in among and r.available and r.timing and r.timing.device_us}
    if not times:
        return {}
    mean = math.exp(sum(math.log(t) for t in times.values()) / len(times))
    return {v: t / mean for v, t in times.items()}


def drift(live: Snapshot, baseline: Snapshot, tolerance: float = DRIFT_TOLERANCE) -> list[str]:
    """Where a live measurement departs from the committed baseline of its device class: kernel
    counts exactly, device-time shares beyond `tolerance`. Host times are left out: they moved up
    to 3x between separate runs on the H200 and would only raise false alarms."""
    from attn_examples import views

    problems = []
    if live.device_slug != baseline.device_slug:
        return [f"device class differs: live {live.device_slug}, baseline {baseline.device_slug}"]
    common = set(baseline.variants) & set(live.variants)   # extended runs add variants: compare like with like
    for variant_id, result in baseline.variants.items():
        if variant_id not in common:
            continue
        other = live.variants.get(variant_id)
        if other is None or other.available != result.available:
            problems.append(f"{variant_id}: available {result.available} in the baseline, "
                            f"{None if other is None else other.available} live")
            continue
        if result.available:
            a, b = views.counts(result), views.counts(other)
            for key in ("kernels", "memcpys", "memsets"):
                if a[key] != b[key]:
                    problems.append(f"{variant_id}: {key} {a[key]} in the baseline, {b[key]} live")
    base, now = _shares(baseline, common), _shares(live, common)
    for variant_id in sorted(set(base) & set(now)):
        change = now[variant_id] / base[variant_id] - 1
        if abs(change) > tolerance:
            problems.append(f"{variant_id}: device-time share moved {change:+.0%} (tolerance ±{tolerance:.0%})")
    return problems
