"""The verifier in docs/writing-a-verifier.md runs as written."""

from __future__ import annotations

import re
from pathlib import Path

from assay.records import RawRow
from assay.registry import Registry
from assay.runner import ScoreOptions, Scorer
from assay.verifier import Verifier

DOC = Path(__file__).resolve().parents[1] / "docs" / "writing-a-verifier.md"


def test_documented_verifier_works(tmp_path: Path, monkeypatch: object) -> None:
    source = re.search(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert source is not None
    module = tmp_path / "doc_length_verifier.py"
    module.write_text(source.group(1))
    import sys

    sys.path.insert(0, str(tmp_path))
    try:
        import doc_length_verifier

        cls = doc_length_verifier.LengthVerifier
        assert issubclass(cls, Verifier)
        registry = Registry()
        registry.register(cls)
        rows = [
            RawRow(
                1,
                {
                    "id": "a",
                    "domain": "distance",
                    "response": "150 cm",
                    "reference": {"metres": 1.5},
                },
            ),
            RawRow(
                2, {"id": "b", "domain": "length", "response": "2 m", "reference": {"metres": 1.5}}
            ),
            RawRow(
                3, {"id": "c", "domain": "length", "response": "long", "reference": {"metres": 1.5}}
            ),
            RawRow(4, {"id": "d", "domain": "length", "response": "1 m", "reference": {"feet": 3}}),
        ]
        with Scorer(ScoreOptions(workers=1), registry) as scorer:
            statuses = [r.status.value for r in scorer.score_rows(rows)]
        assert statuses == ["correct", "incorrect", "unparsable", "error"]
    finally:
        sys.path.remove(str(tmp_path))
