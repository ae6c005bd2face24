"""Nothing a response or a verifier puts in a verdict can stop the output: every line is UTF-8 JSON.

Attacks, as a policy (or a broken verifier) would mount them: lone surrogates (``\\ud800``) in
a response, an id, the meta, an exception message, a check's message or evidence; control
characters; NaN and infinities; integers too long for ``str()``; structures nested deeper than
any encoder recurses; objects that are not JSON, cannot be pickled or whose ``repr`` raises.
Each runs through the real writers, the real ``assay score`` / ``assay verify`` (in process and
as a subprocess with real workers) and the trainer adapters, and every line must parse as
strict UTF-8 JSON with one line per input record, in order.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq
import pytest
from hostile_verifier import SURROGATES, HostileOutputVerifier, Unprintable
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import assay.registry
from assay import cli
from assay.io import JsonlWriter, ParquetWriter
from assay.records import RawRow
from assay.registry import Registry, _load_default
from assay.runner import ScoreOptions, Scorer
from assay.safejson import MAX_DEPTH, clean_text, dumps, json_safe, loads
from assay.types import Check, Result, StepResult, Verdict

TESTS = Path(__file__).resolve().parent
ASSAY = [sys.executable, "-m", "assay.cli"]

# text as a hostile response holds it: any code point, lone surrogates and control characters
HOSTILE_CHARS = st.one_of(
    st.characters(codec=None),
    st.characters(codec=None, categories=["Cs"]),
    st.sampled_from(["\x00", "\x1b", "\x7f", "\u2028", "\ufeff", "\ud83d", "\ude00", '"', "\\"]),
)
# (st.text would drop the surrogates of its alphabet: join a list instead)
HOSTILE_TEXT = st.lists(HOSTILE_CHARS, max_size=12).map("".join)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.builds(lambda k, sign: sign * 10**k, st.integers(4290, 5200), st.sampled_from([1, -1])),
    st.floats(allow_nan=True, allow_infinity=True),
    HOSTILE_TEXT,
    st.binary(max_size=8),
    st.builds(Unprintable),
    st.builds(lambda: lambda: None),  # a lambda: not JSON, cannot be pickled
    st.builds(np.float32, st.floats(width=32)),
    st.builds(np.int64, st.integers(-(2**63), 2**63 - 1)),
)
KEYS = st.one_of(HOSTILE_TEXT, st.integers(), st.booleans(), st.none(), st.floats())
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.tuples(inner, inner),
        st.dictionaries(KEYS, inner, max_size=4),
        st.frozensets(st.integers(), max_size=4),
    ),
    max_leaves=20,
)


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def strict_json(data: bytes) -> Any:
    """Parse as RFC 8259 JSON in UTF-8: no NaN / Infinity, no lone surrogate escapes."""
    value = json.loads(data.decode("utf-8"), parse_constant=_reject_constant)
    _no_surrogates(value)
    return value


def _no_surrogates(value: Any) -> None:
    if isinstance(value, str):
        value.encode("utf-8")  # raises on a lone surrogate
    elif isinstance(value, dict):
        for key, item in value.items():
            _no_surrogates(key)
            _no_surrogates(item)
    elif isinstance(value, list):
        for item in value:
            _no_surrogates(item)


def _deep(levels: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(levels - 1):
        value = [value]
    return value


def _cycle() -> list[Any]:
    value: list[Any] = [1]
    value.append(value)
    return value


class Text(str):
    """A str subclass whose ``__str__`` lies."""

    def __str__(self) -> str:
        return "lie"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        # plain JSON data is kept as it is
        ({"a": [1, 2.5, None, True, "é"]}, {"a": [1, 2.5, None, True, "é"]}),
        # a lone surrogate (json.loads makes one from "\ud800") becomes U+FFFD
        ("a\ud800b", "a\ufffdb"),
        ("\udfff", "\ufffd"),
        # a surrogate pair is the character it encodes
        ("\ud83d\ude00", "\U0001f600"),
        # control characters are text: JSON escapes them
        ("\x00\x1b", "\x00\x1b"),
        # JSON has no token for these floats
        ([math.nan, math.inf, -math.inf], ["NaN", "Infinity", "-Infinity"]),
        # str() refuses integers over 4,300 digits
        (10**5000, "<int of about 5001 digits>"),
        (-(10**4000), -(10**4000)),
        # sets become sorted lists, tuples lists, bytes text
        ({3, 1, 2}, [1, 2, 3]),
        ((1, "x"), [1, "x"]),
        (b"ok\xff", "ok\\xff"),
        # keys become strings, as json writes them; a tuple key is its JSON text
        (
            {1: "a", None: "b", False: "c", 2.5: "d"},
            {"1": "a", "null": "b", "false": "c", "2.5": "d"},
        ),
        ({(1, "x"): 0}, {'[1, "x"]': 0}),
        ({"k\ud800": 0}, {"k\ufffd": 0}),
        # numpy values are their Python values
        (np.arange(3), [0, 1, 2]),
        (np.float64("nan"), "NaN"),
        (np.int64(7), 7),
        # a str subclass is its text, not what its __str__ says
        (Text("real"), "real"),
        # a cycle and a structure deeper than the limit are cut, never recursed into
        (_cycle(), [1, "<circular reference>"]),
        (_deep(MAX_DEPTH + 5), json_safe(_deep(MAX_DEPTH + 1))),
        # anything else is its repr, or its type's name when even that raises
        (Unprintable(), "<Unprintable>"),
    ],
    ids=[
        "plain",
        "lone-high",
        "lone-low",
        "pair",
        "control",
        "non-finite",
        "huge-int",
        "long-int-kept",
        "set",
        "tuple",
        "bytes",
        "keys",
        "tuple-key",
        "surrogate-key",
        "ndarray",
        "numpy-nan",
        "numpy-int",
        "str-subclass",
        "cycle",
        "deep",
        "unprintable",
    ],
)
def test_json_safe_rules(value: Any, expected: Any) -> None:
    assert json_safe(value) == expected
    strict_json(dumps(value).encode("utf-8"))


def test_deep_structure_is_cut_at_the_limit() -> None:
    cut = json_safe(_deep(MAX_DEPTH + 50))
    depth = 0
    while isinstance(cut, list):
        cut = cut[0] if cut else None
        depth += 1
    assert depth == MAX_DEPTH
    assert cut == f"<nested deeper than {MAX_DEPTH} levels>"


def test_loads_turns_a_parser_recursion_into_value_error() -> None:
    # the C parser raises RecursionError, which no `except ValueError` reader catches
    with pytest.raises(ValueError, match="nested too deeply"):
        loads("[" * 100_000 + "]" * 100_000)


@settings(max_examples=300, deadline=None)
@given(VALUES)
def test_any_value_dumps_as_strict_utf8_json(value: Any) -> None:
    text = dumps(value)
    assert "\n" not in text
    parsed = strict_json(text.encode("utf-8"))
    # the rules are a fixed point: cleaning clean data changes nothing
    assert json_safe(parsed) == parsed
    assert dumps(parsed) == text


def _result(identity: str, text: str, evidence: Any, meta: Any, status: str) -> Result:
    checks = (Check(text, False, math.nan, text, evidence),)
    steps = (StepResult(0, text, False, 0.0, text, evidence),)
    verdict = {
        "error": Verdict.error(text),
        "incorrect": Verdict.incorrect(checks, steps, text),
        "unparsable": Verdict.unparsable(text, checks),
    }[status]
    return Result(identity, text, verdict, text, math.inf, group=text, meta=meta)


RESULTS = st.lists(
    st.builds(
        _result,
        HOSTILE_TEXT,
        HOSTILE_TEXT,
        st.dictionaries(KEYS, VALUES, max_size=4),
        st.dictionaries(KEYS, VALUES, max_size=3),
        st.sampled_from(["error", "incorrect", "unparsable"]),
    ),
    min_size=1,
    max_size=5,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(RESULTS)
def test_writers_write_every_result_as_strict_json(results: list[Result]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        jsonl, parquet = Path(tmp) / "out.jsonl", Path(tmp) / "out.parquet"
        writers = [JsonlWriter(jsonl), ParquetWriter(parquet)]
        for writer in writers:
            for result in results:
                writer.write(result)
            writer.close()
        lines = jsonl.read_bytes().split(b"\n")
        assert lines[-1] == b""
        rows = [strict_json(line) for line in lines[:-1]]
        table = pq.read_table(parquet).to_pylist()
    expected_ids = [clean_text(r.id) for r in results]
    assert [row["id"] for row in rows] == expected_ids
    assert [row["id"] for row in table] == expected_ids
    for row, result in zip(rows, results, strict=True):
        assert row["status"] == result.status.value
        assert row["message"] == json_safe(result.verdict.message)
        assert row["elapsed_ms"] == "Infinity"
    for row in table:
        for column in ("checks", "steps", "meta"):
            strict_json(row[column].encode("utf-8"))


def _hostile_records(texts: list[str]) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    for i, text in enumerate(texts):
        response = f"raise:{text}" if i % 3 == 2 else text
        meta = {"text": text, text: [math.nan, math.inf, 10**300, {"k": text}]}
        records.append(
            {"id": text, "domain": "hostile-output", "response": response, "reference": text}
        )
        records[-1]["meta"] = meta
        records[-1]["group"] = text
    return records


def _jsonl(records: list[dict[str, Any]], extra: tuple[bytes, ...] = ()) -> bytes:
    # ensure_ascii writes lone surrogates as \udXXX escapes, allow_nan the NaN token: both are
    # read back as they were, as a trainer's own json.dumps would have written them
    lines = [json.dumps(r, ensure_ascii=True, allow_nan=True).encode("ascii") for r in records]
    return b"\n".join([*lines, *extra]) + b"\n"


def _expected_ids(records: list[dict[str, Any]]) -> list[str]:
    """Ids as docs/formats.md says: the id, else ``line-<n>``; a repeat within a group numbered
    ``<id>#<k>`` (the first k not taken), a repeat outside a group kept (an error line)."""
    seen: set[str] = set()
    ids = []
    for n, record in enumerate(records, start=1):
        row_id = clean_text(record["id"]) or f"line-{n}"
        if row_id in seen and record.get("group") is not None:
            k = 1
            while f"{row_id}#{k}" in seen:
                k += 1
            row_id = f"{row_id}#{k}"
        seen.add(row_id)
        ids.append(row_id)
    return ids


