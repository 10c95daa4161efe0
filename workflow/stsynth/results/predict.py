"""A run's predictions from the table its stage wrote (stsynth.pipeline.runs.run_source says which):
the organizers' baseline from the pair table, 5 x cosine for paragram and encoder runs (the STS
scale is 0-5), their own predictions for fusion and regression-head runs, and for an external run
another system's prediction file, one number per line of the released input (checked as our own are)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.keyed import check_aligned
from ..core.scoring import read_predictions
from ..core.similarity import predictions_from_cosines
from ..dcu2016.baseline import predict as baseline_predict

SCORE_COLUMN = {
    "paragram": "cosine",
    "paragram-per-set": "cosine",
    "encoder": "encoder",
    "fusion": "prediction",
    "head": "prediction",
}
PREDICTING_STAGES = ("fusion", "head")  # stages whose table holds scores on the STS scale, not cosines


def run_predictions(stage: str, pairs: pd.DataFrame, source: pd.DataFrame | None, source_name: str) -> np.ndarray:
    """One score per line of ``pairs`` (a test set's pair table); ``source``: the stage's table,
    whose rows for this dataset must be the pair table's lines in order (external runs: None, the
    file ``source_name`` is read)."""
    if stage == "baseline":
        return baseline_predict(pairs)
    if stage == "external":
        return read_predictions(source_name, len(pairs))
    year, name = int(pairs["year"].iat[0]), pairs["dataset"].iat[0]
    rows = source[(source["year"].astype(int) == year) & (source["dataset"] == name)]
    check_aligned(rows, pairs, f"{source_name} (its rows for {year}/{name})")
    values = rows[SCORE_COLUMN[stage]].to_numpy(dtype=np.float64)
    return values if stage in PREDICTING_STAGES else predictions_from_cosines(values)
