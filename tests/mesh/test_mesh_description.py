"""Renders against a text description: the plumbing, with a tiny CLIP built from a config
(random weights saved to a temporary directory; nothing downloaded)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import torch
import trimesh
from assay.domains.mesh.verifier import CLIP_MODEL_ENV, MeshVerifier
from assay.verifiers.mesh.clip import ClipScorer, DescriptionModelError
from transformers import CLIPConfig, CLIPImageProcessor, CLIPModel, CLIPTokenizer

from assay.boundary import run_verifier
from assay.types import Record, Status, Verdict


def byte_characters() -> list[str]:
    """GPT-2's printable stand-ins for the 256 bytes (what CLIP's BPE vocabulary is made of)."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1),
                 *range(ord("®"), ord("ÿ") + 1)]  # fmt: skip
    chars, extra = [], 0
    for byte in range(256):
        if byte in printable:
            chars.append(chr(byte))
        else:
            chars.append(chr(256 + extra))
            extra += 1
    return chars


@pytest.fixture(scope="module")
def tiny_clip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("tiny-clip")
    chars = byte_characters()
    vocab = {c: i for i, c in enumerate(chars + [c + "</w>" for c in chars])}
    vocab |= {"<|startoftext|>": len(vocab), "<|endoftext|>": len(vocab) + 1}
    (folder / "vocab.json").write_text(json.dumps(vocab))
    (folder / "merges.txt").write_text("#version: 0.2\n")
    tokenizer = CLIPTokenizer(str(folder / "vocab.json"), str(folder / "merges.txt"))
    layers = {"hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 1,
              "num_attention_heads": 2}  # fmt: skip
    config = CLIPConfig(
        text_config={**layers, "vocab_size": len(vocab), "max_position_embeddings": 77},
        vision_config={**layers, "image_size": 32, "patch_size": 8},
        projection_dim=8,
    )
    torch.manual_seed(0)
    CLIPModel(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    processor = CLIPImageProcessor(
        size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32}
    )
    processor.save_pretrained(folder)
    return folder


@pytest.fixture()
def with_model(
    mesh_verifier: MeshVerifier, tiny_clip: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[MeshVerifier]:
    monkeypatch.setenv(CLIP_MODEL_ENV, str(tiny_clip))
    mesh_verifier._clip = None  # one load per worker: this one loads on its first task
    yield mesh_verifier
    mesh_verifier._clip = None


def obj(mesh: trimesh.Trimesh) -> str:
    lines = [f"v {x!r} {y!r} {z!r}" for x, y, z in mesh.vertices.tolist()]
    return "\n".join(lines + [f"f {a + 1} {b + 1} {c + 1}" for a, b, c in mesh.faces])


CHAIR = obj(trimesh.creation.box((1, 1, 2)))
BALL = obj(trimesh.creation.icosphere(2, radius=1.0))


def score(verifier: MeshVerifier, response: str, text: str) -> Verdict:
    reference = {"description": {"text": text, "threshold": 0.5}}
    return run_verifier(verifier, Record("d", "mesh", response, reference)).verdict


def similarity(verdict: Verdict) -> dict[str, float]:
    check = next(c for c in verdict.checks if c.name == "description")
    views: dict[str, float] = check.evidence["views"]
    return views


def test_the_renders_reach_the_model_in_one_batch(with_model: MeshVerifier) -> None:
    verdict = score(with_model, CHAIR, "a tall box")
    scorer = with_model.clip
    assert verdict.status in (Status.CORRECT, Status.PARTIAL, Status.INCORRECT), verdict.message
    assert (scorer.calls, scorer.images) == (1, 4)  # four views, one forward pass
    score(with_model, BALL, "a tall box")
    assert (scorer.calls, scorer.images) == (2, 8) and with_model.clip is scorer  # loaded once


def test_scores_are_deterministic_and_depend_on_the_renders(with_model: MeshVerifier) -> None:
    first = similarity(score(with_model, CHAIR, "a tall box"))
    again = similarity(score(with_model, CHAIR, "a tall box"))
    ball = similarity(score(with_model, BALL, "a tall box"))
    assert first == again
    assert first != ball
    assert len(set(first.values())) > 1  # the views differ, so do their scores


def test_batched_scores_equal_one_by_one(tiny_clip: Path) -> None:
    scorer = ClipScorer(str(tiny_clip))
    rng = np.random.default_rng(0)
    images = [rng.integers(0, 255, (48, 48, 3), dtype=np.uint8) for _ in range(3)]
    batched = scorer.similarities(images, "a chair")
    single = [scorer.similarities([image], "a chair")[0] for image in images]
    assert batched == pytest.approx(single, abs=1e-5)


MISSING = [
    ("not configured", None),
    ("no such directory", "/nonexistent/clip"),
    ("a directory without a model", "EMPTY"),
]


@pytest.mark.parametrize(("case", "path"), MISSING, ids=[c[0] for c in MISSING])
def test_a_missing_model_is_a_typed_error(
    mesh_verifier: MeshVerifier,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    case: str,
    path: str | None,
) -> None:
    if path is None:
        monkeypatch.delenv(CLIP_MODEL_ENV, raising=False)
    else:
        monkeypatch.setenv(CLIP_MODEL_ENV, str(tmp_path) if path == "EMPTY" else path)
    mesh_verifier._clip = None
    verdict = score(mesh_verifier, CHAIR, "a chair")
    assert verdict.status is Status.ERROR, (case, verdict.message)
    assert "model" in (verdict.message or ""), verdict.message
    with pytest.raises(DescriptionModelError):
        _ = mesh_verifier.clip
