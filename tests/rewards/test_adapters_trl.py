"""The TRL adapter: reward-function calls as GRPOTrainer makes them, then a real 2-step run."""

from __future__ import annotations

import asyncio
import os
import statistics
from typing import Any

import pytest
from assay.rewards.adapters.trl import (
    async_reward_function,
    completion_rows,
    completion_text,
    reward_function,
)

MATH = {"domain": ["math", "math"], "reference": ["4", "4"]}


@pytest.mark.parametrize(
    ("completion", "text"),
    [
        # plain-text datasets: the completion is the string itself
        ("\\boxed{4}", "\\boxed{4}"),
        # conversational datasets: a list with one assistant message
        ([{"role": "assistant", "content": "\\boxed{4}"}], "\\boxed{4}"),
        # multimodal content parts are joined by their text
        ([{"role": "assistant", "content": [{"type": "text", "text": "x=4"}]}], "x=4"),
        # non-assistant messages (tool output) are not the model's answer
        ([{"role": "tool", "content": "7"}, {"role": "assistant", "content": "4"}], "4"),
    ],
    ids=["string", "chat", "parts", "skip-tool"],
)
def test_completion_text(completion: Any, text: str) -> None:
    assert completion_text(completion) == text


def test_rows_take_reference_from_known_columns() -> None:
    # TRL passes dataset columns as keyword lists; 'answer' is a common column name
    rows = completion_rows(["q1"], ["\\boxed{4}"], {"answer": ["4"], "id": ["p1"]})
    assert rows == [{"response": "\\boxed{4}", "id": "p1", "reference": "4", "prompt": "q1"}]


def test_rewards_and_masking() -> None:
    reward = reward_function("math", workers=1)
    rewards = reward(
        ["q", "q", "q"],
        ["\\boxed{4}", "\\boxed{5}", "\\boxed{4}"],
        None,
        reference=["4", "4", None],  # the last row has no reference: an 'error' verdict
        id=["p", "p", "p"],  # a group repeats its prompt's id
    )
    # correct -> 1, wrong -> 0, infrastructure error -> None (masked, not 0)
    assert rewards == [1.0, 0.0, None]
    assert reward.__name__ == "assay_math"


def test_statuses_and_masked_share_reach_trls_logs() -> None:
    # GRPOTrainer passes log_extra (a completions-table column) and log_metric (a scalar)
    columns: dict[str, list[str]] = {}
    metrics: dict[str, float] = {}
    reward = reward_function("math", workers=1, name="acc")
    rewards = reward(
        ["q", "q", "q", "q"],
        ["\\boxed{4}", "\\boxed{5}", "\\boxed{4}", ""],
        None,
        reference=["4", "4", None, "4"],
        log_extra=lambda column, values: columns.setdefault(column, list(values)),
        log_metric=metrics.setdefault,
    )
    assert rewards == [1.0, 0.0, None, 0.0]
    assert columns == {"acc/status": ["correct", "incorrect", "error", "unparsable"]}
    assert metrics == {"acc/masked": 0.25}


def test_async_variant_matches() -> None:
    reward = async_reward_function("math", workers=1, name="acc")
    assert asyncio.iscoroutinefunction(reward)
    assert reward.__name__ == "acc"
    rewards = asyncio.run(reward(["q", "q"], ["\\boxed{4}", "no"], **MATH))
    assert rewards[0] == 1.0
    assert rewards[1] == 0.0


def _tiny_grpo_config(output_dir: Any, tokenizer: Any, **settings: Any) -> Any:
    """A GRPOConfig for the tiny model on CPU: two generations of 4 tokens a prompt, one
    optimiser step per batch, the completions forced by ``_forced_completions``; ``settings``
    (steps, batch size, seed, saving) override or add to it."""
    from trl import GRPOConfig

    defaults: dict[str, Any] = {
        "per_device_train_batch_size": 2,
        "num_generations": 2,
        "max_completion_length": 4,
        "learning_rate": 1e-4,
        "logging_steps": 1,
        "report_to": [],
        "use_cpu": True,
        "save_strategy": "no",
        "generation_kwargs": {"sequence_bias": _forced_completions(tokenizer)},
    }
    return GRPOConfig(output_dir=str(output_dir), **(defaults | settings))


