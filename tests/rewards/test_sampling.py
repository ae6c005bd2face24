"""The task sampler: domain mix, difficulty, curriculum, held-back tasks, determinism, resume."""

from __future__ import annotations

import copy
import dataclasses
import importlib
import json
import random
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from assay.rewards.sampling import SamplerConfig, TaskInfo, TaskSampler, task_info
from assay.rewards.simulate import SimulatedLearner, make_tasks

from assay.blame import TOO_COSTLY, response_fault
from assay.errors import ConfigError
from assay.scheduling.breaker import CircuitBreaker
from assay.types import Result, Verdict

SIZES = {"math": 200, "code": 20, "chem": 60}  # a big domain, a small one, a middling one


def _tasks(sizes: dict[str, int] = SIZES, levels: int = 1) -> list[TaskInfo]:
    return make_tasks(sizes, levels=levels, seed=0)[0]


def _shares(sampler: TaskSampler, steps: int, batch: int) -> dict[str, float]:
    drawn = Counter(sampler.tasks[i].domain for _ in range(steps) for i in sampler.sample(batch))
    return {d: n / (steps * batch) for d, n in drawn.items()}


@pytest.mark.parametrize(
    ("weights", "expected"),
    [
        # equal shares by default: the 20-task domain is not crowded out by the 200-task one
        (None, {"math": 1 / 3, "code": 1 / 3, "chem": 1 / 3}),
        # given targets, normalised
        ({"math": 5, "code": 3, "chem": 2}, {"math": 0.5, "code": 0.3, "chem": 0.2}),
        # a domain left out of the targets is never drawn
        ({"math": 1, "code": 1}, {"math": 0.5, "code": 0.5}),
    ],
    ids=["equal", "weighted", "left-out"],
)
def test_mix_stays_within_tolerance_of_targets(
    weights: dict[str, float] | None, expected: dict[str, float]
) -> None:
    sampler = TaskSampler(_tasks(), SamplerConfig(domain_weights=weights), seed=1)
    learner = SimulatedLearner(sampler.tasks, make_tasks(SIZES, levels=1, seed=0)[1], seed=1)
    drawn: Counter[str] = Counter()
    for _ in range(60):  # fed verdicts all along: difficulty weights move, the mix must not
        batch = sampler.sample(10)
        drawn.update(sampler.tasks[i].domain for i in batch)
        sampler.update(*learner.attempt(batch))
        shares = sampler.metrics()
        assert sum(shares[f"sampler/share/{d}"] for d in SIZES) == pytest.approx(1.0)
    for domain in SIZES:
        assert drawn[domain] / 600 == pytest.approx(expected.get(domain, 0.0), abs=0.01), drawn
        assert sampler.metrics()[f"sampler/target/{domain}"] == pytest.approx(
            expected.get(domain, 0.0)
        )


def _fed_sampler(**knobs: Any) -> TaskSampler:
    """Four kinds of math task: always solved, never solved, half solved, never tried."""
    tasks = [
        TaskInfo(f"{kind}{j}", "math") for kind in ("easy", "hard", "mid", "new") for j in range(5)
    ]
    sampler = TaskSampler(tasks, SamplerConfig(**knobs), seed=3)
    for _ in range(4):
        ids = [f"{k}{j}" for k in ("easy", "hard", "mid") for j in range(5) for _ in range(8)]
        scores = [
            float(k == "easy" or (k == "mid" and r % 2 == 0))
            for k in ("easy", "hard", "mid")
            for _ in range(5)
            for r in range(8)
        ]
        sampler.update(ids, scores)
    return sampler


def test_useful_difficulty_band_and_prior() -> None:
    # DAPO: a task always or never solved teaches nothing and is drawn least; a task never tried
    # (prior only) is drawn less than a half-solved one, but far more than a solved one
    sampler = _fed_sampler()
    drawn = Counter(
        sampler.tasks[i].id.rstrip("0123456789") for _ in range(400) for i in sampler.sample(1)
    )
    assert drawn["mid"] > drawn["new"] > 4 * max(drawn["easy"], drawn["hard"]), drawn
    assert drawn["easy"] > 0 and drawn["hard"] > 0  # min_weight: nothing open starves
    assert sampler.pass_rate("easy0") > 0.9
    assert sampler.pass_rate("hard0") < 0.1
    assert 0.4 < sampler.pass_rate("mid0") < 0.6


