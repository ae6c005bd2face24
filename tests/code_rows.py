"""Code rows as benchmarks ship them, for the test modules that score them."""

from __future__ import annotations

import base64
import json
import pickle
import zlib


def lcb_compress(cases: list[dict[str, str]]) -> str:
    """LiveCodeBench's private_test_cases encoding: base64(zlib(pickle(json string)))."""
    return base64.b64encode(zlib.compress(pickle.dumps(json.dumps(cases)))).decode()


LCB_STDIN = {
    "question_id": "abc300_a",
    "platform": "atcoder",
    "starter_code": "",
    "public_test_cases": json.dumps([{"input": "3 5\n", "output": "8\n", "testtype": "stdin"}]),
    "private_test_cases": lcb_compress(
        [
            {"input": "10 20\n", "output": "30\n", "testtype": "stdin"},
            {"input": "0 0\n", "output": "0\n", "testtype": "stdin"},
        ]
    ),
    "metadata": "{}",
}
"""A LiveCodeBench stdin row (a + b), its private cases compressed as published."""
