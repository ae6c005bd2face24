"""Blame: every row of the attribution table (docs/architecture.md, "Blame"), scored for real.

The probe verifier's response is a command; ``owned:<command>`` runs it as response-owned work
(:class:`assay.blame.response_owned`). Each row says what the response did, the status, the
failed check, and whether the default reward spec masks it. Domain rows (math, agent) live in
tests/math/test_math_attacks_cost.py and tests/agent/test_agent_attacks_budget.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import NamedTuple

import pytest
from assay.rewards.spec import RewardSpec

from assay.blame import (
    RESOURCES,
    TOO_COSTLY,
    Budget,
    ItemClock,
    Phase,
    PhaseBoard,
    ResponseFault,
    begin_item,
    current_phase,
    end_item,
    exhaustion,
    response_owned,
)
from assay.records import RawRow
from assay.registry import Registry
from assay.runner import ScoreOptions, Scorer
from assay.types import Result, Status, Verdict

TESTS = Path(__file__).resolve().parent


class Row(NamedTuple):
    """What the response does, the status, the failed check, masked by default, and why."""

    command: str
    status: str
    check: str | None
    masked: bool
    why: str


ROWS = [
    Row(*row)
    for row in [
        ("wrong", "incorrect", None, False, "an honest wrong answer: the yardstick"),
        ("spin", "timeout", None, True, "the verifier's own hang: killed, masked"),
        ("sleep:60", "timeout", None, True, "the verifier waits past the limit: masked"),
        ("owned:spin", "incorrect", TOO_COSTLY, False, "the response makes the check hang"),
        ("owned:sleep:60", "incorrect", TOO_COSTLY, False, "the check waits on the response"),
        ("owned-then-spin", "timeout", None, True, "owned work ended: the hang is the verifier's"),
        ("budget", "incorrect", TOO_COSTLY, False, "many steps spend the one budget"),
        ("steps:101", "incorrect", TOO_COSTLY, False, "more steps than the budget allows"),
        ("steps:100", "correct", None, False, "a budget that is not spent pays"),
        ("fault", "incorrect", TOO_COSTLY, False, "a ResponseFault raised from the verifier"),
        ("oom", "error", None, True, "the verifier's own memory blow-up: masked"),
        ("owned:oom", "incorrect", TOO_COSTLY, False, "the response fills the memory cap"),
        ("recurse", "error", None, True, "the verifier's own recursion: masked"),
        ("owned:recurse", "incorrect", TOO_COSTLY, False, "the response nests past the stack"),
        ("overflow", "error", None, True, "the verifier's own overflow: a bug, masked"),
        ("owned:overflow", "incorrect", TOO_COSTLY, False, "a value too large to compare"),
        ("owned:bigint", "incorrect", TOO_COSTLY, False, "an int too long to print"),
        ("crash", "error", None, True, "the worker dies outside owned work: masked"),
        ("owned:crash", "incorrect", TOO_COSTLY, False, "the worker dies twice on the response"),
        ("owned:raise", "error", None, True, "a bug inside owned work stays a masked error"),
        ("malformed", "error", None, True, "an unusable reference is the task's fault"),
    ]
]
IN_PROCESS = [
    row
    for row in ROWS
    if not any(k in row.command for k in ("sleep", "spin", "oom", "crash", "budget"))
]


def _rows(*commands: str) -> list[RawRow]:
    return [
        RawRow(i, {"id": f"r{i}", "domain": "probe", "response": c, "reference": "x"})
        for i, c in enumerate(commands, start=1)
    ]


def _assert_row(result: Result, status: str, check: str | None, masked: bool) -> None:
    verdict = result.verdict
    assert result.status.value == status, verdict.message
    if check is not None:
        failed = [c.name for c in verdict.checks if not c.passed]
        assert failed == [check], verdict.message
    assert RewardSpec().reward(verdict).masked is masked


def _ids(rows: list[Row]) -> list[str]:
    return [row.command for row in rows]


@pytest.fixture(scope="module")
def pool_results(probe_registry: Registry) -> dict[str, Result]:
    """Every row scored once, in one batch over a two-worker pool.

    The wall-clock backstop is ten times the limit here (three by default), so that even a
    machine that gives the workers a tenth of a CPU sees each limit for what it is (the
    residual case of docs/architecture.md, "Blame"); test_verdicts_do_not_depend_on_load
    checks the default under load."""
    commands = [row.command for row in ROWS]
    options = ScoreOptions(workers=2, memory_mb=1024, wall_factor=10.0)
    with Scorer(options, probe_registry) as scorer:
        results = list(scorer.score_rows(_rows(*commands)))
    return dict(zip(commands, results, strict=True))


@pytest.mark.parametrize("row", ROWS, ids=_ids(ROWS))
def test_attribution_table_in_the_pool(pool_results: dict[str, Result], row: Row) -> None:
    _assert_row(pool_results[row.command], row.status, row.check, row.masked)


@pytest.mark.parametrize("row", IN_PROCESS, ids=_ids(IN_PROCESS))
def test_attribution_table_in_process(probe_registry: Registry, row: Row) -> None:
    with Scorer(ScoreOptions(workers=0), probe_registry) as scorer:
        (result,) = scorer.score_rows(_rows(row.command))
    _assert_row(result, row.status, row.check, row.masked)


def test_a_kill_in_owned_work_names_the_work_and_the_limit(
    pool_results: dict[str, Result],
) -> None:
    verdict = pool_results["owned:spin"].verdict
    (check,) = verdict.checks
    assert "probe command 'owned:spin'" in (verdict.message or "")
    assert check.evidence["limit_s"] == 2.0
    assert check.evidence["own_s"] >= 2.0


@pytest.mark.parametrize("timeout_s", [0.3, 60.0], ids=["time-first", "memory-first"])
def test_owned_memory_blow_up_is_one_verdict_whichever_limit_comes_first(
    probe_registry: Registry, timeout_s: float
) -> None:
    """0.3 s: the time limit ends it before 1 GB is filled; 60 s: the memory cap ends it."""
    options = ScoreOptions(workers=1, memory_mb=1024, timeout_s=timeout_s)
    with Scorer(options, probe_registry) as scorer:
        (result,) = scorer.score_rows(_rows("owned:fill-oom"))
    _assert_row(result, "incorrect", TOO_COSTLY, False)


def test_hanging_earns_no_more_than_an_honest_wrong_answer(
    pool_results: dict[str, Result],
) -> None:
    """Under the default spec and under one that punishes wrong answers, a response that
    makes the check hang, fill memory, crash the worker or overrun its budget is paid exactly
    what an honest wrong answer is, and it takes part in the loss."""
    wrong = pool_results["wrong"].verdict
    attacks = ["owned:spin", "owned:sleep:60", "owned:oom", "owned:crash", "budget"]
    for spec in (RewardSpec(), RewardSpec(rewards={"incorrect": -1.0})):
        honest = spec.reward(wrong)
        for command in attacks:
            hostile = spec.reward(pool_results[command].verdict)
            assert hostile.reward <= honest.reward, command
            assert not hostile.masked, command


def test_default_spec_masks_only_error_and_timeout() -> None:
    assert RewardSpec().mask_statuses == frozenset({Status.ERROR, Status.TIMEOUT})
    keep_open = RewardSpec.from_dict({"mask_statuses": ["error"]})
    assert keep_open.reward(Verdict.timeout("slow")).masked is False
    assert keep_open.reward(Verdict.error("bug")).masked is True


# --- the pieces ----------------------------------------------------------------------------


def test_declarations_nest_and_are_published_on_the_board() -> None:
    board = PhaseBoard.create()
    reader = PhaseBoard.attach(os.dup(board.fd or -1))
    from assay import blame

    blame.install_board(board)
    try:
        begin_item(7, None)
        assert reader.read() is None
        with response_owned("outer", RESOURCES):
            assert reader.read() == blame.Phase(7, RESOURCES, "outer")
            with response_owned("inner"):
                assert reader.read() == blame.Phase(7, TOO_COSTLY, "inner")
            assert current_phase() == blame.Phase(7, RESOURCES, "outer")
        assert reader.read() is None
        end_item()
    finally:
        blame.install_board(None)
        reader.close()
        board.close()


@pytest.mark.parametrize(
    ("error", "converted"),
    [
        (MemoryError(), True),
        (RecursionError(), True),
        (OverflowError("int too large to convert to float"), True),
        (ValueError("Exceeds the limit (4300 digits) for integer string conversion"), True),
        (ValueError("math domain error"), False),
        (ZeroDivisionError("bug"), False),
        (TypeError("bug"), False),
    ],
)
def test_only_exhaustion_inside_owned_work_is_the_responses(
    error: Exception, converted: bool
) -> None:
    assert (exhaustion(error) is not None) is converted
    raised: BaseException | None = None
    try:
        with response_owned("work"):
            raise error
    except BaseException as exc:
        raised = exc
    if converted:
        assert isinstance(raised, ResponseFault)
        assert raised.check == TOO_COSTLY
    else:
        assert raised is error


def test_item_clock_leaves_out_the_time_spent_waiting_for_a_cpu() -> None:
    waited = [10.0]
    clock = ItemClock(1.0, run_delay=lambda: waited[0])
    start = clock.started
    waited[0] = 10.0 + 5.0  # five seconds on the run queue
    assert clock.used(start + 6.0) == pytest.approx(1.0)
    assert clock.wall(start + 6.0) == pytest.approx(6.0)
    unknown = ItemClock(1.0, run_delay=lambda: None)
    assert unknown.used(unknown.started + 2.0) == pytest.approx(2.0)


def test_budget_checks_the_items_own_time() -> None:
    begin_item(1, 0.05)
    try:
        budget = Budget("spinning")
        with pytest.raises(ResponseFault) as caught:
            while True:
                budget.step()
    finally:
        end_item()
    assert caught.value.check == TOO_COSTLY
    assert caught.value.evidence["budget_s"] == pytest.approx(0.04)


LOADED = textwrap.dedent(
    """
    import os, subprocess, sys, time
    sys.path.insert(0, {tests!r})
    from probe_verifier import ProbeVerifier
    from assay.records import RawRow
    from assay.registry import Registry
    from assay.runner import ScoreOptions, Scorer

    os.sched_setaffinity(0, {{min(os.sched_getaffinity(0))}})  # children inherit one CPU
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(3)]
    try:
        registry = Registry()
        registry.register(ProbeVerifier)
        commands = ["ok", "oom", "owned:oom", "spin", "owned:spin", "wrong"]
        rows = [RawRow(i, {{"id": str(i), "domain": "probe", "response": c, "reference": "x"}})
                for i, c in enumerate(commands)]
        with Scorer(ScoreOptions(workers=1, memory_mb=1024), registry) as scorer:
            scorer.warm()
            print(" ".join(r.status.value for r in scorer.score_rows(rows)))
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    """
)


def test_verdicts_do_not_depend_on_load() -> None:
    """The pool's worker shares one CPU with three busy loops (a quarter of a core): the
    memory blow-ups are still seen as memory, the hangs still as hangs."""
    script = LOADED.format(tests=str(TESTS))
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=240, check=True
    )
    statuses = ["correct", "error", "incorrect", "timeout", "incorrect", "incorrect"]
    assert done.stdout.split() == statuses, done.stderr[-2000:]


def test_a_nested_run_verifier_keeps_the_outer_items_declaration(
    probe_registry: Registry,
) -> None:
    """A verifier that runs another through run_verifier does the work for the outer item: the
    outer declaration stays open (and on the board) after the inner call returns."""
    from assay.boundary import run_verifier
    from assay.types import Record

    inner = probe_registry.get("probe")
    begin = begin_item(3, 1.0)
    try:
        with response_owned("outer work"):
            seen = run_verifier(inner, Record("i", "probe", "phase", "x"), seq=9)
            result = run_verifier(inner, Record("i", "probe", "owned:recurse", "x"))
            assert current_phase() == Phase(3, TOO_COSTLY, "outer work")
        assert current_phase() is None
    finally:
        end_item(begin)
    assert seen.verdict.checks[0].evidence["phase"] == [3, TOO_COSTLY, "outer work"]
    assert result.status is Status.INCORRECT
