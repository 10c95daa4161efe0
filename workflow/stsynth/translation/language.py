"""Language identification per sentence (py3langid), checked on the es-en sets whose sides are known.

Language table (``resources/language/{year}/{dataset}.parquet``, row-aligned with the pair table):

=========  =======  ============================================================
column     type     meaning
=========  =======  ============================================================
year       int16    as in the pair table
dataset    string   as in the pair table
line       int32    as in the pair table
side       int8     1 (s1) or 2 (s2)
expected   string   the language the track says this side is in (es-en: s1 es)
language   string   the language py3langid identifies
spanish    float64  py3langid's probability that the sentence is Spanish, normalised over the
                    candidate languages (NaN when es is not a candidate)
=========  =======  ============================================================
"""

from __future__ import annotations

import logging

import pandas as pd

from ..core.tables import markdown_rows
from ..core.tokens import TRACK_LANGUAGES

log = logging.getLogger(__name__)


def identifier(languages: list[str] | None = None):
    """A py3langid identifier, restricted to the given ISO 639-1 codes when any are given."""
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    model = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)  # the same labels, as probabilities
    if languages:
        model.set_languages(languages)
    return model


def language_table(pairs: pd.DataFrame, languages: list[str] | None = None) -> pd.DataFrame:
    model = identifier(languages)
    rows = []
    for side in (1, 2):
        for _, row in pairs.iterrows():
            expected = TRACK_LANGUAGES[row["track"]][side - 1]
            ranked = dict(model.rank(str(row[f"s{side}"])))
            rows.append(
                (
                    row["year"],
                    row["dataset"],
                    row["line"],
                    side,
                    expected,
                    max(ranked, key=ranked.get),
                    float(ranked.get("es", float("nan"))),
                )
            )
    table = pd.DataFrame(rows, columns=["year", "dataset", "line", "side", "expected", "language", "spanish"])
    table = table.astype(
        {
            "year": "int16",
            "dataset": "string",
            "line": "int32",
            "side": "int8",
            "expected": "string",
            "language": "string",
            "spanish": "float64",
        }
    )
    wrong = table[table["expected"] != table["language"]]
    log.info("identified %d sentences; %d differ from the track's language", len(table), len(wrong))
    for _, row in wrong.iterrows():
        log.info("line %d s%d: expected %s, identified %s", row["line"], row["side"], row["expected"], row["language"])
    return table


def accuracy_table(tables: list[pd.DataFrame]) -> pd.DataFrame:
    """Accuracy per dataset and side, and over all sentences."""
    everything = pd.concat(tables, ignore_index=True)
    everything["correct"] = everything["expected"] == everything["language"]
    groups = everything.groupby(["year", "dataset", "side", "expected"], sort=False)["correct"]
    report = groups.agg(sentences="size", correct="sum").reset_index()
    total = pd.DataFrame(
        [
            {
                "year": pd.NA,
                "dataset": "ALL",
                "side": pd.NA,
                "expected": "",
                "sentences": len(everything),
                "correct": int(everything["correct"].sum()),
            }
        ]
    )
    report = pd.concat([report, total], ignore_index=True)
    report["accuracy"] = report["correct"] / report["sentences"]
    return report


def accuracy_markdown(report: pd.DataFrame, languages: list[str] | None) -> str:
    candidates = ", ".join(languages) if languages else "all 97 py3langid languages"
    rows = [
        [
            "" if pd.isna(row["year"]) else str(int(row["year"])),
            row["dataset"],
            "" if pd.isna(row["side"]) else f"s{int(row['side'])}",
            row["expected"],
            str(row["sentences"]),
            str(row["correct"]),
            float(row["accuracy"]),
        ]
        for _, row in report.iterrows()
    ]
    return f"Language identification (py3langid; candidates: {candidates})\n\n" + markdown_rows(
        ["year", "dataset", "side", "expected", "sentences", "correct", "accuracy"], rows, "llllrrr"
    )
