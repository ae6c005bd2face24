"""The local scheduler: priorities, per-domain limits, warm workers, breaker, worker death."""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path

import pytest
from scale_verifiers import CommandVerifier, OtherVerifier

from assay.errors import ConfigError, WorkerError
from assay.records import RawRow
from assay.registry import Registry
from assay.runner import ScoreOptions, Scorer
from assay.scheduling.breaker import CircuitBreaker
from assay.scheduling.policy import SchedulePolicy
from assay.scheduling.scheduler import Scheduler
from assay.scheduling.service import ScoringService
from assay.types import Record, Result, Verdict


@pytest.fixture(scope="module")
def registry() -> Registry:
    registry = Registry()
    registry.register(CommandVerifier)
    registry.register(OtherVerifier)
    return registry


def rows(*items: tuple[str, str]) -> list[RawRow]:
    return [
        RawRow(i, {"id": f"r{i}", "domain": domain, "response": command, "reference": "x"})
        for i, (domain, command) in enumerate(items, start=1)
    ]


def score(registry: Registry, options: ScoreOptions, *items: tuple[str, str]) -> list[Result]:
    with Scorer(options, registry) as scorer:
        return list(scorer.score_rows(rows(*items)))


def test_priority_runs_first(registry: Registry, tmp_path: Path) -> None:
    log = tmp_path / "log"
    items = [("other", f"log:{log}:0"), ("other", f"log:{log}:0")]
    items += [("scaleprobe", f"log:{log}:0"), ("scaleprobe", f"log:{log}:0")]
    policy = SchedulePolicy(priorities={"scaleprobe": 5})
    results = score(registry, ScoreOptions(workers=1, schedule=policy), *items)
    assert [r.id for r in results] == ["r1", "r2", "r3", "r4"]  # output stays in input order
    started = [line.split()[1] for line in log.read_text().splitlines() if line.startswith("start")]
    assert started == ["r3", "r4", "r1", "r2"]  # the urgent domain ran first


def test_domain_limit_keeps_a_domain_on_one_worker(registry: Registry, tmp_path: Path) -> None:
    log = tmp_path / "log"
    items = [("other", f"log:{log}:0.1") for _ in range(4)] + [("scaleprobe", "ok")] * 4
    policy = SchedulePolicy(limits={"other": 1})
    results = score(registry, ScoreOptions(workers=2, schedule=policy), *items)
    assert [r.status.value for r in results] == ["correct"] * 8
    events = [line.split()[0] for line in log.read_text().splitlines()]
    assert events == ["start", "end"] * 4  # never two "other" items at once


