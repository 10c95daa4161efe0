"""Sentence embeddings kept per encoder and sentence, so that nothing is encoded twice (`snakemake eval`).

An eval job encodes every sentence of its datasets once; a later job of the same encoder (a dataset
added, a task added, the leaderboard rebuilt) reads what is cached and encodes only the sentences it
has not seen. The cache is keyed by what decides an embedding (:func:`encoder_key`): the digest of every
file of the model folder (stsynth.core.digests.folder_digest, the model's identity), the encoder's name and
where its folder comes from, and every setting that shapes an embedding; then by the sentence's text
(:func:`sentence_key`). A changed file, another model or another setting is another key, so a stale or a
foreign embedding is never read.

Layout: ``{cache}/{key}/`` holds ``encoder.json`` (what the key was made of, for a person)
and one Parquet shard per job that encoded something (``{time}-{pid}.parquet``; schema: ``sentence``
string, the SHA-1 of the UTF-8 text, and ``embedding`` fixed-size list of float32). Shards are only
ever added, so a job killed half-way leaves at worst an unfinished temporary file, which readers
ignore; a shard that cannot be read (a disk that filled up, a copy cut short) is set aside as
``{shard}.unreadable`` with a warning naming it, and its sentences are encoded again. The cache is no
declared input or output of any rule (like the translation cache): deleting it costs time, never a
result. A Snakemake job of one encoder never runs beside another of the same encoder (one eval job per
encoder), so no shard is written twice; two encoders of the same key write shards of their own.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import time
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)


def sentence_key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def encoder_key(identity: str, encoder: dict, settings: dict) -> str:
    """The cache key of an encoder: its model's identity (stsynth.core.digests.folder_digest), the encoder
    (``{"name": ..., source: where}``) and every setting that shapes an embedding."""
    text = json.dumps({"model": identity, "encoder": encoder, **settings}, sort_keys=True, default=str)
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
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            table = pq.read_table(shard)
        except (OSError, pa.ArrowException) as error:
            aside = shard.with_name(shard.name + ".unreadable")
            shard.rename(aside)
            log.warning(
                "%s: unreadable (%s); set aside as %s, its sentences are encoded again (delete it when "
                "you have looked at it)",
                shard,
                error,
                aside.name,
            )
            return
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
        table = pa.table(
            {
                "sentence": keys,
                "embedding": pa.FixedSizeListArray.from_arrays(pa.array(matrix.reshape(-1)), matrix.shape[1]),
            }
        )
        temporary = shard.with_suffix(".parquet.tmp")
        pq.write_table(table, temporary)
        temporary.rename(shard)  # readers see a whole shard or none
        self.embeddings.update(zip(keys, matrix))
        return shard

    def matrix(self, sentences: list[str]) -> np.ndarray:
        """The embeddings of ``sentences`` (all cached), one row each."""
        return np.stack([self.embeddings[sentence_key(s)] for s in sentences])