@pytest.fixture(scope="module")
def hostile_registry() -> Iterator[Registry]:
    """The default registry plus the hostile verifier, as the CLI resolves domains."""
    registry = _load_default()
    registry.register(HostileOutputVerifier)
    saved = assay.registry._default
    assay.registry._default = registry
    yield registry
    assay.registry._default = saved


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(HOSTILE_TEXT, min_size=1, max_size=6))
def test_cli_score_in_process_fuzz(hostile_registry: Registry, texts: list[str]) -> None:
    records = _hostile_records(texts)
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "in.jsonl"
        source.write_bytes(_jsonl(records))
        for name in ("out.jsonl", "out.parquet"):
            out = Path(tmp) / name
            code = cli.main(["score", str(source), "-o", str(out), "--workers", "0", "--quiet"])
            assert code == cli.EXIT_OK
            if name.endswith(".jsonl"):
                rows = [strict_json(line) for line in out.read_bytes().splitlines()]
            else:
                rows = pq.read_table(out).to_pylist()
            assert [row["id"] for row in rows] == _expected_ids(records)
            statuses = [row["status"] for row in rows]
            # an echoed verdict is the verifier's (incorrect), a raise is a masked error; a
            # duplicate id is an error too, but never a missing line
            for n, status in enumerate(statuses):
                assert status in ("incorrect", "error"), (n, rows[n])


