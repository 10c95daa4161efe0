"""Sentence vectors of every pair of a dataset, from any source the project has, for the regression
head (stsynth.head) and the cosine baselines of the SemEval-2017 system's Table 1.

A source (config ``sentence_vectors``: name -> exactly one of :data:`KINDS`):

* ``mean: <vector source>``: the mean of the word vectors (``resources/vectors/{source}.parquet``)
  of the sentence's tokens; tokens the table lacks are skipped (or, with ``unknown: encode``, given
  their minilm-static vector from the word alone first), a sentence with none known gets the zero
  vector (the W2V, paragram-small and paragram-XXL rows);
* ``events: <vector source>``: the same over the sentence's event tokens (stsynth.events; the EE row);
* ``paraphrase_cnn: <model>`` or ``{final, dev}``: the paraphrase embeddings of stsynth.paraphrase_cnn;
* ``encoder: <encoder>`` or ``{final, dev}``: the pooled, L2-normalised embedding of a named or tuned
  encoder (stsynth.encoder), frozen.

``{final, dev}``: a source trained on gold pairs has a final model and a dev-protocol one (trained
without the validation years); a plain name serves both.

Sentence-vector table schema (``resources/sentence_vectors/{kind}/{name}/{year}/{dataset}.parquet``,
row-aligned with the pair table): ``year`` int16, ``dataset`` string, ``line`` int32, ``v1``, ``v2``
fixed_size_list<float32>[d] (s1's and s2's vectors). Parquet key-value metadata ``stsynth``: JSON
``{"source", "dim", "sentences", "empty"}`` (empty: sentences whose vector is the zero vector
because none of their tokens is known).
"""
from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from .keyed import KEYS, check_aligned
from .vectors import WordVectors

log = logging.getLogger(__name__)

KINDS = ("mean", "events", "paraphrase_cnn", "encoder")
METADATA_KEY = b"stsynth"
PROTOCOLS = ("final", "dev")


class SentenceVectorError(ValueError):
    """A sentence-vector table that does not fit what reads it (dimension, rows)."""


def source_kind(name: str, entry: dict) -> tuple[str, object]:
    """(kind, value) of a ``sentence_vectors`` entry."""
    kinds = [kind for kind in KINDS if kind in entry]
    if len(kinds) != 1:
        raise ValueError(f"sentence_vectors.{name}: give exactly one of {', '.join(KINDS)} (got {kinds or 'none'})")
    return kinds[0], entry[kinds[0]]


def table_name(name: str, entry: dict, protocol: str) -> tuple[str, str]:
    """(kind, model) whose table a source reads under a protocol (``final`` or ``dev``)."""
    kind, value = source_kind(name, entry)
    return kind, value[protocol] if isinstance(value, dict) else value


def mean_vectors(token_lists, vectors: WordVectors) -> tuple[np.ndarray, int]:
    """Mean vector of each token list over the tokens ``vectors`` knows (zero where none is known),
    float32 [N, d], and the number of lists with no known token."""
    index = vectors.index()
    out = np.zeros((len(token_lists), vectors.dim), dtype=np.float32)
    empty = 0
    for row, tokens in enumerate(token_lists):
        rows = [index[token] for token in tokens if token in index]
        if rows:
            out[row] = vectors.matrix[rows].mean(0, dtype=np.float64)
        else:
            empty += 1
    return out, empty


def check_known(encoded: list[tuple[np.ndarray, np.ndarray, int]], source: str, vectors: str | None = None) -> None:
    """Refuse a source that knows no token of any sentence: every vector would be zero and nothing could
    learn from it (an empty event table, or a vector table of other words)."""
    sentences = sum(2 * len(v1) for v1, _, _ in encoded)
    if sentences and sum(empty for *_, empty in encoded) == sentences:
        raise SentenceVectorError(f"{source}: none of the {sentences} sentences has a token that {vectors or 'the source'} "
                                  "knows, so every sentence vector would be zero (for events: no event token was "
                                  "extracted, or none occurs in the event corpus often enough)")


def write_table(keys: pd.DataFrame, v1: np.ndarray, v2: np.ndarray, path: str | Path, source: str,
                empty: int = 0) -> None:
    """One dataset's sentence vectors (schema: module docstring); ``keys`` the pair table's key columns."""
    v1, v2 = np.ascontiguousarray(v1, dtype=np.float32), np.ascontiguousarray(v2, dtype=np.float32)
    if v1.shape != v2.shape or v1.ndim != 2 or len(v1) != len(keys):
        raise SentenceVectorError(f"{path}: {len(keys)} pairs but vectors of shapes {v1.shape} and {v2.shape}")
    if not np.all(np.isfinite(v1)) or not np.all(np.isfinite(v2)):
        raise SentenceVectorError(f"{path}: refusing to write non-finite sentence vectors ({source})")
    dim = v1.shape[1]
    columns = {column: pa.array(keys[column].to_numpy()) for column in KEYS}
    table = pa.table({"year": columns["year"].cast(pa.int16()), "dataset": columns["dataset"].cast(pa.string()),
                      "line": columns["line"].cast(pa.int32()),
                      "v1": pa.FixedSizeListArray.from_arrays(pa.array(v1.reshape(-1)), dim),
                      "v2": pa.FixedSizeListArray.from_arrays(pa.array(v2.reshape(-1)), dim)})
    metadata = {"source": source, "dim": dim, "sentences": 2 * len(keys), "empty": int(empty)}
    table = table.replace_schema_metadata({METADATA_KEY: json.dumps(metadata).encode()})
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path)


