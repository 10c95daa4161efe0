"""Paragram-phrase sentence similarity (Wieting et al. 2016, as used by Hokamp & Arora 2016).

A sentence vector is the (weighted) mean of its word vectors, minus its projection on a few
principal components (Arora et al. 2017; none by default in the paper); similarity is the
cosine. The word vectors, the only parameters, are tuned on paraphrase pairs with the margin
loss of the paper (eq. 2)::

    max(0, δ − cos(g1, g2) + cos(g1, t1)) + max(0, δ − cos(g1, g2) + cos(g2, t2)) + λ‖W_init − W‖²

averaged over a batch (the regularizer added once per batch), with negatives t1, t2 drawn
from the other sentences of the batch (random, the most similar one = MAX, or a mix).

Model files (never pickle):

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

import json
import logging
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from safetensors.torch import load_file, save_file
from safetensors import safe_open

from .scoring import pearson, weighted_mean
from .vectors import WordVectors

log = logging.getLogger(__name__)


# --- the model -----------------------------------------------------------------------------

class Paragram(torch.nn.Module):
    """Word embedding table -> masked weighted mean -> principal components removed."""

    def __init__(self, embeddings: torch.Tensor, weights: torch.Tensor, components: torch.Tensor | None = None):
        super().__init__()
        self.embeddings = torch.nn.Parameter(embeddings.float())
        self.register_buffer("weights", weights.float())
        self.register_buffer("components", torch.zeros(0, embeddings.shape[1]) if components is None
                             else components.float())

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


# --- vocabulary, weights, unknown words ------------------------------------------------------

def _word_frequencies(words: list[str], punctuation_frequency: float) -> np.ndarray:
    import wordfreq
    # wordfreq strips punctuation (frequency 0); punctuation is among the most frequent tokens.
    return np.array([wordfreq.word_frequency(w, "en") if any(c.isalnum() for c in w) else punctuation_frequency
                     for w in words])


def word_weights(words: list[str], settings: dict) -> np.ndarray:
    if settings["weighting"] == "mean":
        return np.ones(len(words), dtype=np.float32)
    if settings["weighting"] == "sif":
        a = settings["sif_a"]
        return (a / (a + _word_frequencies(words, settings["punctuation_frequency"]))).astype(np.float32)
    raise ValueError(f"unknown weighting {settings['weighting']!r}")


def rare_word(words: list[str], settings: dict) -> int:
    """The paper's unknown-word rule: one randomly chosen low-frequency vocabulary word."""
    frequencies = _word_frequencies(words, settings["punctuation_frequency"])
    count = max(1, int(len(words) * settings["unknown_rare_fraction"]))
    rarest = np.argsort(frequencies, kind="stable")[:count]
    return int(np.random.default_rng(settings["seed"]).choice(rarest))


@dataclass
class Encoded:
    indices: torch.Tensor  # long [N, L]
    mask: torch.Tensor  # float [N, L]
    tokens: int
    unknown: int


