"""Sentence vectors of every pair of a dataset, from any source the project has, for the regression
head (stsynth.sts2017.head) and the cosine baselines of the SemEval-2017 system's Table 1.

A source (config ``sentence_vectors``: name -> exactly one of
:data:`stsynth.pipeline.runs.SENTENCE_VECTOR_KINDS`):

* ``mean: <vector source>``: the mean of the word vectors (``resources/vectors/{source}.parquet``)
  of the sentence's tokens; tokens the table lacks are skipped (or, with ``unknown: encode``, given
  their minilm-static vector from the word alone first), a sentence with none known gets the zero
  vector (the W2V, paragram-small and paragram-XXL rows);
* ``events: <vector source>``: the same over the sentence's event tokens (stsynth.sts2017.events; the EE row);
* ``paraphrase_cnn: <model>`` or ``{final, dev}``: the paraphrase embeddings of stsynth.sts2017.paraphrase_cnn;
* ``encoder: <encoder>`` or ``{final, dev}``: the pooled, L2-normalised embedding of a named or tuned
  encoder (stsynth.encoders.encoder), frozen.

``{final, dev}``: a source trained on gold pairs has a final model and a dev-protocol one (trained
without the validation years); a plain name serves both.

The tables they are written to: stsynth.sts2017.vector_tables.
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from ..core.keyed import check_aligned
from ..encoders.embedding_store import encoding_units, sentences_of
from ..encoders.encoder import batch_size, encode_units, open_job_encoder, open_store
from ..pipeline.runs import SENTENCE_VECTOR_KINDS
from ..word_vectors.vectors import WordVectors, merge_vectors, read_vectors

log = logging.getLogger(__name__)


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


def encode_pairs(kind: str, inputs, params, device: str = "cpu", config: dict | None = None):
    """The encoder of a sentence-vector job: ``encode(index, pairs)`` -> (v1, v2, sentences without a known
    token) for the job's ``index``-th dataset (its pair table ``pairs``), by source kind; ``config``: the
    workflow's (where a named encoder's embedding store is)."""
    # unknown: encode (a mean or a paraphrase-embedding model): each set's words the source lacks, in set order
    unknown = list(inputs.get("unknown", []))
    if kind in ("mean", "events"):
        vectors = read_vectors(inputs.vectors)
        column, files = ("tokens", inputs.tokens) if kind == "mean" else ("events", inputs.events)

        def encode(index, pairs):
            table = pd.read_parquet(files[index])
            check_aligned(table, pairs, f"{files[index]} ({kind} sentence vectors)")
            known = merge_vectors([vectors, read_vectors(unknown[index])], vectors.source) if unknown else vectors
            if len(known.words) > len(vectors.words):
                log.info(
                    "%s: %d words the vectors lack, encoded (unknown: encode)",
                    files[index],
                    len(known.words) - len(vectors.words),
                )
            (v1, empty1), (v2, empty2) = (
                mean_vectors([list(t) for t in table[f"{column}{side}"]], known) for side in (1, 2)
            )
            return v1, v2, empty1 + empty2

        return encode
    if kind == "paraphrase_cnn":
        from .paraphrase_cnn import load, sentence_vectors, with_words  # torch: only this kind's jobs pay for it

        model, vocabulary, _ = load(inputs.model)

        def encode(index, pairs):
            tokens = pd.read_parquet(inputs.tokens[index])
            check_aligned(tokens, pairs, f"{inputs.tokens[index]} (paraphrase embeddings)")
            set_model, set_vocabulary = (
                with_words(model, vocabulary, read_vectors(unknown[index])) if unknown else (model, vocabulary)
            )
            if len(set_vocabulary.words) > len(vocabulary.words):
                log.info(
                    "%s: %d words the model lacks, encoded (unknown: encode)",
                    inputs.tokens[index],
                    len(set_vocabulary.words) - len(vocabulary.words),
                )
            rows = [[set_vocabulary.rows(list(t)) for t in tokens[f"tokens{side}"]] for side in (1, 2)]
            return sentence_vectors(set_model, rows[0]), sentence_vectors(set_model, rows[1]), 0

        return encode
    if kind == "encoder":
        model, folder, identity = open_job_encoder(
            params.encoder, inputs.encoder_folder, params.model, params.settings["max_length"], device
        )
        # a named encoder's embeddings: from the store where it holds them (stsynth.encoders.embedding_store)
        store = open_store(config, params.encoder, model, identity, folder)

        def encode(index, pairs):
            units = encode_units(
                model,
                encoding_units(pairs, every_line=True),
                batch_size(params.encoder, params.settings["batch_size"]),
                store,
            )
            log.info("%d sentences encoded, %d read from the embedding store", units.encoded, units.stored)
            vectors = units.vectors[units.rows(sentences_of(pairs))]
            return vectors[: len(pairs)], vectors[len(pairs) :], 0

        return encode
    raise ValueError(f"unknown sentence-vector kind {kind!r} (one of {', '.join(SENTENCE_VECTOR_KINDS)})")
