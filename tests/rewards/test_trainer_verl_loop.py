"""verl 0.9.1 reaches assay through its own loading code, from a config composed as its CLI does.

``python -m verl.trainer.main_ppo key=value ...`` is ``@hydra.main(config_name="ppo_trainer")``
over verl's own YAML; here the same YAML is composed with the same overrides (hydra's compose
API), and the reward side is built by verl's functions: ``get_custom_reward_fn`` and
``load_reward_manager`` (what ``RewardLoopWorker`` calls), the reward-manager registry (filled by
assay's ``verl.plugins`` entry point when verl is imported), and the ``RewardLoopWorker`` itself
on a real ``DataProto``. The tokenizer is a real Hugging Face tokenizer built on the spot.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
import verl
from assay.rewards.adapters.verl_loop import AssayRewardLoopManager
from hydra import compose, initialize_config_dir
from trainer_tokenizer import build_tokenizer
from transformers import AutoTokenizer
from verl import DataProto
from verl.experimental.reward_loop import RewardLoopWorker
from verl.experimental.reward_loop.reward_manager import get_reward_manager_cls
from verl.trainer.ppo.reward import (
    get_custom_reward_fn,
    load_reward_manager,
    resolve_reward_manager_cls,
)

CONFIG_DIR = Path(verl.__file__).parent / "trainer" / "config"
ADAPTER = "pkg://assay.rewards.adapters.verl"

# (response text as the policy wrote it, ground truth, status, score)
CASES: list[tuple[str, Any, str, float]] = [
    ("Natalia sold 48 + 24 = 72 clips. #### 72<|im_end|>", "72", "correct", 1.0),
    ("48 + 24 = 71. #### 71<|im_end|>", "72", "incorrect", 0.0),
    ("so \\boxed{72}", "72", "correct", 1.0),
    # Skywork-OR1's ground_truth: the text of a list of acceptable answers
    ("p = \\boxed{\\frac{1}{2}}<|im_end|>", "['\\\\frac{1}{2}', '0.5']", "correct", 1.0),
    ("p = \\boxed{\\frac{1}{3}}<|im_end|>", "['\\\\frac{1}{2}', '0.5']", "incorrect", 0.0),
    # a reference of the wrong shape is the dataset's fault: masked, 0.0 with the flag
    ("#### 72", None, "error", 0.0),
]


def _compose(overrides: list[str]) -> Any:
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base=None):
        return compose(config_name="ppo_trainer", overrides=overrides)


@pytest.fixture(scope="module")
def tokenizer_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tokenizer(tmp_path_factory.mktemp("tokenizer"))


@pytest.fixture(scope="module")
def tokenizer(tokenizer_dir: Path) -> Any:
    return AutoTokenizer.from_pretrained(str(tokenizer_dir))


def _data(tokenizer: Any, cases: list[tuple[str, Any, str, float]], source: str) -> DataProto:
    """A batch shaped as verl's trainer hands it to the reward loop (left-padded prompts)."""
    prompt_len, response_len = 4, 512
    size = len(cases)
    pad = tokenizer.pad_token_id
    prompts = torch.full((size, prompt_len), pad, dtype=torch.long)
    responses = torch.full((size, response_len), pad, dtype=torch.long)
    mask = torch.zeros(size, prompt_len + response_len, dtype=torch.long)
    prompt_ids = tokenizer.encode("Natalia sold", add_special_tokens=False)[-prompt_len:]
    for i, (text, *_) in enumerate(cases):
        ids = tokenizer.encode(text, add_special_tokens=False)
        assert len(ids) <= response_len, text
        prompts[i, prompt_len - len(prompt_ids) :] = torch.tensor(prompt_ids)
        mask[i, prompt_len - len(prompt_ids) : prompt_len] = 1
        responses[i, : len(ids)] = torch.tensor(ids)
        mask[i, prompt_len : prompt_len + len(ids)] = 1
    return DataProto.from_dict(
        tensors={
            "prompts": prompts,
            "responses": responses,
            "input_ids": torch.cat([prompts, responses], dim=1),
            "attention_mask": mask,
        },
        non_tensors={
            "data_source": np.array([source] * size, dtype=object),
            "reward_model": np.array(
                [{"style": "rule", "ground_truth": c[1]} for c in cases], dtype=object
            ),
            "extra_info": np.array([{"index": i} for i in range(size)], dtype=object),
        },
    )