def _install_plugin(site: Path) -> dict[str, str]:
    """The hostile verifier as an installed plugin, for a subprocess and its workers."""
    info = site / "hostile_output_plugin-1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: hostile-output-plugin\nVersion: 1\n"
    )
    (info / "entry_points.txt").write_text(
        "[assay.verifiers]\nhostile-output = hostile_verifier:HostileOutputVerifier\n"
    )
    path = os.pathsep.join([str(site), str(TESTS), os.environ.get("PYTHONPATH", "")])
    return {**os.environ, "PYTHONPATH": path}


BATCH_TEXTS = [
    "plain",
    "lone \ud800 high",
    "\udfff",
    "pair \ud83d\ude00",
    "nul \x00 esc \x1b",
    "",  # an empty id: the line number stands in
    "dup",
    "dup",  # a repeated id within a group is numbered, never a lost line
    'quote " backslash \\ line\u2028sep',
]


def test_cli_score_with_real_workers_keeps_every_line(tmp_path: Path) -> None:
    env = _install_plugin(tmp_path)
    records = _hostile_records(BATCH_TEXTS)
    # math items beside them: a surrogate in a real domain's response and id
    records += [
        {"id": "m\ud800", "domain": "math", "response": "\\boxed{4} \ud800", "reference": "4"},
        {
            "id": "m2",
            "domain": "math",
            "response": "\\boxed{5}",
            "reference": "4",
            "meta": {"nan": math.nan, "deep": _deep(MAX_DEPTH + 20)},
        },
    ]
    # a surrogate encoded as UTF-8 bytes (not UTF-8), and a line too deep for the parser
    bad_lines = (b'{"id": "x", \xed\xa0\x80', b"[" * 100_000)
    source = tmp_path / "in.jsonl"
    source.write_bytes(_jsonl(records, bad_lines))
    expected = [*_expected_ids(records), "x", f"line-{len(records) + 2}"]
    runs = {
        "file": ["-o", str(tmp_path / "out.jsonl"), "--cache", str(tmp_path / "cache")],
        "stdout": [],
        "parquet": ["-o", str(tmp_path / "out.parquet")],
    }
    for name, extra in runs.items():
        # stdout in the C locale: the lines are UTF-8 whatever the locale says
        run_env = {**env, "LC_ALL": "C", "PYTHONIOENCODING": "ascii"} if name == "stdout" else env
        proc = subprocess.run(
            [*ASSAY, "score", str(source), "--workers", "2", "--quiet", *extra],
            capture_output=True,
            env=run_env,
            timeout=300,
            check=False,
        )
        assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")
        assert b"Traceback" not in proc.stderr
        if name == "parquet":
            rows = pq.read_table(tmp_path / "out.parquet").to_pylist()
            for row in rows:
                for column in ("checks", "steps", "meta"):
                    row[column] = strict_json(row[column].encode("utf-8"))
        else:
            data = proc.stdout if name == "stdout" else (tmp_path / "out.jsonl").read_bytes()
            rows = [strict_json(line) for line in data.splitlines()]
        assert [row["id"] for row in rows] == expected, name
        by_id = {row["id"]: row for row in rows}
        # the verifier's evidence reached the output, cleaned by the documented rules
        evidence = by_id["plain"]["checks"][0]["evidence"]
        assert evidence["nan"] == "NaN"
        assert evidence["big"] == "<int of about 5001 digits>"
        assert evidence["set"] == [1, 2, 3]
        assert evidence["unprintable"] == "<Unprintable>"
        assert evidence["cycle"][1] == "<circular reference>"
        assert evidence["lambda"].startswith("<function hostile_evidence.")
        assert by_id["plain"]["message"] == clean_text("plain" + SURROGATES)
        assert by_id["plain"]["status"] == "incorrect"
        # the exception raised with a lone surrogate in its message is a masked error line
        raised = by_id["\ufffd"]  # "\udfff" is the third text: its response raises
        assert raised["status"] == "error"
        assert "ValueError" in raised["error"]
        assert by_id["m\ufffd"]["status"] == "correct"
        assert by_id["m2"]["meta"]["nan"] == "NaN"
        assert by_id[f"line-{len(records) + 2}"]["error"].endswith("nested too deeply to parse")