def test_prior_follows_the_domain() -> None:
    # an unseen task in a domain the policy aces is expected easy, in one it fails, hard
    tasks = [TaskInfo(f"a{j}", "aced") for j in range(3)] + [
        TaskInfo(f"f{j}", "failed") for j in range(3)
    ]
    sampler = TaskSampler(tasks, seed=0)
    sampler.update(["a0"] * 20 + ["f0"] * 20, [1.0] * 20 + [0.0] * 20)
    assert sampler.pass_rate("a1") > 0.8 and sampler.pass_rate("f1") < 0.2


def test_curriculum_opens_levels_in_order() -> None:
    tasks = _tasks({"math": 30}, levels=3)
    sampler = TaskSampler(tasks, SamplerConfig(level_threshold=0.7), seed=0)
    assert sampler.open_level("math") == 0
    assert {tasks[i].level for _ in range(20) for i in sampler.sample(5)} == {0}
    level0 = [t.id for t in tasks if t.level == 0]
    sampler.update(level0 * 2, [1.0, 0.0] * len(level0))  # half solved: below the threshold
    assert sampler.open_level("math") == 0
    sampler.update(level0 * 8, [1.0] * (8 * len(level0)))
    assert sampler.open_level("math") == 1
    assert {tasks[i].level for _ in range(30) for i in sampler.sample(5)} == {0, 1}
    # a level never closes again, even when the pass rate falls back
    sampler.update(level0 * 10, [0.0] * (10 * len(level0)))
    assert sampler.open_level("math") == 1
    assert sampler.metrics()["sampler/open_level/math"] == 1.0


def test_tasks_whose_verifier_keeps_failing_are_held_back_then_probed() -> None:
    tasks = [TaskInfo(f"t{j}", "math") for j in range(4)]
    config = SamplerConfig(hold_after=3, hold_steps=5)
    sampler = TaskSampler(tasks, config, seed=0)
    error = Result("t0", "math", Verdict.error("sandbox crashed"), "math@1", 1.0)
    for _ in range(2):
        sampler.update(["t0"], [error])
    assert sampler.held_back() == []  # two in a row: not yet
    sampler.update(["t0"], [error])
    assert sampler.held_back() == ["t0"]
    assert sampler.metrics()["sampler/held_back"] == 1.0
    for _ in range(5):
        assert 0 not in sampler.sample(3)
    assert sampler.held_back() == []  # the hold is over: t0 is drawn again, as a probe
    assert 0 in sampler.sample(4)
    sampler.update(["t0"], [None])  # the probe is masked too: held back again at once
    assert sampler.held_back() == ["t0"]


def test_open_circuit_breaker_holds_back_the_domain() -> None:
    # the real refusal verdict of assay's circuit breaker, as a degraded domain's items get it
    breaker = CircuitBreaker(threshold=1, cooldown_s=60)
    breaker.record(Result("x", "code", Verdict.error("worker died"), "code@1", 1.0))
    refusal = breaker.refusal("code")
    tasks = [TaskInfo(f"m{j}", "math") for j in range(5)] + [
        TaskInfo(f"c{j}", "code") for j in range(5)
    ]
    sampler = TaskSampler(tasks, SamplerConfig(hold_steps=4), seed=0)
    sampler.update(["c0", "m0"], [Result("c0", "code", refusal, "code@1", 0.0), 1.0])
    assert sorted(sampler.held_back()) == [f"c{j}" for j in range(5)]
    assert sampler.target_shares() == {"math": 1.0}  # its share goes to the domains left
    assert sampler.metrics()["sampler/held_back_domains"] == 1.0
    for _ in range(4):
        assert all(tasks[i].domain == "math" for i in sampler.sample(4))
    assert {tasks[i].domain for i in sampler.sample(4)} == {"math", "code"}


def test_a_response_that_makes_the_check_too_costly_is_not_held_back() -> None:
    # attack: a policy that answers hard tasks with something too costly to check must not get
    # them held back (skipped) as if the verifier were broken: that verdict is the response's
    # fault, 'incorrect', and counts as a failed attempt
    tasks = [TaskInfo(f"t{j}", "math") for j in range(3)]
    sampler = TaskSampler(tasks, SamplerConfig(hold_after=1), seed=0)
    costly = response_fault(
        TOO_COSTLY, "expression too large to compare", {"expression": "10^10^10"}
    )
    for _ in range(5):
        sampler.update(["t0"] * 4, [costly] * 4)
    assert sampler.held_back() == []
    assert sampler.pass_rate("t0") < 0.1


