"""TRL's GRPOTrainer on code datasets in the columns they ship, scored by assay.

A TRL user trains on a code set as it comes from the hub: KodCode (``test``: a pytest module,
``test_info``), AceCode-87K (``test_cases``: assert statements), open-r1's
verifiable-coding-problems (``verification_info``: JSON text of the stdin/stdout cases). None
of them has a ``reference`` column (KodCode's ``solution`` is its setter's answer, not a
reference); GRPOTrainer hands the reward function every dataset column, and the row's own
test columns are its reference, as ``assay score`` reads them.

The run is real (a tiny random Qwen2 model, TRL's Qwen3 chat template); the tokens are forced
through ``generate``'s ``sequence_bias``, so each prompt's answer is known and so is its
reward: the palindrome answer is right (1.0), the vowel counter ignores capitals and fails one
of four asserts (0.75), the sum program is right (1.0).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from assay.rewards.adapters.trl import reward_function
from trainer_tokenizer import byte_level_tokenizer, forcing_bias, one_step_grpo_config, tiny_qwen2

PALINDROME = "```python\ndef is_palindrome(s):\n    return s == s[::-1]\n```"
VOWELS = "```python\ndef count_vowels(s):\n    return sum(c in 'aeiou' for c in s)\n```"
SUM = "```python\nn = int(input())\nprint(sum(map(int, input().split())))\n```"
ROWS: list[dict[str, Any]] = [
    {
        "prompt": [{"role": "user", "content": "Write is_palindrome(s) in Python."}],
        "test": (
            "from solution import is_palindrome\n\n\n"
            "def test_odd():\n    assert is_palindrome('racecar')\n\n\n"
            "def test_not():\n    assert not is_palindrome('ab')\n"
        ),
        "test_info": [{"function_name": "is_palindrome", "parameter_list": "(s)"}],
        "solution": "def is_palindrome(s):\n    return s == s[::-1]\n",  # KodCode's own answer
    },
    {
        "prompt": [{"role": "user", "content": "Write count_vowels(s) in Python."}],
        "test_cases": [
            "assert count_vowels('hello') == 2",
            "assert count_vowels('') == 0",
            "assert count_vowels('AEIOU') == 5",
            "assert count_vowels('rhythm') == 0",
        ],
    },
    {
        "prompt": [{"role": "user", "content": "Read n, then n numbers; print their sum."}],
        "verification_info": json.dumps(
            {
                "language": "python",
                "test_cases": [
                    {"input": "3\n1 2 3\n", "output": "6\n", "type": "stdin_stdout"},
                    {"input": "1\n5\n", "output": "5\n", "type": "stdin_stdout"},
                ],
            }
        ),
    },
]
ANSWERS = [PALINDROME, VOWELS, SUM]
DESERVED = [1.0, 0.75, 1.0]


def _tokenizer() -> Any:
    from trl.chat_template_utils import qwen3_chat_template

    corpus = [*ANSWERS, *(row["prompt"][0]["content"] for row in ROWS)]
    tokenizer = byte_level_tokenizer(corpus, vocab_size=600)
    tokenizer.chat_template = qwen3_chat_template
    return tokenizer


def test_grpo_trainer_scores_code_sets_by_their_own_test_columns(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("WANDB_DISABLED", "true")
    from datasets import Dataset
    from trl import GRPOTrainer

    tokenizer = _tokenizer()
    model = tiny_qwen2(tokenizer)
    columns = sorted({key for row in ROWS for key in row})
    # one table of the three sets: each row has the others' columns as nulls, as Arrow fills them
    dataset = Dataset.from_list([{key: row.get(key) for key in columns} for row in ROWS])
    assert dataset[0]["test_cases"] is None and dataset[1]["test"] is None
    turns = [(row["prompt"], answer) for row, answer in zip(ROWS, ANSWERS, strict=True)]
    # the three prompts, two generations each
    config = one_step_grpo_config(tmp_path, 6, 120, forcing_bias(tokenizer, turns))
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=[reward_function("code", workers=1)],
        args=config,
        train_dataset=dataset,
        processing_class=tokenizer,
    )
    trainer.train()
    logs = trainer._logs
    scored = list(
        zip(logs["prompt"], logs["completion"], logs["rewards"]["assay_code"], strict=True)
    )
    assert len(scored) == 6, scored
    for prompt, completion, reward in scored:
        index = next(i for i, row in enumerate(ROWS) if row["prompt"] == prompt)
        assert completion[0]["content"] == ANSWERS[index], completion  # the forced answer
        assert reward == pytest.approx(DESERVED[index]), (index, completion, reward)
    assert list(logs["extra"]["assay_code/status"]).count("partial") == 2
