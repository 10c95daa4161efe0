"""Paraphrase pair tables: the training pairs of paragram models.

Paraphrase pair table schema (``resources/paraphrase_pairs/{name}.parquet``):

=======  ============  ==========================================================
column   type          meaning
=======  ============  ==========================================================
source   string        where the pair comes from: ``gold`` (STS pairs kept by the
                       gold-score filter), ``synthetic`` (round-trip translation), ...
year     int16         year of the dataset the pair comes from
dataset  string        dataset name as declared in config.yaml
line     int32         line of the pair (or of its origin sentence) in that dataset
s1, s2   string        the two sentences
tokens1  list<string>  tokens of s1 (as in the token tables)
tokens2  list<string>  tokens of s2
gold     float64       gold score of the STS pair; null for non-gold pairs
=======  ============  ==========================================================

The gold-score filter keeps the scored pairs of the configured years whose gold is at
least a threshold (3.8 in the paper).
"""

from __future__ import annotations

import logging
import zlib

import pandas as pd

from .keyed import check_aligned

log = logging.getLogger(__name__)

PARAPHRASE_COLUMNS = ["source", "year", "dataset", "line", "s1", "s2", "tokens1", "tokens2", "gold"]


def gold_pairs(pairs: pd.DataFrame, tokens: pd.DataFrame, where: str = "") -> pd.DataFrame:
    """A pair table and its row-aligned token table as one paraphrase-pair table (source gold)."""
    check_aligned(tokens, pairs, f"{where} (token table)")
    table = pd.DataFrame(
        {
            "source": "gold",
            "year": pairs["year"].to_numpy(),
            "dataset": pairs["dataset"].to_numpy(),
            "line": pairs["line"].to_numpy(),
            "s1": pairs["s1"].to_numpy(),
            "s2": pairs["s2"].to_numpy(),
            "tokens1": tokens["tokens1"].to_numpy(),
            "tokens2": tokens["tokens2"].to_numpy(),
            "gold": pairs["gold"].to_numpy(dtype="float64", na_value=float("nan")),
        }
    )
    return conform(table)


def conform(table: pd.DataFrame) -> pd.DataFrame:
    """Column order and dtypes of the paraphrase-pair schema."""
    missing = set(PARAPHRASE_COLUMNS) - set(table.columns)
    if missing:
        raise ValueError(f"paraphrase pair table lacks columns {sorted(missing)}")
    table = table[PARAPHRASE_COLUMNS].astype(
        {
            "source": "string",
            "year": "int16",
            "dataset": "string",
            "line": "int32",
            "s1": "string",
            "s2": "string",
            "gold": "float64",
        }
    )
    return table.reset_index(drop=True)


def gold_filter(tables: list[pd.DataFrame], threshold: float) -> pd.DataFrame:
    """Scored pairs of the tables (a gold table's years: stsynth.pipeline.plan selects them) whose gold >= threshold."""
    kept = []
    for table in tables:
        name = f"{table['year'].iat[0]}/{table['dataset'].iat[0]}" if len(table) else "(empty)"
        scored = table["gold"].notna()
        keep = scored & (table["gold"] >= threshold)
        log.info(
            "%s: %d pairs, %d scored, %d with gold >= %g kept", name, len(table), scored.sum(), keep.sum(), threshold
        )
        kept.append(table[keep])
    result = conform(pd.concat(kept, ignore_index=True)) if kept else conform(pd.DataFrame(columns=PARAPHRASE_COLUMNS))
    log.info("gold filter (>= %g): kept %d pairs of %d sets", threshold, len(result), len(tables))
    return result


def fold_of(year, dataset, line, folds: int) -> int:
    """Deterministic fold of one STS pair: the same pair lands in the same fold in every stage."""
    return zlib.crc32(f"{int(year)}/{dataset}/{int(line)}".encode()) % folds


def select_pairs(table: pd.DataFrame, exclude: list[str] = (), holdout: dict | None = None) -> pd.DataFrame:
    """Drop pairs of excluded datasets ("year/dataset") and, with holdout {folds, fold}, the held-out fold."""
    keep = ~(table["year"].astype(str) + "/" + table["dataset"].astype(str)).isin(list(exclude))
    if holdout:
        folds = [fold_of(y, d, n, holdout["folds"]) for y, d, n in zip(table["year"], table["dataset"], table["line"])]
        keep &= pd.Series(folds, index=table.index) != holdout["fold"]
    if (~keep).any():
        log.info("dropped %d of %d pairs (exclude %s, holdout %s)", (~keep).sum(), len(table), list(exclude), holdout)
    return table[keep].reset_index(drop=True)
