"""A real Hugging Face tokenizer built on the spot, for the trainer tests (no model download).

A byte-level BPE trained on a few lines, with the chat special tokens Qwen-style models end a
turn with (``<|im_end|>``, ``<|endoftext|>``), saved with ``save_pretrained`` so the trainers'
own loaders (``AutoTokenizer.from_pretrained``, verl's ``hf_tokenizer``) read it from disk.
"""

from __future__ import annotations

from pathlib import Path

SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
CORPUS = [
    "The answer is \\boxed{72}. #### 72",
    "Natalia sold 48 clips in April and half as many in May: 48 + 24 = 72.",
    "<tool_call>search</tool_call> observation: 3 results",
]


def build_tokenizer(folder: Path) -> Path:
    """Write a tokenizer to ``folder`` and return it."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    core = Tokenizer(models.BPE(unk_token=None))
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400,
        special_tokens=SPECIAL,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    core.train_from_iterator(CORPUS, trainer=trainer)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=core,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        additional_special_tokens=["<|im_start|>"],
    )
    folder.mkdir(parents=True, exist_ok=True)
    tokenizer.save_pretrained(str(folder))
    return folder
