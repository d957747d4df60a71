"""Claims and drift as HTML: the inline claim, the claims table, the drift box (no torch).

The check stage's own output, put into words for the pages: a claim's verdict with its measured
value, interval and expectation, in both languages. It builds on the render stage's formatting and
templates (`attn_examples.render.blocks`, `attn_examples.render.templating`), which never import
this stage.
"""

from __future__ import annotations

from markupsafe import Markup, escape

from attn_examples.claims import check as claims
from attn_examples.render import prose, templating
from attn_examples.render.blocks import (
    breakable,
    confidence_words,
    format_interval,
    format_metric,
    html_table,
    join_words,
    quoted,
)
from attn_examples.render.i18n import t


def drift_block(
    report: claims.DriftReport | None,
    is_baseline: bool,
    slug: str,
    lang: str,
    device_kind: str = "cuda",
    committed: bool = False,
) -> str:
    """The reproducibility page's verdict on drift: none, what moved, why nothing was compared, or
    that there is no baseline. The findings are the check's own words (English in both languages).
    A CPU's committed snapshot is a baseline no live build is held to: live builds need a GPU. What a
    reader can do about a baseline of another kind is said in the page's language (`committed`: the
    measurement is a committed snapshot already, beside the baseline)."""
    if report is None:
        kind, key, where, problems = "info", "drift_no_baseline", f"snapshots/{slug}", []
        before, after = _around(t(lang, key), "slug")
        # this translation carries markup of its own (<code>attn-examples accept</code>)
        before, after = Markup(before), Markup(after)
    else:
        if is_baseline:
            kind, key = "info", "drift_is_baseline" if device_kind == "cuda" else "drift_is_baseline_cpu"
        elif report.unlike:
            kind, key = "note", "drift_unlike"
        elif not report.problems:
            kind, key = "success", "drift_none"
        else:
            kind, key = "failure", "drift_found"
        where, problems = report.baseline, report.problems if key == "drift_found" else []
        before, after = _around(t(lang, key), "where")
    return templating.render(
        "drift.html.j2",
        kind=kind,
        title=t(lang, f"{key}_title").format(n=len(problems)),
        before=before,
        where=where,
        after=after,
        unlike=(report.difference or report.unlike) if report is not None and key == "drift_unlike" else None,
        # what a reader can do, in the page's language; the translations carry <code> of their own
        advice=_unlike_advice(report, lang, committed) if key == "drift_unlike" else "",
        problems=problems,
    )


def _unlike_advice(report: claims.DriftReport | None, lang: str, committed: bool) -> Markup | str:
    if report is None or report.unlike_kind is None:
        return ""
    kind = report.unlike_kind + ("_committed" if committed and report.unlike_kind == "config" else "")
    return Markup(t(lang, f"drift_unlike_{kind}"))  # the translations carry <code> of their own


def _around(sentence: str, name: str) -> tuple[str, str]:
    """A translated sentence split where it names `{name}`: a template puts markup there, and the
    words on either side stay text."""
    before, found, after = sentence.partition("{" + name + "}")
    if not found:
        raise KeyError(f"the sentence {sentence!r} has no {{{name}}}")
    return before, after


_MARK = {"pass": "✓", "fail": "✗", "unsure": "?", "n/a": "–"}
_VERDICT_WORD = {"pass": "holds", "fail": "fails", "unsure": "unsure", "n/a": "not_applicable"}


def claim_measured(verdict: claims.Verdict, lang: str = "en") -> str:
    if verdict.measured is None:
        return "–"
    shown = format_metric(verdict.claim.metric, verdict.measured, lang)
    if isinstance(verdict.measured, bool):  # name what is yes or no: "available: yes" beside "refuses"
        return f"{verdict.claim.metric.rsplit('.', 1)[-1]}: {shown}"
    return shown


def claim_expected(claim: claims.Claim, lang: str) -> str:
    """The claim's expectation in words, its values formatted like the metric ('between 0.50× and 1.50×')."""
    expected = claim.expected_value
    if claim.relation == "matches":
        return t(lang, "matches").format(pattern=expected)
    if isinstance(expected, (list, tuple)):
        low, high = (format_metric(claim.metric, v, lang).strip("`") for v in expected)
        return t(lang, "between").format(low=low, high=high)
    shown = format_metric(claim.metric, expected, lang).strip("`")
    if claim.relation == "within":
        return t(lang, "within").format(value=shown, tolerance=f"{claim.tolerance:.0%}")
    return f"{claim.relation} {shown}"


def claim_bound(claim: claims.Claim, metric: str, lang: str) -> str:
    """The number an `applies.when` condition of the claim puts on `metric` (where a page says where the
    claim can be tested, in the claim's own terms, not a second copy)."""
    for condition in claim.applies.get("when", []):
        m = claims.WHEN.match(condition)
        if m is not None and m.group("metric") == metric:
            value = float(m.group("value"))
            return format_metric(metric, int(value) if value.is_integer() else value, lang)
    raise KeyError(f"claim {claim.id!r} puts no applies.when condition on {metric!r}")


def claim_interval(verdict: claims.Verdict, lang: str) -> str:
    """A timed claim's 95% interval, its ends formatted like the metric ('1.41×–1.66×'), or the
    rankings it allows ('sdpa_flash or sdpa_cudnn'); '' for an exact claim."""
    from attn_examples.snapshot.uncertainty import Interval

    spread = verdict.plausible
    if isinstance(spread, Interval):
        return format_interval(verdict.claim.metric, spread.low, spread.high, lang)
    if isinstance(spread, frozenset):
        shown = [format_metric(verdict.claim.metric, x, lang).strip("`") for x in sorted(spread, key=str)]
        return join_words(shown, lang, "or" if lang == "en" else "或")
    return ""


