"""What the docs say about the command line and the output lines is what the code does.

The exit-code tables (README.md, docs/eval.md) and the output-field lists (README.md,
docs/formats.md, ``assay score --help``) are read from the text and compared with the code:
``Result.to_dict``'s keys, the exit-code constants, the ``--help`` epilogs, and the code a bad
command-line value really exits with.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from assay import cli
from assay.evaluation import command
from assay.types import Result, Verdict

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
FORMATS = (ROOT / "docs" / "formats.md").read_text(encoding="utf-8")
EVAL = (ROOT / "docs" / "eval.md").read_text(encoding="utf-8")

OPTIONAL = {"group", "meta"}


def _table(text: str, header: str) -> dict[str, str]:
    """First column (backticks stripped) -> second, of the markdown table under ``header``."""
    start = text.index(header)
    rows: dict[str, str] = {}
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[cells[0].strip("`")] = cells[1]
    return rows


def _epilog_codes(help_text: str) -> dict[int, str]:
    """Exit code -> meaning, from an ``exit codes:`` epilog (continuation lines joined)."""
    codes: dict[int, str] = {}
    last = None
    for line in help_text.split("exit codes:", 1)[1].splitlines():
        match = re.match(r"\s+(\d+)\s+(.*)", line)
        if match:
            last = int(match.group(1))
            codes[last] = match.group(2)
        elif line.strip() and last is not None:
            codes[last] += " " + line.strip()
    return codes


def _output_keys() -> tuple[set[str], set[str]]:
    """Keys of an output line: always there, and there only for a record with group / meta."""
    bare = Result("a", "math", Verdict.correct(), "math@1", 1.0)
    full = Result("a", "math", Verdict.correct(), "math@1", 1.0, group="g", meta={"k": 1})
    always = set(bare.to_dict())
    return always, set(full.to_dict()) - always


def test_output_keys_are_what_the_docs_list() -> None:
    always, optional = _output_keys()
    assert optional == OPTIONAL
    # README: {"id", ..., "group"?, "meta"?}
    listed = re.search(r"Each output line is\s+`(\{.*?\})`", README, re.S)
    assert listed is not None
    names = re.findall(r'"(\w+)"(\??)', listed.group(1))
    assert {n for n, mark in names if not mark} == always
    assert {n for n, mark in names if mark} == optional
    # docs/formats.md: the field table of "Output lines", and its example line
    section = FORMATS[FORMATS.index("## Output lines") : FORMATS.index("## Bad input")]
    assert set(_table(section, "| field | meaning |")) == always | optional
    example = re.search(r"```json\n(.*?)```", section, re.S)
    assert example is not None
    assert set(json.loads(example.group(1))) == always | optional
    # assay score --help
    score_help = cli.SCORE_HELP.replace("\n", " ")
    for key in always | optional:
        assert re.search(rf"\b{key}\b", score_help), key


def test_exit_codes_of_assay_help_and_readme_agree_with_the_code() -> None:
    constants = {
        cli.EXIT_OK,
        cli.EXIT_FAILURE,
        cli.EXIT_USAGE,
        cli.EXIT_INPUT,
        cli.EXIT_STRICT,
        cli.EXIT_REGRESSION,
        cli.EXIT_ERRORS,
    }
    assert cli.EXIT_REGRESSION == command.EXIT_REGRESSION
    main_help = cli._parser().format_help()
    helped = _epilog_codes(main_help)
    assert set(helped) == constants
    readme = {int(code): meaning for code, meaning in _table(README, "| exit | meaning |").items()}
    assert set(readme) == constants
    for code in constants:  # the same first words in both (the README may add a link)
        assert readme[code].replace("`", "").startswith(helped[code].split(" (")[0][:20]), code


def test_exit_codes_of_assay_eval_help_and_docs_agree() -> None:
    helped = _epilog_codes(command.EVAL_EPILOG)
    documented = {int(code): text for code, text in _table(EVAL, "| exit | meaning |").items()}
    assert set(helped) == set(documented) == {0, 1, 2, 3, command.EXIT_REGRESSION}


def _usage_code(table: dict[str, str]) -> int:
    (code,) = [int(c) for c, meaning in table.items() if meaning.startswith("bad command line")]
    return code


BAD_VALUES = [
    # an unknown domain (UnknownDomainError)
    ["verify", "--domain", "nope", "--response", "x", "--reference", "1"],
    # values that raise ConfigError once parsed
    ["eval", "--domains", "math", "--workers", "0"],
    ["score", "-", "--backend", "ray", "--actors", "0"],
    ["score", "-", "--actors", "2"],
    ["new-verifier", "Units"],
]


@pytest.mark.parametrize("argv", BAD_VALUES, ids=[" ".join(a[:3]) for a in BAD_VALUES])
def test_a_bad_command_line_value_exits_as_documented(
    argv: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code = _usage_code(_table(README, "| exit | meaning |"))
    assert code == _usage_code({str(k): v for k, v in _epilog_codes(command.EVAL_EPILOG).items()})
    if argv[0] == "new-verifier":
        argv = [*argv, "--dir", str(tmp_path / "p")]
    assert cli.main(argv) == code, capsys.readouterr().err
    assert capsys.readouterr().err.startswith("assay: ")


def test_eval_sample_output_shows_the_current_verifiers() -> None:
    # docs/eval.md's `$ assay eval` sample lists every registered verifier at its version now
    from assay.registry import list_domains

    sample = EVAL[EVAL.index("$ assay eval\n") :]
    sample = sample[: sample.index("```")]
    shown = set(re.findall(r"^(\w+@[\w.]+)\s", sample, re.M))
    assert shown == {f"{e.name}@{e.version}" for e in list_domains()}
