"""open-r1/codeforces rows, in the columns the set ships, read without conversion.

A row of ``open-r1/codeforces`` (and of its ``verifiable-prompts`` config, which adds
``prompt`` and ``language``) holds the problem's statement fields, ``official_tests`` (a list
of ``{input, output}``), ``input_mode`` (``stdio`` or ``file``), ``generated_checker`` (the
source of a checker for problems with several right answers, else null), ``time_limit``
(seconds), ``memory_limit`` (MB) and a count of ``generated_tests`` kept in other files.
open-r1's own scorer runs ``official_tests`` (plus the generated tests, when they are on
disk) and, with no checker, compares the output as Codeforces' default checker does.

The labels are by hand, from the problems as Codeforces states them (1A Theatre Square, 4A
Watermelon, 71A Way Too Long Words, 158A Next Round, 231A Team) and what each program prints
on the row's tests. With no checker a test passes when the output's whitespace-separated
words are the expected ones (testlib's ``wcmp``, Codeforces' standard checker): line breaks
and runs of spaces are whitespace, ``4.0`` is not ``4``. A row assay cannot judge as
Codeforces would (its checker, file input) is a malformed task, never a guess.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from scoring import score

from assay.runner import Scorer

PROSE = "<think>\nCeil division for each side.\n</think>\nHere is my solution:\n\n```{}\n{}```\n"


def row(problem_id: str, tests: list[tuple[str, str]], **extra: Any) -> dict[str, Any]:
    """An open-r1/codeforces row: its columns as the set ships them."""
    contest, index = problem_id[:-1], problem_id[-1]
    return {
        "id": problem_id,
        "aliases": None,
        "contest_id": contest,
        "contest_name": f"Codeforces Beta Round {contest}",
        "contest_type": "CF",
        "contest_start": 1266580800,
        "contest_start_year": 2010,
        "index": index,
        "time_limit": 1.0,
        "memory_limit": 256.0,
        "title": problem_id,
        "description": "...",
        "input_format": "...",
        "output_format": "...",
        "interaction_format": None,
        "note": None,
        "examples": [{"input": tests[0][0], "output": tests[0][1]}] if tests else [],
        "editorial": None,
        "rating": 1000,
        "tags": ["math"],
        "testset_size": len(tests),
        "official_tests": [{"input": i, "output": o} for i, o in tests],
        "official_tests_complete": True,
        "input_mode": "stdio",
        "generated_checker": None,
        "executable": True,
        "generated_tests": 0,
        **extra,
    }


THEATRE = row("1A", [
    ("6 6 4\n", "4\n"), ("1 1 1\n", "1\n"), ("2 1 1\n", "2\n"), ("1 2 1\n", "2\n"),
    ("2 2 1\n", "4\n"), ("2 1 2\n", "1\n"), ("1000000000 1000000000 1\n", "1000000000000000000\n"),
    ("1000000000 1000000000 1000000000\n", "1\n"),
])  # fmt: skip
READ3 = "n, m, a = map(int, input().split())\n"
WATERMELON = row("4A", [(f"{w}\n", "YES\n" if w % 2 == 0 and w > 2 else "NO\n")
                        for w in (8, 5, 4, 3, 2, 1, 7, 6, 100, 99, 98)])  # fmt: skip
WORDS = row("71A", [
    ("4\nword\nlocalization\ninternationalization\n"
     "pneumonoultramicroscopicsilicovolcanoconiosis\n", "word\nl10n\ni18n\np43s\n"),
    ("2\nabcdefghij\nabcdefghijk\n", "abcdefghij\na9k\n"),
])  # fmt: skip
ABBREVIATE = (
    "for _ in range(int(input())):\n"
    "    w = input().strip()\n"
    "    print(w if len(w) <= 10 else w[0] + str(len(w) - 2) + w[-1])\n"
)
NEXT_ROUND = row("158A", [("8 5\n10 9 8 7 7 7 5 5\n", "6\n"), ("4 2\n0 0 0 0\n", "0\n"),
                          ("5 1\n1 1 1 1 1\n", "5\n")])  # fmt: skip
TEAM = row("231A", [("3\n1 1 0\n1 1 1\n1 0 0\n", "2\n"), ("2\n1 0 0\n0 1 1\n", "1\n")])
TEAM_CPP = (
    "#include <bits/stdc++.h>\nusing namespace std;\n"
    "int main() {\n    int n, count = 0;\n    cin >> n;\n"
    "    for (int i = 0; i < n; i++) {\n        int a, b, c;\n        cin >> a >> b >> c;\n"
    "        if (a + b + c >= NEED) count++;\n    }\n    cout << count << endl;\n    return 0;\n}\n"
)

CASES: list[tuple[str, dict[str, Any], str, str, float]] = [
    ("theatre-right", THEATRE,
     PROSE.format("python", READ3 + "print(-(-n // a) * -(-m // a))\n"), "correct", 1.0),
    ("theatre-math-ceil", THEATRE,
     PROSE.format("python", "import math\n" + READ3 + "print(math.ceil(n / a) * math.ceil(m / a))\n"),
     "correct", 1.0),
    ("theatre-floor", THEATRE, PROSE.format("python", READ3 + "print((n // a) * (m // a))\n"),
     "partial", 6 / 8),
    ("theatre-float-output", THEATRE,
     PROSE.format("python", READ3 + "print(float(-(-n // a) * -(-m // a)))\n"), "incorrect", 0.0),
    ("watermelon-right", WATERMELON,
     PROSE.format("python", "w = int(input())\nprint('YES' if w % 2 == 0 and w > 2 else 'NO')\n"),
     "correct", 1.0),
    ("watermelon-forgets-two", WATERMELON,
     PROSE.format("python", "w = int(input())\nprint('YES' if w % 2 == 0 else 'NO')\n"),
     "partial", 10 / 11),
    ("words-right", WORDS, PROSE.format("python", ABBREVIATE), "correct", 1.0),
    ("words-off-by-one", WORDS, PROSE.format("python", ABBREVIATE.replace("<= 10", "< 10")),
     "partial", 0.5),
    ("words-on-one-line", WORDS, PROSE.format("python", (
        "out = []\nfor _ in range(int(input())):\n    w = input().strip()\n"
        "    out.append(w if len(w) <= 10 else w[0] + str(len(w) - 2) + w[-1])\n"
        "print(' '.join(out) + '  ')\n")), "correct", 1.0),
    ("next-round-right", NEXT_ROUND, PROSE.format("python", (
        "n, k = map(int, input().split())\na = list(map(int, input().split()))\n"
        "print(sum(1 for x in a if x >= a[k - 1] and x > 0))\n")), "correct", 1.0),
    ("next-round-counts-zeros", NEXT_ROUND, PROSE.format("python", (
        "n, k = map(int, input().split())\na = list(map(int, input().split()))\n"
        "print(sum(1 for x in a if x >= a[k - 1]))\n")), "partial", 2 / 3),
    ("next-round-prints-nothing", NEXT_ROUND, PROSE.format("python", "import sys\nsys.exit(0)\n"),
     "incorrect", 0.0),
    ("team-cpp-right", {**TEAM, "language": "cpp"}, PROSE.format("cpp", TEAM_CPP.replace("NEED", "2")),
     "correct", 1.0),
    ("team-cpp-wrong", {**TEAM, "language": "cpp"}, PROSE.format("cpp", TEAM_CPP.replace("NEED", "3")),
     "incorrect", 0.0),
    ("team-python-blank-lines", TEAM, PROSE.format("python", (
        "n = int(input())\nprint()\n"
        "print(sum(sum(map(int, input().split())) >= 2 for _ in range(n)))\nprint()\n")),
     "correct", 1.0),
    ("tests-as-json-text", {**THEATRE, "official_tests": json.dumps(THEATRE["official_tests"])},
     PROSE.format("python", READ3 + "print(-(-n // a) * -(-m // a))\n"), "correct", 1.0),
]  # fmt: skip


@pytest.mark.parametrize(
    ("row", "response", "status", "score_"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_codeforces_rows_as_shipped(
    code_scorer: Scorer, row: dict[str, Any], response: str, status: str, score_: float
) -> None:
    [result] = score(code_scorer, [{**row, "domain": "code", "response": response}])
    assert result.status.value == status, result.verdict.message
    assert result.verdict.score == pytest.approx(score_), result.verdict.checks


def test_codeforces_rows_need_no_domain_or_reference_column(code_scorer: Scorer) -> None:
    # as the set comes: no domain, no reference; the row's columns are the task
    right = PROSE.format("python", READ3 + "print(-(-n // a) * -(-m // a))\n")
    results = score(
        code_scorer,
        [{**THEATRE, "response": right}, {**THEATRE, "response": right.replace("-(-n // a)", "n")}],
    )
    assert [r.status.value for r in results] == ["correct", "partial"]
    assert [r.id for r in results] == ["1A", "1A#1"]  # two samples of one problem


CHECKER = (
    "import sys\n\ndef main():\n    inp, ans, out = (open(p).read().split() for p in sys.argv[1:4])\n"
    "    print(1 if sorted(ans) == sorted(out) else 0)\n\nmain()\n"
)


@pytest.mark.parametrize(
    ("row", "needle"),
    [
        ({**THEATRE, "generated_checker": CHECKER}, "checker"),
        ({**THEATRE, "input_mode": "file"}, "input_mode"),
        (
            {**THEATRE, "interaction_format": "Read the judge's answer after each query."},
            "interactive",
        ),
        ({**THEATRE, "official_tests": []}, "official_tests"),
        ({**THEATRE, "official_tests": [{"input": "1 1 1\n"}]}, "official_tests"),
        ({**THEATRE, "official_tests": [{"input": 1, "output": "1"}]}, "official_tests"),
        ({**THEATRE, "official_tests": "[{not json"}, "official_tests"),
    ],
    ids=[
        "has-a-checker",
        "file-input",
        "interactive",
        "no-tests",
        "case-without-output",
        "not-text",
        "bad-json",
    ],
)
def test_a_codeforces_row_assay_cannot_judge_is_a_malformed_task(
    code_scorer: Scorer, row: dict[str, Any], needle: str
) -> None:
    right = PROSE.format("python", READ3 + "print(-(-n // a) * -(-m // a))\n")
    [result] = score(code_scorer, [{**row, "domain": "code", "response": right}])
    assert result.status.value == "error", result.verdict.message
    assert needle in result.verdict.message, result.verdict.message


WORDS_RULE = [
    ("1 2\n3\n", "1 2 3", "correct"),
    ("  4\n\n", "4\n", "correct"),
    ("4.0\n", "4\n", "incorrect"),
    ("yes\n", "YES\n", "incorrect"),
    ("4 4\n", "4\n", "incorrect"),
    ("", "4\n", "incorrect"),
    ("", "", "correct"),
    ("4\u00a0\n", "4\n", "incorrect"),  # a no-break space is part of the word, as in wcmp
]


@pytest.mark.parametrize(("printed", "expected", "status"), WORDS_RULE)
def test_stdout_match_words_is_codeforces_default_checker(
    code_scorer: Scorer, printed: str, expected: str, status: str
) -> None:
    reference = {"stdio": [{"stdin": "", "stdout": expected}], "stdout_match": "words"}
    response = f"```python\nimport sys\nsys.stdout.write({printed!r})\n```"
    [result] = score(code_scorer, [{"domain": "code", "reference": reference,
                                    "response": response}])  # fmt: skip
    assert result.status.value == status, result.verdict.message
