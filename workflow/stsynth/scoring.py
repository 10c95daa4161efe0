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
pairs    int32    scored pairs (for ALL: the sum over the datasets it averages)
pearson  float64  Pearson r over scored pairs, NaN where it is undefined (the predictions
                  or the gold of the scored pairs do not vary); for ALL the pair-weighted
                  mean over the datasets whose r is defined
undefined int16   datasets whose r is undefined (0 or 1; for ALL: how many it leaves out)
=======  =======  =============================================================

An undefined correlation is never a made-up 0: it is NaN in the table, "n/a" in the Markdown,
a warning naming the run and dataset in the log, and ALL says how many datasets it left out.
"""
from __future__ import annotations

import logging
import math
from pathlib import Path

import numpy as np
import pandas as pd

from .pairs import InputFormatError
from .tables import markdown_rows

log = logging.getLogger(__name__)

SCORE_COLUMNS = ["run", "track", "year", "dataset", "pairs", "pearson", "undefined"]


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


def correlations(sets) -> list[tuple[str, int, float]]:
    """The official aggregate, the one place it is computed: for each ``(name, predictions, gold)``,
    Pearson over its scored pairs (gold not NaN) as ``(name, pairs, r)``, then ``("ALL", pairs, r)``:
    the mean of the defined r weighted by their scored pairs (NaN when none is defined)."""
    rows = []
    for name, predictions, gold in sets:
        predictions, gold = np.asarray(predictions, dtype=np.float64), np.asarray(gold, dtype=np.float64)
        scored = ~np.isnan(gold)
        rows.append((name, int(scored.sum()), pearson(predictions[scored], gold[scored])))
    defined = [(pairs, r) for _, pairs, r in rows if not math.isnan(r)]
    total = weighted_mean([r for _, r in defined], [pairs for pairs, _ in defined]) if defined else math.nan
    return rows + [("ALL", sum(pairs for pairs, _ in defined), total)]


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


def score_run(run: str, pair_tables: list[pd.DataFrame], prediction_paths: list[str | Path]) -> pd.DataFrame:
    """The scores table (module docstring) of a run's prediction files, one per pair table: the
    datasets in the given order, then ALL per (track, year)."""
    by_group = {}
    for table, path in zip(pair_tables, prediction_paths, strict=True):
        track, year, name = table["track"].iat[0], int(table["year"].iat[0]), table["dataset"].iat[0]
        by_group.setdefault((track, year), []).append((name, read_predictions(path, len(table)), table["gold"]))
    scored = {group: correlations(sets) for group, sets in by_group.items()}
    rows = []
    for table in pair_tables:
        track, year, name = table["track"].iat[0], int(table["year"].iat[0]), table["dataset"].iat[0]
        pairs, r = next((pairs, r) for n, pairs, r in scored[(track, year)][:-1] if n == name)
        if math.isnan(r):
            log.warning("run %s, %s/%s: Pearson is undefined (the predictions or the gold of its %d scored "
                        "pairs are constant); shown as n/a and left out of ALL", run, year, name, pairs)
        rows.append((run, track, year, name, pairs, r, int(math.isnan(r))))
    for (track, year), results in sorted(scored.items()):
        _, pairs, r = results[-1]
        rows.append((run, track, year, "ALL", pairs, r, sum(math.isnan(r_) for *_, r_ in results[:-1])))
    return pd.DataFrame(rows, columns=SCORE_COLUMNS).astype(
        {"run": "string", "track": "string", "year": "int16", "dataset": "string", "pairs": "int32",
         "pearson": "float64", "undefined": "int16"})


def scores_markdown(scores: pd.DataFrame) -> str:
    rows, notes = [], []
    for row in scores.sort_values(["track", "year", "dataset"], key=_all_last).itertuples():
        rows.append([row.track, str(row.year), f"**{row.dataset}**" if row.dataset == "ALL" else row.dataset,
                     str(row.pairs), float(row.pearson)])
        if row.dataset == "ALL" and row.undefined:
            notes.append(f"- {row.track} {row.year} ALL leaves out {row.undefined} dataset(s) whose Pearson is "
                         "undefined (constant predictions or gold): the mean and its pairs are over the others.")
    table = markdown_rows(["track", "year", "dataset", "pairs", "pearson"], rows, "lllrr", digits=5)
    return f"# Scores: {scores['run'].iat[0]}\n\n" + table + ("\n" + "\n".join(notes) + "\n" if notes else "")


def _all_last(column: pd.Series) -> pd.Series:
    return column.map(lambda v: "\uffff" if v == "ALL" else v) if column.name == "dataset" else column