class SentenceModel:
    """A paragram model with its vocabulary: the API the workflow and other stages call."""

    def __init__(self, paragram: Paragram, words: list[str], unknown: int | None, settings: dict):
        self.paragram, self.words, self.unknown, self.settings = paragram, list(words), unknown, settings
        self.index = {word: row for row, word in enumerate(self.words)}

    def encode(self, sentences) -> Encoded:
        lengths = np.array([len(sentence) for sentence in sentences], dtype=np.int64)
        rows = np.fromiter((self.index.get(token, -1) for sentence in sentences for token in sentence),
                           dtype=np.int64, count=int(lengths.sum()))
        missing = rows < 0
        if self.unknown is not None:
            rows[missing] = self.unknown
        elif missing.any():
            owner = np.repeat(np.arange(len(lengths)), lengths)
            lengths = lengths - np.bincount(owner[missing], minlength=len(lengths))
            rows = rows[~missing]
        return Encoded(*_pad_flat(rows, lengths), int(missing.size), int(missing.sum()))

    def prepare(self, sentences, batch_size: int = 512) -> list[tuple[list[int], Encoded]]:
        """Sentences encoded once, in batches of similar length (little padding): reusable across epochs."""
        order = sorted(range(len(sentences)), key=lambda i: len(sentences[i]))
        return [(order[start:start + batch_size], self.encode([sentences[i] for i in order[start:start + batch_size]]))
                for start in range(0, len(order), batch_size)]

    @torch.no_grad()
    def prepared_vectors(self, prepared: list[tuple[list[int], Encoded]]) -> np.ndarray:
        out = torch.zeros(sum(len(rows) for rows, _ in prepared), self.paragram.embeddings.shape[1])
        for rows, encoded in prepared:
            out[rows] = self.paragram(encoded.indices, encoded.mask)
        return out.numpy()

    def vectors(self, sentences) -> np.ndarray:
        return self.prepared_vectors(self.prepare(sentences))

    def cosines(self, tokens1, tokens2) -> np.ndarray:
        if len(tokens1) != len(tokens2):
            raise ValueError(f"{len(tokens1)} first sentences but {len(tokens2)} second sentences")
        return self.prepared_cosines(self.prepare(tokens1), self.prepare(tokens2))

    def prepared_cosines(self, prepared1, prepared2) -> np.ndarray:
        a, b = self.prepared_vectors(prepared1), self.prepared_vectors(prepared2)
        return cosine(torch.from_numpy(a), torch.from_numpy(b)).double().numpy()

    def fit_components(self, sentences=None, prepared=None) -> None:
        """Top principal directions (uncentred, as Arora et al.) of unlabeled sentence vectors."""
        count = self.settings["remove_components"]
        self.paragram.components = torch.zeros(0, self.paragram.embeddings.shape[1])
        prepared = prepared if prepared is not None else self.prepare(sentences)
        if count and prepared:
            vectors = self.prepared_vectors(prepared).astype(np.float64)
            _, _, basis = np.linalg.svd(vectors, full_matrices=False)
            self.paragram.components = torch.from_numpy(basis[:count].astype(np.float32))

    def save(self, path: str | Path) -> None:
        path = Path(path)
        tensors = {name: tensor.detach().contiguous() for name, tensor in
                   [("embeddings", self.paragram.embeddings), ("weights", self.paragram.weights),
                    ("components", self.paragram.components)]}
        # One metadata key: safetensors writes its metadata map in a per-process random order, so
        # two keys would make the same model's bytes differ from run to run.
        metadata = {"stsynth": json.dumps({"settings": self.settings, "unknown_word": self.unknown}, sort_keys=True)}
        save_file(tensors, str(path), metadata=metadata)
        pd.DataFrame({"word": pd.Series(self.words, dtype="string")}).to_parquet(vocabulary_path(path), index=False)

    @classmethod
    def load(cls, path: str | Path) -> "SentenceModel":
        path = Path(path)
        tensors = load_file(str(path))
        with safe_open(str(path), framework="pt") as handle:
            metadata = handle.metadata()
        words = pd.read_parquet(vocabulary_path(path))["word"].tolist()
        if "stsynth" in metadata:
            stored = json.loads(metadata["stsynth"])
            unknown, settings = stored["unknown_word"], stored["settings"]
        else:  # written before the single key
            unknown = int(metadata["unknown_word"]) if metadata["unknown_word"] else None
            settings = json.loads(metadata["settings"])
        return cls(Paragram(tensors["embeddings"], tensors["weights"], tensors["components"]), words, unknown, settings)


def vocabulary_path(model_path: str | Path) -> Path:
    return Path(str(model_path).removesuffix(".safetensors") + ".vocab.parquet")


def build_model(vectors: WordVectors, settings: dict) -> SentenceModel:
    weights = torch.from_numpy(word_weights(vectors.words, settings))
    unknown = rare_word(vectors.words, settings) if settings["unknown"] == "rare" else None
    if unknown is not None:
        log.info("unknown words map to the rare vocabulary word %r (row %d)", vectors.words[unknown], unknown)
    return SentenceModel(Paragram(torch.from_numpy(vectors.matrix.copy()), weights), vectors.words, unknown, settings)


# --- the trainer -----------------------------------------------------------------------------

def _optimizer(settings: dict, parameters):
    """Library defaults except the learning rate (AdaDelta: rho 0.9, eps 1e-6 in torch)."""
    kinds = {"adadelta": torch.optim.Adadelta, "adam": torch.optim.Adam, "adagrad": torch.optim.Adagrad,
             "sgd": torch.optim.SGD}
    return kinds[settings["optimizer"]](parameters, lr=settings["learning_rate"])


def choose_negatives(g1: torch.Tensor, g2: torch.Tensor, kind: str, rng: np.random.Generator,
                     mix_max_probability: float = 0.5) -> tuple[torch.Tensor, torch.Tensor]:
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


