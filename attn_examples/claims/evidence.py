"""The rules a statement's basis must satisfy on a measurement, and the mark a reader opens (no torch).

`attn_examples.render.evidence` finds what each statement of a page rests on. Here it is held to the
measurement's verdicts:

- a statement on a measured page **declares something**: a branch on a claim it lies in, a claim it
  shows, a regime it shows (`{{ naive.regime }}`, `{{ list.regime[…] }}`: the value says itself where
  the timings leave it undecided), `{% rests … %}` or `{% general %}` (its own or of a statement it
  lies in). A branch on a
  fact alone (`has counters`, `device cuda`) says where a statement can be made, not why it is
  true, so it does not count;
- a statement that **rests on a claim** (`{% rests x %}`) is shown only where that claim holds;
- a statement that **shows a claim** (`{{ claim.x }}`) shows one that applies here, and where the
  claim is undecided it says so: its undecided wording (`{{ claim.x.undecided }}`) or a branch on
  `unsure x`; a decided value with its verdict mark is a statement of what was measured;
- a statement in the `else` of a timed claim (`not holds x`) must not be taken where x is undecided:
  the else speaks for a claim that failed, and an undecided one did not; branch on `unsure x` first;
- a statement that speaks of a timed claim (shows it, words it undecided, branches on it) where a
  **weaker claim on the same measure** is undecided says so of that one too: "at least 1.5 times"
  and "more at all" on one ratio are two lines, and an interval that crosses both leaves even the
  direction open ("whether a clear gap, this measurement cannot decide" reads as "more, at least");
- a **branch** rests on its conditions by construction; every item is still evaluated, so an item
  that names no claim or a condition false here is reported (a broken template, not a page).

`mark` draws the reader's side: a small button after the statement whose popup lists the claims it
rests on, with their verdicts here and the measured values.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from attn_examples.claims import check as claims
from attn_examples.claims import plausible, report
from attn_examples.render import metrics, templating
from attn_examples.render.evidence import CLAIM_IN_ITEM, GENERAL, MEASURED, REGIME, Statement
from attn_examples.render.i18n import t, title
from attn_examples.snapshot.schema import Snapshot
from attn_examples.snapshot.variants import VARIANTS

_EXCERPT = 90


def excerpt(text: str) -> str:
    return text if len(text) <= _EXCERPT else text[: _EXCERPT - 1].rstrip() + "…"


def problems(
    statements: list[Statement],
    verdicts: Mapping[str, claims.Verdict],
    evaluate: Callable[[str], bool] | None = None,
    snap: Snapshot | None = None,
) -> list[str]:
    """What is wrong with the statements' bases on this measurement, one line each (empty: nothing).
    `evaluate` checks a branch condition against the measurement (prose.evaluate_item, bound); `snap`
    lets a named ranking be held to the timings (the variant a sentence calls the fastest must be the
    only one the intervals allow)."""
    found: list[str] = []
    for s in statements:
        if not s.text:
            continue
        items = s.items
        quote = f"“{excerpt(s.text)}”"
        if not any(
            item in (GENERAL, MEASURED) or item.startswith(f"{REGIME} ") or CLAIM_IN_ITEM.search(item) for item in items
        ):
            found.append(
                f"{quote} declares nothing"
                + (f" (it lies only in branches on {', '.join(items)}, which name no claim)" if items else "")
                + ": rest it on a claim (a branch, {{ claim.x }}, {% rests x %}) or add {% general %}"
            )
            continue
        for item in items:
            found += _item_problems(item, items, verdicts, quote, evaluate)
            if item.startswith("ranks ") and snap is not None:
                found += _ranking_problems(item[len("ranks ") :], items, snap, quote)
        found += _weaker_problems(items, verdicts, quote)
    return found


def _ranking_problems(key: str, items: list[str], snap: Snapshot, quote: str) -> list[str]:
    """A sentence that names the fastest (or slowest) variant, or a value of it, says the timings single
    it out: where their intervals allow another, it says so in a branch on an undecided claim."""
    # a ranking by its own measure (fastest.stream_us: the cheapest call in a stream); winner.… by device time
    ranking = key if key.split(".")[0] in ("fastest", "slowest") else "fastest.device_us"
    try:
        allowed = plausible.plausible(snap, ranking)
    except metrics.UnknownMetric:
        return []
    if not isinstance(allowed, frozenset) or len(allowed) <= 1:
        return []
    if any(_positive_unsure(i, m.group(2)) for i in items for m in CLAIM_IN_ITEM.finditer(i)):
        return []
    return [
        f"{quote} names the {ranking.split('.')[0]} variant ({key}), which the timings cannot single out here "
        f"({' or '.join(sorted(allowed))}): branch on a claim about it, with its unsure case"
    ]


def _item_problems(
    item: str,
    items: list[str],
    verdicts: Mapping[str, claims.Verdict],
    quote: str,
    evaluate: Callable[[str], bool] | None,
) -> list[str]:
    verb, _, arg = item.partition(" ")
    if verb in ("shows", "undecided", "rests"):
        verdict = verdicts.get(arg)
        if verdict is None:
            return [f"{quote} rests on {arg!r}, which is no claim"]
        if verb == "rests" and verdict.status != "pass":
            return [f"{quote} rests on claim {arg!r}, which {_status_words(verdict)} here ({verdict.reason})"]
        if verb == "shows" and verdict.status == "n/a":
            return [f"{quote} shows claim {arg!r}, which does not apply here ({verdict.reason})"]
        if verb == "shows" and verdict.status == "unsure" and not _says_undecided(items, arg):
            return [
                f"{quote} states claim {arg!r} as decided, but it is undecided here: word it with "
                f"{{{{ claim.{arg}.undecided }}}} or say what it means in {{% elif unsure {arg} %}}"
            ]
        return []
    passed = re.fullmatch(r"not (holds|fails) ([a-z0-9][a-z0-9\-]*)", item)
    if passed:  # a branch passed over: its claim did not hold (or fail); an undecided one says neither
        verdict = verdicts.get(passed.group(2))
        if verdict is not None and verdict.status == "unsure" and not _says_undecided(items, passed.group(2)):
            return [
                f"{quote} lies where {passed.group(2)!r} does not {passed.group(1)[:-1]}, but that claim is "
                f"undecided here, not the other way: branch on unsure {passed.group(2)} before it"
            ]
    shown = item.startswith(("ranks ", f"{REGIME} "))  # values shown, not conditions
    if item not in (GENERAL, MEASURED) and not shown and evaluate is not None:
        try:
            true = evaluate(item)
        except Exception as exc:  # a broken template, named
            return [f"{quote} rests on {item!r}, which cannot be read: {exc}"]
        if not true:
            return [f"{quote} rests on {item!r}, which is false here"]
    return []


_UP, _DOWN = (">", ">="), ("<", "<=")


def weaker(claim: claims.Claim, other: claims.Claim) -> bool:
    """`other` is a weaker claim than `claim` on the same timed measure: the same direction, a line
    short of claim's (`> 1.0` beside `>= 1.5`), so that claim holding makes other hold."""
    if other.id == claim.id or other.metric != claim.metric or not plausible.is_timed(claim.metric):
        return False
    a, b = claim.expected_value, other.expected_value
    if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (a, b)):
        return False
    if claim.relation in _UP and other.relation in _UP:
        return b < a or (b == a and other.relation == ">=" and claim.relation == ">")
    if claim.relation in _DOWN and other.relation in _DOWN:
        return b > a or (b == a and other.relation == "<=" and claim.relation == "<")
    return False