def _valid_lengths(data: DataProto) -> list[int]:
    prompt_len = data.batch["prompts"].shape[1]
    return [int(n) for n in data.batch["attention_mask"][:, prompt_len:].sum(dim=1)]


def test_custom_reward_function_keys_of_main_ppo_load_assay(tokenizer: Any) -> None:
    config = _compose(
        [
            f"reward.custom_reward_function.path={ADAPTER}",
            "reward.custom_reward_function.name=compute_score",
            "+reward.custom_reward_function.reward_kwargs.domain=math",
            "+reward.custom_reward_function.reward_kwargs.workers=1",
        ]
    )
    fn = get_custom_reward_fn(config)
    assert fn is not None
    out = fn(data_source="openai/gsm8k", solution_str="#### 72", ground_truth="72")
    assert out == {"score": 1.0, "status": "correct", "masked": False}
    # verl's own per-sample manager (naive) with assay's function, through load_reward_manager
    manager = load_reward_manager(config, tokenizer)
    data = _data(tokenizer, CASES, "openai/gsm8k")
    got = [
        manager.loop.run_until_complete(manager.run_single(data[i : i + 1]))
        for i in range(len(data))
    ]
    assert [g["reward_score"] for g in got] == [c[3] for c in CASES]
    assert [g["reward_extra_info"]["status"] for g in got] == [c[2] for c in CASES]
    assert [g["reward_extra_info"]["masked"] for g in got] == [c[2] == "error" for c in CASES]


def test_top_level_custom_reward_function_is_not_read_by_main_ppo() -> None:
    # the keys the docs used to give: main_ppo leaves them in the legacy block and scores with
    # verl's own gsm8k function, so the docs must not give them (test_docs_integrations)
    config = _compose([f"custom_reward_function.path={ADAPTER}", "custom_reward_function.name=x"])
    assert get_custom_reward_fn(config) is None


@pytest.fixture(scope="module")
def loop_config(tokenizer_dir: Path) -> Iterator[Any]:
    yield _compose(
        [
            f"actor_rollout_ref.model.path={tokenizer_dir}",
            "reward.reward_manager.name=assay",
            "+reward.reward_kwargs.domain=math",
            "+reward.reward_kwargs.workers=1",
        ]
    )


def test_reward_manager_name_assay_resolves_through_verls_registry(loop_config: Any) -> None:
    # the plugin registered the name when verl was imported; RewardLoopManager (the driver)
    # resolves the class with resolve_reward_manager_cls
    assert get_reward_manager_cls("assay") is AssayRewardLoopManager
    assert resolve_reward_manager_cls(loop_config) is AssayRewardLoopManager


def test_reward_loop_worker_scores_a_dataproto_with_assay(loop_config: Any, tokenizer: Any) -> None:
    # what RewardLoopManager.compute_rm_score does with each worker's chunk, minus Ray
    worker = RewardLoopWorker(loop_config)
    assert isinstance(worker.reward_manager, AssayRewardLoopManager)
    data = _data(tokenizer, CASES, "my/unrouted-source")  # reward_kwargs.domain routes it
    outputs = worker.loop.run_until_complete(worker.compute_score_batch(data))
    scores = [o["reward_score"] for o in outputs]
    assert scores == [c[3] for c in CASES]
    assert [o["reward_extra_info"]["status"] for o in outputs] == [c[2] for c in CASES]
    assert [o["reward_extra_info"]["masked"] for o in outputs] == [c[2] == "error" for c in CASES]
    rm_scores = AssayRewardLoopManager.assemble_rm_scores(data, scores)
    for i, n in enumerate(_valid_lengths(data)):
        assert rm_scores[i, n - 1].item() == CASES[i][3]
        assert rm_scores[i].sum().item() == CASES[i][3]


def test_one_gather_is_one_pool_call(loop_config: Any, tokenizer: Any) -> None:
    calls: list[int] = []

    class CountingScorer:
        def __init__(self, inner: Any) -> None:
            self.inner = inner

        def score(self, rows: list[Any]) -> Any:
            calls.append(len(rows))
            return self.inner.score(rows)

    worker = RewardLoopWorker(loop_config)
    manager = worker.reward_manager
    manager._scorer = CountingScorer(manager._scorer)
    data = _data(tokenizer, CASES * 2, "math")
    outputs = worker.loop.run_until_complete(worker.compute_score_batch(data))
    assert [o["reward_score"] for o in outputs] == [c[3] for c in CASES * 2]
    assert calls == [len(CASES) * 2]