def test_warm_domains_are_set_up_before_any_item(
    registry: Registry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ASSAY_TEST_SETUP_DIR", str(tmp_path))
    policy = SchedulePolicy(warm=("scaleprobe",))
    with Scorer(ScoreOptions(workers=2, schedule=policy), registry) as scorer:
        scorer.warm()
        pool = scorer.scheduler.pool
        assert pool is not None
        expected = {f"scaleprobe-{pid}" for pid in pool.worker_pids}
        assert {p.name for p in tmp_path.iterdir()} == expected  # both workers, no item yet


def test_worker_killed_mid_item_loses_nothing(registry: Registry, tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    killed: list[int] = []

    def kill_the_worker() -> None:
        with open(fifo, encoding="utf-8") as handle:  # the worker writes its pid mid-item
            pid = int(handle.read())
        killed.append(pid)
        os.kill(pid, signal.SIGKILL)

    killer = threading.Thread(target=kill_the_worker)
    killer.start()
    items = [("scaleprobe", "ok"), ("scaleprobe", f"fifo-self:{fifo}"), ("scaleprobe", "ok")]
    results = score(registry, ScoreOptions(workers=1), *items)
    killer.join()
    assert [r.status.value for r in results] == ["correct"] * 3  # retried on a fresh worker
    assert results[1].verdict.checks[0].evidence["pid"] != killed[0]


def test_breaker_masks_a_failing_domain_without_stalling(registry: Registry) -> None:
    # every "hang" item would cost its full 0.5 s limit; after 3 the domain is degraded
    policy = SchedulePolicy(breaker_threshold=3, breaker_cooldown_s=3600)
    options = ScoreOptions(workers=1, timeout_s=0.5, schedule=policy)
    items = [("other", "hang")] * 12 + [("scaleprobe", "ok")] * 2
    with Scorer(options, registry) as scorer:
        results = list(scorer.score_rows(rows(*items)))
        assert scorer.scheduler.breaker.degraded() == ["other"]
        later = list(scorer.score_rows(rows(("other", "ok"), ("scaleprobe", "ok"))))
    statuses = [r.status.value for r in results]
    assert statuses == ["timeout"] * 3 + ["error"] * 9 + ["correct"] * 2
    assert "domain 'other' is degraded" in (results[3].verdict.message or "")
    assert "exceeded the 0.5 s time limit" in (results[3].verdict.message or "")
    assert [r.status.value for r in later] == ["error", "correct"]  # still degraded next batch


def test_breaker_probes_and_recovers(registry: Registry) -> None:
    policy = SchedulePolicy(breaker_threshold=2, breaker_cooldown_s=0)
    options = ScoreOptions(workers=1, schedule=policy)
    with Scorer(options, registry) as scorer:
        failing = list(scorer.score_rows(rows(*[("other", "fail")] * 2)))
        assert scorer.scheduler.breaker.degraded() == ["other"]
        probe = list(scorer.score_rows(rows(("other", "ok"), ("other", "ok"))))
        after = list(scorer.score_rows(rows(("other", "ok"), ("other", "ok"))))
    assert all("RuntimeError" in (r.verdict.message or "") for r in failing)
    assert [r.status.value for r in probe] == ["correct", "error"]  # one probe at a time
    assert [r.status.value for r in after] == ["correct", "correct"]  # the probe closed it


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _result(status: str, message: str | None = None) -> Result:
    verdict = {
        "correct": Verdict.correct(),
        "incorrect": Verdict.incorrect(),
        "error": Verdict.error(message or "verifier x@1 raised KeyError"),
        "timeout": Verdict.timeout("exceeded the 1 s time limit"),
    }[status]
    return Result("i", "d", verdict, "d@1", 0.0)


@pytest.mark.parametrize(
    ("history", "opens"),
    [
        (["error", "error", "error"], True),  # three verifier failures in a row
        (["timeout", "timeout", "error"], True),  # timeouts count: a hung service stalls too
        (["error", "correct", "error", "error"], False),  # a success resets the count
        (["error", "incorrect", "error", "error"], False),  # a wrong answer is a success
        (["error", "malformed", "error"], False),  # a malformed task is the task's fault
    ],
    ids=["errors", "timeouts", "reset-by-correct", "reset-by-incorrect", "malformed-ignored"],
)
def test_breaker_counts_only_consecutive_infrastructure_failures(
    history: list[str], opens: bool
) -> None:
    breaker = CircuitBreaker(threshold=3, cooldown_s=10, clock=Clock())
    for status in history:
        if status == "malformed":
            breaker.record(_result("error", "malformed task: no tests"))
        else:
            breaker.record(_result(status))
    assert (breaker.admit("d") is not None) is opens


def test_breaker_half_open_lets_one_probe_through() -> None:
    clock = Clock()
    breaker = CircuitBreaker(threshold=1, cooldown_s=10, clock=clock)
    assert breaker.record(_result("error"))
    assert breaker.admit("d") is not None  # open
    clock.now = 11
    assert breaker.admit("d") is None  # the probe
    assert breaker.admit("d") is not None  # only one probe at a time
    breaker.record(_result("error"))  # the probe failed: open for another cooldown
    clock.now = 15
    assert breaker.admit("d") is not None
    clock.now = 22
    assert breaker.admit("d") is None
    breaker.record(_result("correct"))
    assert breaker.admit("d") is None and breaker.degraded() == []


@pytest.mark.parametrize(
    "kwargs",
    [{"limits": {"code": 0}}, {"breaker_threshold": -1}, {"limits": [("a", 1), ("A", 2)]}],
    ids=["zero-limit", "negative-threshold", "duplicate-domain"],
)
def test_bad_policy_is_refused(kwargs: dict[str, object]) -> None:
    with pytest.raises(ConfigError):
        SchedulePolicy(**kwargs)  # type: ignore[arg-type]


def test_policy_is_hashable_and_equal_by_value() -> None:
    one = SchedulePolicy(priorities={"math": 1, "code": 2}, warm=["code"])
    two = SchedulePolicy(priorities=[("code", 2), ("math", 1)], warm=("code", "code"))
    assert one == two and hash(one) == hash(two)
    assert ScoreOptions(schedule=one) == ScoreOptions(schedule=two)


def test_a_domain_this_process_lacks_is_an_error_verdict(registry: Registry) -> None:
    # a Ray node without a plugin the driver has: the item is an error, the service lives on
    scheduler = Scheduler(ScoreOptions(workers=0), registry)
    scheduler.submit(7, Record("x", "mesh", "a mesh", {"target": "cube"}))
    [(ticket, result)] = scheduler.poll()
    assert ticket == 7 and result.status.value == "error"
    assert "no verifier for domain 'mesh' in this process" in (result.verdict.message or "")


def test_a_pool_that_cannot_start_fails_its_callers(registry: Registry) -> None:
    # a 1 MB address space: every worker dies as it starts; waiting callers get the reason
    service = ScoringService(ScoreOptions(workers=1, memory_mb=1), registry)
    try:
        with pytest.raises(WorkerError, match="could not start"):
            service.warm()
        with pytest.raises(WorkerError, match=r"closed|fail to start"):
            service.score([Record("x", "scaleprobe", "ok", "x")])
    finally:
        service.close()