def _tiny_model_and_tokenizer() -> tuple[Any, Any]:
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    words = ["<pad>", "<s>", "</s>", "<unk>", "user", "assistant", ":", "\\boxed{", "}"]
    words += [str(d) for d in range(10)] + ["+", "=", "what", "is", "?"]
    vocab = {w: i for i, w in enumerate(words)}
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=core,
        pad_token="<pad>",
        bos_token="<s>",
        eos_token="</s>",
        unk_token="<unk>",
    )
    tokenizer.chat_template = (
        "{% for m in messages %}{{ m['role'] }} : {{ m['content'] }} {% endfor %}"
        "{% if add_generation_prompt %}assistant : {% endif %}"
    )
    config = LlamaConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=128,
        pad_token_id=0,
        bos_token_id=1,
        eos_token_id=2,
    )
    return LlamaForCausalLM(config), tokenizer


# prompt digit a (question "what is a + a ?", reference 2a) -> the answer the model is made to give
FORCED_ANSWERS = {1: "2", 2: "5"}
# ... and the verdict the math verifier owes it: 1 + 1 = 2 is correct, 2 + 2 = 5 is not
KNOWN_REWARDS = {1: 1.0, 2: 0.0}


def _forced_completions(tokenizer: Any) -> list[list[Any]]:
    """generate()'s sequence_bias that makes every completion ``\\boxed{ d } </s>``, with d the
    forced answer of the prompt's digit (the random tiny model's own choice is outweighed)."""
    vocab = tokenizer.get_vocab()
    bias: list[list[Any]] = [
        [[vocab["?"], vocab["\\boxed{"]], 100.0],
        [[vocab["}"], vocab["</s>"]], 100.0],
    ]
    for digit, answer in FORCED_ANSWERS.items():
        bias.append([[vocab[str(digit)], vocab["?"], vocab["\\boxed{"], vocab[answer]], 100.0])
        bias.append([[vocab[answer], vocab["}"]], 100.0])
    return bias


# the answer columns of math sets as they ship: assay's own, DeepMath-103K's `final_answer`,
# OpenMathReasoning's `expected_answer`, AIME_2024's `Answer` (an int column)
ANSWER_COLUMNS = ["reference", "final_answer", "expected_answer", "Answer"]


@pytest.mark.parametrize("column", ANSWER_COLUMNS)
def test_grpo_trainer_two_steps(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch, column: str
) -> None:
    # A real GRPOTrainer run whose completions are known, so the rewards TRL records and logs
    # must be exactly the verdicts they deserve (a reward function returning 0, or a constant,
    # or the verdicts swapped between prompts, fails).
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("WANDB_DISABLED", "true")
    from datasets import Dataset
    from trl import GRPOTrainer

    model, tokenizer = _tiny_model_and_tokenizer()
    dataset = Dataset.from_list(
        [
            {"prompt": f"what is {a} + {a} ?", column: 2 * a if column == "Answer" else str(2 * a)}
            for a in FORCED_ANSWERS
        ]
    )
    reward = reward_function("math", workers=1)
    config = _tiny_grpo_config(
        tmp_path,
        tokenizer,
        max_steps=2,
        per_device_train_batch_size=4,  # both prompts, two generations each, every step
        seed=0,
    )
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=[reward],
        args=config,
        train_dataset=dataset,
        processing_class=tokenizer,
    )
    trainer.train()
    assert trainer.state.global_step == 2
    # what TRL itself kept of the last generation batch: prompt, completion, reward
    logs = trainer._logs  # TRL's own record of what it scored
    rows = list(zip(logs["prompt"], logs["completion"], logs["rewards"]["assay_math"], strict=True))
    assert len(rows) == 4, rows
    for prompt, completion, value in rows:
        digit = int(prompt.split()[2])
        assert completion.split() == ["\\boxed{", FORCED_ANSWERS[digit], "}"], completion
        assert value == KNOWN_REWARDS[digit], (prompt, completion, value)
    # and the per-step means and spreads TRL logged are those of [1, 1, 0, 0]
    steps = [e for e in trainer.state.log_history if "rewards/assay_math/mean" in e]
    assert len(steps) == 2, trainer.state.log_history
    for entry in steps:
        assert entry["rewards/assay_math/mean"] == pytest.approx(0.5)
        assert entry["rewards/assay_math/std"] == pytest.approx(statistics.stdev([1, 1, 0, 0]))
    assert os.environ["HF_HUB_OFFLINE"] == "1"
