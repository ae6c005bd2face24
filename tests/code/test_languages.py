"""Languages beyond Python, end to end: honest answers, compile errors, and every attack
family of the Python sandbox, per language (one probe program each, compiled once)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from assay.domains.code import languages
from assay.domains.code.task import parse_task
from assay.domains.code.verifier import CodeVerifier
from language_probes import (
    COMPILE_ERRORS,
    PROBES,
    SYNTAX_ERRORS,
)

from assay.boundary import run_verifier
from assay.types import Record, Result

ROOT = Path(__file__).resolve().parents[2]
LANGS = list(PROBES)


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    """A TCP port the host listens on at 127.0.0.1 (the sandbox must not reach it)."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        yield server.getsockname()[1]


def _verify(
    verifier: CodeVerifier, language: str, code: str, cases: list[tuple[str, str]], **extra: Any
) -> Result:
    reference = {
        "language": language,
        "stdio": [{"stdin": i, "stdout": o} for i, o in cases],
        "timeout_s": 3,
        "memory_mb": 256,
    } | extra
    response = f"Here it is:\n```{language}\n{code}```\n"
    return run_verifier(verifier, Record(f"{language}", "code", response, reference))


def _check(result: Result, name: str) -> Any:
    return next(c for c in result.verdict.checks if c.name == name)


def test_every_language_is_available() -> None:
    found = languages.availability()
    assert all(found.values()), {k: v for k, v in found.items() if not v}


@pytest.mark.parametrize("language", LANGS)
def test_right_and_wrong_answers(verifier: CodeVerifier, language: str) -> None:
    code = PROBES[language]
    right = _verify(verifier, language, code, [("add 1 2\n", "3\n"), ("add 40 2\n", "42\n")])
    assert right.status.value == "correct", right.verdict.message
    assert _check(right, "compile").passed
    half = _verify(verifier, language, code, [("add 1 2\n", "3\n"), ("add 2 2\n", "5\n")])
    assert (half.status.value, half.verdict.score) == ("partial", 0.5)
    again = _verify(verifier, language, code, [("add 2 2\n", "4\n")])
    if languages.LANGUAGES[language].compiled:
        assert _check(again, "compile").evidence["cached"] is True  # compiled once per source


@pytest.mark.parametrize("language", [n for n in COMPILE_ERRORS if n != "java"])  # java: fixtures
def test_compile_errors_are_incorrect_with_diagnostics(
    verifier: CodeVerifier, language: str
) -> None:
    result = _verify(verifier, language, COMPILE_ERRORS[language], [("add 1 2\n", "3\n")])
    assert (result.status.value, result.verdict.score) == ("incorrect", 0.0), result.verdict.message
    check = _check(result, "compile")
    assert not check.passed and check.evidence["errors"] >= 1
    source = languages.source_name(languages.LANGUAGES[language], COMPILE_ERRORS[language])
    assert source in check.evidence["diagnostics"]  # the compiler's own words, naming the file


@pytest.mark.parametrize("language", list(SYNTAX_ERRORS))
def test_text_that_is_not_a_program_is_unparsable(verifier: CodeVerifier, language: str) -> None:
    result = _verify(verifier, language, SYNTAX_ERRORS[language], [("add 1 2\n", "3\n")])
    assert result.status.value == "unparsable", result.verdict.message


def test_go_needs_package_main(verifier: CodeVerifier) -> None:
    result = _verify(verifier, "go", "package solution\nfunc Add() {}\n", [("x", "y")])
    assert result.status.value == "incorrect"
    assert "package main" in _check(result, "compile").message


def test_compile_weight_pays_a_compiling_wrong_answer(verifier: CodeVerifier) -> None:
    wrong = _verify(verifier, "c", PROBES["c"], [("add 1 2\n", "4\n")], compile_weight=0.25)
    assert (wrong.status.value, wrong.verdict.score) == ("partial", 0.25)
    broken = _verify(
        verifier, "c", COMPILE_ERRORS["c"], [("add 1 2\n", "3\n")], compile_weight=0.25
    )
    assert (broken.status.value, broken.verdict.score) == ("incorrect", 0.0)


def test_warnings_are_counted(verifier: CodeVerifier) -> None:
    code = '#include <stdio.h>\nint main(void) { int unused; puts("3"); return 0; }\n'
    result = _verify(verifier, "c", code, [("", "3\n")])
    assert result.status.value == "correct"
    assert _check(result, "compile").evidence["warnings"] == 1


