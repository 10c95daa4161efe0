"""The organizers' STS baseline: whitespace tokens, binary bag-of-words vectors, cosine."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd


def bag_of_words_cosine(s1: str, s2: str) -> float:
    """|A ∩ B| / sqrt(|A| |B|) over the sets of whitespace-separated tokens (0 for an empty side).

    No lowercasing and no punctuation splitting: this is what reproduces the official
    baseline figures (STS 2016 English ALL 0.51334).
    """
    words1, words2 = set(s1.split()), set(s2.split())
    if not words1 or not words2:
        return 0.0
    return len(words1 & words2) / math.sqrt(len(words1) * len(words2))


def predict(pairs: pd.DataFrame) -> np.ndarray:
    return np.array([bag_of_words_cosine(a, b) for a, b in zip(pairs["s1"], pairs["s2"])])
