"""Renders judged against a text description by a CLIP-style image-text model.

The model is a local directory the user provides (a transformers ``CLIPModel`` with its
processor: ``config.json``, weights, tokenizer and ``preprocessor_config.json``); nothing is
ever downloaded (``local_files_only``). One :class:`ClipScorer` per worker process loads it
once; each verdict sends all its views in one batch. See docs/mesh.md, "Renders against a
description".
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from assay.errors import VerifierError

__all__ = ["ClipScorer", "DescriptionModelError", "depth_image"]


class DescriptionModelError(VerifierError):
    """The image-text model is not configured, missing or unloadable (``error``: masked)."""


def depth_image(depth: NDArray[np.float32]) -> NDArray[np.uint8]:
    """A depth render as an RGB image: white background, the surface shaded near-bright."""
    hit = depth > 0
    image = np.full((*depth.shape, 3), 255, dtype=np.uint8)
    if hit.any():
        near, far = float(depth[hit].min()), float(depth[hit].max())
        shade = 1.0 - (depth - near) / max(far - near, 1e-12)
        gray = (40 + 170 * shade).clip(0, 255).astype(np.uint8)
        image[hit] = gray[hit][:, None]
    return image


class ClipScorer:
    """A CLIP model loaded once, scoring batches of images against one text.

    Args:
        path: Local model directory.
        device: Torch device (``cpu``, ``cuda``, ``cuda:1``).

    Raises:
        DescriptionModelError: the directory is missing or does not hold a loadable model.
    """

    def __init__(self, path: str, device: str = "cpu") -> None:
        folder = Path(path)
        if not folder.is_dir():
            raise DescriptionModelError(f"no image-text model at {path!r} (a local directory)")
        try:
            import torch
            from transformers import CLIPModel, CLIPProcessor

            self._processor: Any = CLIPProcessor.from_pretrained(folder, local_files_only=True)
            model: Any = CLIPModel.from_pretrained(folder, local_files_only=True)
            self._model: Any = model.eval().to(device)
        except (OSError, ValueError, RuntimeError, KeyError, TypeError) as exc:
            raise DescriptionModelError(
                f"cannot load the image-text model at {path!r}: {type(exc).__name__}: {exc}"
            ) from None
        self._torch: Any = torch
        self.path = str(folder)
        self.device = device
        self.calls = 0
        """Forward passes made (one per verdict: the views are one batch)."""
        self.images = 0
        """Images scored."""

    def similarities(self, images: Sequence[NDArray[np.uint8]], text: str) -> list[float]:
        """Cosine similarity of each image's embedding with the text's, in one batch."""
        torch = self._torch
        inputs = self._processor(
            text=[text], images=list(images), return_tensors="pt", padding=True, truncation=True
        )
        inputs = {k: v.to(self.device) for k, v in inputs.items()}
        with torch.no_grad():
            out = self._model(**inputs)
        image = torch.nn.functional.normalize(out.image_embeds.float(), dim=-1)
        words = torch.nn.functional.normalize(out.text_embeds.float(), dim=-1)
        self.calls += 1
        self.images += len(images)
        return [float(v) for v in (image @ words.T)[:, 0].cpu().tolist()]
