"""A gsm8k answer with the next turn's role word glued on: ``#### 72assistant``.

A policy that runs past its end of turn, decoded with ``skip_special_tokens`` (Llama 3's
``#### 72<|eot_id|><|start_header_id|>assistant<|end_header_id|>`` is ``#### 72assistant``),
ends its answer with the bare word ``assistant``. verl's own gsm8k scorer
(``verl.utils.reward_score.gsm8k``, ``re.findall("#### (\\-?[0-9\\.\\,]+)")``) reads the number
and pays 1.0; assay read ``72assistant`` as one unknown word, ``unparsable``. The role word is
now taken off, only where it is glued to the final answer at the very end of the response:
an answer that ends in a word of its own stays as it is (math@1.5.1).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import verl
from hydra import compose, initialize_config_dir
from verl.utils.reward_score import default_compute_score, gsm8k

CONFIG_DIR = Path(verl.__file__).parent / "trainer" / "config"

# (response, ground truth, verl's gsm8k score, assay's status)
CASES: list[tuple[str, str, float, str]] = [
    ("48 + 24 = 72\n#### 72assistant", "72", 1.0, "correct"),
    ("48 + 24 = 72\n#### 72assistant\n\n", "72", 1.0, "correct"),
    ("#### 71assistant", "72", 0.0, "incorrect"),
    ("#### 1,000assistant", "1000", 1.0, "correct"),
    ("#### -3assistant", "-3", 1.0, "correct"),
    # not glued, or not at the very end: as before
    ("#### 72 assistant", "72", 1.0, "correct"),
    ("#### 72\nassistant", "72", 1.0, "correct"),
    ("#### 72", "72", 1.0, "correct"),
    # the role word is glued only to an answer: a word that ends in it is the answer's
    ("#### 72assistants", "72", 1.0, "unparsable"),
    ("#### 72assistant?", "72", 1.0, "unparsable"),
    ("#### 72user", "72", 1.0, "unparsable"),  # only the word that opens the model's turn
]

# text answers that end in the word: the reference is the answer, nothing is cut off
TEXT_CASES: list[tuple[str, Any, str]] = [
    ("The answer is: teaching assistant", "teaching assistant", "correct"),
    ("#### assistant", "assistant", "correct"),
    ("The answer is \\boxed{\\text{assistant}}", "assistant", "correct"),
]


def _compute_score() -> Any:
    from verl.trainer.ppo.reward import get_custom_reward_fn

    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base=None):
        config = compose(
            config_name="ppo_trainer",
            overrides=[
                "reward.custom_reward_function.path=pkg://assay.rewards.adapters.verl",
                "reward.custom_reward_function.name=compute_score",
                "+reward.custom_reward_function.reward_kwargs.workers=1",
            ],
        )
    fn = get_custom_reward_fn(config)
    assert fn is not None
    return fn


@pytest.mark.parametrize(("response", "truth", "verl_score", "status"), CASES)
def test_glued_role_word_after_a_gsm8k_answer(
    response: str, truth: str, verl_score: float, status: str
) -> None:
    assert gsm8k.compute_score(response, truth) == verl_score  # verl's own reading
    assert default_compute_score("openai/gsm8k", response, truth) == verl_score
    out = _compute_score()(data_source="openai/gsm8k", solution_str=response, ground_truth=truth)
    assert out["status"] == status
    if status in ("correct", "incorrect"):
        assert out["score"] == verl_score  # assay agrees with verl where both read it


@pytest.mark.parametrize(("response", "truth", "status"), TEXT_CASES)
def test_an_answer_that_ends_in_the_word_is_not_cut(response: str, truth: Any, status: str) -> None:
    out = _compute_score()(data_source="math", solution_str=response, ground_truth=truth)
    assert out["status"] == status