@pytest.mark.parametrize(
    ("outcome", "solved", "masked"),
    [
        (Verdict.correct(), 1, 0),  # a typed verdict
        (Result("t", "math", Verdict.incorrect("wrong"), "math@1", 1.0), 0, 0),  # a runner result
        ({"score": 1.0, "status": "correct", "masked": False}, 1, 0),  # verl's score dict
        ({"score": 0.0, "status": "timeout", "masked": True}, 0, 1),  # verl's masked item
        (0.5, 0, 0),  # a partial score is not a pass at pass_score 1
        (1.0, 1, 0),
        (True, 1, 0),
        (None, 0, 1),  # TRL's reward for a masked verdict
        (float("nan"), 0, 1),  # a NaN reward is not evidence either way
    ],
    ids=[
        "verdict",
        "result",
        "verl-dict",
        "verl-masked",
        "partial",
        "score",
        "bool",
        "none",
        "nan",
    ],
)
def test_outcome_forms(outcome: Any, solved: int, masked: int) -> None:
    sampler = TaskSampler([TaskInfo("t", "math")], SamplerConfig(hold_after=1), seed=0)
    sampler.update(["t"], [outcome])
    attempts, passed, _, _, held_until = sampler.state_dict()["tasks"][0]
    assert (passed, attempts, sampler.held_back() == ["t"]) == (solved, 1 - masked, bool(masked))
    assert held_until >= 0 if masked else held_until == -1


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda s: s.update(["nope"], [1.0]), "unknown task id"),
        (lambda s: s.update([99], [1.0]), "out of range"),
        (lambda s: s.update(["t0", "t1"], [1.0]), "2 tasks but 1 outcomes"),
        (lambda s: s.sample(0), "at least 1"),
        (lambda s: s.load_state_dict({**s.state_dict(), "task_ids": ["x"]}), "different task"),
    ],
    ids=["unknown-id", "bad-position", "lengths", "empty-batch", "foreign-state"],
)
def test_bad_calls_raise_config_errors(call: Any, message: str) -> None:
    sampler = TaskSampler([TaskInfo("t0", "math"), TaskInfo("t1", "math")], seed=0)
    with pytest.raises(ConfigError, match=message):
        call(sampler)


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        ({"id": "q1", "domain": "math", "level": 2}, TaskInfo("q1", "math", 2)),
        # verl rows: data_source, extra_info.index and extra_info.level; the id names the
        # data source, as assay score's does ("<data_source>-<split>-<index>")
        (
            {"data_source": "code", "extra_info": {"index": 7, "level": "1"}},
            TaskInfo("code-7", "code", 1),
        ),
        ({"meta": {"level": 3}}, TaskInfo("5", "default", 3)),  # no id: the position
    ],
    ids=["assay", "verl", "bare"],
)
def test_task_info_from_rows(row: dict[str, Any], expected: TaskInfo) -> None:
    assert task_info(row, 5) == expected


@pytest.mark.parametrize(
    "tasks",
    [[], [TaskInfo("a", "m"), TaskInfo("a", "m")], [{"level": "hard"}]],
    ids=["empty", "duplicate-ids", "bad-level"],
)
def test_bad_task_lists(tasks: list[Any]) -> None:
    with pytest.raises(ConfigError):
        TaskSampler(tasks)


def test_deterministic_given_a_seed() -> None:
    def draws(seed: int) -> list[list[int]]:
        sampler = TaskSampler(_tasks(), seed=seed)
        return [sampler.sample(8) for _ in range(10)]

    assert draws(4) == draws(4)
    assert draws(4) != draws(5)