@pytest.mark.parametrize(
    ("response", "status"),
    [
        # echoed into message and evidence with NaN, a huge int, a cycle...; the byte \xff,
        # not UTF-8, is decoded from argv as the lone surrogate \udcff
        (b"echo \xff", "incorrect"),
        # raised in an exception whose message holds lone surrogates
        (b"raise:boom \xff", "error"),
    ],
    ids=["echo", "raise"],
)
def test_cli_verify_prints_strict_json(tmp_path: Path, response: bytes, status: str) -> None:
    env = _install_plugin(tmp_path)
    proc = subprocess.run(
        [
            *ASSAY,
            "verify",
            "--domain",
            "hostile-output",
            "--response",
            response,
            "--reference",
            "x",
        ],
        capture_output=True,
        env={**env, "PYTHONIOENCODING": "ascii"},
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")
    assert strict_json(proc.stdout)["status"] == status


def test_pool_result_with_unpicklable_evidence_crosses_the_pipe() -> None:
    # the lambda in the evidence cannot be pickled: the worker must still send the verdict
    registry = Registry()
    registry.register(HostileOutputVerifier)
    rows = [RawRow(1, {"id": "a", "domain": "hostile-output", "response": "x", "reference": "x"})]
    with Scorer(ScoreOptions(workers=1), registry) as scorer:
        (result,) = scorer.score_rows(rows)
    assert result.status.value == "incorrect"
    assert result.verdict.checks[0].evidence["lambda"].startswith("<function")


DEEP = _deep(900)  # parses, but pickling it to a worker would exceed the recursion limit


@pytest.mark.parametrize(
    ("row", "status", "message"),
    [
        # a reference too deep to hand to a worker is the task's fault: masked
        ({"reference": DEEP}, "error", "field 'reference' nests deeper than 100 levels"),
        # a trajectory is the model's output: too deep is its fault, score 0, not masked
        (
            {"steps": [{"role": "assistant", "content": DEEP}]},
            "unparsable",
            "field 'steps' nests deeper than 100 levels",
        ),
        # meta is only passed through: cut at the limit, the item is scored
        ({"meta": {"deep": DEEP}}, "correct", None),
        # a prompt too (verifiers read its text)
        ({"prompt": DEEP}, "correct", None),
    ],
    ids=["reference", "steps", "meta", "prompt"],
)
def test_deep_fields_never_reach_the_pipe(
    probe_scorer: Scorer, row: dict[str, Any], status: str, message: str | None
) -> None:
    record = {"id": "deep", "domain": "probe", "response": "ok", "reference": "x", **row}
    after = {"id": "after", "domain": "probe", "response": "ok", "reference": "x"}
    results = list(probe_scorer.score_rows([RawRow(1, record), RawRow(2, after)]))
    assert [(r.id, r.status.value) for r in results] == [("deep", status), ("after", "correct")]
    assert results[0].verdict.message == message
    strict_json(dumps(results[0].to_dict()).encode("utf-8"))


def test_ids_equal_once_cleaned_are_duplicates(probe_scorer: Scorer) -> None:
    # "a\ud800" and "a\udfff" are both written "a\ufffd": the second is a duplicate line
    rows = [
        RawRow(n, {"id": ident, "domain": "probe", "response": "ok", "reference": "x"})
        for n, ident in enumerate(["a\ud800", "a\udfff"], start=1)
    ]
    results = list(probe_scorer.score_rows(rows))
    assert [(r.id, r.status.value) for r in results] == [
        ("a\ufffd", "correct"),
        ("a\ufffd", "error"),
    ]
    assert "duplicate id" in (results[1].verdict.message or "")
