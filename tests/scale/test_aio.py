"""``ascore`` / AsyncScorer: input order, backpressure, cancellation, shared warm workers."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from scale_verifiers import CommandVerifier

import assay
from assay.aio import AsyncScorer
from assay.registry import Registry
from assay.runner import ScoreOptions


@pytest.fixture(scope="module")
def scorer() -> Iterator[AsyncScorer]:
    registry = Registry()
    registry.register(CommandVerifier)
    scorer = AsyncScorer(ScoreOptions(workers=2), registry, max_in_flight=3)
    yield scorer
    scorer.close()


def record(i: int, command: str) -> dict[str, Any]:
    return {"id": f"a{i}", "domain": "scaleprobe", "response": command, "reference": "x"}


def started(log: Path) -> list[str]:
    if not log.exists():
        return []
    return [line.split()[1] for line in log.read_text().splitlines() if line.startswith("start")]


def test_results_come_in_input_order(scorer: AsyncScorer, tmp_path: Path) -> None:
    log = tmp_path / "log"
    # the first item is the slowest: later items finish first on the other worker
    commands = [f"log:{log}:0.4", "ok", "wrong", f"log:{log}:0.1", "ok", "nonsense"]
    rows = [record(i, c) for i, c in enumerate(commands)]
    results = asyncio.run(scorer.score(rows))
    assert [r.id for r in results] == [f"a{i}" for i in range(6)]
    assert [r.status.value for r in results] == [
        "correct", "correct", "incorrect", "correct", "correct", "unparsable",
    ]  # fmt: skip


def test_backpressure_reads_the_source_only_as_slots_free(
    scorer: AsyncScorer, tmp_path: Path
) -> None:
    log = tmp_path / "log"
    behind: list[int] = []

    async def rollouts() -> AsyncIterator[dict[str, Any]]:
        for i in range(10):
            # item i is read only when at most 3 (max_in_flight) items are unfinished, so
            # at least i - 3 of the earlier ones have started (they log "start" first)
            behind.append(i - len(started(log)))
            yield record(i, f"log:{log}:0.05")

    results = asyncio.run(scorer.score(rollouts()))
    assert [r.status.value for r in results] == ["correct"] * 10
    assert max(behind) <= 3


def test_cancellation_withdraws_queued_items(scorer: AsyncScorer, tmp_path: Path) -> None:
    log = tmp_path / "log"

    async def main() -> list[str]:
        submitted = asyncio.Event()

        async def rollouts() -> AsyncIterator[dict[str, Any]]:
            for i in range(30):
                yield record(i, f"log:{log}:0.2")
            submitted.set()

        big = AsyncScorer(scorer.options, scorer.service.scheduler.registry, max_in_flight=30)
        try:
            task = asyncio.create_task(big.score(rollouts()))
            await submitted.wait()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            # the scorer still works, and its FIFO queue puts this item after the running ones
            after = await big.score([record(99, "ok")])
            assert after[0].status.value == "correct"
        finally:
            big.close()
        return started(log)

    ran = asyncio.run(main())
    assert len(ran) < 30  # queued items never ran


def test_concurrent_calls_share_the_workers(scorer: AsyncScorer) -> None:
    async def main() -> list[list[str]]:
        batches = [[record(10 * b + i, "ok") for i in range(5)] for b in range(4)]
        results = await asyncio.gather(*(scorer.score(batch) for batch in batches))
        return [[r.id for r in batch] for batch in results]

    assert asyncio.run(main()) == [[f"a{10 * b + i}" for i in range(5)] for b in range(4)]


def test_ascore_is_exported_and_scores_math() -> None:
    rows = [
        {"id": "m1", "domain": "math", "response": "\\boxed{4}", "reference": {"answer": "4"}},
        {"id": "m2", "domain": "math", "response": "\\boxed{5}", "reference": {"answer": "4"}},
        {"id": "m3", "domain": "math", "response": "no answer", "reference": {"answer": "4"}},
    ]
    results = asyncio.run(assay.ascore(rows, workers=1))
    assert [r.status.value for r in results][:2] == ["correct", "incorrect"]
    assert [r.verdict for r in results] == [r.verdict for r in assay.score(rows, workers=1)]