def read_table(path: str | Path, pairs: pd.DataFrame | None = None) -> tuple[pd.DataFrame, np.ndarray, np.ndarray, dict]:
    """A sentence-vector table: its key columns, v1, v2 (float32 [N, d]) and metadata; with ``pairs``,
    checked to be row-aligned with that pair table."""
    table = pq.read_table(path)
    metadata = json.loads((table.schema.metadata or {}).get(METADATA_KEY, b"{}"))
    if "dim" not in metadata or {"v1", "v2"} - set(table.column_names):
        raise SentenceVectorError(f"{path}: not a sentence-vector table (no stsynth metadata or no v1/v2 columns)")
    dim = metadata["dim"]
    vectors = [table.column(side).combine_chunks().flatten().to_numpy(zero_copy_only=False).reshape(len(table), dim)
               for side in ("v1", "v2")]
    keys = table.select(KEYS).to_pandas()
    if pairs is not None:
        check_aligned(keys, pairs, f"{path} (sentence vectors)")
    return keys, vectors[0].astype(np.float32), vectors[1].astype(np.float32), metadata


def concatenate(parts: list[tuple[np.ndarray, np.ndarray]], names: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Several sources' vectors of the same pairs side by side ([PE; EE]: the paper's concatenation)."""
    rows = {len(v1) for v1, _ in parts}
    if len(rows) != 1:
        raise SentenceVectorError(f"sources {', '.join(names)} hold different numbers of pairs: {sorted(rows)}")
    return np.concatenate([v1 for v1, _ in parts], axis=1), np.concatenate([v2 for _, v2 in parts], axis=1)


def cosines(v1: np.ndarray, v2: np.ndarray) -> np.ndarray:
    """Cosine of each pair (0 where a side is the zero vector)."""
    v1, v2 = v1.astype(np.float64), v2.astype(np.float64)
    norms = np.linalg.norm(v1, axis=1) * np.linalg.norm(v2, axis=1)
    return np.divide((v1 * v2).sum(1), norms, out=np.zeros(len(v1)), where=norms > 0)


def encode_pairs(kind: str, inputs, params, device: str = "cpu"):
    """The encoder of a sentence-vector job: ``encode(index, pairs)`` -> (v1, v2, sentences without a known
    token) for the job's ``index``-th dataset (its pair table ``pairs``), by source kind."""
    # unknown: encode (a mean or a paraphrase-embedding model): each set's words the source lacks, in set order
    unknown = list(inputs.get("unknown", []))
    if kind in ("mean", "events"):
        from .vectors import merge_vectors, read_vectors

        vectors = read_vectors(inputs.vectors)
        column, files = ("tokens", inputs.tokens) if kind == "mean" else ("events", inputs.events)

        def encode(index, pairs):
            table = pd.read_parquet(files[index])
            check_aligned(table, pairs, f"{files[index]} ({kind} sentence vectors)")
            known = merge_vectors([vectors, read_vectors(unknown[index])], vectors.source) if unknown else vectors
            if len(known.words) > len(vectors.words):
                log.info("%s: %d words the vectors lack, encoded (unknown: encode)", files[index],
                         len(known.words) - len(vectors.words))
            (v1, empty1), (v2, empty2) = (mean_vectors([list(t) for t in table[f"{column}{side}"]], known)
                                          for side in (1, 2))
            return v1, v2, empty1 + empty2
        return encode
    if kind == "paraphrase_cnn":
        from .paraphrase_cnn import load, sentence_vectors, with_words
        from .vectors import read_vectors

        model, vocabulary, _ = load(inputs.model)

        def encode(index, pairs):
            tokens = pd.read_parquet(inputs.tokens[index])
            check_aligned(tokens, pairs, f"{inputs.tokens[index]} (paraphrase embeddings)")
            set_model, set_vocabulary = with_words(model, vocabulary, read_vectors(unknown[index])) if unknown else (model, vocabulary)
            if len(set_vocabulary.words) > len(vocabulary.words):
                log.info("%s: %d words the model lacks, encoded (unknown: encode)", inputs.tokens[index],
                         len(set_vocabulary.words) - len(vocabulary.words))
            rows = [[set_vocabulary.rows(list(t)) for t in tokens[f"tokens{side}"]] for side in (1, 2)]
            return sentence_vectors(set_model, rows[0]), sentence_vectors(set_model, rows[1]), 0
        return encode
    if kind == "encoder":
        from .encoder import batch_size, embed, open_job_encoder

        model, _, _ = open_job_encoder(params.encoder, inputs.encoder_folder, params.model, params.settings["max_length"],
                                    device)

        def encode(index, pairs):
            n = len(pairs)
            vectors = embed([str(s) for s in pairs["s1"]] + [str(s) for s in pairs["s2"]], model,
                            batch_size(params.encoder, params.settings["batch_size"]))
            return vectors[:n], vectors[n:], 0
        return encode
    raise ValueError(f"unknown sentence-vector kind {kind!r} (one of {', '.join(KINDS)})")
