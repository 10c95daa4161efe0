"""Cross-encoders: a transformer that reads both sentences at once (sentence-transformers ``CrossEncoder``), the
field's standard strong STS model, fine-tuned on the graded gold pairs of the training years as ``encoder-sts`` is.

A cross-encoder is a tuned encoder (config ``encoder.tuning.models``) whose ``loss`` is ``cross-bce``
(``BinaryCrossEntropyLoss``: label gold / 5, sentence-transformers' recipe for its STS cross-encoders) or
``cross-mse`` (``MSELoss`` on the sigmoid of the score). It starts from the transformer of its ``start`` encoder
(all-MiniLM-L6-v2 by default) with a new one-output head, is trained by stsynth.encoders.tuning's loop and saved
with ``CrossEncoder.save`` (its folder's ``config_sentence_transformers.json`` says ``model_type: CrossEncoder``).
Its similarity table has the encoder table's schema (stsynth.encoders.encoder): ``encoder`` is the pair's score
(the sigmoid of the head's output, in [0, 1]: ``5 × encoder`` is its 0-5 prediction, as a bi-encoder's cosine
is), ``encoder_token_f1`` is null (there are no per-sentence token states): a fusion reads only ``encoder``
from it (feature group ``cross``).
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np
import pandas as pd

from ..core.pairs import encoded_lines

log = logging.getLogger(__name__)

CROSS_LOSSES = ("cross-bce", "cross-mse")


def is_cross_encoder(folder: str | Path) -> bool:
    """Whether a model folder holds a cross-encoder (what ``CrossEncoder.save`` writes)."""
    config = Path(folder) / "config_sentence_transformers.json"
    return config.is_file() and json.loads(config.read_text()).get("model_type") == "CrossEncoder"


def load_cross_encoder(
    folder: str | Path, max_length: int | None, device: str, fresh_head: bool = False, seed: int | None = None
):
    """A CrossEncoder from a local folder (never the network): a saved cross-encoder, or with ``fresh_head`` the
    transformer of any encoder folder under a new one-output head (a tuning's start; ``seed`` seeds its
    initialisation)."""
    import torch
    from sentence_transformers import CrossEncoder

    if seed is not None:
        torch.manual_seed(seed)
    model = CrossEncoder(str(folder), num_labels=1 if fresh_head else None, max_length=max_length, device=device)
    log.info("cross-encoder from %s on %s%s", folder, model.device, " (new head)" if fresh_head else "")
    return model.eval()


def make_cross_loss(model, name: str):
    from sentence_transformers.cross_encoder.losses import BinaryCrossEntropyLoss, MSELoss
    from torch import nn

    if name == "cross-bce":
        return BinaryCrossEntropyLoss(model)
    if name == "cross-mse":
        return MSELoss(model, activation_fn=nn.Sigmoid())
    raise ValueError(f"loss {name!r} is not one of {', '.join(CROSS_LOSSES)}")


def cross_scores(model, s1: list[str], s2: list[str], batch_size: int = 64, progress=None) -> np.ndarray:
    """The model's score of each pair (sigmoid, [0, 1]), float64; ``progress`` advances by each batch's pairs."""
    scores = []
    for start in range(0, len(s1), batch_size):
        batch = list(zip(s1[start : start + batch_size], s2[start : start + batch_size]))
        scores.append(np.asarray(model.predict(batch, batch_size=batch_size, show_progress_bar=False), np.float64))
        if progress:
            progress.advance(len(batch))
    return np.concatenate(scores) if scores else np.zeros(0)


def cross_table(
    pairs: pd.DataFrame, model, batch_size: int = 64, progress=None, every_line: bool = True
) -> pd.DataFrame:
    """A cross-encoder's similarity table of a pair table (module docstring), for every line or only the scored
    ones (the others null), as stsynth.encoders.encoder.cosine_table's."""
    encoded = encoded_lines(pairs, every_line)
    score = np.full(len(pairs), np.nan)
    chosen = pairs[encoded]
    score[encoded] = cross_scores(
        model, [str(s) for s in chosen["s1"]], [str(s) for s in chosen["s2"]], batch_size, progress
    )
    return pd.DataFrame(
        {
            "year": pairs["year"].to_numpy(),
            "dataset": pairs["dataset"].to_numpy(),
            "line": pairs["line"].to_numpy(),
            "encoder": score,
            "encoder_token_f1": np.full(len(pairs), np.nan),
        }
    ).astype(
        {"year": "int16", "dataset": "string", "line": "int32", "encoder": "float64", "encoder_token_f1": "float64"}
    )
