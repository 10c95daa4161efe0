"""Paragram-phrase sentence similarity (Wieting et al. 2016, as used by Hokamp & Arora 2016).

A sentence vector is the (weighted) mean of its word vectors, minus its projection on a few
principal components (Arora et al. 2017; none by default in the paper); similarity is the
cosine. The word vectors, the only parameters, are tuned on paraphrase pairs with the margin
loss of the paper (eq. 2)::

    max(0, δ − cos(g1, g2) + cos(g1, t1)) + max(0, δ − cos(g1, g2) + cos(g2, t2)) + λ‖W_init − W‖²

averaged over a batch (the regularizer added once per batch), with negatives t1, t2 drawn
from the other sentences of the batch (random, the most similar one = MAX, or a mix).

This module is the model, its loss and its trainer; stsynth.dcu2016.sentence_model wraps a trained
table with its vocabulary (encoding sentences, saving, loading, fitting from tables) and
stsynth.dcu2016.paragram_studies holds the dev-protocol studies.

Model files (never pickle, written by stsynth.dcu2016.sentence_model):

* ``resources/models/{model}.safetensors``: ``embeddings`` float32 [V, d], ``weights`` float32 [V]
  (the word's weight in the sentence mean: 1, or a / (a + p(w)) for SIF), ``components``
  float32 [k, d]; one metadata string ``stsynth``: JSON of ``settings`` and ``unknown_word`` (row
  that unknown words map to; null when unknown words are skipped).
* ``resources/models/{model}.vocab.parquet``: ``word`` string, one row per embedding row.
* ``resources/models/{model}.epochs.parquet``: ``epoch`` int32, ``loss`` float64 (mean batch
  loss), ``seconds`` float64, ``pairs`` int32, then ``dev_<year>_<dataset>`` / ``dev_ALL``
  float64 Pearson on the model's dev sets after that epoch (epoch 0 = before tuning).

Similarity tables (``resources/similarity/{model}/{year}/{dataset}.parquet``): ``year`` int16,
``dataset`` string, ``line`` int32, ``cosine`` float64, row-aligned with the pair table.
"""

from __future__ import annotations

import logging
import time

import numpy as np
import torch
import torch.nn.functional as F

from ..core.progress import Progress

log = logging.getLogger(__name__)


# --- the model -----------------------------------------------------------------------------


