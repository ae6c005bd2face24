"""A session's module compiled on the trusted side: the run behaves as if the child compiled it.

The trusted side sends the code object of the candidate's own source (``_inside/compiled.py``),
so a fresh child only loads it. Each case below runs as the child's own ``compile`` would:
compile-time errors, warnings, ``__future__`` imports, file names and tracebacks.
"""

from __future__ import annotations

import marshal

import pytest
from assay.verifiers.sandbox import CallStatus, SandboxPool
from assay.verifiers.sandbox import _pool as pool_module


def _run(pool: SandboxPool, source: str) -> tuple[object, object]:
    with pool.call_session({}, source) as session:
        called = session.call("f")
        return session.load, called


PATH = "/tmp/work/solution.py"


@pytest.mark.parametrize(
    ("source", "precompiled"),
    [
        ("def f():\n    return 1\n", True),
        ("return 1\n", False),  # a compile-time error, not a parse error
        ("nonlocal x\n", False),
        ("def f():\n    break\n", False),
        ("def f():\n    return 1 is 1\n", False),  # warns: the child compiles and writes it
        ("x = '\\d'\ndef f():\n    return x\n", False),
        ("def f():\n    return '\\ud800'\n", True),  # a lone surrogate in a literal
    ],
)
def test_what_goes_down_compiled(pool: SandboxPool, source: str, precompiled: bool) -> None:
    assert (pool._compiled(source, PATH) is not None) is precompiled


@pytest.mark.parametrize(
    ("source", "load", "value", "in_error"),
    [
        ("def f():\n    return f.__code__.co_filename\n", "ok", "/work/solution.py", ""),
        ("return 1\n", "exception", None, "'return' outside function"),
        ("nonlocal x\n", "exception", None, "nonlocal declaration not allowed at module level"),
        (
            "from __future__ import annotations\ndef f(x: nothing = 1) -> int:\n"
            "    return f.__annotations__\n",
            "ok",
            {"x": "nothing", "return": "int"},
            "",
        ),
        (
            "def f():\n    return [__name__, __file__[-12:]]\n",
            "ok",
            ["solution", "/solution.py"],
            "",
        ),
    ],
)
def test_the_module_runs_as_the_child_would_compile_it(
    pool: SandboxPool, source: str, load: str, value: object, in_error: str
) -> None:
    loaded, called = _run(pool, source)
    assert loaded.status.value == load, loaded
    if load == "ok":
        found = called.value
        if isinstance(value, str):
            assert isinstance(found, str) and found.endswith(value)
        else:
            assert found == value
    else:
        assert in_error in (loaded.exception_message or ""), loaded


def test_a_traceback_shows_the_candidate_line(pool: SandboxPool) -> None:
    _, called = _run(pool, "def f():\n    raise ValueError('boom')\n")
    assert called.status is CallStatus.EXCEPTION
    assert "raise ValueError('boom')" in called.traceback
    assert "solution.py" in called.traceback


def test_a_warning_is_written_by_the_child_as_before(pool: SandboxPool) -> None:
    loaded, _ = _run(pool, "x = 1 is 1\ndef f():\n    return x\n")
    assert "SyntaxWarning" in loaded.stderr


def test_the_code_runs_only_where_its_tag_matches(
    pool: SandboxPool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The zygote loads the trusted side's code object only for its own interpreter and path:
    a code object for another one is ignored and the source is compiled in the child."""
    other = marshal.dumps(compile("def f():\n    return 'precompiled'\n", PATH, "exec"))
    monkeypatch.setattr(pool, "_compiled", lambda source, path: other)
    _, called = _run(pool, "def f():\n    return 'source'\n")
    assert called.value == "precompiled"  # the code object went down and ran
    monkeypatch.setattr(pool_module, "code_tag", lambda path: "another interpreter/0/" + path)
    _, called = _run(pool, "def f():\n    return 'source'\n")
    assert called.value == "source"


@pytest.mark.parametrize(
    "source",
    [
        "x = " + "lambda: " * 1100 + "1\ndef f():\n    return 1\n",  # over the size cap
        "def f():\n    return 1\n" + "#" * 9000 + "\n",
    ],
)
def test_a_module_that_could_be_costly_to_compile_goes_down_as_source(
    pool: SandboxPool, source: str
) -> None:
    """Compile time grows faster than the source for some shapes (nested lambdas): a long
    module is compiled by the child, under its own limits, as before."""
    assert pool._compiled(source, PATH) is None
    loaded, called = _run(pool, source)
    assert loaded.status.value == "ok" and called.value == 1


def test_a_module_slow_to_compile_here_goes_down_as_source(
    pool: SandboxPool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pool_module, "PRECOMPILE_MAX_S", 0.0)
    source = "def f():\n    return 'compiled by the child'\n"
    assert pool._compiled(source, PATH) is None
    _, called = _run(pool, source)
    assert called.value == "compiled by the child"
