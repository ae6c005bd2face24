"""Conformance checks for verifier authors: the contract every assay verifier keeps.

Each ``check_*`` method raises :class:`ConformanceError` (an ``AssertionError``, so pytest shows
it as a test failure) listing every case that breaks the rule:

- ``check_registered``: the name resolves to this class in the default registry (for a plugin:
  the entry point is installed and loads).
- ``check_gold_scores_correct``: every case labelled ``correct`` scores ``correct``.
- ``check_known_bad_not_correct``: no case labelled otherwise scores ``correct``.
- ``check_labels``: every case gets exactly its labelled status (and pinned score).
- ``check_bad_input_typed``: hostile or broken output (empty, huge, binary, deeply nested
  responses; garbage trajectories) gets a zero-score ``incorrect`` / ``unparsable`` verdict,
  and an unusable reference an ``error`` verdict saying "malformed task" (not a score: the
  task's fault is masked, never paid or charged to the response), never an escaped exception
  or a timeout.
- ``check_deterministic``: the fixtures scored again, in reverse order, give the same verdicts.

``Conformance(cls, sample=N)`` runs every check over at most ``N`` of the fixtures, drawn the
same way each time (round robin over ``meta.category`` in file order), to keep a suite fast.

Items run through assay's worker pool with the verifier's hard time limit, exactly as
``assay score`` runs them (the verifier class must be importable from its module).

Example:
    >>> from assay.testing import Conformance  # doctest: +SKIP
    >>> conformance = Conformance(LengthVerifier)  # doctest: +SKIP
    >>> conformance.check_all()  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from assay.boundary import MALFORMED_TASK
from assay.errors import ConfigError, UnknownDomainError
from assay.evaluation.cases import LabelledCase, load_cases
from assay.evaluation.metrics import Outcome
from assay.evaluation.run import Evaluator
from assay.registry import Registry, default_registry
from assay.types import JSON, Result, Status
from assay.verifier import Verifier

BAD_RESPONSES: dict[str, str] = {
    "empty": "",
    "whitespace": " \n\t \r\n ",
    "nul-and-control-bytes": "\x00\x01\x02\x1b[31m\x7f\x00",
    "huge": "a" * 200_000,
    "many-lines": "\n" * 50_000,
    "deep-nesting": "{" * 5_000 + "}" * 5_000,
    "deep-latex": "\\boxed{" * 2_000 + "}" * 2_000,
    "mixed-scripts": "\u202eanswer\u202c \u0627\u0644\u062c\u0648\u0627\u0628 \U0001f600 \ufeff",
    "lone-surrogate": "answer: \ud800",
}
"""Responses no verifier may give credit to or crash on (model output is data)."""

BAD_STEPS: dict[str, list[dict[str, JSON]]] = {
    "garbage-messages": [
        {"role": "assistant", "content": None, "tool_calls": "call everything"},
        {"role": 42, "content": ["?"]},
        {},
    ],
    "broken-tool-call": [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "x", "type": "function", "function": {"name": "", "arguments": "{not json"}}
            ],
        },
        {"role": "tool", "tool_call_id": "nobody", "content": "\x00" * 1000},
    ],
}
"""Trajectories (the record's ``steps``) that are broken the same way, with an empty response."""

BAD_REFERENCES: dict[str, JSON] = {
    "empty-object": {},
    "empty-list": [],
    "wrong-type": True,
    "nested-garbage": {"answer": {"answer": [None]}, "tests": "x"},
}
"""References no verifier can score against: each must get an ``error`` verdict whose message starts
with "malformed task" (the task's fault, masked), never a score for the response. (A JSON number is
a usable reference in some domains, math's for one, so the wrong type here is a boolean.)"""


class ConformanceError(AssertionError):
    """A verifier breaks the conformance contract; the message lists each offending case."""


@dataclass(frozen=True, slots=True)
class Probe:
    """One crafted record and the rule its verdict must satisfy."""

    id: str
    row: dict[str, JSON]
    bad_response: bool


class Conformance:
    """Runs the conformance checks for one verifier class.

    Args:
        verifier: The class under test.
        fixtures: Its labelled cases (default: ``verifier.fixtures``).
        workers: Worker processes to score with.
        sample: At most this many cases (see :func:`sample_cases`); ``None``: all of them.
    """

    def __init__(
        self,
        verifier: type[Verifier],
        fixtures: Path | None = None,
        workers: int = 1,
        sample: int | None = None,
    ) -> None:
        self.verifier = verifier
        self.fixtures = Path(fixtures) if fixtures else verifier.fixtures
        self.workers = workers
        self.sample = sample
        self._outcomes: tuple[Outcome, ...] | None = None

    # the checks ---------------------------------------------------------------------------

    def check_all(self) -> None:
        """Every check, stopping at the first that fails."""
        self.check_registered()
        self.check_gold_scores_correct()
        self.check_known_bad_not_correct()
        self.check_labels()
        self.check_bad_input_typed()
        self.check_deterministic()

    def check_registered(self) -> None:
        try:
            entry = default_registry().entry(self.verifier.name)
        except UnknownDomainError as exc:
            raise ConformanceError(
                f"{self.verifier.name!r} is not registered: install the distribution "
                "(pip install -e .) so that its entry point in the group 'assay.verifiers' "
                f"is found ({exc})"
            ) from None
        if entry.cls is not self.verifier:
            raise ConformanceError(
                f"{self.verifier.name!r} resolves to {entry.cls.__module__}."
                f"{entry.cls.__qualname__} ({entry.source}), not to {self.verifier.__qualname__}"
            )

    def check_gold_scores_correct(self) -> None:
        gold = [o for o in self.outcomes() if o.case.expected is Status.CORRECT]
        if not gold:
            raise ConformanceError(f"{self._where()}: no case labelled 'correct'")
        _fail_if("gold answers not scored correct", [o for o in gold if o.false_negative])

    def check_known_bad_not_correct(self) -> None:
        bad = [o for o in self.outcomes() if o.case.expected is not Status.CORRECT]
        if not bad:
            raise ConformanceError(f"{self._where()}: no known-bad case (label other than correct)")
        _fail_if(
            "known-bad answers scored correct",
            [o for o in bad if o.result.status is Status.CORRECT],
        )

    def check_labels(self) -> None:
        _fail_if(
            "verdicts that differ from the label", [o for o in self.outcomes() if not o.agrees]
        )

    def check_bad_input_typed(self) -> None:
        probes = self.probes()
        with Evaluator(self._registry(), self.workers) as evaluator:
            results = evaluator.score_rows([p.row for p in probes])
        problems = [
            f"{probe.id}: {problem}"
            for probe, result in zip(probes, results, strict=True)
            if (problem := _probe_problem(probe, result, self.verifier))
        ]
        if problems:
            raise ConformanceError(
                "bad input not answered with a typed verdict:\n  " + "\n  ".join(problems)
            )

    def check_deterministic(self) -> None:
        first = self.outcomes()
        cases = [o.case for o in reversed(first)]
        with Evaluator(self._registry(), self.workers) as evaluator:
            again = dict(
                zip(
                    (c.id for c in cases),
                    evaluator.score_rows([dict(c.row) for c in cases]),
                    strict=True,
                )
            )
        changed = [
            f"{o.case.id}: {_summary(o.result)} then {_summary(again[o.case.id])}"
            for o in first
            if _fingerprint(o.result) != _fingerprint(again[o.case.id])
        ]
        if changed:
            raise ConformanceError(
                "verdicts that change when scored again:\n  " + "\n  ".join(changed)
            )

    # the data ------------------------------------------------------------------------------

    def cases(self) -> list[LabelledCase]:
        if self.fixtures is None:
            raise ConformanceError(
                f"{self.verifier.__qualname__} declares no fixtures (set the class attribute "
                "`fixtures` to a JSONL file of labelled cases)"
            )
        cases = load_cases(Path(self.fixtures), self.verifier.name)
        return cases if self.sample is None else sample_cases(cases, self.sample)

    def outcomes(self) -> tuple[Outcome, ...]:
        """The fixtures scored once (cached for the checks that share them)."""
        if self._outcomes is None:
            cases = self.cases()
            with Evaluator(self._registry(), self.workers) as evaluator:
                results = evaluator.score_rows([dict(c.row) for c in cases])
            self._outcomes = tuple(Outcome(c, r) for c, r in zip(cases, results, strict=True))
        return self._outcomes

    def probes(self) -> list[Probe]:
        """Bad responses and trajectories against the first gold case's reference, and bad
        references with the gold case's response."""
        gold = next((c for c in self.cases() if c.expected is Status.CORRECT), None)
        if gold is None:
            raise ConformanceError(f"{self._where()}: no case labelled 'correct' to probe with")
        base = {k: v for k, v in gold.row.items() if k != "meta"}
        # the model's output is the response and the trajectory: a broken one replaces both
        output = {k: v for k, v in base.items() if k != "steps"}
        probes = [
            Probe(f"response:{name}", {**output, "id": f"probe-r-{name}", "response": text}, True)
            for name, text in BAD_RESPONSES.items()
        ]
        probes += [
            Probe(
                f"steps:{name}",
                {**output, "id": f"probe-s-{name}", "response": "", "steps": steps},
                True,
            )
            for name, steps in BAD_STEPS.items()
        ]
        probes += [
            Probe(f"reference:{name}", {**base, "id": f"probe-f-{name}", "reference": ref}, False)
            for name, ref in BAD_REFERENCES.items()
        ]
        return probes

    def _registry(self) -> Registry:
        registry = Registry()
        registry.register(self.verifier, "conformance")
        return registry

    def _where(self) -> str:
        return f"{self.verifier.__qualname__} fixtures {self.fixtures}"


def sample_cases(cases: Sequence[LabelledCase], size: int) -> list[LabelledCase]:
    """At most ``size`` cases, the same ones every time.

    The places are dealt to the ``meta.category`` values in turn (in order of first appearance),
    so every kind of case is represented before any kind twice; within a category the cases taken
    are spread evenly through its file order. The result keeps file order.
    """
    if size < 1:
        raise ConfigError(f"sample size must be at least 1, got {size}")
    by_category: dict[str, list[int]] = {}
    for index, case in enumerate(cases):
        by_category.setdefault(case.category, []).append(index)
    queues = list(by_category.values())
    quota = [0] * len(queues)
    left = min(size, len(cases))
    while left:
        for n, queue in enumerate(queues):
            if left and quota[n] < len(queue):
                quota[n] += 1
                left -= 1
    chosen = [
        queue[(j * len(queue)) // k]
        for queue, k in zip(queues, quota, strict=True)
        for j in range(k)
    ]
    return [cases[i] for i in sorted(chosen)]


def _probe_problem(probe: Probe, result: Result, verifier: type[Verifier]) -> str | None:
    status, message = result.status, result.verdict.message or ""
    escaped = message.startswith(f"verifier {verifier.name}@{verifier.version} ")
    if status is Status.TIMEOUT:
        return f"timed out ({message})"
    if escaped or (status is Status.ERROR and not message.startswith(MALFORMED_TASK)):
        return f"an exception escaped the verifier: {message}"
    if probe.bad_response and (status not in (Status.INCORRECT, Status.UNPARSABLE)):
        return f"got {status.value} ({result.score:g}); a broken response must score 0"
    if not probe.bad_response and status is not Status.ERROR:
        return (
            f"got {status.value} ({result.score:g}); a broken reference must be an error "
            f"saying {MALFORMED_TASK!r}"
        )
    return None


def _fingerprint(result: Result) -> tuple[object, ...]:
    checks = tuple((c.name, c.passed) for c in result.verdict.checks)
    return (result.status, round(result.score, 9), checks)


def _summary(result: Result) -> str:
    return f"{result.status.value}({result.score:g})"


def _fail_if(what: str, outcomes: Sequence[Outcome]) -> None:
    if outcomes:
        lines = [
            f"{o.case.id}: label {o.case.expected.value}, got {_summary(o.result)}"
            f"{' - ' + o.result.verdict.message if o.result.verdict.message else ''}"
            for o in outcomes
        ]
        raise ConformanceError(f"{len(outcomes)} {what}:\n  " + "\n  ".join(lines))
