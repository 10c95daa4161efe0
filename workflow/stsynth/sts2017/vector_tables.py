"""The SemEval-2017 system's sentence-vector tables: written by the sentence-vector jobs
(stsynth.sts2017.sentence_vectors), read by the regression head (stsynth.sts2017.head).

Sentence-vector table schema (``resources/sentence_vectors/{kind}/{name}/{year}/{dataset}.parquet``,
row-aligned with the pair table): ``year`` int16, ``dataset`` string, ``line`` int32, ``v1``, ``v2``
fixed_size_list<float32>[d] (s1's and s2's vectors). Parquet key-value metadata ``stsynth``: JSON
``{"source", "dim", "sentences", "empty"}`` (empty: sentences whose vector is the zero vector
because none of their tokens is known).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ..core.keyed import KEYS, check_aligned

METADATA_KEY = b"stsynth"


class SentenceVectorError(ValueError):
    """A sentence-vector table that does not fit what reads it (dimension, rows)."""


def check_known(encoded: list[tuple[np.ndarray, np.ndarray, int]], source: str, vectors: str | None = None) -> None:
    """Refuse a source that knows no token of any sentence: every vector would be zero and nothing could
    learn from it (an empty event table, or a vector table of other words)."""
    sentences = sum(2 * len(v1) for v1, _, _ in encoded)
    if sentences and sum(empty for *_, empty in encoded) == sentences:
        raise SentenceVectorError(
            f"{source}: none of the {sentences} sentences has a token that {vectors or 'the source'} "
            "knows, so every sentence vector would be zero (for events: no event token was "
            "extracted, or none occurs in the event corpus often enough)"
        )


def write_table(
    keys: pd.DataFrame, v1: np.ndarray, v2: np.ndarray, path: str | Path, source: str, empty: int = 0
) -> None:
    """One dataset's sentence vectors (schema: module docstring); ``keys`` the pair table's key columns."""
    v1, v2 = np.ascontiguousarray(v1, dtype=np.float32), np.ascontiguousarray(v2, dtype=np.float32)
    if v1.shape != v2.shape or v1.ndim != 2 or len(v1) != len(keys):
        raise SentenceVectorError(f"{path}: {len(keys)} pairs but vectors of shapes {v1.shape} and {v2.shape}")
    if not np.all(np.isfinite(v1)) or not np.all(np.isfinite(v2)):
        raise SentenceVectorError(f"{path}: refusing to write non-finite sentence vectors ({source})")
    dim = v1.shape[1]
    columns = {column: pa.array(keys[column].to_numpy()) for column in KEYS}
    table = pa.table(
        {
            "year": columns["year"].cast(pa.int16()),
            "dataset": columns["dataset"].cast(pa.string()),
            "line": columns["line"].cast(pa.int32()),
            "v1": pa.FixedSizeListArray.from_arrays(pa.array(v1.reshape(-1)), dim),
            "v2": pa.FixedSizeListArray.from_arrays(pa.array(v2.reshape(-1)), dim),
        }
    )
    metadata = {"source": source, "dim": dim, "sentences": 2 * len(keys), "empty": int(empty)}
    table = table.replace_schema_metadata({METADATA_KEY: json.dumps(metadata).encode()})
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path)


def read_table(
    path: str | Path, pairs: pd.DataFrame | None = None
) -> tuple[pd.DataFrame, np.ndarray, np.ndarray, dict]:
    """A sentence-vector table: its key columns, v1, v2 (float32 [N, d]) and metadata; with ``pairs``,
    checked to be row-aligned with that pair table."""
    table = pq.read_table(path)
    metadata = json.loads((table.schema.metadata or {}).get(METADATA_KEY, b"{}"))
    if "dim" not in metadata or {"v1", "v2"} - set(table.column_names):
        raise SentenceVectorError(f"{path}: not a sentence-vector table (no stsynth metadata or no v1/v2 columns)")
    dim = metadata["dim"]
    vectors = [
        table.column(side).combine_chunks().flatten().to_numpy(zero_copy_only=False).reshape(len(table), dim)
        for side in ("v1", "v2")
    ]
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
