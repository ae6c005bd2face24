"""The code task format (the ``reference`` of a ``code`` record), validated into a typed task."""

from __future__ import annotations

import contextlib
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assay.domains.code.contest import from_contest_formats
from assay.domains.code.formats import from_list, from_native, import_string, solution_call
from assay.domains.code.languages import (
    COMPILE_MEMORY_MB,
    COMPILE_TIMEOUT_S,
    LANGUAGES,
    canonical,
    toolchain_version,
)
from assay.domains.code.swebench import checkout_tree
from assay.domains.code.terminal import parse_terminal

from assay.errors import MalformedTaskError
from assay.safejson import loads as json_loads

MODES = ("tests", "test_cases", "stdio", "pytest", "repo", "terminal")
_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*")
REPO_ROOTS_ENV = "ASSAY_DATA_ROOTS"


@dataclass(frozen=True, slots=True)
class CodeTask:
    """A validated code reference.

    Attributes:
        mode: One of :data:`MODES`.
        spec: The mode's payload (test source, cases, or repo path).
        entry_point: Function name for the ``tests`` and ``test_cases`` modes.
        timeout_s: Wall-clock limit per test unit.
        memory_mb: Address-space limit of the candidate's processes.
        all_or_nothing: Any failed unit scores the whole task 0.
        fail_to_pass: Repo mode: tests the patch must make pass.
        pass_to_pass: Repo mode: tests that must keep passing.
        reference_time_s: Optional CPU time of the reference solution, for a runtime budget.
        time_budget_factor: The budget is ``factor * reference_time_s``.
        ruff_weight: Share of the score given to ruff's static-analysis score.
        static_analysis: Run ruff (on by default; ``"static_analysis": false`` skips it).
        float_tolerance: Relative tolerance for float comparisons; on stdio output, the
            absolute or relative error a numeric token may have (``stdout_match`` ``tokens``).
        stdout_match: How stdio output is compared: ``exact`` (trailing whitespace per line
            and trailing blank lines aside), ``tokens`` (lines stripped, numbers by value;
            :func:`assay.verifiers.code.compare.stdout_tokens_equal`) or ``words`` (the same
            words, as text, whatever the blanks between them: Codeforces' standard checker;
            ``compare.stdout_words_equal``) or ``codecontests`` (words, ASCII case aside,
            numbers within an absolute 1e-5, or ``float_tolerance``: DeepMind's harness;
            ``compare.stdout_codecontests_equal``). Given no value, it is
            ``tokens`` when ``float_tolerance`` is set, else ``exact``; LiveCodeBench and
            APPS / TACO stdin rows are ``tokens``, as their graders compare, and
            open-r1/codeforces rows without a checker ``words``, CodeContests rows
            ``codecontests``.
        value_match: How a call's returned value is compared with ``expected``
            (``test_cases``): ``typed`` (the default: ``3.0`` is not ``3``, ``True`` is not
            ``1``; :func:`assay.verifiers.code.compare.json_equal`) or ``equal`` (numbers by
            value, as Python's ``==`` reads them; ``compare.value_equal``).
            LiveCodeBench functional rows and APPS / TACO call-based rows are ``equal``, as
            their harnesses compare.
        prompt: ``tests`` mode: the problem's prompt (trusted); its helpers are visible to the
            tests, and a completion that does not define the entry point continues it.
        harness: Trusted code appended to the candidate's (LiveCodeBench's ``Solution`` shim).
        preamble: Trusted code put above the candidate's, in its module or program: the names
            a benchmark's own harness gives every answer (MBPP's test imports and setup code,
            LiveCodeBench's import string). A ``tests`` prompt adds its own definitions too.
        language: ``python`` or a name in :data:`assay.domains.code.languages.LANGUAGES`.
        compile_timeout_s: Wall-clock limit of the compile step (not per unit).
        compile_memory_mb: Memory cap of the compile step.
        compile_weight: Share of the score paid for compiling (the rest for the tests).
    """

    mode: str
    spec: Any
    entry_point: str | None = None
    timeout_s: float = 5.0
    memory_mb: int = 512
    all_or_nothing: bool = False
    fail_to_pass: tuple[str, ...] = ()
    pass_to_pass: tuple[str, ...] = ()
    reference_time_s: float | None = None
    time_budget_factor: float = 5.0
    ruff_weight: float = 0.0
    float_tolerance: float | None = None
    stdout_match: str = "exact"
    value_match: str = "typed"
    static_analysis: bool = True
    prompt: str | None = None
    harness: str = ""
    preamble: str = ""
    language: str = "python"
    compile_timeout_s: float = COMPILE_TIMEOUT_S
    compile_memory_mb: int = COMPILE_MEMORY_MB
    compile_weight: float = 0.0
    test_files: tuple[str, ...] = ()
    """Repo mode: files protected like the test ids' own (a SWE-bench ``test_patch``'s)."""

    @property
    def unit_count_hint(self) -> int:
        if self.mode in ("test_cases", "stdio"):
            return len(self.spec)
        if self.mode == "repo":
            return len(self.fail_to_pass) + len(self.pass_to_pass)
        if self.mode == "terminal":
            return len(self.spec.test_ids)
        return 1