def test_save_restore_mid_run_is_exact() -> None:
    tasks, difficulty = make_tasks(SIZES, levels=3, seed=2)
    config = SamplerConfig(adaptive=0.5, hold_after=1, hold_steps=3)

    def run(sampler: TaskSampler, learner: SimulatedLearner, steps: int, start: int) -> list[Any]:
        out = []
        for step in range(start, start + steps):
            batch = sampler.sample(8)
            ids, scores = learner.attempt(batch)
            outcomes: list[Any] = list(scores)
            if step % 5 == 0:  # a masked verdict now and then: holds are part of the state
                outcomes[0] = None
            sampler.update(ids, outcomes)
            out.append((batch, sampler.metrics()))
        return out

    whole = run(
        TaskSampler(tasks, config, seed=9), SimulatedLearner(tasks, difficulty, seed=9), 40, 0
    )
    first = TaskSampler(tasks, config, seed=9)
    learner = SimulatedLearner(tasks, difficulty, seed=9)
    head = run(first, learner, 20, 0)
    saved = json.loads(json.dumps(first.state_dict()))  # a checkpoint on disk
    resumed = TaskSampler(tasks, config, seed=0)  # another seed: the state must carry it
    resumed.load_state_dict(saved)
    tail = run(resumed, copy.deepcopy(learner), 20, 20)
    assert head + tail == whole


def test_adaptive_mix_moves_share_to_improving_domains() -> None:
    tasks = _tasks({"up": 20, "flat": 20}, levels=1)
    fixed = TaskSampler(tasks, seed=0)
    adaptive = TaskSampler(tasks, SamplerConfig(adaptive=0.8), seed=0)
    rng = random.Random(0)
    for step in range(20):
        for sampler in (fixed, adaptive):
            batch = sampler.sample(10)
            rate = {"up": step / 20, "flat": 0.3}  # one domain keeps improving
            scores = [float(rng.random() < rate[sampler.tasks[i].domain]) for i in batch]
            sampler.update(batch, scores)
    assert fixed.target_shares() == {"up": 0.5, "flat": 0.5}
    assert adaptive.target_shares()["up"] > 0.7
    assert adaptive.target_shares()["flat"] >= 0.2 * 0.5  # the fixed part keeps a floor


def _steps_to_target(seed: int, curriculum: bool, target: float = 0.8) -> int:
    tasks, difficulty = make_tasks({"math": 120, "code": 30, "chem": 60}, levels=3, seed=seed)
    learner = SimulatedLearner(tasks, difficulty, seed=seed)
    sampler = TaskSampler(tasks, seed=seed)
    rng = random.Random(seed)
    for step in range(1, 1000):
        batch = sampler.sample(8) if curriculum else rng.sample(range(len(tasks)), 8)
        ids, scores = learner.attempt(batch)
        if curriculum:
            sampler.update(ids, scores)
        if learner.mean_pass_rate() >= target:
            return step
    raise AssertionError("target never reached")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_curriculum_reaches_the_target_in_fewer_steps_than_uniform(seed: int) -> None:
    # bench/sampler_bench.py reports the ratio over more seeds
    assert _steps_to_target(seed, curriculum=True) < _steps_to_target(seed, curriculum=False)


def test_metrics_per_step() -> None:
    sampler = TaskSampler(_tasks(), seed=0)
    sampler.update(sampler.sample(9), [1.0] * 9)
    metrics = sampler.metrics()
    hist = [v for k, v in metrics.items() if k.startswith("sampler/pass_rate_hist/")]
    assert len(hist) == 10 and sum(hist) == pytest.approx(1.0)
    assert metrics["sampler/step"] == 1.0
    assert {k.split("/")[-1] for k in metrics if k.startswith("sampler/share/")} == set(SIZES)
    assert all(isinstance(v, float) for v in metrics.values())


def test_docs_knob_table_names_every_knob() -> None:
    # docs/rewards.md's table of knobs and SamplerConfig's fields are the same names
    doc = (Path(__file__).resolve().parents[2] / "docs" / "rewards.md").read_text()
    table = doc[doc.index("| knob | meaning | default |") :].split("\n\n")[0]
    named = set(
        re.findall(r"`(\w+)`", "\n".join(row.split("|")[1] for row in table.splitlines()[2:]))
    )
    assert named == {f.name for f in dataclasses.fields(SamplerConfig)}


def test_verl_recipe_compiles_and_names_what_exists() -> None:
    # the verl recipe cannot run here (RayPPOTrainer needs Ray workers); its assay names exist
    doc = (Path(__file__).resolve().parents[2] / "docs" / "rewards.md").read_text()
    block = re.search(r"```python\n(.*?)```", doc[doc.index("### verl\n") :], re.S)
    assert block is not None
    compile(block.group(1), "recipe", "exec")
    for module, names in re.findall(r"from (assay[\w.]+) import (.+)", block.group(1)):
        imported = importlib.import_module(module)
        assert all(hasattr(imported, n.strip()) for n in names.split(",")), (module, names)