def train(paragram: Paragram, pairs: list[tuple[list[int], list[int]]], settings: dict, evaluate=None,
          every_epoch: bool = True) -> list[dict]:
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
    records = [{"epoch": 0, "loss": float("nan"), "seconds": 0.0, "pairs": len(pairs),
                **(scored() if every_epoch or not settings["epochs"] else {})}]
    for epoch in range(1, settings["epochs"] + 1):
        started, losses = time.perf_counter(), []
        order = rng.permutation(len(compact_pairs))
        for start in range(0, len(order), settings["batch_size"]):
            batch = [compact_pairs[i] for i in order[start:start + settings["batch_size"]]]
            if len(batch) < 2:
                continue  # no other pair to draw a negative from
            g1, g2 = table(*_pad([a for a, _ in batch])), table(*_pad([b for _, b in batch]))
            t1, t2 = choose_negatives(g1.detach(), g2.detach(), settings["negatives"], rng,
                                      settings["mix_max_probability"])
            candidates = torch.cat([g1, g2])
            loss = objective(g1, g2, candidates[t1], candidates[t2], table.embeddings, initial, settings)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        seconds = time.perf_counter() - started
        with torch.no_grad():
            paragram.embeddings[rows] = table.embeddings
        record = {"epoch": epoch, "loss": float(np.mean(losses)) if losses else float("nan"), "seconds": seconds,
                  "pairs": len(pairs), **(scored() if every_epoch or epoch == settings["epochs"] else {})}
        log.info("epoch %d: loss %.5f, %.1f s, %s", epoch, record["loss"], seconds,
                 {k: round(v, 4) for k, v in record.items() if k.startswith("dev_")})
        records.append(record)
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


# --- fitting a model from tables -------------------------------------------------------------

@dataclass
class DevSet:
    name: str  # "year/dataset"
    tokens1: list
    tokens2: list
    gold: np.ndarray  # nan = unscored


def dev_set(pairs: pd.DataFrame, tokens: pd.DataFrame) -> DevSet:
    scored = pairs["gold"].notna().to_numpy()
    return DevSet(f"{pairs['year'].iat[0]}/{pairs['dataset'].iat[0]}", list(tokens["tokens1"][scored]),
                  list(tokens["tokens2"][scored]), pairs["gold"].to_numpy()[scored])


def evaluate(model: SentenceModel, dev_sets: list[DevSet], prepared: list | None = None) -> dict[str, float]:
    """Pearson per dev set and their pair-weighted mean (prepared: model.prepare of each set's two sides)."""
    if not dev_sets:
        return {}
    prepared = prepared or [(model.prepare(d.tokens1), model.prepare(d.tokens2)) for d in dev_sets]
    scores = {f"dev_{d.name.replace('/', '_')}": pearson(model.prepared_cosines(*sides), d.gold)
              for d, sides in zip(dev_sets, prepared, strict=True)}
    scores["dev_ALL"] = weighted_mean(list(scores.values()), [len(d.gold) for d in dev_sets])
    return scores


def unlabeled_sentences(token_tables: list[pd.DataFrame]) -> list:
    return [list(tokens) for table in token_tables for column in ("tokens1", "tokens2") for tokens in table[column]]


def fit(vectors: WordVectors, training_pairs: pd.DataFrame, unlabeled: list, settings: dict,
        dev_sets: list[DevSet] = (), every_epoch: bool = True) -> tuple[SentenceModel, pd.DataFrame]:
    """Build, tune (settings["epochs"] passes; 0 = raw vectors) and finish a model.

    Sentence components are refitted on the unlabeled sentences whenever the model is
    evaluated, so per-epoch dev scores are those of the model as it would be saved.
    """
    model = build_model(vectors, settings)
    encoded = []
    unknown = tokens = 0
    for a, b in zip(training_pairs["tokens1"], training_pairs["tokens2"]):
        e = model.encode([list(a), list(b)])
        tokens, unknown = tokens + e.tokens, unknown + e.unknown
        encoded.append(tuple(e.indices[i][e.mask[i] > 0].tolist() for i in range(2)))
    log.info("training pairs: %d, tokens %d, unknown %d (%.2f%%)", len(encoded), tokens, unknown,
             100 * unknown / max(tokens, 1))

    prepared_unlabeled = model.prepare(unlabeled)
    prepared_dev = [(model.prepare(d.tokens1), model.prepare(d.tokens2)) for d in dev_sets]

    def finish_and_evaluate():
        model.fit_components(prepared=prepared_unlabeled)
        return evaluate(model, list(dev_sets), prepared_dev)

    records = train(model.paragram, encoded, settings, finish_and_evaluate, every_epoch) if encoded else \
        [{"epoch": 0, "loss": float("nan"), "seconds": 0.0, "pairs": 0, **finish_and_evaluate()}]
    epochs = pd.DataFrame(records).astype({"epoch": "int32", "pairs": "int32"})
    return model, epochs


