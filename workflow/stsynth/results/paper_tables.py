"""The papers' tables written from the build, beside the figures the papers print
(``published_figures.yaml``): nothing in them is copied by hand, so none goes stale.

SemEval-2017 system, Table 1 (``results/papers/sts2017_table1.{parquet,md}``): per row of the paper
(config ``report.paper_table1``: our run -> the paper's row) our Train, Dev and Test Pearson beside the
paper's. Train and Dev come from the run's dev protocol (the head fitted on the dev training years,
official ALL on them and on the validation years: ``results/head/{run}/dev.parquet``, its chosen row),
Test from the run's scores (the final fit on every training year; official ALL of the test group).
The plain cosine of the same sentence vectors is given too (no head), and what each run's sources are
made of (model_card.source_lines: the stand-ins for the paper's resources named beside its figures).
Every other headline run of the build follows with its Test figure, and the 2017 winner's.

Schema: ``row`` string (the paper's), ``run`` string (ours; null for a paper-only row), ``sources`` string
list (what each of the run's sentence-vector sources is made of; null for the rows without a head), ``train``,
``dev``, ``test`` float64 (ours, head), ``paper_train``, ``paper_dev``, ``paper_test`` float64 (null where
the paper gives none), ``delta_test`` float64 (ours − paper), ``cosine_train``, ``cosine_dev``,
``cosine_test`` float64.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.tables import markdown_rows
from .report_sections import PUBLISHED

TABLE1 = PUBLISHED["sts2017_table1"]
WINNER_ROW = "Winner STS2017"


def test_all(scores: pd.DataFrame) -> float:
    """The official ALL of a run's test group (the only English group of the 2017 protocol)."""
    rows = scores[(scores["dataset"] == "ALL") & (scores["track"] == "en")]
    if len(rows) != 1:
        raise ValueError(f"expected one English test group in the scores of {scores['run'].iat[0]}, found {len(rows)}")
    return float(rows["pearson"].iat[0])


def _paper(row: str, column: str) -> float:
    value = TABLE1["rows"].get(row, {}).get(column)
    return float(value) if value is not None else np.nan


def sts2017_table1(
    rows: dict[str, str],
    sources: dict[str, list[str]],
    scores: dict[str, pd.DataFrame],
    dev: dict[str, pd.DataFrame],
    cosine: dict[str, pd.DataFrame],
    others: dict[str, pd.DataFrame],
) -> pd.DataFrame:
    """Table 1 (module docstring) from our runs' tables: ``rows`` run -> paper row; ``sources`` run -> what
    its sentence vectors are made of; ``scores``, ``dev``, ``cosine``: per run its score table, head dev
    table and test-cosine table; ``others``: the other headline runs' score tables."""
    records = []
    for run, row in rows.items():
        chosen = dev[run][dev[run]["chosen"]].iloc[0]
        plain = dev[run][dev[run]["method"] == "cosine"].iloc[0]
        test = test_all(scores[run])
        records.append(
            {
                "row": row,
                "run": run,
                "sources": sources[run],
                "train": chosen["train_ALL"],
                "dev": chosen["dev_ALL"],
                "test": test,
                "paper_train": _paper(row, "train"),
                "paper_dev": _paper(row, "dev"),
                "paper_test": _paper(row, "test"),
                "delta_test": test - _paper(row, "test"),
                "cosine_train": plain["train_ALL"],
                "cosine_dev": plain["dev_ALL"],
                "cosine_test": float(cosine[run].set_index("dataset").loc["ALL", "pearson"]),
            }
        )
    for run, table in others.items():
        records.append({"row": "", "run": run, "test": test_all(table)})
    records.append({"row": WINNER_ROW, "paper_test": _paper(WINNER_ROW, "test")})
    columns = [
        "row",
        "run",
        "sources",
        "train",
        "dev",
        "test",
        "paper_train",
        "paper_dev",
        "paper_test",
        "delta_test",
        "cosine_train",
        "cosine_dev",
        "cosine_test",
    ]
    return pd.DataFrame.from_records(records, columns=columns).astype(
        {"row": "string", "run": "string", **{c: "float64" for c in columns[3:]}}
    )


def sts2017_table1_table_markdown(table: pd.DataFrame) -> str:
    """Table 1 as a Markdown table (results/papers/sts2017_table1.md and docs/results.md)."""

    def figure(value):
        return None if pd.isna(value) else float(value)

    rows = [
        [
            row.row or "",
            f"`{row.run}`" if isinstance(row.run, str) else "",
            *map(
                figure,
                (
                    row.train,
                    row.dev,
                    row.test,
                    row.paper_train,
                    row.paper_dev,
                    row.paper_test,
                    row.cosine_dev,
                    row.cosine_test,
                ),
            ),
            f"{row.delta_test:+.4f}" if pd.notna(row.delta_test) else None,
        ]
        for row in table.itertuples()
    ]
    return markdown_rows(
        [
            "paper row",
            "our run",
            "Train",
            "Dev",
            "Test",
            "paper Train",
            "paper Dev",
            "paper Test",
            "cosine Dev",
            "cosine Test",
            "Δ Test",
        ],
        rows,
        "llrrrrrrrrr",
    )


def sts2017_table1_markdown(table: pd.DataFrame) -> str:
    sources = dict.fromkeys(line for lines in table["sources"].dropna() for line in lines)  # each source once
    return (
        "# SemEval-2017 system, Table 1: ours beside the paper's\n\n"
        "Pearson; Train = STS 2012–2015, Dev = STS 2016 (official ALL of each), Test = STS 2017 track 5. "
        "Ours: the regression head on the run's sentence vectors (Train and Dev from its dev protocol, Test "
        "from the final fit on 2012–2016); *cosine*: the plain cosine of the same vectors, no head. "
        f"Paper: {TABLE1['source']}\n\n"
        + sts2017_table1_table_markdown(table)
        + "\n\nWhat each run's sentence vectors are made of (the stand-ins for the paper's resources):\n\n"
        + "".join(f"- {line}\n" for line in sources)
    )