def test_scoring_failure_reaches_every_waiting_sample(loop_config: Any, tokenizer: Any) -> None:
    class Broken:
        def score(self, rows: list[Any]) -> Any:
            raise RuntimeError("pool gone")

    manager = AssayRewardLoopManager(loop_config, tokenizer, scorer=Broken())  # type: ignore[arg-type]
    data = _data(tokenizer, CASES, "math")

    async def run() -> list[Any]:
        tasks = [manager.run_single(data[i : i + 1]) for i in range(len(data))]
        return await asyncio.gather(*tasks, return_exceptions=True)

    out = manager.loop.run_until_complete(run())
    assert all(isinstance(o, RuntimeError) for o in out)


# verl's tool agent loop: the response is the assistant turns and the tool results between
# them, decoded with skip_special_tokens (Qwen's <tool_call> / <tool_response> are not special)
_CANCEL_W1001 = (
    '<tool_call>\n{"name": "cancel_order", "arguments": {"order_id": "W1001", '
    '"reason": "no longer needed"}}\n</tool_call>\nuser\n<tool_response>\n'
    '{"order_id": "W1001", "status": "cancelled", "refund": 50.0}\n</tool_response>\n'
    "assistant\nOrder W1001 is cancelled; $50.00 will be refunded."
)
_LOOKUP_W1002 = (
    '<tool_call>\n{"name": "get_order", "arguments": {"order_id": "W1002"}}\n</tool_call>\n'
    'user\n<tool_response>\n{"status": "delivered"}\n</tool_response>\n'
    "assistant\nW1002 has been delivered."
)
# (question, ground truth stored as an object, response, deserved reward)
AGENT_ROWS: list[tuple[str, dict[str, Any], str, float]] = [
    ("Please cancel W1001, I no longer need it.",
     {"env": "retail", "goal": {"calls": [{"name": "cancel_order", "arguments": {
         "order_id": "W1001", "reason": "no longer needed"}}]}},
     _CANCEL_W1001, 1.0),
    ("Please cancel W1001, I no longer need it.",
     {"env": "retail", "goal": {"calls": [{"name": "cancel_order", "arguments": {
         "order_id": "W1001", "reason": "no longer needed"}}]}},
     "Order W1001 is cancelled.", 0.0),  # said, not done
    ("Where is my order W1002?",
     {"env": "retail", "goal": {"calls": [{"name": "get_order",
                                           "arguments": {"order_id": "W1002"}}]}},
     _LOOKUP_W1002, 1.0),
]  # fmt: skip


def test_struct_ground_truths_read_by_verls_dataset(
    tmp_path: Path, tokenizer_dir: Path, tokenizer: Any
) -> None:
    # An agent dataset whose reward_model.ground_truth is an object, not JSON text: verl's
    # RLHFDataset reads the parquet with datasets, and Arrow gives the get_order goal call the
    # "reason" of the cancel_order calls, as a null; assay reads it as absent, as assay score
    # reads stored rows (docs/formats.md, "Nulls")
    import pyarrow as pa
    import pyarrow.parquet as pq
    from verl.utils.dataset.rl_dataset import RLHFDataset, collate_fn

    rows = [
        {"data_source": "tau_bench/retail", "prompt": [{"role": "user", "content": question}],
         "ability": "agent", "reward_model": {"style": "rule", "ground_truth": truth},
         "extra_info": {"index": i}}
        for i, (question, truth, _, _) in enumerate(AGENT_ROWS)
    ]  # fmt: skip
    pq.write_table(pa.Table.from_pylist(rows), str(tmp_path / "train.parquet"))
    config = _compose(
        [
            f"actor_rollout_ref.model.path={tokenizer_dir}",
            "reward.reward_manager.name=assay",
            "+reward.reward_kwargs.workers=1",
            f"+data.cache_dir={tmp_path / 'cache'}",
            "data.filter_overlong_prompts=False",
        ]
    )
    dataset = RLHFDataset(str(tmp_path / "train.parquet"), tokenizer, config.data)
    batch = collate_fn([dataset[i] for i in range(len(dataset))])
    stored = batch["reward_model"][2]["ground_truth"]["goal"]["calls"][0]["arguments"]
    assert stored == {"order_id": "W1002", "reason": None}  # Arrow's filled-in key
    data = _data(tokenizer, [(r[2], None, "", 0.0) for r in AGENT_ROWS], "tau_bench/retail")
    data.non_tensor_batch.update(
        {key: batch[key] for key in ("data_source", "reward_model", "extra_info")}
    )
    worker = RewardLoopWorker(config)
    outputs = worker.loop.run_until_complete(worker.compute_score_batch(data))
    got = [(o["reward_score"], o["reward_extra_info"]["status"]) for o in outputs]
    assert [g[0] for g in got] == [r[3] for r in AGENT_ROWS], got


