"""A paragram model with its vocabulary (stsynth.word_vectors.paragram holds the model, loss and trainer):
SIF word weights, the unknown-word rule, sentence encoding, principal-component removal,
safetensors files, fitting from paraphrase-pair tables, and per-dataset cosine tables.

Similarity tables (``resources/similarity/{model}/{year}/{dataset}.parquet``): ``year`` int16,
``dataset`` string, ``line`` int32, ``cosine`` float64, row-aligned with the pair table.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd
import torch
from safetensors import safe_open
from safetensors.torch import load_file, save_file

from ..core.correlations import correlations
from ..word_vectors.paragram import Paragram, _pad_flat, cosine, train
from ..word_vectors.vectors import WordVectors

log = logging.getLogger(__name__)


def _word_frequencies(words: list[str], punctuation_frequency: float) -> np.ndarray:
    return _frequencies_of(tuple(words), punctuation_frequency)


@lru_cache(maxsize=4)
def _frequencies_of(words: tuple[str, ...], punctuation_frequency: float) -> np.ndarray:
    """Looked up once per vocabulary and process (SIF weights, the rare-word rule, every model of a sweep)."""
    import wordfreq

    # wordfreq strips punctuation (frequency 0); punctuation is among the most frequent tokens.
    frequencies = np.array(
        [wordfreq.word_frequency(w, "en") if any(c.isalnum() for c in w) else punctuation_frequency for w in words]
    )
    frequencies.flags.writeable = False  # shared by every caller
    return frequencies


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
        rows = np.fromiter(
            (self.index.get(token, -1) for sentence in sentences for token in sentence),
            dtype=np.int64,
            count=int(lengths.sum()),
        )
        missing = rows < 0
        if self.unknown is not None:
            rows[missing] = self.unknown
        elif missing.any():
            owner = np.repeat(np.arange(len(lengths)), lengths)
            lengths = lengths - np.bincount(owner[missing], minlength=len(lengths))
            rows = rows[~missing]
        return Encoded(*_pad_flat(rows, lengths), int(missing.size), int(missing.sum()))

    def with_words(self, extra: WordVectors) -> "SentenceModel":
        """This model with the words of ``extra`` it lacks appended (``unknown: encode``: each word's vector
        from the word alone, its SIF weight from its own frequency); the same model when it lacks none.
        The rows are a copy: training the returned model does not train this one."""
        new = [word for word in extra.words if word not in self.index]
        if not new:
            return self
        if extra.dim != self.paragram.embeddings.shape[1]:
            raise ValueError(
                f"{extra.source}: {extra.dim}-d vectors for a model of {self.paragram.embeddings.shape[1]} dimensions"
            )
        rows = extra.index()
        embeddings = torch.cat(
            [self.paragram.embeddings.detach(), torch.from_numpy(extra.matrix[[rows[w] for w in new]])]
        )
        weights = torch.cat([self.paragram.weights, torch.from_numpy(word_weights(new, self.settings))])
        return SentenceModel(
            Paragram(embeddings, weights, self.paragram.components), self.words + new, self.unknown, self.settings
        )

    def prepare(self, sentences, batch_size: int = 512) -> list[tuple[list[int], Encoded]]:
        """Sentences encoded once, in batches of similar length (little padding): reusable across epochs."""
        order = sorted(range(len(sentences)), key=lambda i: len(sentences[i]))
        return [
            (order[start : start + batch_size], self.encode([sentences[i] for i in order[start : start + batch_size]]))
            for start in range(0, len(order), batch_size)
        ]

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
        tensors = {
            name: tensor.detach().contiguous()
            for name, tensor in [
                ("embeddings", self.paragram.embeddings),
                ("weights", self.paragram.weights),
                ("components", self.paragram.components),
            ]
        }
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
    """``unknown``: rare (one seeded rare word, the paper's), skip (dropped) or encode (dropped by the model
    itself; the jobs that read a set add the vectors of its unknown words: :meth:`SentenceModel.with_words`)."""
    weights = torch.from_numpy(word_weights(vectors.words, settings))
    unknown = rare_word(vectors.words, settings) if settings["unknown"] == "rare" else None
    if unknown is not None:
        log.info("unknown words map to the rare vocabulary word %r (row %d)", vectors.words[unknown], unknown)
    return SentenceModel(Paragram(torch.from_numpy(vectors.matrix.copy()), weights), vectors.words, unknown, settings)


@dataclass
class DevSet:
    name: str  # "year/dataset"
    tokens1: list
    tokens2: list
    gold: np.ndarray  # nan = unscored


def dev_set(pairs: pd.DataFrame, tokens: pd.DataFrame) -> DevSet:
    scored = pairs["gold"].notna().to_numpy()
    return DevSet(
        f"{pairs['year'].iat[0]}/{pairs['dataset'].iat[0]}",
        list(tokens["tokens1"][scored]),
        list(tokens["tokens2"][scored]),
        pairs["gold"].to_numpy()[scored],
    )


def evaluate(model: SentenceModel, dev_sets: list[DevSet], prepared: list | None = None) -> dict[str, float]:
    """Pearson per dev set and their pair-weighted mean (prepared: model.prepare of each set's two sides)."""
    if not dev_sets:
        return {}
    prepared = prepared or [(model.prepare(d.tokens1), model.prepare(d.tokens2)) for d in dev_sets]
    results = correlations(
        (d.name.replace("/", "_"), model.prepared_cosines(*sides), d.gold)
        for d, sides in zip(dev_sets, prepared, strict=True)
    )
    return {f"dev_{name}": r for name, _, r in results}


def unlabeled_sentences(token_tables: list[pd.DataFrame]) -> list:
    return [list(tokens) for table in token_tables for column in ("tokens1", "tokens2") for tokens in table[column]]


def fit(
    vectors: WordVectors,
    training_pairs: pd.DataFrame,
    unlabeled: list,
    settings: dict,
    dev_sets: list[DevSet] = (),
    every_epoch: bool = True,
    extra: WordVectors | None = None,
) -> tuple[SentenceModel, pd.DataFrame]:
    """Build, tune (settings["epochs"] passes; 0 = raw vectors) and finish a model.

    Sentence components are refitted on the unlabeled sentences whenever the model is
    evaluated, so per-epoch dev scores are those of the model as it would be saved. ``extra``
    (``unknown: encode``): the vectors of the unlabeled and dev sentences' unknown words, appended for
    the components and the dev scores as the similarity jobs append them; never trained, never saved.
    """
    model = build_model(vectors, settings)
    encoded = []
    unknown = tokens = 0
    for a, b in zip(training_pairs["tokens1"], training_pairs["tokens2"]):
        e = model.encode([list(a), list(b)])
        tokens, unknown = tokens + e.tokens, unknown + e.unknown
        encoded.append(tuple(e.indices[i][e.mask[i] > 0].tolist() for i in range(2)))
    log.info(
        "training pairs: %d, tokens %d, unknown %d (%.2f%%)",
        len(encoded),
        tokens,
        unknown,
        100 * unknown / max(tokens, 1),
    )

    # the extra words' rows follow the vocabulary's, so these indices hold while the table is trained
    reader = model.with_words(extra) if extra is not None else model
    prepared_unlabeled = reader.prepare(unlabeled)
    prepared_dev = [(reader.prepare(d.tokens1), reader.prepare(d.tokens2)) for d in dev_sets]

    def finish_and_evaluate():
        current = model.with_words(extra) if extra is not None else model  # the table as trained so far, extras after
        current.fit_components(prepared=prepared_unlabeled)
        model.paragram.components = current.paragram.components
        return evaluate(current, list(dev_sets), prepared_dev)

    # Without dev sets there is nothing to score per epoch: the components are fitted once, at the end.
    every_epoch = every_epoch and bool(dev_sets)
    records = (
        train(model.paragram, encoded, settings, finish_and_evaluate, every_epoch)
        if encoded
        else [{"epoch": 0, "loss": float("nan"), "seconds": 0.0, "pairs": 0, **finish_and_evaluate()}]
    )
    epochs = pd.DataFrame(records).astype({"epoch": "int32", "pairs": "int32"})
    return model, epochs


def similarity_table(model: SentenceModel, tokens: pd.DataFrame) -> tuple[pd.DataFrame, dict]:
    started = time.perf_counter()
    cosines = model.cosines([list(t) for t in tokens["tokens1"]], [list(t) for t in tokens["tokens2"]])
    seconds = time.perf_counter() - started
    encoded = [model.encode([list(t) for t in tokens[c]]) for c in ("tokens1", "tokens2")]
    counts = {
        "pairs": len(tokens),
        "tokens": sum(e.tokens for e in encoded),
        "unknown": sum(e.unknown for e in encoded),
        "seconds": seconds,
    }
    table = pd.DataFrame(
        {
            "year": tokens["year"].to_numpy(),
            "dataset": tokens["dataset"].to_numpy(),
            "line": tokens["line"].to_numpy(),
            "cosine": cosines,
        }
    )
    return table.astype({"year": "int16", "dataset": "string", "line": "int32", "cosine": "float64"}), counts


def unknown_word_table(words: list[str], token_tables: list[pd.DataFrame]) -> pd.DataFrame:
    """Tokens per dataset outside the vocabulary (paper Table 5).

    Schema: year int16, dataset string, tokens int64, unknown int64, percent float64.
    """
    vocabulary = set(words)
    rows = []
    for table in token_tables:
        tokens = [t for column in ("tokens1", "tokens2") for sentence in table[column] for t in sentence]
        unknown = sum(t not in vocabulary for t in tokens)
        rows.append(
            (
                int(table["year"].iat[0]),
                table["dataset"].iat[0],
                len(tokens),
                unknown,
                100.0 * unknown / max(len(tokens), 1),
            )
        )
    return pd.DataFrame(rows, columns=["year", "dataset", "tokens", "unknown", "percent"]).astype(
        {"year": "int16", "dataset": "string", "tokens": "int64", "unknown": "int64", "percent": "float64"}
    )
