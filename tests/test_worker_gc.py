"""A worker freezes what its verifiers' set-up left alive, so items do not re-traverse it.

A worker that set up torch, trimesh or a tokenizer holds hundreds of thousands of long-lived
objects; a full collection that an item triggers would walk them all again. After set-up
(warm, before the worker says hello, or lazily, for the first item of a domain) they are moved
out of the collector's view; what an item allocates stays in it and is collected as always.
"""

from __future__ import annotations

import gc

from assay.records import RawRow
from assay.registry import Registry
from assay.runner import ScoreOptions, Scorer
from assay.worker import freeze_long_lived


def test_set_up_objects_are_out_of_view_and_item_objects_in_it(probe_registry: Registry) -> None:
    rows = [RawRow(1, {"id": "f1", "domain": "probe", "response": "frozen", "reference": "x"})]
    with Scorer(ScoreOptions(workers=1), probe_registry) as scorer:
        (result,) = scorer.score_rows(rows)
    evidence = result.verdict.checks[0].evidence
    assert evidence == {"setup_in_view": False, "item_in_view": True}


def test_freezing_keeps_collecting_what_comes_after() -> None:
    class Cycle:
        def __init__(self) -> None:
            self.me = self

    freeze_long_lived()  # in the test process too, as tests/conftest.py does after collection
    Cycle()  # garbage made after the freeze: a collection still finds it
    assert gc.collect() >= 1
