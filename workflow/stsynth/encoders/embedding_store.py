"""Sentence embeddings known by their content: one store for every stage, target and working directory.

Every job that encodes sentences with a named encoder (the similarity tables of `all`, `sts2017`, `stsb` and
the encoder overlays, the head's frozen sentence vectors, `snakemake eval`) takes what the store holds and
encodes only what it lacks. A store is keyed by what decides an embedding (:func:`encoder_key`): the digest
of every file of the model folder (stsynth.core.digests.folder_digest, the model's identity), the settings
that shape an embedding (how the model is loaded, its word-piece limit, the backend that runs it), so a
changed file, another model or another setting is another key, and a stale or foreign embedding is never
read. The device and the thread count are left out: they move the floats in their last digits only
(docs/user-guide.md, "Clusters and GPUs").

**What an entry is.** Batching moves an embedding's last float digits with its batch's company (padding to
the longest sentence, kernels chosen by the batch's shape), so a sentence's embedding is kept with the batch
plan it was encoded in: an entry is one *unit*, an ordered list of distinct sentences handed to the model in
one ``encode`` call (sentence-transformers sorts them by length and cuts its batches), and it is found by the
SHA-256 of that list (:func:`unit_key`). The units of a pair table are fixed by the table alone
(:func:`encoding_units`): its scored pairs' sentences, then the other lines' new sentences. So an embedding
depends on its set and on whether its line is scored, never on what else a job encodes or on which target
encoded it first, and a figure read from the store has the bytes a cold build gives it.

Layout: ``{store}/{key}/`` holds ``encoder.json`` (what the key was made of, for a person) and per unit
``{unit}.embeddings.parquet`` (schema: ``sentence`` string, the SHA-1 of the UTF-8 text, in the unit's order;
``embedding`` fixed-size list of float32: the model's pooled output, before any normalisation) and, where a
job needs token states (token-level F1), ``{unit}.tokens.parquet`` (``sentence``; ``states``: list of
fixed-size lists of float32, the unit-normalised last-layer states of the sentence's word pieces, special
tokens left out), and under a key of its own a tuned encoder's ``{unit}.layer.parquet``: the start model's
hidden states after a lower layer (stsynth.encoders.lower_layers; the token states' schema). Files are written
whole (a temporary name, then a rename), so a job killed half-way leaves at worst a temporary file, which
readers ignore; two jobs that encode the same unit at once write the same bytes. A file that cannot be read,
or whose sentences are not its unit's, is set aside as ``{file}.unreadable`` with a warning naming it, and its
unit is encoded again. The store is no declared input or output of any rule (like the translation cache):
deleting it costs time, never a result.

Where it is: the environment variable ``STSYNTH_EMBEDDING_STORE`` (the ``stsynth`` command, so every Makefile
target, sets it beside Snakemake's between-workflow cache: every target of a checkout shares one), else config
``encoder.embedding_store``, a folder inside the working directory.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

log = logging.getLogger(__name__)

STORE_VARIABLE = "STSYNTH_EMBEDDING_STORE"


def store_folder(config: dict) -> Path:
    """The store's root: ``STSYNTH_EMBEDDING_STORE``, else config ``encoder.embedding_store`` (module docstring)."""
    return Path(os.environ.get(STORE_VARIABLE) or config["encoder"]["embedding_store"])


def sentence_key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def unit_key(sentences: list[str]) -> str:
    return hashlib.sha256(json.dumps(sentences, ensure_ascii=False).encode("utf-8")).hexdigest()[:32]


