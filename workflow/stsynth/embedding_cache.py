"""Sentence embeddings kept per encoder and sentence, so that nothing is encoded twice (`snakemake eval`).

An eval job encodes every sentence of its datasets once; a later job of the same encoder (a dataset
added, a task added, the leaderboard rebuilt) reads what is cached and encodes only the sentences it
has not seen. The cache is keyed by what decides an embedding: the encoder's weights and settings
(:func:`encoder_key`), then the sentence's text (:func:`sentence_key`). A changed weight file or
setting is another key, so a stale embedding is never read; the same weights under another encoder
name (a folder given by location, then named in encoder.models) share their embeddings.

Layout: ``{cache}/{key}/`` holds ``encoder.json`` (what the key was made of, for a person)
and one Parquet shard per job that encoded something (``{time}-{pid}.parquet``; schema: ``sentence``
string, the SHA-1 of the UTF-8 text, and ``embedding`` fixed-size list of float32). Shards are only
ever added, so a job killed half-way leaves at worst an unfinished temporary file, which readers
ignore. The cache is no declared input or output of any rule (like the translation cache): deleting
it costs time, never a result. A Snakemake job of one encoder never runs beside another of the same
encoder (one eval job per encoder), so no shard is written twice; two encoders of the same key write shards of their own.
"""
from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

import numpy as np


def sentence_key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def folder_digest(folder: str | Path) -> str:
    """SHA-256 over every file of a model folder (relative path and bytes), in path order: the
    weights the embeddings come from, whatever their file names."""
    digest = hashlib.sha256()
    folder = Path(folder)
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and ".cache" not in p.parts):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def encoder_key(weights_digest: str, settings: dict) -> str:
    """The cache key of an encoder: its folder's digest and every setting that shapes an embedding."""
    text = json.dumps({"weights": weights_digest, **settings}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class EmbeddingCache:
    """The cached embeddings of one encoder key (module docstring)."""

    def __init__(self, root: str | Path, key: str, description: dict):
        self.folder = Path(root) / key
        self.description = description
        self.embeddings: dict[str, np.ndarray] = {}
        for shard in sorted(self.folder.glob("*.parquet")):
            self._read(shard)

    def _read(self, shard: Path) -> None:
        import pyarrow.parquet as pq

        table = pq.read_table(shard)
        vectors = table.column("embedding").combine_chunks()
        dimension = vectors.type.list_size
        matrix = vectors.flatten().to_numpy().reshape(-1, dimension)
        self.embeddings.update(zip(table.column("sentence").to_pylist(), matrix))

    def missing(self, sentences: list[str]) -> list[str]:
        """The distinct sentences the cache does not hold, in first-seen order."""
        return [s for s in dict.fromkeys(sentences) if sentence_key(s) not in self.embeddings]

    def add(self, sentences: list[str], matrix: np.ndarray) -> Path | None:
        """Keep new embeddings (one row per sentence) in a new shard; None when there is nothing new."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        if not sentences:
            return None
        matrix = np.ascontiguousarray(matrix, dtype=np.float32)
        keys = [sentence_key(s) for s in sentences]
        self.folder.mkdir(parents=True, exist_ok=True)
        description = self.folder / "encoder.json"
        if not description.exists():
            description.write_text(json.dumps(self.description, indent=2, sort_keys=True, default=str) + "\n")
        shard = self.folder / f"{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}.parquet"
        table = pa.table({"sentence": keys, "embedding": pa.FixedSizeListArray.from_arrays(
            pa.array(matrix.reshape(-1)), matrix.shape[1])})
        temporary = shard.with_suffix(".parquet.tmp")
        pq.write_table(table, temporary)
        temporary.rename(shard)  # readers see a whole shard or none
        self.embeddings.update(zip(keys, matrix))
        return shard

    def matrix(self, sentences: list[str]) -> np.ndarray:
        """The embeddings of ``sentences`` (all cached), one row each."""
        return np.stack([self.embeddings[sentence_key(s)] for s in sentences])