def claim_undecided(verdict: claims.Verdict, lang: str) -> str:
    """What a page says where a timed claim is unsure: the statement, quoted, and how far the
    measurement can move (its 95% interval, or the rankings it allows). Only for an unsure claim."""
    from attn_examples.snapshot.uncertainty import Interval

    if verdict.status != "unsure":
        raise ClaimNotApplicable(
            f"claim {verdict.claim.id!r} is decided here ({verdict.status}): "
            f"{{{{ claim.{verdict.claim.id}.undecided }}}} belongs in {{% elif unsure … %}}"
        )
    key = "undecided_interval" if isinstance(verdict.plausible, Interval) else "undecided_set"
    if isinstance(verdict.plausible, frozenset) and verdict.plausible <= {True, False}:
        key = "undecided_either"  # "the answer could be yes or no" says nothing a reader can use
    statement = verdict.claim.statement[lang].rstrip("。") if lang != "en" else verdict.claim.statement[lang]
    interval = claim_interval(verdict, lang)
    if lang != "en" and key == "undecided_set" and interval and not prose.WIDE.match(interval[0]):
        interval = " " + interval  # 「答案可能是 flash」, but 「答案可能是手寫版」: a space beside Latin words only
    sentence = t(lang, key).format(
        statement=statement,
        interval=interval,
        confidence=confidence_words(),
        expected=claim_expected(verdict.claim, lang),
        value=claim_measured(verdict, lang).strip("`"),
    )
    return str(escape(sentence))  # text for a page's prose, which no template renders


class ClaimNotApplicable(KeyError):
    def __str__(self) -> str:
        return str(self.args[0])


def claim_inline(verdict: claims.Verdict, device: str, lang: str, denied: bool = False) -> str:
    """A claim cited in a sentence: the measured value, its verdict mark, the claim in a tooltip.
    A claim that does not apply has no value to show: its sentence belongs in a branch.

    The mark says whether the measurement bears out what the sentence says of the value: where the
    sentence says the claim fails (`denied`, a branch on `fails x`: "only 6.3% reaches HBM") and it
    fails, that is ✓, with the claim's own verdict in the tooltip; a ✗ there would read as "this value
    is wrong". A ✗ is left for a value a sentence shows without saying which way its claim goes."""
    if verdict.status == "n/a":
        raise ClaimNotApplicable(
            f"claim {verdict.claim.id!r} does not apply to this measurement "
            f"({verdict.reason}): put its sentence inside "
            f"{{% if applies {verdict.claim.id} %}} … {{% endif %}}"
        )
    borne_out = denied and verdict.status == "fail"
    word = t(lang, _verdict_word(verdict)) + (t(lang, "as_the_sentence_says") if borne_out else "")
    tip = t(lang, "claim_title").format(
        id=verdict.claim.id,
        expected=claim_expected(verdict.claim, lang),
        measured=claim_measured(verdict, lang).strip("`"),
        device=device,
        verdict=word,
    )
    interval = claim_interval(verdict, lang)
    gap = " " if lang == "en" else ""  # no space before a full-width bracket
    if interval:
        from attn_examples.snapshot.uncertainty import Interval

        key = "interval" if isinstance(verdict.plausible, Interval) else "interval_set"
        tip += gap + t(lang, key).format(interval=interval, confidence=confidence_words())
    value = claim_measured(verdict, lang)
    return templating.render(
        "claim_inline.html.j2",
        status="denied" if borne_out else verdict.status.replace("/", ""),
        tip=tip,
        is_name=value.startswith("`"),
        value=value.strip("`") if value.startswith("`") else value,
        # the reader of an unsure claim sees at once how far the value can move
        spread=gap + t(lang, "interval_inline").format(interval=interval, confidence=confidence_words())
        if verdict.status == "unsure"
        else "",
        mark=_MARK["pass" if borne_out else verdict.status],
    )


def _verdict_word(verdict: claims.Verdict) -> str:
    if verdict.claim.gates or verdict.status in ("n/a", "unsure"):
        return _VERDICT_WORD[verdict.status]
    return "observed" if verdict.status == "pass" else "not_observed"


def _measured_cell(verdict: claims.Verdict, lang: str) -> str:
    """The claims table's measured value, with the interval under it where it is one (or where the
    timings allow more than one ranking)."""
    if verdict.status == "n/a":
        return "–"
    cell = breakable(claim_measured(verdict, lang).strip("`"))
    spread = verdict.plausible
    if spread is not None and not (isinstance(spread, frozenset) and len(spread) == 1):
        line = t(lang, "interval_inline").format(interval=claim_interval(verdict, lang), confidence=confidence_words())
        cell += Markup("<br><small>{}</small>").format(line)
    return cell


def claims_table(verdicts: list[claims.Verdict], lang: str) -> str:
    """The whole 'guess against reality' on one table."""
    headers = [
        t(lang, "claim"),
        t(lang, "claim_kind"),
        t(lang, "statement"),
        t(lang, "article"),
        t(lang, "ours"),
        t(lang, "expected"),
        t(lang, "verdict"),
    ]
    rows = []
    for v in verdicts:
        c = v.claim
        article_value = "–" if c.article is None else quoted(f"article.{c.article}", lang)  # the key, unprefixed
        rows.append(
            [
                Markup('<code id="claim-{}">{}</code>').format(c.id, breakable(c.id)),
                t(lang, f"kind_{c.kind}"),
                c.statement[lang],
                article_value,
                _measured_cell(v, lang),
                claim_expected(c, lang),
                f"{_MARK[v.status]} {t(lang, _verdict_word(v))}",
            ]
        )
    return html_table(headers, rows, wide=2, extra={1, 3, 5}, narrow={0}, lang=lang)


# ---- beyond the article --------------------------------------------------------------------------