def _number(reference: Mapping[str, Any], key: str, default: float, low: float = 0.0) -> float:
    value = reference.get(key, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise MalformedTaskError(f"{key} must be a number, got {value!r}")
    if value < low:
        raise MalformedTaskError(f"{key} must be at least {low}, got {value!r}")
    return float(value)


def _strings(reference: Mapping[str, Any], key: str) -> tuple[str, ...]:
    value = reference.get(key) or []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise MalformedTaskError(f"{key} must be a list of test ids")
    return tuple(value)


def parse_task(reference: Any, repo_base: Path) -> CodeTask:
    """Validate a code reference.

    Raises:
        MalformedTaskError: not exactly one mode, or a mode's payload has the wrong shape.
    """
    if isinstance(reference, str) and reference.lstrip().startswith("["):
        with contextlib.suppress(ValueError, RecursionError):  # JSON text of a list of cases
            reference = json.loads(reference)  # (records decode only objects: math's "[1, 2]")
    if isinstance(reference, list):
        reference = from_list(reference)
    if not isinstance(reference, Mapping):
        raise MalformedTaskError(
            f"code reference must be an object or a list of test cases, "
            f"got {type(reference).__name__}"
        )
    reference = _from_apps_format(from_contest_formats(from_native(reference), MODES))
    language = _language(reference.get("language", "python"))
    present = [m for m in MODES if reference.get(m) not in (None, "", [])]
    if len(present) != 1:
        found = ", ".join(present) or "none"
        raise MalformedTaskError(f"give exactly one of {', '.join(MODES)} (found: {found})")
    mode = present[0]
    spec = _spec(mode, reference[mode], repo_base)
    entry_point = reference.get("entry_point")
    if mode in ("tests", "test_cases") and (not isinstance(entry_point, str) or not entry_point):
        raise MalformedTaskError(f"mode {mode!r} needs an 'entry_point' (the function's name)")
    if language != "python":
        _check_language_mode(language, mode, entry_point)
    fail_to_pass = _strings(reference, "fail_to_pass")
    if mode == "repo" and not fail_to_pass:
        raise MalformedTaskError("a repo task needs a non-empty fail_to_pass list")
    reference_time = reference.get("reference_time_s")
    tolerance = (
        None
        if reference.get("float_tolerance") is None
        else _number(reference, "float_tolerance", 0.0)
    )
    return CodeTask(
        mode=mode,
        spec=spec,
        entry_point=entry_point if isinstance(entry_point, str) else None,
        timeout_s=_number(reference, "timeout_s", 5.0, low=0.05),
        memory_mb=int(_number(reference, "memory_mb", 512, low=64)),
        all_or_nothing=reference.get("all_or_nothing") is True,
        fail_to_pass=fail_to_pass,
        pass_to_pass=_strings(reference, "pass_to_pass"),
        reference_time_s=None
        if reference_time is None
        else _number(reference, "reference_time_s", 0.0),
        time_budget_factor=_number(reference, "time_budget_factor", 5.0, low=1.0),
        ruff_weight=min(_number(reference, "ruff_weight", 0.0), 1.0),
        static_analysis=reference.get("static_analysis", True) is not False,
        float_tolerance=tolerance,
        stdout_match=_stdout_match(reference.get("stdout_match"), tolerance),
        value_match=_value_match(reference.get("value_match")),
        prompt=_optional_text(reference, "prompt") if mode == "tests" else None,
        harness=_optional_text(reference, "harness") or "",
        preamble=_optional_text(reference, "preamble") or "",
        language=language,
        compile_timeout_s=_number(reference, "compile_timeout_s", COMPILE_TIMEOUT_S, low=1.0),
        compile_memory_mb=int(_number(reference, "compile_memory_mb", COMPILE_MEMORY_MB, low=256)),
        compile_weight=min(_number(reference, "compile_weight", 0.0), 1.0),
        test_files=_strings(reference, "test_files") if mode == "repo" else (),
    )


STDOUT_MATCHES = ("exact", "tokens", "words", "codecontests")


def _stdout_match(value: Any, tolerance: float | None) -> str:
    if value is None:
        return "exact" if tolerance is None else "tokens"
    if not isinstance(value, str) or value not in STDOUT_MATCHES:
        allowed = ", ".join(repr(m) for m in STDOUT_MATCHES)
        raise MalformedTaskError(f"stdout_match must be one of {allowed}, got {value!r}")
    return value


VALUE_MATCHES = ("typed", "equal")


def _value_match(value: Any) -> str:
    if value is None:
        return "typed"
    if not isinstance(value, str) or value not in VALUE_MATCHES:
        raise MalformedTaskError(f"value_match must be 'typed' or 'equal', got {value!r}")
    return value


def _optional_text(reference: Mapping[str, Any], key: str) -> str | None:
    value = reference.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise MalformedTaskError(f"{key} must be text")
    return value


def _language(value: Any) -> str:
    """The canonical language name; unknown or uninstalled toolchains are the task's fault."""
    if value is None:
        return "python"
    if not isinstance(value, str):
        raise MalformedTaskError(f"language must be a string, got {value!r}")
    name = canonical(value)
    if name != "python" and name not in LANGUAGES:
        known = ", ".join(["python", *LANGUAGES])
        raise MalformedTaskError(f"language {value!r} is not supported (known: {known})")
    if name != "python" and toolchain_version(name) is None:
        raise MalformedTaskError(
            f"language {name!r}: its toolchain ({LANGUAGES[name].package}) is not installed "
            "(make runs scripts/system-deps.sh; see `assay domains`)"
        )
    return name


def _check_language_mode(language: str, mode: str, entry_point: Any) -> None:
    spec = LANGUAGES[language]
    allowed = ("stdio", "test_cases") if spec.call_mode else ("stdio",)
    if mode not in allowed:
        raise MalformedTaskError(
            f"language {language!r} takes {' or '.join(allowed)} tasks, not {mode!r}"
        )
    if mode == "test_cases" and not (
        isinstance(entry_point, str) and _IDENTIFIER.fullmatch(entry_point)
    ):
        raise MalformedTaskError(f"entry_point {entry_point!r} is not a {language} identifier")


def _from_apps_format(reference: Mapping[str, Any]) -> Mapping[str, Any]:
    """APPS / TACO / verl-code ground truth (``inputs``, ``outputs``, ``fn_name``) in our modes.

    Read as verl's ``prime_code`` harness (APPS's, as LiveCodeBench and PRIME carry it) runs
    it. With ``fn_name`` each input is the argument list of a call (call-based): a list as APPS
    gives it, or text with one JSON argument a line as PRIME and LiveCodeBench write it (its
    output JSON text too); a Python answer is called as ``Solution().<fn_name>`` when it has a
    ``Solution`` class. Without ``fn_name`` each input is a program's stdin and each output its
    expected stdout, compared by ``stdout_match`` ``tokens`` (lines stripped, numbers by value:
    what APPS's harness takes, less its float tolerance). Python answers run under the
    harness's import string either way.
    """
    if not any(k in reference for k in ("inputs", "outputs")) or any(k in reference for k in MODES):
        return reference
    inputs, outputs = reference.get("inputs"), reference.get("outputs")
    if not isinstance(inputs, list) or not isinstance(outputs, list) or len(inputs) != len(outputs):
        raise MalformedTaskError("inputs and outputs must be lists of the same length")
    converted = {k: v for k, v in reference.items() if k not in ("inputs", "outputs", "fn_name")}
    name = reference.get("fn_name")
    if name is not None and not isinstance(name, str):
        raise MalformedTaskError(f"fn_name must be a function's name, got {name!r}")
    if name:  # an empty name is stdio, as loaders write it for stdin problems
        converted = {"value_match": "equal", **converted, **solution_call(name, reference)}
        converted["test_cases"] = [_apps_call(i, o) for i, o in zip(inputs, outputs, strict=True)]
    else:
        if any(o is None for o in outputs):
            raise MalformedTaskError("an stdio case's output is null: expected output is text")
        converted["stdio"] = [
            {"stdin": _text(i), "stdout": _text(o)} for i, o in zip(inputs, outputs, strict=True)
        ]
        # APPS's harness strips lines and takes numbers as floats: LiveCodeBench's rule is the
        # strict part of it (it takes nothing APPS's fails); a given preamble or rule wins
        converted = {"stdout_match": "tokens", **import_string(reference), **converted}
    return converted


def _apps_call(given: Any, output: Any) -> dict[str, Any]:
    """One call-based case. APPS wraps each output in a one-element list, and its harness
    accepts the output or that list's item, so both are expected; a longer list is not
    unwrapped (verl's harness would also take its first element: that pays a wrong answer)."""
    if isinstance(given, str):  # PRIME's and LiveCodeBench's form: JSON lines, JSON output
        args = _json_text(given, "input", lines=True)
        if isinstance(output, str):
            output = _json_text(output, "output", lines=False)
    else:
        args = given if isinstance(given, list) else [given]
    if isinstance(output, list) and len(output) == 1:
        return {"args": args, "expected": output[0], "also_expected": [output]}
    return {"args": args, "expected": output}


def _json_text(text: str, what: str, *, lines: bool) -> Any:
    """A call's arguments (one JSON value a line) or its output (one JSON value) from text."""
    try:
        if lines:
            return [json_loads(line) for line in text.split("\n") if line.strip()]
        return json_loads(text)
    except ValueError as exc:
        raise MalformedTaskError(
            f"a call-based {what} given as text must be JSON (one value a line for inputs, as "
            f"PRIME and LiveCodeBench write them): {exc}"
        ) from None


def _text(value: Any) -> str:
    if isinstance(value, list):
        return "\n".join(str(v) for v in value)
    return str(value)


def _spec(mode: str, value: Any, repo_base: Path) -> Any:
    if mode in ("tests", "pytest"):
        if not isinstance(value, str):
            raise MalformedTaskError(f"{mode} must be Python source text")
        return value
    if mode == "test_cases":
        if not isinstance(value, list) or not all(isinstance(c, Mapping) for c in value):
            raise MalformedTaskError("test_cases must be a list of {args, kwargs, expected}")
        for case in value:
            if "expected" not in case:
                raise MalformedTaskError("every test case needs an 'expected' value")
            if not isinstance(case.get("also_expected", []), list):
                raise MalformedTaskError("a test case's also_expected must be a list of values")
            if not isinstance(case.get("args", []), list) or not isinstance(
                case.get("kwargs", {}), Mapping
            ):
                raise MalformedTaskError("test case args must be a list and kwargs an object")
        return value
    if mode == "stdio":
        if not isinstance(value, list) or not all(
            isinstance(c, Mapping)
            and isinstance(c.get("stdin", ""), str)
            and isinstance(c.get("stdout"), str)
            for c in value
        ):
            raise MalformedTaskError("stdio must be a list of {stdin, stdout} strings")
        return value
    if mode == "terminal":
        return parse_terminal(value, lambda path: _repo_path(path, repo_base))
    if isinstance(value, Mapping) and "swebench" in value:  # a SWE-bench instance's checkout
        return checkout_tree(value)
    return _repo_path(value, repo_base)


def _repo_path(value: Any, repo_base: Path) -> Path:
    """A repo path, which must resolve inside the project or an allowed data root."""
    if not isinstance(value, str):
        raise MalformedTaskError("repo must be a path")
    path = Path(value)
    candidates = [path] if path.is_absolute() else [repo_base / path, Path.cwd() / path]
    roots = [repo_base.resolve(), *_data_roots()]
    for candidate in candidates:
        resolved = candidate.resolve()
        if resolved.is_dir() and any(resolved.is_relative_to(root) for root in roots):
            return resolved
    raise MalformedTaskError(
        f"repo {value!r} is not a directory under the project or an allowed data root "
        f"(set {REPO_ROOTS_ENV} to a ':'-separated list of roots)"
    )


def _data_roots() -> list[Path]:
    import os

    raw = os.environ.get(REPO_ROOTS_ENV, "")
    return [Path(p).resolve() for p in raw.split(":") if p]