def _weaker_problems(items: list[str], verdicts: Mapping[str, claims.Verdict], quote: str) -> list[str]:
    """A statement that speaks of a timed claim, where a weaker one on the same measure is undecided,
    says that one is undecided too."""
    spoken = dict.fromkeys(
        m.group(2) for item in items if not item.startswith("not ") for m in CLAIM_IN_ITEM.finditer(item)
    )
    found = []
    for claim_id in spoken:
        verdict = verdicts.get(claim_id)
        if verdict is None or verdict.status == "n/a":
            continue
        for other in verdicts.values():
            if (
                other.status == "unsure"
                and weaker(verdict.claim, other.claim)
                and not _says_undecided(items, other.claim.id)
            ):
                found.append(
                    f"{quote} speaks of claim {claim_id!r}, but the weaker {other.claim.id!r} on the same measure "
                    f"is undecided here ({report.claim_interval(other, 'en')}): say so, with "
                    f"{{{{ claim.{other.claim.id}.undecided }}}} or a branch on unsure {other.claim.id}"
                )
    return found


def _status_words(verdict: claims.Verdict) -> str:
    return {"fail": "fails", "unsure": "is undecided", "n/a": "does not apply"}.get(verdict.status, "holds")


def _says_undecided(items: list[str], claim_id: str) -> bool:
    """The statement words the claim as undecided, or lies in a branch on its being undecided."""
    return f"undecided {claim_id}" in items or any(_positive_unsure(i, claim_id) for i in items)


