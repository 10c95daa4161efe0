"""The cosine of two sentences' vectors and its reading as an STS score: the one owner of both decisions.

Zero-vector rule: a pair whose side is the zero vector (a sentence with no known word) has cosine 0, and
nothing is clipped. Sentence-transformers' encoders give L2-normalised embeddings, whose cosine is their dot
product: :func:`unit_cosines` computes that, and leaves the built encoder tables' floats as they are (dividing
by norms of 1 ± 1e-7 would move their last digits and every fusion that reads them).

The models' own cosine, differentiable and in torch's float32, is stsynth.word_vectors.paragram.cosine: the paragram
and PE losses train with it and the paragram similarity tables are written with it (its 1e-12 clamp gives 0 for a
zero vector too); these float64 functions score what is already encoded.
"""

from __future__ import annotations

import numpy as np


def cosines(v1: np.ndarray, v2: np.ndarray) -> np.ndarray:
    """Cosine of each row pair, in float64 (0 where a side is the zero vector)."""
    v1, v2 = np.asarray(v1, dtype=np.float64), np.asarray(v2, dtype=np.float64)
    norms = np.linalg.norm(v1, axis=1) * np.linalg.norm(v2, axis=1)
    return np.divide((v1 * v2).sum(1), norms, out=np.zeros(len(v1)), where=norms > 0)


def unit_cosines(v1: np.ndarray, v2: np.ndarray) -> np.ndarray:
    """Cosine of each row pair of L2-normalised vectors: their dot product, in float64 (a zero vector, which
    normalisation leaves zero, gives 0 as in :func:`cosines`)."""
    return (np.asarray(v1, dtype=np.float64) * v2).sum(axis=1)


def predictions_from_cosines(cosines) -> np.ndarray:
    """A cosine as an STS score: 5 x cosine (the STS scale is 0-5; the one place this mapping is written)."""
    return 5.0 * np.asarray(cosines, dtype=np.float64)
