"""The correlations and aggregates of every STS table: the one small set of functions the score tables, the dev
searches, the dev checks, the bootstrap and the zero-shot evaluation all call.

Pearson (the official metric) and Spearman (scipy.stats.spearmanr's, average ranks for ties) over a dataset's
scored pairs. Datasets are summarized per (track, group) in the three conventions people quote
(:data:`AGGREGATES`):

* ``ALL``: the official SemEval aggregate, the mean of the per-dataset correlations weighted by scored pairs
  (over the datasets whose correlation is defined). The headline everywhere.
* ``ALL (mean)``: the plain mean of the per-dataset correlations (SentEval's "mean").
* ``ALL (pooled)``: one correlation over every scored pair of the group at once (MTEB's and
  sentence-transformers' evaluators on a concatenated set).

An undefined correlation (a constant side) is NaN, never a made-up 0.
"""

from __future__ import annotations

import math

import numpy as np

AGGREGATES = ("ALL", "ALL (mean)", "ALL (pooled)")
METRICS = ("pearson", "spearman")


def pearson(x, y) -> float:
    """Pearson r; NaN where it does not exist (a constant side), never 0."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1 or len(x) < 2:
        raise ValueError(f"pearson needs two equal-length vectors of length >= 2, got {x.shape} and {y.shape}")
    dx, dy = x - x.mean(), y - y.mean()
    denominator = np.sqrt((dx * dx).sum() * (dy * dy).sum())
    return float((dx * dy).sum() / denominator) if denominator > 0 else math.nan


def weighted_mean(values, weights) -> float:
    values = np.asarray(values, dtype=np.float64)
    weights = np.asarray(weights, dtype=np.float64)
    if weights.sum() <= 0:
        raise ValueError("weights must sum to a positive number")
    return float((values * weights).sum() / weights.sum())


def scored_pairs(predictions, gold) -> tuple[np.ndarray, np.ndarray]:
    """The (predictions, gold) of the scored pairs: those whose gold is not NaN."""
    predictions, gold = np.asarray(predictions, dtype=np.float64), np.asarray(gold, dtype=np.float64)
    scored = ~np.isnan(gold)
    return predictions[scored], gold[scored]


def mean_of_defined(values, weights) -> tuple[int, float]:
    """The weighted mean of the values that are not NaN, and the sum of their weights (NaN when none
    is defined): how every ALL row leaves out an undefined correlation."""
    defined = [(weight, value) for value, weight in zip(values, weights, strict=True) if not math.isnan(value)]
    if not defined:
        return 0, math.nan
    return sum(w for w, _ in defined), weighted_mean([v for _, v in defined], [w for w, _ in defined])


def official_aggregate(values, pairs) -> tuple[int, float]:
    """The official ALL, the one place its rule is written: the mean of the defined per-dataset
    correlations weighted by their scored pairs, and those pairs (NaN and 0 when none is defined).
    :func:`correlations` and :func:`summary` call it; the bootstrap applies it per resample."""
    return mean_of_defined(values, pairs)


def correlations(sets) -> list[tuple[str, int, float]]:
    """Pearson only, for the loops that score often (dev searches, dev checks): for each
    ``(name, predictions, gold)``, Pearson over its scored pairs (gold not NaN) as ``(name, pairs, r)``,
    then ``("ALL", pairs, r)``, :func:`official_aggregate` of them."""
    rows = []
    for name, predictions, gold in sets:
        x, y = scored_pairs(predictions, gold)
        # fewer than 2 scored pairs (a predict set has none): undefined, like a constant side
        rows.append((name, len(x), pearson(x, y) if len(x) >= 2 else math.nan))
    pairs, total = official_aggregate([r for *_, r in rows], [pairs for _, pairs, _ in rows])
    return rows + [(AGGREGATES[0], pairs, total)]


def average_ranks(values: np.ndarray) -> np.ndarray:
    """``scipy.stats.rankdata(values)``: 1-based ranks, ties sharing the mean of their positions (integers and
    halves, so the same floats). Our own because importing scipy.stats costs every scoring job a second."""
    distinct, position = np.unique(values, return_inverse=True)
    counts = np.bincount(position, minlength=len(distinct))
    return (np.cumsum(counts) - counts + (counts + 1) / 2)[position]


def spearman(x, y) -> float:
    """Spearman rho as scipy.stats.spearmanr computes it (the Pearson matrix of the average ranks), to the last
    bit; NaN where it does not exist (a constant side, a NaN)."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if len(x) < 2 or np.isnan(x).any() or np.isnan(y).any() or np.ptp(x) == 0 or np.ptp(y) == 0:
        return math.nan
    return float(np.corrcoef(np.column_stack((average_ranks(x), average_ranks(y))), rowvar=False)[1, 0])


def summary(sets) -> list[dict]:
    """For each ``(name, predictions, gold)``: its scored pairs, Pearson, Spearman; then the three
    :data:`AGGREGATES` rows over the datasets (the official one and the mean over the defined
    correlations of each kind; pooled over every scored pair)."""
    rows, pooled = [], []
    for name, predictions, gold in sets:
        x, y = scored_pairs(predictions, gold)
        pooled.append((x, y))
        r = pearson(x, y) if len(x) >= 2 else math.nan
        rows.append(
            {
                "dataset": name,
                "pairs": len(x),
                "pearson": r,
                "spearman": spearman(x, y),
                "undefined": int(math.isnan(r)),
            }
        )
    aggregates = []
    for name, aggregate in (
        (AGGREGATES[0], lambda values: official_aggregate(values, [r["pairs"] for r in rows])),
        (AGGREGATES[1], lambda values: mean_of_defined(values, [1] * len(rows))),
    ):
        row = {metric: aggregate([r[metric] for r in rows])[1] for metric in METRICS}
        aggregates.append(
            {
                "dataset": name,
                "pairs": sum(r["pairs"] for r in rows if not r["undefined"]),
                "undefined": sum(r["undefined"] for r in rows),
                **row,
            }
        )
    x = np.concatenate([x for x, _ in pooled]) if pooled else np.zeros(0)
    y = np.concatenate([y for _, y in pooled]) if pooled else np.zeros(0)
    aggregates.append(
        {
            "dataset": AGGREGATES[2],
            "pairs": len(x),
            "undefined": 0,
            "pearson": pearson(x, y) if len(x) >= 2 else math.nan,
            "spearman": spearman(x, y),
        }
    )
    return rows + aggregates


def official_all(sets, metric: str = "pearson") -> float:
    return summary(sets)[len(sets)][metric]