LIMIT_FAMILIES = {
    "loop": {"time"},
    "mem": {"memory", "time"},  # time when a loaded machine pages the memory in slowly
    "fork": {"processes", "time"},
    "flood": {"output", "time"},
}
"""Attacks that hit a limit, and the causes each may be blamed on."""


@pytest.mark.parametrize("family", list(LIMIT_FAMILIES))
@pytest.mark.parametrize("language", LANGS)
def test_limit_attacks_are_blamed_and_leave_nothing(
    verifier: CodeVerifier, language: str, family: str
) -> None:
    code = PROBES[language]
    cases = [(f"{family}\n", "3\n"), ("add 1 2\n", "3\n")]
    result = _verify(verifier, language, code, cases, timeout_s=1)
    assert (result.status.value, result.verdict.score) == ("incorrect", 0.0), result.verdict.message
    resources = _check(result, "resources")
    assert not resources.passed
    assert resources.evidence["cause"] in LIMIT_FAMILIES[family], resources.message
    after = _verify(verifier, language, code, [("add 1 2\n", "3\n")])
    assert after.status.value == "correct", after.verdict.message  # the next task runs clean


@pytest.mark.parametrize("language", LANGS)
def test_isolation_attacks_earn_nothing(verifier: CodeVerifier, language: str, port: int) -> None:
    code = PROBES[language]
    secrets = [ROOT / "fixtures" / "code" / "cases.jsonl", Path(__file__), Path("/etc/shadow")]
    cases = [(f"net {port}\n", "OPEN\n")]  # network
    cases += [(f"exists {path}\n", "FOUND\n") for path in secrets]  # escape, expected outputs
    cases += [("write persist.txt\n", "WROTE\n"), ("exists persist.txt\n", "FOUND\n")]
    cases += [("write /tmp/persist\n", "WROTE\n"), ("write /dev/shm/persist\n", "WROTE\n")]
    cases += [("fake\n", "3\n")]  # a success banner and exit 0
    result = _verify(verifier, language, code, cases)
    units = {s.index: s.passed for s in result.verdict.steps}
    assert [units[i] for i in range(len(cases))] == [
        False, False, False, False, True, False, True, True, False,
    ], [s.message for s in result.verdict.steps]  # fmt: skip
    later = _verify(
        verifier,
        language,
        code,
        [
            (f"exists {p}\n", "MISSING\n")
            for p in ("/tmp/persist", "/dev/shm/persist", "persist.txt")
        ],
    )
    assert later.status.value == "correct", [s.message for s in later.verdict.steps]


def test_javascript_function_calls(verifier: CodeVerifier) -> None:
    code = (
        "function add(a, b) { return a + b; }\n"
        "function pair(a) { return [a, {x: a}]; }\nmodule.exports.pair = pair;\n"
    )
    cases = [
        {"args": [1, 2], "expected": 3},
        {"args": [0.5, 0.25], "expected": 0.75},
        {"args": ["a", "b"], "expected": "ab"},
        {"args": [1, 1], "expected": 3},
    ]
    response = f"```js\n{code}```"
    result = run_verifier(verifier, Record("js", "code", response,
                          {"language": "javascript", "entry_point": "add", "test_cases": cases}))  # fmt: skip
    assert (result.status.value, result.verdict.score) == ("partial", 0.75)
    exported = run_verifier(verifier, Record("js2", "code", response, {
        "language": "js", "entry_point": "pair",
        "test_cases": [{"args": [2], "expected": [2, {"x": 2}]}]}))  # fmt: skip
    assert exported.status.value == "correct", exported.verdict.message


@pytest.mark.parametrize(
    ("code", "message"),
    [
        ("function add(a, b) { throw new RangeError('no'); }", "raised RangeError"),
        (
            "const fs = require('fs');\nfunction add() { fs.writeFileSync('.assay-result.json',"
            ' \'{"status":"ok","value":99}\'); process.exit(0); }',
            "returned 99",
        ),
        (
            'function add() { console.log(\'{"status":"ok","value":3}\'); process.exit(0); }',
            "no result",
        ),
        ("function add() { return 10n; }", "JSON cannot hold"),
        (
            'JSON.stringify = () => \'{"status":"ok","value":3}\';\nfunction add() { return 1; }',
            "returned 1",
        ),
        ("function sub() { return 3; }", "no such function"),
    ],
    ids=[
        "throws",
        "forged-result-file",
        "printed-result",
        "bigint",
        "patched-stringify",
        "missing",
    ],
)
def test_javascript_calls_cannot_fake_results(
    verifier: CodeVerifier, code: str, message: str
) -> None:
    reference = {"language": "javascript", "entry_point": "add",
                 "test_cases": [{"args": [1, 2], "expected": 3}]}  # fmt: skip
    result = run_verifier(verifier, Record("js", "code", f"```js\n{code}\n```", reference))
    assert result.status.value == "incorrect", result.verdict.message
    assert message in result.verdict.steps[0].message