class Paragram(torch.nn.Module):
    """Word embedding table -> masked weighted mean -> principal components removed."""

    def __init__(self, embeddings: torch.Tensor, weights: torch.Tensor, components: torch.Tensor | None = None):
        super().__init__()
        self.embeddings = torch.nn.Parameter(embeddings.float())
        self.register_buffer("weights", weights.float())
        self.register_buffer(
            "components", torch.zeros(0, embeddings.shape[1]) if components is None else components.float()
        )

    def forward(self, indices: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        weights = self.weights[indices] * mask  # padding weighs nothing
        total = F.embedding_bag(indices, self.embeddings, per_sample_weights=weights, mode="sum")
        vectors = total / weights.sum(1, keepdim=True).clamp_min(1e-12)
        return vectors - (vectors @ self.components.T) @ self.components


def cosine(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return (a * b).sum(-1) / (a.norm(dim=-1) * b.norm(dim=-1)).clamp_min(1e-12)


def margin_loss(g1, g2, t1, t2, delta: float) -> torch.Tensor:
    positive = cosine(g1, g2)
    return (torch.relu(delta - positive + cosine(g1, t1)) + torch.relu(delta - positive + cosine(g2, t2))).mean()


def objective(g1, g2, t1, t2, embeddings, initial, settings: dict) -> torch.Tensor:
    """Batch objective: mean margin loss + λ‖W_init − W‖² (the squared Frobenius norm, not halved)."""
    return margin_loss(g1, g2, t1, t2, settings["delta"]) + settings["lambda"] * ((embeddings - initial) ** 2).sum()


# --- the trainer -----------------------------------------------------------------------------


def _optimizer(settings: dict, parameters):
    """Library defaults except the learning rate (AdaDelta: rho 0.9, eps 1e-6 in torch)."""
    kinds = {
        "adadelta": torch.optim.Adadelta,
        "adam": torch.optim.Adam,
        "adagrad": torch.optim.Adagrad,
        "sgd": torch.optim.SGD,
    }
    return kinds[settings["optimizer"]](parameters, lr=settings["learning_rate"])


def choose_negatives(
    g1: torch.Tensor, g2: torch.Tensor, kind: str, rng: np.random.Generator, mix_max_probability: float = 0.5
) -> tuple[torch.Tensor, torch.Tensor]:
    """Rows of cat(g1, g2) serving as t1 (for g1) and t2 (for g2): never the pair's own sentences."""
    size = len(g1)
    pair = torch.arange(size)
    other = (pair + torch.from_numpy(rng.integers(1, size, size=(2, size)))) % size  # a uniformly random other pair
    side = torch.from_numpy(rng.integers(0, 2, size=(2, size)))
    random = other + side * size
    if kind == "random":
        return random[0], random[1]
    candidates = torch.cat([g1, g2])
    nearest = []
    for anchor in (g1, g2):
        similarity = cosine(anchor.unsqueeze(1), candidates.unsqueeze(0))
        similarity[pair, pair] = similarity[pair, pair + size] = -float("inf")
        nearest.append(similarity.argmax(1))
    if kind == "max":
        return nearest[0], nearest[1]
    if kind == "mix":
        use_max = torch.from_numpy(rng.random((2, size)) < mix_max_probability)
        return (torch.where(use_max[0], nearest[0], random[0]), torch.where(use_max[1], nearest[1], random[1]))
    raise ValueError(f"unknown negatives {kind!r}")


def train(
    paragram: Paragram,
    pairs: list[tuple[list[int], list[int]]],
    settings: dict,
    evaluate=None,
    every_epoch: bool = True,
) -> list[dict]:
    """Tune paragram.embeddings in place on index pairs; one record per epoch (epoch 0 = untuned).

    evaluate() (dev scores) runs after every epoch, or with every_epoch False only after the last.

    Only rows that occur in the pairs can move (every other row has zero gradient from the
    loss and from the regularizer), so the optimizer works on that sub-table: same result,
    a fraction of the cost.
    """
    torch.manual_seed(settings["seed"])
    rng = np.random.default_rng(settings["seed"])
    rows = torch.tensor(sorted({i for a, b in pairs for i in (*a, *b)}), dtype=torch.long)
    compact_index = {int(row): i for i, row in enumerate(rows)}
    compact_pairs = [([compact_index[i] for i in a], [compact_index[i] for i in b]) for a, b in pairs]
    table = Paragram(paragram.embeddings.detach()[rows].clone(), paragram.weights[rows])
    initial = table.embeddings.detach().clone()
    optimizer = _optimizer(settings, table.parameters())
    scored = evaluate or (lambda: {})
    records = [
        {
            "epoch": 0,
            "loss": float("nan"),
            "seconds": 0.0,
            "pairs": len(pairs),
            **(scored() if every_epoch or not settings["epochs"] else {}),
        }
    ]
    batches_per_epoch = -(-len(compact_pairs) // settings["batch_size"])
    progress = Progress(
        log, f"paragram training on {len(pairs)} pairs", settings["epochs"] * batches_per_epoch, "batches"
    )
    for epoch in range(1, settings["epochs"] + 1):
        started, losses = time.perf_counter(), []
        order = rng.permutation(len(compact_pairs))
        for start in range(0, len(order), settings["batch_size"]):
            progress.advance()
            batch = [compact_pairs[i] for i in order[start : start + settings["batch_size"]]]
            if len(batch) < 2:
                continue  # no other pair to draw a negative from
            g1, g2 = table(*_pad([a for a, _ in batch])), table(*_pad([b for _, b in batch]))
            t1, t2 = choose_negatives(
                g1.detach(), g2.detach(), settings["negatives"], rng, settings["mix_max_probability"]
            )
            candidates = torch.cat([g1, g2])
            loss = objective(g1, g2, candidates[t1], candidates[t2], table.embeddings, initial, settings)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        seconds = time.perf_counter() - started
        with torch.no_grad():
            paragram.embeddings[rows] = table.embeddings
        record = {
            "epoch": epoch,
            "loss": float(np.mean(losses)) if losses else float("nan"),
            "seconds": seconds,
            "pairs": len(pairs),
            **(scored() if every_epoch or epoch == settings["epochs"] else {}),
        }
        log.info(
            "epoch %d: loss %.5f, %.1f s, %s",
            epoch,
            record["loss"],
            seconds,
            {k: round(v, 4) for k, v in record.items() if k.startswith("dev_")},
        )
        records.append(record)
    progress.finish()
    return records


def _pad(rows: list[list[int]]) -> tuple[torch.Tensor, torch.Tensor]:
    lengths = np.array([len(r) for r in rows], dtype=np.int64)
    return _pad_flat(np.fromiter((i for row in rows for i in row), dtype=np.int64, count=int(lengths.sum())), lengths)


def _pad_flat(rows: np.ndarray, lengths: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
    """Concatenated index rows + their lengths -> padded [N, L] indices and a 0/1 mask."""
    mask = np.arange(max(lengths.max(initial=0), 1)) < lengths[:, None]
    indices = np.zeros(mask.shape, dtype=np.int64)
    indices[mask] = rows  # row-major order of the mask = sentence by sentence, token by token
    return torch.from_numpy(indices), torch.from_numpy(mask.astype(np.float32))


def train_word_pairs(matrix: np.ndarray, pairs: list[tuple[int, int]], settings: dict) -> np.ndarray:
    """Tune a word-vector matrix on (word row, paraphrase row) pairs: one-word 'sentences'."""
    paragram = Paragram(torch.from_numpy(matrix.copy()), torch.ones(len(matrix)))
    train(paragram, [([a], [b]) for a, b in pairs], settings)
    return paragram.embeddings.detach().numpy()
