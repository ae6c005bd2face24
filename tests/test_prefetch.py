"""Chunks and ``Verifier.prefetch``: what a worker prepares for a chunk changes no verdict.

Items of a cheap domain travel to a worker in chunks (about 0.5 s of work, at most an even
share of the queue); the worker lets the domain's verifier prepare the chunk's shared work
(the code domain lints it with one ruff) before verifying each item.
"""

from __future__ import annotations

from assay.records import RawRow
from assay.registry import Registry
from assay.runner import ScoreOptions, Scorer


def _chunks(registry: Registry, responses: list[str], workers: int) -> list[tuple[int, int]]:
    rows = [
        RawRow(n, {"id": f"p{n}", "domain": "probe", "response": text, "reference": "x"})
        for n, text in enumerate(responses, 1)
    ]
    with Scorer(ScoreOptions(workers=workers), registry) as scorer:
        results = list(scorer.score_rows(rows))
    assert [r.status.value for r in results] == ["correct"] * len(rows)
    return [(int(r.verdict.checks[0].evidence["chunk"]), int(r.verdict.checks[0].evidence["pid"]))
            for r in results]  # fmt: skip


def test_cheap_items_reach_prefetch_in_chunks_of_at_most_an_even_share(
    probe_registry: Registry,
) -> None:
    sizes = [size for size, _ in _chunks(probe_registry, ["chunk"] * 80, workers=2)]
    assert max(sizes) > 1  # once the domain's cost is measured, items travel together
    assert max(sizes) <= 40  # never more than an even share of what was queued


def test_a_prefetch_that_raises_changes_no_verdict(probe_registry: Registry) -> None:
    responses = ["chunk"] * 30 + ["prefetch-raise"] + ["chunk"] * 30
    seen = _chunks(probe_registry, responses, workers=1)
    assert 1 in {size for size, _ in seen}  # the failed prefetch's chunk: each item alone
    assert len({pid for _, pid in seen}) == 1  # in the same worker: nothing died or restarted