NUMPY_CASES: list[tuple[str, Any, str, float]] = [
    # ground truths as pandas hands them (pd.read_parquet, DataFrame.to_dict("records")):
    # an integer answer column is numpy int64, a list of answers a numpy object array
    ("The answer is \\boxed{204}.<|im_end|>", np.int64(204), "correct", 1.0),
    ("The answer is \\boxed{205}.<|im_end|>", np.int64(204), "incorrect", 0.0),
    ("so \\boxed{0.5}<|im_end|>", np.array(["\\frac{1}{2}", "0.5"], dtype=object), "correct", 1.0),
    ("so \\boxed{72}<|im_end|>", np.str_("72"), "correct", 1.0),
    ("so \\boxed{72}<|im_end|>", {"answer": np.str_("72"), "tolerance": np.float64(0.0)},
     "correct", 1.0),
]  # fmt: skip


def test_numpy_ground_truths_are_read_as_their_values(loop_config: Any, tokenizer: Any) -> None:
    worker = RewardLoopWorker(loop_config)
    data = _data(tokenizer, NUMPY_CASES, "my/unrouted-source")
    outputs = worker.loop.run_until_complete(worker.compute_score_batch(data))
    got = [(o["reward_extra_info"]["status"], o["reward_score"]) for o in outputs]
    assert got == [(c[2], c[3]) for c in NUMPY_CASES]


# verl rows whose ground truth is json.dumps(tests), as rllm / SkyRL / open-instruct build
# DeepCoder's and MBPP's: LiveCodeBench cases (functional ones carry metadata.func_name each),
# input/output cases, or MBPP's assert list; the data source routes them to the code domain
LCB_TESTS = [
    {"input": "3 5\n", "output": "8\n", "testtype": "stdin", "metadata": {"func_name": None}}
]
FUNCTIONAL_TESTS = [
    {"input": "[1, 2, 3]", "output": "6", "testtype": "functional",
     "metadata": {"func_name": "sumList"}},
    {"input": "[]", "output": "0", "testtype": "functional", "metadata": {"func_name": "sumList"}},
]  # fmt: skip
MBPP_TESTS = ["assert add(1, 2) == 3", "assert add(-1, 1) == 0"]
IO_TESTS = [{"input": "2 2\n", "output": "4\n"}, {"input": "0 7\n", "output": "7\n"}]
ADD_PROGRAM = "```python\na, b = map(int, input().split())\nprint(a + b)\n```"
LIST_CASES = [
    ("livecodebench", LCB_TESTS, ADD_PROGRAM, "correct"),
    ("livecodebench", LCB_TESTS, ADD_PROGRAM.replace("a + b", "a * b"), "incorrect"),
    ("livecodebench", FUNCTIONAL_TESTS,
     "```python\nclass Solution:\n    def sumList(self, nums):\n        return sum(nums)\n```",
     "correct"),
    ("livecodebench", FUNCTIONAL_TESTS,
     "```python\nclass Solution:\n    def sumList(self, nums):\n        return len(nums)\n```",
     "partial"),
    ("mbpp", MBPP_TESTS, "```python\ndef add(a, b):\n    return a + b\n```", "correct"),
    ("mbpp", MBPP_TESTS, "```python\ndef add(a, b):\n    return a - b + 2\n```", "partial"),
    ("primeintellect", IO_TESTS, ADD_PROGRAM, "correct"),
]  # fmt: skip


def test_list_ground_truths_of_code_rows_through_main_ppos_loader() -> None:
    config = _compose(
        [
            f"reward.custom_reward_function.path={ADAPTER}",
            "reward.custom_reward_function.name=compute_score",
            "+reward.custom_reward_function.reward_kwargs.workers=1",
        ]
    )
    fn = get_custom_reward_fn(config)
    assert fn is not None
    got = [
        fn(data_source=source, solution_str=response, ground_truth=json.dumps(tests))["status"]
        for source, tests, response, _ in LIST_CASES
    ]
    assert got == [c[3] for c in LIST_CASES]
