"""The runner: isolation, hard timeouts from any thread, crashes, order, resume inputs."""

from __future__ import annotations

import threading
import time

import pytest

from assay.records import RawRow
from assay.registry import Registry
from assay.runner import ScoreOptions, Scorer
from assay.types import Result


def _rows(*commands: str) -> list[RawRow]:
    return [
        RawRow(i, {"id": f"r{i}", "domain": "probe", "response": c, "reference": "x"})
        for i, c in enumerate(commands, start=1)
    ]


@pytest.mark.parametrize(
    ("command", "status", "message"),
    [
        ("ok", "correct", None),  # the happy path
        ("wrong", "incorrect", None),  # a wrong answer is not an error
        ("spin", "timeout", "time limit"),  # a CPU hog is killed from the parent
        ("ignore-term", "timeout", "time limit"),  # SIGTERM ignored: SIGKILL still ends it
        ("crash", "error", "SIGSEGV"),  # a segfault is retried once then reported, not hidden
        ("oom", "error", "memory"),  # a memory blow-up hits the worker cap
        # a blow-up that the time limit ends (a slow machine): still memory, not timeout
        ("slow-oom", "error", "memory"),
        ("raise", "error", "ZeroDivisionError"),  # a verifier bug is masked, never a silent 0
        ("malformed", "error", "malformed task"),  # a bad task is the task's fault
    ],
    ids=["ok", "wrong", "spin", "ignore-term", "crash", "oom", "slow-oom", "raise", "malformed"],
)
def test_each_failure_is_a_typed_verdict(
    probe_scorer: Scorer, command: str, status: str, message: str | None
) -> None:
    (result,) = probe_scorer.score_rows(_rows(command))
    assert result.status.value == status
    if message is None:
        assert result.verdict.message is None
    else:
        assert message in (result.verdict.message or "")


def test_one_bad_item_does_not_stop_the_batch(probe_scorer: Scorer) -> None:
    commands = ["ok", "spin", "ok", "crash", "wrong", "oom", "ok"]
    results = list(probe_scorer.score_rows(_rows(*commands)))
    assert [r.id for r in results] == [f"r{i}" for i in range(1, 8)]  # input order, none lost
    assert [r.status.value for r in results] == [
        "correct",
        "timeout",
        "correct",
        "error",
        "incorrect",
        "error",
        "correct",
    ]


def test_order_is_kept_under_parallelism(probe_scorer: Scorer) -> None:
    commands = ["sleep:0.3", *["ok"] * 40, "sleep:0.2", *["wrong"] * 10]
    results = list(probe_scorer.score_rows(_rows(*commands)))
    assert [r.id for r in results] == [f"r{i}" for i in range(1, len(commands) + 1)]


def test_workers_are_reused_between_items(probe_scorer: Scorer) -> None:
    results = list(probe_scorer.score_rows(_rows(*["pid"] * 30)))
    pids = {r.verdict.checks[0].evidence["pid"] for r in results}
    assert len(pids) <= 2  # pre-started workers, not a process per item


def test_timeout_enforced_from_a_worker_thread(probe_registry: Registry) -> None:
    """No signal.alarm: the limit holds when scoring runs off the main thread (Ray, verl)."""
    out: list[Result] = []

    def work() -> None:
        with Scorer(ScoreOptions(workers=1, timeout_s=1.0), probe_registry) as scorer:
            out.extend(scorer.score_rows(_rows("spin", "ok")))

    thread = threading.Thread(target=work)
    started = time.monotonic()
    thread.start()
    thread.join(timeout=60)
    assert not thread.is_alive()
    assert [r.status.value for r in out] == ["timeout", "correct"]
    assert time.monotonic() - started < 30  # ended by the limit, not by the test's timeout


def test_inline_mode_scores_in_process(probe_registry: Registry) -> None:
    with Scorer(ScoreOptions(workers=0), probe_registry) as scorer:
        results = list(scorer.score_rows(_rows("ok", "wrong", "raise")))
    assert [r.status.value for r in results] == ["correct", "incorrect", "error"]


def test_skip_ids_are_not_rescored(probe_scorer: Scorer) -> None:
    results = list(probe_scorer.score_rows(_rows("ok", "wrong", "ok"), skip_ids={"r2"}))
    assert [r.id for r in results] == ["r1", "r3"]


def test_cache_makes_rescoring_free(probe_registry: Registry, tmp_path: object) -> None:
    options = ScoreOptions(workers=1, cache_dir=str(tmp_path))
    with Scorer(options, probe_registry) as scorer:
        first = list(scorer.score_rows(_rows("ok", "wrong", "spin")))
        assert scorer.cache is not None and scorer.cache.hits == 0
    with Scorer(ScoreOptions(workers=1, cache_dir=str(tmp_path), timeout_s=1), probe_registry) as s:
        second = list(s.score_rows(_rows("ok", "wrong", "spin")))
        assert s.cache is not None
        assert s.cache.hits == 2  # timeouts are not cached: they describe a run, not an answer
    assert [r.status for r in first] == [r.status for r in second]
    assert second[0].elapsed_ms == 0.0
