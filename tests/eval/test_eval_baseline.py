"""The golden file: its layout, and which changes against it are regressions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.cli import main
from assay.errors import InputError
from assay.evaluation.baseline import Baseline, CaseVerdict, compare
from assay.evaluation.cases import LabelledCase
from assay.evaluation.metrics import Outcome, compute_metrics
from assay.evaluation.run import VerifierRun
from assay.types import Check, Result, Status, Verdict

# case id -> (label, status, score) for the recorded run of "demo@1"
RECORDED = {
    "a": ("correct", "correct", 1.0),
    "b": ("incorrect", "incorrect", 0.0),
    "c": ("partial", "partial", 0.5),
    "d": ("unparsable", "unparsable", 0.0),
}


def _run(cases: dict[str, tuple[str, str, float]], version: str = "1") -> VerifierRun:
    outcomes = []
    for case_id, (label, status, score) in cases.items():
        case = LabelledCase(case_id, Status(label), None, "", {"id": case_id})
        checks = (Check("answer", status == "correct", message=f"{case_id} compared"),)
        verdict = Verdict(Status(status), score, checks)
        outcomes.append(Outcome(case, Result(case_id, "demo", verdict, f"demo@{version}", 1.0)))
    return VerifierRun(
        "demo", version, "builtin", "x.jsonl", tuple(outcomes), compute_metrics(outcomes)
    )


BASELINE = Baseline().updated([_run(RECORDED)])


def test_layout_is_sorted_json_one_case_per_line() -> None:
    text = Baseline().updated([_run(RECORDED), _run(RECORDED, "2")]).dumps()
    data = json.loads(text)
    assert list(data["verifiers"]) == ["demo@2"]  # one entry per name: the newest run
    lines = text.splitlines()
    case_lines = [line.strip() for line in lines if line.startswith('        "')]
    assert case_lines == [
        '"a": {"score": 1.0, "status": "correct"},',
        '"b": {"score": 0.0, "status": "incorrect"},',
        '"c": {"score": 0.5, "status": "partial"},',
        '"d": {"score": 0.0, "status": "unparsable"}',
    ]


def test_read_back_and_update_keeps_other_verifiers(tmp_path: Path) -> None:
    path = tmp_path / "baselines" / "b.json"
    other = VerifierRun("other", "3", "plugin:x", "y.jsonl", (), compute_metrics([]))
    BASELINE.updated([other]).write(path)
    read = Baseline.read(path)
    assert sorted(read.entries) == ["demo", "other"]
    assert read.entries["demo"].cases["c"] == CaseVerdict("partial", 0.5)
    assert read.entries["demo"].metrics["false_positive_rate"] == 0.0
    assert read.dumps() == path.read_text(encoding="utf-8")


HEAD = '{"format": "assay-eval-baseline/1", "verifiers": '


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # not JSON at all
        ("not json", "cannot read baseline"),
        # JSON, but another file's format
        ('{"format": "other"}', "not an assay eval baseline"),
        # hand-edited: a case without its score
        (HEAD + '{"x@1": {"cases": {"a": {"status": "correct"}}}}}', "malformed baseline"),
        # verifiers as a list instead of an object
        (HEAD + "[]}", "malformed baseline"),
        # a score that is not a number
        (HEAD + '{"x@1": {"cases": {"a": {"status": "correct", "score": "hi"}}}}}', "malformed"),
    ],
    ids=["not-json", "other-format", "missing-score", "verifiers-list", "score-not-number"],
)
def test_unreadable_baseline(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "b.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=message):
        Baseline.read(path)


def _changed(**changes: tuple[str, str, float] | None) -> dict[str, tuple[str, str, float]]:
    cases = dict(RECORDED)
    for key, value in changes.items():
        if value is None:
            del cases[key]
        else:
            cases[key] = value
    return cases


# name, cases now, version now, flipped ids, regressed, a note containing
COMPARISONS = [
    # nothing changed
    ("same", RECORDED, "1", [], False, None),
    # a wrong answer now credited, same version: a flip and a worse false-positive rate
    ("fp-same-version", _changed(b=("incorrect", "correct", 1.0)), "1", ["b"], True, None),
    # the same change with a version bump: the flip is listed, the worse FP rate still fails
    ("fp-bumped", _changed(b=("incorrect", "correct", 1.0)), "2", ["b"], True, "version 1 in"),
    # unparsable now read as incorrect, same version: a flip without a bump fails
    ("status-same-version", _changed(d=("unparsable", "incorrect", 0.0)), "1", ["d"], True, None),
    # ... and passes once the version is bumped (no credit moved)
    ("status-bumped", _changed(d=("unparsable", "incorrect", 0.0)), "2", ["d"], False, None),
    # only the score of a partial verdict moved: still a flip
    ("score-only", _changed(c=("partial", "partial", 0.75)), "1", ["c"], True, None),
    # a new case is a note, not a flip
    ("new-case", _changed(e=("correct", "correct", 1.0)), "1", [], False, "not in the baseline: e"),
    # a case gone from the fixtures is a note
    ("gone-case", _changed(d=None), "1", [], False, "no longer in the fixtures: d"),
]


@pytest.mark.parametrize(
    ("cases", "version", "flipped", "regressed", "note"),
    [c[1:] for c in COMPARISONS],
    ids=[c[0] for c in COMPARISONS],
)
def test_compare(
    cases: dict[str, tuple[str, str, float]],
    version: str,
    flipped: list[str],
    regressed: bool,
    note: str | None,
) -> None:
    comparison = compare(BASELINE, [_run(cases, version)])
    assert [f.case_id for f in comparison.flips] == flipped
    assert comparison.regressed is regressed
    if note is not None:
        assert any(note in n for n in comparison.notes), comparison.notes
    for flip in comparison.flips:
        assert flip.version_bumped is (version != "1")
        assert (
            flip.why
            == f"answer {'passed' if flip.after.status == 'correct' else 'failed'}: {flip.case_id} compared"
        )


def test_flip_direction_and_why_prefers_the_message() -> None:
    run = _run(_changed(a=("correct", "incorrect", 0.0)))
    outcome = run.outcomes[0]
    hedged = Verdict.incorrect(outcome.result.verdict.checks, message="hedged: 2 answers")
    fixed = (Outcome(outcome.case, Result("a", "demo", hedged, "demo@1", 1.0)), *run.outcomes[1:])
    run = VerifierRun("demo", "1", "builtin", "x", fixed, compute_metrics(fixed))
    (flip,) = compare(BASELINE, [run]).flips
    assert (flip.direction, flip.why, str(flip.before), str(flip.after)) == (
        "broken",
        "hedged: 2 answers",
        "correct(1)",
        "incorrect(0)",
    )


def test_a_verifier_missing_from_the_baseline_is_a_note() -> None:
    comparison = compare(Baseline(), [_run(RECORDED)])
    assert not comparison.regressed
    assert comparison.notes == ("demo@1: not in the baseline (record it with --update-baseline)",)


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        # a typo in a domain name is a usage error with a suggestion
        (["eval", "--domains", "mth"], 2, "Did you mean 'math'?"),
        # an explicit baseline that does not exist is not silently skipped
        (["eval", "--domains", "math", "--baseline", "{tmp}/none.json"], 3, "no baseline at"),
        # a corrupt baseline is an input error
        (["eval", "--domains", "math", "--baseline", "{tmp}/bad.json"], 3, "not an assay eval"),
        # hard timeouts need worker processes
        (["eval", "--domains", "math", "--workers", "0"], 2, "at least one worker"),
    ],
    ids=["unknown-domain", "missing-baseline", "corrupt-baseline", "no-workers"],
)
def test_eval_usage_errors(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    code: int,
    message: str,
) -> None:
    (tmp_path / "bad.json").write_text('{"format": "x"}', encoding="utf-8")
    assert main([a.replace("{tmp}", str(tmp_path)) for a in argv]) == code
    assert message in capsys.readouterr().err
