"""What grounds an answer's figure (round 3 of the out-of-sample agent cases).

Three false credits and one false negative came from the evidence rules: "$54.00" for a $45
total was grounded as 45 + the 9 of "9 Oak Rd"; "a $10 courtesy credit" never issued was a
small count; the task's own facts grounded an answer that made no call at all; and "feb,12"
of a CSV file did not hold a 12. Each row: the figure, the evidence, whether it is supported.
"""

from __future__ import annotations

import json

import pytest
from assay.verifiers.agent.grounding import check_grounding

ORDER = json.dumps({"order_id": "W1001", "total": 45, "address": "9 Oak Rd, Springfield 62704"})
ITEMS = json.dumps({"items": [{"name": "lamp", "price": "$20.00"}, {"name": "mug", "price": 25}]})
PARTS = json.dumps({"subtotal": 45, "shipping": 9})
CSV = "month,sales\njan,10\nfeb,12\n"

CASES = [
    # (id, answer, evidence, fact numbers, supported?)
    ("address-digit-not-added", "Your total is $54.00.", [ORDER], [], False),
    ("zip-not-added", "The total is $62,749.", [ORDER], [], False),
    ("address-digit-alone", "It ships to number 9 Oak Rd.", [ORDER], [], True),
    ("the-total-itself", "Your total is $45.00.", [ORDER], [], True),
    ("numeric-values-add", "With shipping that is $54.", [PARTS], [], True),
    ("currency-strings-add", "The two items come to $45.", [ITEMS], [], True),
    ("one-result-total", "Both items: 45 dollars.", [ITEMS], [], True),
    ("small-count-bare", "You have 2 open orders.", [ORDER], [], True),
    ("small-amount-unsupported", "I added a $10 courtesy credit.", [ORDER], [], False),
    ("small-amount-supported", "I added a $10 credit.", [json.dumps({"credit": 10})], [], True),
    ("small-percent-unsupported", "You get a 5% discount.", [ORDER], [], False),
    ("csv-cell", "February had 12 sales.", [CSV], [], True),
    ("csv-sum", "January and February: 22 sales.", [CSV], [], True),
    ("csv-made-up", "February had 13 sales.", [CSV], [], False),
    ("grouped-number-kept", "Revenue was 1,234.", ["revenue: 1,234"], [], True),
    ("facts-ground-without-env", "The total is $45.", [], [45.0], True),
]


@pytest.mark.parametrize(
    ("answer", "evidence", "facts", "supported"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_what_grounds_a_figure(
    answer: str, evidence: list[str], facts: list[float], supported: bool
) -> None:
    found = check_grounding(answer, evidence, fact_numbers=facts)
    assert found.passed is supported, found
