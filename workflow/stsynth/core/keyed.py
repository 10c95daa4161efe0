"""Keyed tables: every per-pair table (tokens, features, similarities, language, translations, a
stage's predictions) carries its pair table's keys and has the pair table's rows in the same order.
One check of that, with one exception type, for every reader."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .datasets import InputFormatError

KEYS = ["year", "dataset", "line"]
KEY_DTYPES = {"year": "int16", "dataset": "string", "line": "int32"}  # as in the pair table (stsynth.core.pairs)


class AlignmentError(InputFormatError):
    """A table whose rows are not its pair table's, in the same order."""


def check_aligned(
    table: pd.DataFrame, pairs: pd.DataFrame, table_name: str, pairs_name: str = "the pair table"
) -> None:
    """Refuse ``table`` unless it has the rows of ``pairs``, in order, by every key column both carry
    (``line`` at least), naming the first row that differs (1-based)."""
    if len(table) != len(pairs):
        raise AlignmentError(f"{table_name}: {len(table)} rows, but {pairs_name} has {len(pairs)}: not row-aligned")
    keys = [key for key in KEYS if key in table.columns and key in pairs.columns]
    if "line" not in keys:
        raise AlignmentError(f"{table_name}: no `line` column to align with {pairs_name}")
    for key in keys:
        ours, theirs = table[key].to_numpy(), pairs[key].to_numpy()
        if key == "dataset":
            different = ours.astype(str) != theirs.astype(str)
        else:
            different = ours.astype(np.int64) != theirs.astype(np.int64)
        if len(mismatch := np.flatnonzero(different)):
            row = int(mismatch[0])
            raise AlignmentError(
                f"{table_name}: row {row + 1} has {key} {table[key].iat[row]}, {pairs_name} has "
                f"{pairs[key].iat[row]}: not row-aligned"
            )