def encoder_key(identity: str, shaping: dict) -> str:
    """A store's key: the model's identity (stsynth.core.digests.folder_digest) and every setting that shapes
    an embedding (stsynth.encoders.encoder.embedding_settings)."""
    text = json.dumps({"model": identity, **shaping}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def encoding_units(pairs: pd.DataFrame, every_line: bool) -> list[list[str]]:
    """The units a pair table's sentences are encoded in (module docstring): the distinct sentences of its
    scored lines (gold given; every s1, then every s2), then, with ``every_line``, those of the other lines
    that the first unit lacks (a table without gold: one unit). An empty unit is left out."""
    scored = pairs["gold"].notna().to_numpy() if "gold" in pairs else np.zeros(len(pairs), dtype=bool)
    first = list(dict.fromkeys(sentences_of(pairs[scored])))
    units = [first]
    if every_line and not scored.all():
        seen = set(first)
        units.append([s for s in dict.fromkeys(sentences_of(pairs[~scored])) if s not in seen])
    return [unit for unit in units if unit]


def sentences_of(pairs: pd.DataFrame) -> list[str]:
    """Every s1, then every s2, as text: what a similarity table encodes of its lines."""
    return [str(s) for s in pairs["s1"]] + [str(s) for s in pairs["s2"]]


class EmbeddingStore:
    """The stored units of one encoder key (module docstring)."""

    def __init__(self, root: str | Path, key: str, description: dict):
        self.folder = Path(root) / key
        self.description = description

    def _path(self, unit: list[str], kind: str) -> Path:
        return self.folder / f"{unit_key(unit)}.{kind}.parquet"

    def has(self, unit: list[str], tokens: bool = False) -> bool:
        """Whether the store holds a unit (its files exist; :meth:`get` reads them)."""
        return all(self._path(unit, kind).exists() for kind in ("embeddings", "tokens")[: 1 + tokens])

    def lacking(self, units: list[list[str]], tokens: bool = False) -> int:
        """How many sentences of ``units`` the store does not hold: what a job will encode."""
        return sum(len(unit) for unit in units if not self.has(unit, tokens))

    def get(self, unit: list[str], tokens: bool = False) -> tuple[np.ndarray, list[np.ndarray] | None] | None:
        """A unit's embeddings [len(unit), dimension] (and with ``tokens`` its token states, one
        [pieces, hidden] array per sentence), or None when the store lacks them."""
        embeddings = self._read(self._path(unit, "embeddings"), unit, "embedding")
        if embeddings is None or not tokens:
            return None if embeddings is None else (embeddings, None)
        states = self._read(self._path(unit, "tokens"), unit, "states")
        return None if states is None else (embeddings, states)

    def _read(self, path: Path, unit: list[str], column: str):
        import pyarrow as pa
        import pyarrow.parquet as pq

        if not path.exists():
            return None
        try:
            table = pq.read_table(path)
            if table.column("sentence").to_pylist() != [sentence_key(s) for s in unit]:
                raise ValueError("its sentences are not its unit's")
            values = table.column(column).combine_chunks()
            if column == "embedding":
                return np.array(values.flatten().to_numpy().reshape(len(unit), values.type.list_size))
            rows = values.flatten()  # one fixed-size list per word piece
            matrix = np.array(rows.flatten().to_numpy().reshape(len(rows), rows.type.list_size))
            offsets = values.offsets.to_numpy() - values.offsets[0].as_py()
            return [matrix[start:end] for start, end in zip(offsets[:-1], offsets[1:])]
        except (OSError, KeyError, ValueError, pa.ArrowException) as error:
            aside = path.with_name(path.name + ".unreadable")
            path.rename(aside)
            log.warning(
                "%s: unreadable (%s); set aside as %s, its sentences are encoded again (delete it when you "
                "have looked at it)",
                path,
                error,
                aside.name,
            )
            return None

    def put(self, unit: list[str], embeddings: np.ndarray, states: list[np.ndarray] | None = None) -> None:
        """Keep a unit's embeddings (one row per sentence) and, when given, its token states."""
        import pyarrow as pa

        self.folder.mkdir(parents=True, exist_ok=True)
        self._describe()
        keys = pa.array([sentence_key(s) for s in unit])
        matrix = np.ascontiguousarray(embeddings, dtype=np.float32)
        self._write_table(
            self._path(unit, "embeddings"),
            {
                "sentence": keys,
                "embedding": pa.FixedSizeListArray.from_arrays(pa.array(matrix.reshape(-1)), matrix.shape[1]),
            },
        )
        if states is not None:
            self._write_states(self._path(unit, "tokens"), keys, states, matrix.shape[1])

    def get_states(self, unit: list[str]) -> list[np.ndarray] | None:
        """A unit's hidden states after a lower layer (stsynth.encoders.lower_layers), one [pieces, hidden] array
        per sentence, or None when the store lacks them."""
        return self._read(self._path(unit, "layer"), unit, "states")

    def put_states(self, unit: list[str], states: list[np.ndarray]) -> None:
        """Keep a unit's hidden states after a lower layer (``{unit}.layer.parquet``, the token states' schema)."""
        import pyarrow as pa

        self.folder.mkdir(parents=True, exist_ok=True)
        self._describe()
        self._write_states(self._path(unit, "layer"), pa.array([sentence_key(s) for s in unit]), states, 0)

    def _write_states(self, path: Path, keys, states: list[np.ndarray], dimension: int) -> None:
        import pyarrow as pa

        dimension = states[0].shape[1] if states else dimension
        rows = pa.FixedSizeListArray.from_arrays(
            pa.array(np.concatenate([s.reshape(-1) for s in states]).astype(np.float32)), dimension
        )
        offsets = pa.array(np.cumsum([0, *(len(s) for s in states)]), type=pa.int32())
        self._write_table(path, {"sentence": keys, "states": pa.ListArray.from_arrays(offsets, rows)})

    def _describe(self) -> None:
        description = self.folder / "encoder.json"
        if not description.exists():
            self._write(
                description, lambda path: path.write_text(json.dumps(self.description, indent=2, sort_keys=True) + "\n")
            )

    def _write_table(self, path: Path, columns: dict) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        self._write(path, lambda temporary: pq.write_table(pa.table(columns), temporary))

    @staticmethod
    def _write(path: Path, write) -> None:
        temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        write(temporary)
        temporary.replace(path)  # readers see a whole file or none