@pytest.mark.parametrize(
    ("reference", "mode", "count"),
    [
        ({"input_output": '{"inputs": ["1 2\\n"], "outputs": ["3\\n"]}'}, "stdio", 1),
        (
            {
                "public_tests": {"input": ["1 2\n"], "output": ["3\n"]},
                "private_tests": {"input": ["2 2\n"], "output": ["4\n"]},
                "generated_tests": {"input": [], "output": []},
            },
            "stdio",
            2,
        ),
        (
            {"public_test_cases": '[{"input": "1 2\\n", "output": "3\\n", "testtype": "stdin"}]'},
            "stdio",
            1,
        ),
        (
            {
                "public_test_cases": [
                    {"input": "[1, 2]\n3", "output": "[4]", "testtype": "functional"}
                ],
                "metadata": '{"func_name": "f"}',
            },
            "test_cases",
            1,
        ),
    ],
    ids=["apps", "codecontests", "livecodebench-stdin", "livecodebench-functional"],
)
def test_contest_field_names(reference: dict[str, Any], mode: str, count: int) -> None:
    task = parse_task(reference, ROOT)
    assert (task.mode, len(task.spec)) == (mode, count)


def test_livecodebench_compressed_private_cases() -> None:
    import base64
    import json
    import pickle
    import zlib

    cases = json.dumps([{"input": "5\n", "output": "25\n", "testtype": "stdin"}])
    packed = base64.b64encode(zlib.compress(pickle.dumps(cases))).decode()
    task = parse_task({"private_test_cases": packed}, ROOT)
    assert task.spec == [{"stdin": "5\n", "stdout": "25\n"}]
    hostile = base64.b64encode(zlib.compress(pickle.dumps(Path("/")))).decode()
    with pytest.raises(Exception, match="refused"):
        parse_task({"private_test_cases": hostile}, ROOT)


def test_artifact_cache_keys_and_evicts() -> None:
    language = languages.LANGUAGES["c"]
    key = languages.cache_key(language, "int main(){}", ("-O2",))
    assert key != languages.cache_key(language, "int main(){}", ("-O0",))
    assert key != languages.cache_key(languages.LANGUAGES["cpp"], "int main(){}", ("-O2",))
    cache = languages.ArtifactCache(max_bytes=100)
    for index in range(3):
        cache.put(languages.CompileResult(True, {"prog": b"x" * 40}, key=str(index)))
    assert cache.get("0") is None and cache.get("2") is not None
    cache.put(languages.CompileResult(False, {}, fault="time", key="t"))
    assert cache.get("t") is None  # a compile that hit a limit is never reused


GO_DUMP = "goroutine 1 [running]:\nmain.main()\n\t/w/main.go:9 +0x1d\n" * 300 + "rip 0x0\ngs 0x0\n"


@pytest.mark.parametrize(
    ("stderr", "cause"),
    [
        # Go prints the cause first, then a dump of every goroutine and the registers
        ("runtime: failed to create new OS thread (have 65 already; errno=11)\n" + GO_DUMP,
         "processes"),
        ("fatal error: newosproc\n" + GO_DUMP, "processes"),
        ("fatal error: runtime: out of memory\n" + GO_DUMP, "memory"),
        ("tail: memory exhausted\n", "memory"),  # coreutils' xalloc_die
        ("bash: fork: retry: Resource temporarily unavailable\n", "processes"),
        ("Exception in thread \"main\" java.lang.OutOfMemoryError: unable to create native thread",
         "processes"),  # Java says OutOfMemory for a thread it cannot start
        ("panic: index out of range [3] with length 3\n" + GO_DUMP, None),  # a plain crash
    ],
    ids=["go-thread", "go-newosproc", "go-oom", "coreutils-oom", "bash-fork", "java-thread", "go-panic"],
)  # fmt: skip
def test_runtime_limit_messages_name_the_limit(stderr: str, cause: str | None) -> None:
    from assay.domains.code.compiled import fault_of
    from assay.verifiers.sandbox import ProgramStatus
    from assay.verifiers.sandbox._outcomes import CommandOutcome, ResourceUsage

    outcome = CommandOutcome(ProgramStatus.ERROR, 2, None, False, "", stderr, False, False,
                             ResourceUsage())  # fmt: skip
    fault = fault_of(outcome)
    assert (fault[0] if fault else None) == cause
