"""The official STS metric and the run output contract.

A run writes, for every test dataset, ``results/predictions/{run}/{year}/{dataset}.txt``: one
score per line of the released input file, in order, unscored lines included, so the
organizers' own scorer reads it. Scoring reads those files back, so what is scored is
exactly what was written.

Scores table schema (``results/scores/{run}.parquet``):

=======  =======  =============================================================
column   type     meaning
=======  =======  =============================================================
run      string   run name
track    string   ``en`` or ``es-en``
year     int16    release year
dataset  string   dataset name, or ``ALL`` for the track/year summary row
pairs    int32    scored pairs (for ALL: their sum)
pearson  float64  Pearson r over scored pairs; for ALL the pair-weighted mean
=======  =======  =============================================================
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .pairs import InputFormatError

SCORE_COLUMNS = ["run", "track", "year", "dataset", "pairs", "pearson"]


def pearson(x, y) -> float:
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1 or len(x) < 2:
        raise ValueError(f"pearson needs two equal-length vectors of length >= 2, got {x.shape} and {y.shape}")
    dx, dy = x - x.mean(), y - y.mean()
    denominator = np.sqrt((dx * dx).sum() * (dy * dy).sum())
    return float((dx * dy).sum() / denominator) if denominator > 0 else 0.0


def weighted_mean(values, weights) -> float:
    values = np.asarray(values, dtype=np.float64)
    weights = np.asarray(weights, dtype=np.float64)
    if weights.sum() <= 0:
        raise ValueError("weights must sum to a positive number")
    return float((values * weights).sum() / weights.sum())


def write_predictions(scores, path: str | Path) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    scores = np.asarray(scores, dtype=np.float64)
    if not np.all(np.isfinite(scores)):
        raise ValueError(f"{path}: refusing to write non-finite predictions")
    path.write_text("".join(f"{value:.15g}\n" for value in scores))


def read_predictions(path: str | Path, expected_lines: int) -> np.ndarray:
    values = []
    for lineno, line in enumerate(Path(path).read_text().splitlines(), start=1):
        try:
            values.append(float(line.split("\t")[0]))
        except ValueError:
            raise InputFormatError(f"{path}:{lineno}: prediction {line!r} is not a number") from None
    if len(values) != expected_lines:
        raise InputFormatError(f"{path}: {len(values)} predictions for {expected_lines} input lines")
    return np.asarray(values)


def score_dataset(predictions: np.ndarray, gold: pd.Series) -> tuple[int, float]:
    scored = gold.notna().to_numpy()
    return int(scored.sum()), pearson(predictions[scored], gold.to_numpy()[scored])


def score_run(run: str, pair_tables: list[pd.DataFrame], prediction_paths: list[str | Path]) -> pd.DataFrame:
    rows = []
    for table, path in zip(pair_tables, prediction_paths, strict=True):
        predictions = read_predictions(path, len(table))
        pairs, r = score_dataset(predictions, table["gold"])
        rows.append((run, table["track"].iat[0], int(table["year"].iat[0]), table["dataset"].iat[0], pairs, r))
    scores = pd.DataFrame(rows, columns=SCORE_COLUMNS)
    summary = [
        (run, track, year, "ALL", int(group["pairs"].sum()), weighted_mean(group["pearson"], group["pairs"]))
        for (track, year), group in scores.groupby(["track", "year"], sort=True)
    ]
    scores = pd.concat([scores, pd.DataFrame(summary, columns=SCORE_COLUMNS)], ignore_index=True)
    return scores.astype({"run": "string", "track": "string", "year": "int16", "dataset": "string",
                          "pairs": "int32", "pearson": "float64"})


def scores_markdown(scores: pd.DataFrame) -> str:
    lines = [f"# Scores: {scores['run'].iat[0]}", "", "| track | year | dataset | pairs | pearson |",
             "|---|---|---|---:|---:|"]
    for row in scores.sort_values(["track", "year", "dataset"], key=_all_last).itertuples():
        name = f"**{row.dataset}**" if row.dataset == "ALL" else row.dataset
        lines.append(f"| {row.track} | {row.year} | {name} | {row.pairs} | {row.pearson:.5f} |")
    return "\n".join(lines) + "\n"


def _all_last(column: pd.Series) -> pd.Series:
    return column.map(lambda v: "\uffff" if v == "ALL" else v) if column.name == "dataset" else column