def similarity_table(model: SentenceModel, tokens: pd.DataFrame) -> tuple[pd.DataFrame, dict]:
    started = time.perf_counter()
    cosines = model.cosines([list(t) for t in tokens["tokens1"]], [list(t) for t in tokens["tokens2"]])
    seconds = time.perf_counter() - started
    encoded = [model.encode([list(t) for t in tokens[c]]) for c in ("tokens1", "tokens2")]
    counts = {"pairs": len(tokens), "tokens": sum(e.tokens for e in encoded),
              "unknown": sum(e.unknown for e in encoded), "seconds": seconds}
    table = pd.DataFrame({"year": tokens["year"].to_numpy(), "dataset": tokens["dataset"].to_numpy(),
                          "line": tokens["line"].to_numpy(), "cosine": cosines})
    return table.astype({"year": "int16", "dataset": "string", "line": "int32", "cosine": "float64"}), counts


def predictions_from_cosines(cosines: np.ndarray) -> np.ndarray:
    """The run's score: 5 x cosine (the STS scale is 0-5)."""
    return 5.0 * np.asarray(cosines, dtype=np.float64)


def unknown_word_table(words: list[str], token_tables: list[pd.DataFrame]) -> pd.DataFrame:
    """Tokens per dataset outside the vocabulary (paper Table 5).

    Schema: year int16, dataset string, tokens int64, unknown int64, percent float64.
    """
    vocabulary = set(words)
    rows = []
    for table in token_tables:
        tokens = [t for column in ("tokens1", "tokens2") for sentence in table[column] for t in sentence]
        unknown = sum(t not in vocabulary for t in tokens)
        rows.append((int(table["year"].iat[0]), table["dataset"].iat[0], len(tokens), unknown,
                     100.0 * unknown / max(len(tokens), 1)))
    return pd.DataFrame(rows, columns=["year", "dataset", "tokens", "unknown", "percent"]).astype(
        {"year": "int16", "dataset": "string", "tokens": "int64", "unknown": "int64", "percent": "float64"})


# --- dev-protocol studies --------------------------------------------------------------------

def threshold_sweep(vectors: WordVectors, gold_tables: list[pd.DataFrame], unlabeled: list, settings: dict,
                    dev_sets: list[DevSet], thresholds: list[float]) -> pd.DataFrame:
    """One model per gold threshold; its dev scores after the configured epochs.

    Schema: threshold float64, pairs int32, then the dev_* Pearson columns of the epoch log.
    """
    from .paraphrase_pairs import gold_filter

    rows = []
    for threshold in thresholds:
        pairs = gold_filter(gold_tables, threshold)
        _, epochs = fit(vectors, pairs, unlabeled, settings, dev_sets, every_epoch=False)
        final = epochs.iloc[-1]
        rows.append({"threshold": threshold, "pairs": len(pairs),
                     **{k: final[k] for k in epochs.columns if k.startswith("dev_")}})
        log.info("threshold %.2f: %d pairs, dev ALL %.4f", threshold, len(pairs), rows[-1].get("dev_ALL", np.nan))
    return pd.DataFrame(rows).astype({"threshold": "float64", "pairs": "int32"})


def plot_threshold_sweep(table: pd.DataFrame, path: str | Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, left = plt.subplots(figsize=(6, 3.5))
    left.plot(table["threshold"], table["dev_ALL"], marker="o", color="tab:blue")
    left.set_xlabel("gold threshold (pairs with gold >= t)")
    left.set_ylabel("dev Pearson (ALL)", color="tab:blue")
    right = left.twinx()
    right.plot(table["threshold"], table["pairs"], linestyle="--", color="tab:gray")
    right.set_ylabel("training pairs", color="tab:gray")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def source_comparison(sources: list[WordVectors], unlabeled: list, settings: dict, variants: list[dict],
                      datasets: list[tuple[str, DevSet]]) -> pd.DataFrame:
    """Untuned sources under each sentence-weighting variant, per dataset and per split.

    Schema: source string, variant string, split string (a label such as dev or test), dataset
    string ("year/name" or ALL), pairs int32, pearson float64.
    """
    rows = []
    for vectors in sources:
        for variant in variants:
            model = build_model(vectors, {**settings, **variant})
            model.fit_components(unlabeled)
            for split in dict.fromkeys(s for s, _ in datasets):
                sets = [d for s, d in datasets if s == split]
                scores = [(d.name, len(d.gold), pearson(model.cosines(d.tokens1, d.tokens2), d.gold)) for d in sets]
                scores.append(("ALL", sum(n for _, n, _ in scores), weighted_mean([r for *_, r in scores],
                                                                                   [n for _, n, _ in scores])))
                rows.extend((vectors.source, variant["name"], split, *score) for score in scores)
                log.info("%s %s %s ALL %.4f", vectors.source, variant["name"], split, scores[-1][2])
    return pd.DataFrame(rows, columns=["source", "variant", "split", "dataset", "pairs", "pearson"]).astype(
        {"source": "string", "variant": "string", "split": "string", "dataset": "string", "pairs": "int32",
         "pearson": "float64"})