def _positive_unsure(item: str, claim_id: str) -> bool:
    """A branch condition that says the claim is unsure (not one passed over)."""
    if item.startswith("not "):
        return False
    return any(m.group(1) == "unsure" and m.group(2) == claim_id for m in CLAIM_IN_ITEM.finditer(item))


_SECTIONS = ("counters", "sweep", "training", "ceilings", "limits")


def fact_words(item: str, lang: str) -> str | None:
    """A branch condition that names no claim, in the reader's words ("this measurement ran flash",
    "measured on a CPU"); None for one a reader need not see (a metric that has a value)."""
    negated = item.startswith("not ")
    verb, _, arg = item[len("not ") if negated else 0 :].partition(" ")
    if verb == "has" and arg in VARIANTS:
        return t(lang, "ev_fact_no_variant" if negated else "ev_fact_variant").format(arg=title(lang, arg))
    if verb == "has" and arg in _SECTIONS:
        return t(lang, f"ev_fact_{'no_' if negated else ''}{arg}")
    if verb == "device" and arg in ("cuda", "cpu"):
        return t(lang, f"ev_fact_{'not_' if negated else ''}{arg}")
    if verb == REGIME:
        return t(lang, "ev_fact_regime")
    if verb == "source" and arg in ("committed", "given", "live"):
        return t(lang, f"ev_fact_{'not_' if negated else ''}{arg}")
    if verb == "dtype":
        shown = {"half": "bf16 / fp16", "bfloat16": "bf16", "float16": "fp16", "float32": "FP32"}.get(arg, arg)
        return t(lang, "ev_fact_not_dtype" if negated else "ev_fact_dtype").format(arg=shown)
    return None


def mark(statement: Statement, verdicts: Mapping[str, claims.Verdict], lang: str, uid: str) -> str:
    """The statement's mark: nothing for a general statement or one that rests on facts alone; else a
    button whose popup lists each claim it rests on, with its verdict here and the measured value. A
    claim that does not apply here is left out: it can only stand under a negation (the branch that was
    not taken), and tells the reader nothing about why this sentence is true."""
    rows = []
    for claim_id in statement.claims:
        verdict = verdicts.get(claim_id)
        if verdict is None or verdict.status == "n/a":
            continue
        rows.append(
            {
                "id": claim_id,
                "status": verdict.status.replace("/", ""),
                "mark": report._MARK[verdict.status],
                "verdict": t(lang, report._verdict_word(verdict)),
                "statement": verdict.claim.statement[lang],
                "measured": report.claim_measured(verdict, lang).strip("`"),
                "interval": report.claim_interval(verdict, lang),
            }
        )
    if not rows:
        return ""
    facts = [words for item in statement.items if (words := fact_words(item, lang)) is not None]
    return templating.render(
        "evidence_mark.html.j2",
        uid=uid,
        label=t(lang, "ev_label").format(n=len(rows)),
        title=t(lang, "ev_title"),
        rows=rows,
        facts=facts,
        count=len(rows),
        measured_word=t(lang, "ev_measured"),
    )
