"""A real Hugging Face tokenizer built on the spot, for the trainer tests (no model download).

A byte-level BPE trained on a few lines, with the chat special tokens Qwen-style models end a
turn with (``<|im_end|>``, ``<|endoftext|>``), saved with ``save_pretrained`` so the trainers'
own loaders (``AutoTokenizer.from_pretrained``, verl's ``hf_tokenizer``) read it from disk.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
CORPUS = [
    "The answer is \\boxed{72}. #### 72",
    "Natalia sold 48 clips in April and half as many in May: 48 + 24 = 72.",
    "<tool_call>search</tool_call> observation: 3 results",
]


def byte_level_tokenizer(corpus: list[str], vocab_size: int = 400) -> Any:
    """A byte-level BPE trained on ``corpus``, ending a turn with ``<|im_end|>``."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    core = Tokenizer(models.BPE(unk_token=None))
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    core.train_from_iterator(corpus, trainer=trainer)
    return PreTrainedTokenizerFast(
        tokenizer_object=core,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        additional_special_tokens=["<|im_start|>"],
    )


def build_tokenizer(folder: Path) -> Path:
    """Write a tokenizer to ``folder`` and return it."""
    tokenizer = byte_level_tokenizer(CORPUS)
    folder.mkdir(parents=True, exist_ok=True)
    tokenizer.save_pretrained(str(folder))
    return folder


def tiny_qwen2(tokenizer: Any) -> Any:
    """A random two-layer Qwen2 for ``tokenizer``, ending a turn with ``<|im_end|>``."""
    from transformers import Qwen2Config, Qwen2ForCausalLM

    end = tokenizer.convert_tokens_to_ids("<|im_end|>")
    return Qwen2ForCausalLM(
        Qwen2Config(
            vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64,
            num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=2,
            max_position_embeddings=2048, pad_token_id=tokenizer.pad_token_id,
            eos_token_id=end,
        )
    )  # fmt: skip


def forcing_bias(
    tokenizer: Any, turns: list[tuple[list[dict[str, Any]], str]], **template: Any
) -> list[list[Any]]:
    """``generate``'s ``sequence_bias`` that forces each turn's text after its conversation:
    keyed on the last 24 tokens of the rendered conversation (``template`` is passed to
    ``apply_chat_template``, ``tools=`` say) plus the turn's tokens so far, so no turn leaks
    into another; each turn ends with ``<|im_end|>``."""

    def ids(text: str) -> list[int]:
        return list(tokenizer(text, add_special_tokens=False)["input_ids"])

    end = tokenizer.convert_tokens_to_ids("<|im_end|>")
    bias: list[list[Any]] = []
    for messages, text in turns:
        rendered = tokenizer.apply_chat_template(
            messages, tokenize=False, add_generation_prompt=True, **template
        )
        context, target = ids(rendered)[-24:], [*ids(text), end]
        sequence = context + target
        bias += [[sequence[: len(context) + i + 1], 100.0] for i in range(len(target))]
    return bias


def one_step_grpo_config(
    output_dir: Path, batch_size: int, max_completion_length: int, bias: list[list[Any]]
) -> Any:
    """A GRPOConfig for one optimiser step of the tiny model on CPU: two generations a
    prompt, ``batch_size`` completions a step, the tokens forced by ``bias``."""
    from trl import GRPOConfig

    return GRPOConfig(
        output_dir=str(output_dir),
        per_device_train_batch_size=batch_size,
        num_generations=2,
        max_completion_length=max_completion_length,
        learning_rate=1e-4,
        logging_steps=1,
        report_to=[],
        use_cpu=True,
        save_strategy="no",
        max_steps=1,
        seed=0,
        generation_kwargs={"sequence_bias": bias},
    )
