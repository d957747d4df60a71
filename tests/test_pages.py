"""Every page reads true for every committed measurement: rendered against each snapshot (values,
branches, measured blocks), the two languages with one skeleton, and every branch shown to flip."""

from __future__ import annotations

import copy
import json
import re

import pytest

from attn_examples.claims import check as claims
from attn_examples.render import prose
from attn_examples.site import build as site
from attn_examples.site import pages
from attn_examples.snapshot.schema import load_snapshot, snapshot_from_dict
from tests.conftest import REPO
from tests.test_claims import perturb

SNAPSHOTS = pages.committed_snapshots()
PAGES = pages.page_names()
MEASUREMENTS = {folder.name: site.BuildMeasurement(load_snapshot(folder), False, 0.0) for folder in SNAPSHOTS}
CLAIMS = {c.id: c for c in claims.load_claims()}


def test_the_matrix_of_measurements_is_committed():
    """The committed snapshots cover the article's setup, other dtypes, shapes and a CPU."""
    snaps = [m.snapshot for m in MEASUREMENTS.values()]
    assert {s.config.dtype for s in snaps} >= {"bfloat16", "float16", "float32"}
    assert {s.provenance.device_kind for s in snaps} == {"cuda", "cpu"}
    assert len({tuple(s.config.shape) for s in snaps}) >= 3
    assert any(s.config.head_dim == 128 and s.config.seq_len >= 8192 for s in snaps)
    assert any(s.sweep is not None for s in snaps) and any(s.sweep is None for s in snaps)
    assert any(s.counters is not None and s.counters.available for s in snaps)


@pytest.mark.parametrize("page", PAGES)
def test_the_page_reads_true_for_every_committed_measurement(page):
    problems = pages.check([page], SNAPSHOTS)
    assert not problems, "\n".join(map(str, problems))


def _simple_branches(source: str) -> list[tuple[str, str]]:
    """(claim id, a line only its branch holds) for every top-level `{% if holds <id> %}` whose
    branch has a plain line of its own (no values, no nested tags)."""
    out = []
    for node in prose.parse(source):
        if not isinstance(node, prose._If):  # text, or a {% general %} / {% rests %} declaration
            continue
        first = node.branches[0]
        words = first.condition.split()
        if len(words) != 2 or words[0] != "holds":
            continue
        lines = [line.strip() for part in first.body if isinstance(part, str) for line in part.splitlines()]
        lines = [
            line
            for line in lines
            if len(line) > 30
            and "{{" not in line
            and "{%" not in line
            and not line.startswith(("```", "from ", "print("))
        ]
        if lines:
            out.append((words[1], max(lines, key=len)))
    return out


def _flipped(claim: claims.Claim) -> tuple[site.BuildMeasurement, site.BuildMeasurement]:
    """A measurement where the claim holds and one where it applies and does not: two committed
    snapshots when the matrix has both, else a committed one and a copy perturbed to flip it."""
    status = {name: m.verdicts[claim.id].status for name, m in MEASUREMENTS.items()}
    held = next((MEASUREMENTS[n] for n, s in status.items() if s == "pass"), None)
    failed = next((MEASUREMENTS[n] for n, s in status.items() if s == "fail"), None)
    if held and failed:
        return held, failed
    base = held or failed
    assert base is not None, f"{claim.id} applies to no committed snapshot"
    data = json.loads((base.snapshot.root / "snapshot.json").read_text())
    for up in (True, False):
        changed = copy.deepcopy(data)
        root = perturb(changed, claim.metric, up, claim.expected_value, base.snapshot.root)
        other = snapshot_from_dict(changed, root or base.snapshot.root)
        if claims.evaluate(claim, other).status not in ("n/a", claims.evaluate(claim, base.snapshot).status):
            flipped = site.BuildMeasurement(other, False, 0.0)
            return (base, flipped) if held else (flipped, base)
    raise AssertionError(f"{claim.id}: no committed or perturbed measurement makes it flip")


CASES = [
    (page, lang, claim_id, line)
    for page in PAGES
    for lang in ("en", "zh-TW")
    for claim_id, line in _simple_branches((REPO / "docs" / lang / page).read_text(encoding="utf-8"))
]


@pytest.mark.parametrize("page, lang, claim_id, line", CASES, ids=[f"{c[0]}-{c[1]}-{c[2]}" for c in CASES])
def test_a_branch_shows_exactly_where_its_claim_holds(page, lang, claim_id, line):
    held, failed = _flipped(CLAIMS[claim_id])
    source = (REPO / "docs" / lang / page).read_text(encoding="utf-8")
    for measurement, shown in ((held, True), (failed, False)):
        try:
            rendered = pages.render_page(source, measurement, lang, f"{lang}/{page}")
        except KeyError:  # a perturbed copy may lack a value a sentence elsewhere needs
            continue
        assert (line in rendered) is shown, (claim_id, measurement.snapshot.root, line)


def test_every_claim_a_page_branches_on_can_flip():
    """Each claim a condition names has a measurement where it holds and one where it does not."""
    branched = {
        claim_id
        for page in PAGES
        for lang in ("en", "zh-TW")
        for condition, _ in prose.conditions((REPO / "docs" / lang / page).read_text(encoding="utf-8"))
        for claim_id in re.findall(r"\b(?:holds|fails)\s+([a-z0-9-]+)", condition)
    }
    assert branched
    for claim_id in sorted(branched):
        held, failed = _flipped(CLAIMS[claim_id])
        assert held.verdicts[claim_id].status == "pass" and failed.verdicts[claim_id].status == "fail", claim_id


def test_a_page_can_say_where_its_measurement_came_from(tmp_path):
    """`source committed|given|live`: a sentence that only a committed snapshot makes true ("a checkout
    rebuilds this site") branches on it; a given snapshot and a live one are told apart."""
    import shutil

    committed = MEASUREMENTS["cpu"]
    given_folder = tmp_path / "cpu"
    shutil.copytree(REPO / "snapshots" / "cpu", given_folder)
    given = site.BuildMeasurement(load_snapshot(given_folder), False, 0.0)
    live = site.BuildMeasurement(load_snapshot(given_folder), True, 0.0)
    assert [m.source() for m in (committed, given, live)] == ["committed", "given", "live"]
    page = "{% if source committed %}A checkout rebuilds it.{% elif source given %}Given.{% else %}Live.{% endif %}"
    shown = [prose.render(page, m, lambda key: key) for m in (committed, given, live)]
    assert shown == ["A checkout rebuilds it.", "Given.", "Live."]
    for m in (committed, given, live):  # the devices table marks this build's own measurement, one row
        with site.pinned(m):
            table = site.en.devices("device_us")
        assert table.count("(this site)") == 1
        assert (table.index("(this site)") < table.index("/snapshots/")) == (m is not committed)
    with pytest.raises(prose.ProseError, match="source takes committed, given, live"):
        prose.render("{% if source elsewhere %}x{% endif %}", committed, lambda key: key)
