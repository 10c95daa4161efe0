"""Synthetic paraphrases: every test sentence paired with its English -> Spanish -> English round trip.

Every released line counts, scored or not (participants could not know which lines were scored).

Round-trip table (``resources/round_trips/{year}/{dataset}.parquet``, two rows per pair line):

==========  ======  ==================================================================
column      type    meaning
==========  ======  ==================================================================
year        int16   as in the pair table
dataset     string  as in the pair table
line        int32   as in the pair table
side        int8    1 (s1) or 2 (s2)
sentence    string  the English sentence (on es-en sets, s1 is its English translation)
pivot       string  the sentence in Spanish
round_trip  string  the pivot back in English
==========  ======  ==================================================================

Synthetic paraphrase pair tables (``resources/paraphrase_pairs/synthetic*.parquet``) follow the
paraphrase pair schema of stsynth.core.paraphrase_pairs (source ``synthetic``, s1 = sentence,
s2 = round trip, gold null) plus ``side`` int8 and ``pivot`` string. Round trips whose tokens
equal the sentence's tokens are dropped (the pair teaches nothing), and so are repeats of a
(tokens1, tokens2) pair already kept.
"""

from __future__ import annotations

import logging

import pandas as pd

from ..core.paraphrase_pairs import conform
from ..core.tables import markdown_rows, markdown_table
from ..core.tokens import tokenize
from .cache import TranslationCache
from .engine import Translator
from .translate import round_trip

log = logging.getLogger(__name__)


def round_trip_table(
    pairs: pd.DataFrame, translator: Translator, cache: TranslationCache, chunk_size: int = 256
) -> tuple[pd.DataFrame, dict]:
    """Both sides of every line of an English pair table (or translated es-en table), round-tripped."""
    sides = []
    for side in (1, 2):
        sides.append(
            pd.DataFrame(
                {
                    "year": pairs["year"].to_numpy(),
                    "dataset": pairs["dataset"].to_numpy(),
                    "line": pairs["line"].to_numpy(),
                    "side": side,
                    "sentence": pairs[f"s{side}"].astype(str).to_numpy(),
                }
            )
        )
    table = pd.concat(sides, ignore_index=True)
    pivots, back, counts = round_trip(table["sentence"].tolist(), translator, cache, chunk_size)
    table["pivot"], table["round_trip"] = pivots, back
    table = table.astype(
        {
            "year": "int16",
            "dataset": "string",
            "line": "int32",
            "side": "int8",
            "sentence": "string",
            "pivot": "string",
            "round_trip": "string",
        }
    )
    return table, counts


def synthetic_pairs(round_trips: list[pd.DataFrame], tokenize_settings: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Round-trip tables -> one synthetic paraphrase pair table; returns it and counts per set of what was dropped."""
    table = (
        pd.concat(round_trips, ignore_index=True)
        if round_trips
        else pd.DataFrame(columns=["year", "dataset", "line", "side", "sentence", "pivot", "round_trip"])
    )
    table = table.sort_values(["year", "dataset", "line", "side"], kind="stable").reset_index(drop=True)
    pairs = pd.DataFrame(
        {
            "source": "synthetic",
            "year": table["year"],
            "dataset": table["dataset"],
            "line": table["line"],
            "s1": table["sentence"],
            "s2": table["round_trip"],
            "tokens1": [tokenize(str(s), "en", **tokenize_settings) for s in table["sentence"]],
            "tokens2": [tokenize(str(s), "en", **tokenize_settings) for s in table["round_trip"]],
            "gold": float("nan"),
        }
    )
    empty = pairs["tokens1"].map(len).eq(0) | pairs["tokens2"].map(len).eq(0)
    same_text = (table["sentence"] == table["round_trip"]).fillna(False).astype(bool) & ~empty
    same_tokens = (pairs["tokens1"].map(tuple) == pairs["tokens2"].map(tuple)) & ~empty
    key = pd.Series(list(zip(pairs["tokens1"].map(tuple), pairs["tokens2"].map(tuple))), index=pairs.index)
    repeated = key.duplicated() & ~same_tokens & ~empty
    keep = ~(empty | same_tokens | repeated)
    flags = pd.DataFrame(
        {
            "year": table["year"],
            "dataset": table["dataset"],
            "round_trips": 1,
            "empty": empty,
            "identical_text": same_text,
            "identical_tokens": same_tokens,
            "repeated": repeated,
            "kept": keep,
        }
    )
    counts = flags.groupby(["year", "dataset"], sort=False).sum().reset_index()
    total = flags.drop(columns=["year", "dataset"]).sum().to_frame().T.assign(year=pd.NA, dataset="ALL")
    counts = pd.concat([counts, total[counts.columns]], ignore_index=True)
    log.info("round trips identical to the source are dropped:\n%s", counts.to_string(index=False))
    result = conform(pairs[keep])
    result["side"] = table.loc[keep, "side"].astype("int8").to_numpy()
    result["pivot"] = table.loc[keep, "pivot"].astype("string").to_numpy()
    return result, counts


def counts_markdown(counts: pd.DataFrame) -> str:
    """Per set: round trips, empty sides, round trips identical to the source (text; tokens, dropped),
    repeats of a kept pair (dropped), pairs kept."""
    return markdown_table(counts)


def dev_check(epochs: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Long table (model, epoch, dev set, pearson) from the models' per-epoch logs (stsynth.word_vectors.paragram)."""
    rows = []
    for model, table in epochs.items():
        dev_columns = [c for c in table.columns if c.startswith("dev_")]
        if not dev_columns:
            raise ValueError(
                f"model {model} scored no dev sets: only a dev-protocol twin (<model>-dev) is scored on "
                "the protocol's dev sets"
            )
        for _, row in table.iterrows():
            for column in dev_columns:
                rows.append(
                    {
                        "model": model,
                        "epoch": int(row["epoch"]),
                        "dev": column[len("dev_") :],
                        "pearson": float(row[column]),
                    }
                )
    return pd.DataFrame(rows, columns=["model", "epoch", "dev", "pearson"])


def dev_check_markdown(table: pd.DataFrame) -> str:
    """Per model and dev set: Pearson before tuning, after the last epoch, and the best epoch."""
    rows = []
    for (model, dev), group in table.groupby(["model", "dev"], sort=False):
        first, last = group.iloc[0], group.iloc[-1]
        best = group.loc[group["pearson"].idxmax()]
        rows.append(
            [model, dev, first["pearson"], int(last["epoch"]), last["pearson"], int(best["epoch"]), best["pearson"]]
        )
    return markdown_rows(
        ["model", "dev set", "epoch 0", "last epoch", "pearson (last)", "best epoch", "pearson (best)"], rows, "llrrrrr"
    )
