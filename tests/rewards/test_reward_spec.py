"""Reward specs: status rewards, check weights, penalties, overlong, clipping, file forms."""

from __future__ import annotations

from pathlib import Path

import pytest
from assay.rewards.spec import OverlongPenalty, RewardSpec, SampleReward, SpecSet

from assay.errors import ConfigError
from assay.types import Check, Status, Verdict

FORMAT_FAIL = (Check("format", passed=False), Check("tests", passed=True, score=0.5))

REWARD_CASES = [
    # defaults: correct earns 1
    (RewardSpec(), Verdict.correct(), None, SampleReward(1.0, False)),
    # defaults: partial earns the verdict's score
    (RewardSpec(), Verdict.graded(0.25), None, SampleReward(0.25, False)),
    # defaults: unparsable earns 0 but stays in the loss
    (RewardSpec(), Verdict.unparsable("no box"), None, SampleReward(0.0, False)),
    # defaults: error and timeout are masked, never a silent 0 in the loss
    (RewardSpec(), Verdict.error("sandbox died"), None, SampleReward(0.0, True)),
    (RewardSpec(), Verdict.timeout("slow"), None, SampleReward(0.0, True)),
    # a custom status reward
    (
        RewardSpec(rewards={"unparsable": -0.5}),
        Verdict.unparsable("x"),
        None,
        SampleReward(-0.5, False),
    ),
    # weighted checks: (1 * 0 + 3 * 0.5) / 4 = 0.375, whatever the status
    (
        RewardSpec(weights={"format": 1.0, "tests": 3.0}),
        Verdict.incorrect(FORMAT_FAIL),
        None,
        SampleReward(0.375, False),
    ),
    # a missing weighted check counts 0
    (
        RewardSpec(weights={"absent": 1.0, "tests": 1.0}),
        Verdict.correct(FORMAT_FAIL),
        None,
        SampleReward(0.25, False),
    ),
    # a failed format check costs its penalty; a passed one costs nothing
    (
        RewardSpec(format_penalties={"format": 0.3, "tests": 9.0}),
        Verdict.correct(FORMAT_FAIL),
        None,
        SampleReward(0.7, False),
    ),
    # overlong soft band: 90 tokens of max 100 with a 20-token band -> -0.5
    (
        RewardSpec(overlong=OverlongPenalty(100, 20)),
        Verdict.correct(),
        90,
        SampleReward(0.5, False),
    ),
    # truncated response masked when asked
    (
        RewardSpec(overlong=OverlongPenalty(100, 20, mask_truncated=True)),
        Verdict.correct(),
        100,
        SampleReward(0.0, True),
    ),
    # clipping after penalties: 0 - 0.3 - 1 clipped to -1
    (
        RewardSpec(
            format_penalties={"format": 0.3}, overlong=OverlongPenalty(10), clip=(-1.0, 1.0)
        ),
        Verdict.incorrect(FORMAT_FAIL),
        50,
        SampleReward(-1.0, False),
    ),
    # a custom masked set: unparsable masked too, timeout scored
    (
        RewardSpec(mask_statuses=frozenset({Status.UNPARSABLE})),
        Verdict.unparsable("x"),
        None,
        SampleReward(0.0, True),
    ),
    (
        RewardSpec(mask_statuses=frozenset({Status.UNPARSABLE})),
        Verdict.timeout("x"),
        None,
        SampleReward(0.0, False),
    ),
]


@pytest.mark.parametrize(
    ("spec", "verdict", "length", "expected"),
    REWARD_CASES,
    ids=[
        "correct",
        "partial-score",
        "unparsable-zero",
        "error-masked",
        "timeout-masked",
        "custom-unparsable",
        "weighted-checks",
        "missing-check",
        "format-penalty",
        "overlong-band",
        "truncated-masked",
        "clip",
        "custom-masked",
        "timeout-unmasked",
    ],
)
def test_reward(
    spec: RewardSpec, verdict: Verdict, length: int | None, expected: SampleReward
) -> None:
    got = spec.reward(verdict, length)
    assert got.masked == expected.masked
    assert got.reward == pytest.approx(expected.reward)


@pytest.mark.parametrize(
    ("length", "expected"),
    [(0, 0.0), (80, 0.0), (81, -0.05), (90, -0.5), (100, -1.0), (150, -1.0)],
    # 0 and 80 sit before the band; 81 enters it; 90 is midway; 100 and beyond get the full -1
    ids=["empty", "band-start", "band-first", "band-mid", "max", "beyond"],
)
def test_overlong_curve(length: int, expected: float) -> None:
    assert OverlongPenalty(100, 20).penalty(length) == pytest.approx(expected)


@pytest.mark.parametrize(
    "kwargs",
    [{"max_len": 0}, {"max_len": 10, "cache_len": 11}, {"max_len": 10, "cache_len": -1}],
    # no length budget; a band wider than the budget; a negative band
    ids=["zero-max", "band-too-wide", "negative-band"],
)
def test_overlong_rejects(kwargs: dict[str, int]) -> None:
    with pytest.raises(ConfigError):
        OverlongPenalty(**kwargs)


TOML = """
[default]
masked = ["error", "timeout"]

[math]
rewards = { correct = 1.0, partial = "score", incorrect = 0.0, unparsable = -0.5 }
format_penalties = { format = 0.2 }
clip = [-1.0, 1.0]
normalize = "group"

[math.overlong]
max_len = 4096
cache_len = 512

[code.weights]
tests = 0.8
ruff = 0.2
"""


def test_load_toml(tmp_path: Path) -> None:
    # one table per domain; [default] is the fallback for unknown domains
    path = tmp_path / "rewards.toml"
    path.write_text(TOML)
    specs = SpecSet.load(path)
    assert specs["math"].rewards[Status.UNPARSABLE] == -0.5
    assert specs["math"].rewards[Status.PARTIAL] is None
    assert specs["math"].overlong == OverlongPenalty(4096, 512)
    assert specs["math"].clip == (-1.0, 1.0)
    assert specs["math"].normalize == "group"
    assert specs["code"].weights == {"tests": 0.8, "ruff": 0.2}
    assert specs["chemistry"] is specs.default


def test_load_yaml(tmp_path: Path) -> None:
    # the YAML form carries the same tables
    path = tmp_path / "rewards.yaml"
    path.write_text("math:\n  rewards: {incorrect: -1}\n  clip: [-1, 1]\n")
    specs = SpecSet.load(path)
    assert specs["math"].reward(Verdict.incorrect()).reward == -1.0


@pytest.mark.parametrize(
    ("table", "match"),
    [
        ({"math": {"reward": {}}}, "unknown reward spec keys"),
        ({"math": {"rewards": {"great": 1.0}}}, "invalid reward spec"),
        ({"math": {"clip": [1.0, -1.0]}}, "clip low"),
        ({"math": {"normalize": "zscore"}}, "unknown normalize"),
        ({"math": {"weights": {"a": 0.0}}}, "positive"),
        ({"math": 3}, "must be a table"),
    ],
    # a typo'd key; an unknown status; reversed clip; unknown mode; weights summing to 0;
    # a domain that is not a table
    ids=[
        "typo-key",
        "unknown-status",
        "reversed-clip",
        "unknown-normalize",
        "zero-weights",
        "not-table",
    ],
)
def test_bad_tables(table: dict[str, object], match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        SpecSet.from_dict(table)


def test_bad_toml_file(tmp_path: Path) -> None:
    # a syntax error is a ConfigError naming the file
    path = tmp_path / "bad.toml"
    path.write_text("[math\n")
    with pytest.raises(ConfigError, match=r"bad\.toml"):
        SpecSet.load(path)
