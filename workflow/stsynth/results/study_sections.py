"""The studies report's section writers (``results/studies.md``, `make studies`): how the settings were chosen,
one function per Markdown section, from tables already read (schemas: the modules that write them).
stsynth.results.report assembles them with the sections of stsynth.results.report_sections.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.paths import STUDY_TABLES, study_file
from ..core.tables import markdown_rows
from .report_sections import plain_table
from .seed_study import spread_markdown


def dev_table_section(table: pd.DataFrame, protocol: dict) -> str:
    columns = [c for c in table.columns if c.startswith("pearson_")]
    return (
        f"## Table 1 analog: dev protocol on the {protocol['dev']} sets (Pearson r)\n\nTrained on "
        f"{protocol['train']} only, scored on the {protocol['dev']} sets ({protocol['test']} never chooses "
        "anything).\n\n"
        + markdown_rows(
            ["system", *[c.removeprefix("pearson_") for c in columns]],
            [[row["system"], *[row[c] for c in columns]] for _, row in table.iterrows()],
        )
    )


def ablation_section(ablation: dict[str, pd.DataFrame], protocol: dict) -> str:
    parts = [
        "## Feature-group ablation of the fusion regressor\n\nEach group removed in turn (`none`: all "
        f"features); dev = {protocol['dev']} sets under the dev protocol, test = {protocol['test']} per track.\n"
    ]
    for run, table in ablation.items():
        scores = [c for c in table.columns if c not in ("removed", "features")]
        parts.append(
            f"### {run}\n\n"
            + markdown_rows(
                ["removed", "features", *scores],
                [
                    [str(row["removed"]), str(int(row["features"])), *[row[c] for c in scores]]
                    for _, row in table.iterrows()
                ],
            )
        )
    return "\n".join(parts)


def sweep_section(table: pd.DataFrame, plot: str, protocol: dict) -> str:
    dev = [c for c in table.columns if c.startswith("dev_")]
    return (
        f"## Gold-threshold sweep (dev protocol)\n\nTraining pairs = {protocol['train']} gold pairs with gold ≥ t; "
        f"Pearson on the dev sets.\n\n![threshold sweep]({plot})\n\n"
        + markdown_rows(
            ["threshold", "pairs", *[c.removeprefix("dev_") for c in dev]],
            [
                [f"{row['threshold']:.2f}", str(int(row["pairs"])), *[row[c] for c in dev]]
                for _, row in table.iterrows()
            ],
        )
    )


def sources_section(table: pd.DataFrame) -> str:
    summary = table[table["dataset"] == "ALL"].pivot_table(
        index=["source", "variant"], columns="split", values="pearson", sort=False
    )
    return "## Word-vector sources, untuned (Pearson r, ALL)\n\n" + markdown_rows(
        ["source", "variant", *summary.columns],
        [[source, variant, *row] for (source, variant), row in zip(summary.index, summary.itertuples(index=False))],
    )


def dev_check_section(
    table: pd.DataFrame, protocol: dict, title: str | None = None, about: str | None = None, path: str | None = None
) -> str:
    """Dev Pearson untuned and after the last epoch (the full per-epoch table: ``path``); by default the paragram
    models' check of the synthetic pairs."""
    title = title or f"Synthetic pairs on the dev protocol ({protocol['dev']} sets)"
    about = about or (
        f"Models trained on {protocol['train']} gold pairs, without and with the synthetic pairs of the dev set named"
    )
    path = path or study_file("dev_check")
    last = table.groupby("model", sort=False)["epoch"].transform("max")
    kept = table[(table["epoch"] == 0) | (table["epoch"] == last)].assign(
        column=lambda t: np.where(t["epoch"] == 0, "untuned", "last epoch")
    )
    wide = kept.pivot_table(index=["model", "dev"], columns="column", values="pearson", sort=False)
    wide = wide[["untuned", "last epoch"]].reset_index()
    return (
        f"## {title}\n\n{about}; dev Pearson untuned and after the last epoch (every epoch: "
        f"`{path}`).\n\n" + plain_table(wide)
    )


def encoder_dev_check_section(table: pd.DataFrame, protocol: dict) -> str:
    return dev_check_section(
        table,
        protocol,
        f"Fine-tuned encoders on the dev protocol ({protocol['dev']})",
        f"Encoders fine-tuned on {protocol['train']} (gold scores, task-internal pairs, + the {protocol['dev']} "
        "round trips); 'untuned' is the model each starts from",
        study_file("encoder_dev_check"),
    )


def seed_study_section(spread: pd.DataFrame, signs: pd.DataFrame) -> str:
    return (
        "## Training spread (seed study)\n\n"
        + spread_markdown(spread, signs)
        + f"\nEvery set's figure: `{STUDY_TABLES['seed_study']}`.\n"
    )


def mt_comparison_section(table: pd.DataFrame) -> str:
    return (
        "## Cross-lingual scores by translation of s1\n\n"
        "The same models, with s1 as translated by the configured MT backend (what the runs use) "
        "and as given by the third-party English MT in the released files (diagnostic only).\n\n" + plain_table(table)
    )


def decisions_section(table: pd.DataFrame) -> str:
    """Each recorded fusion setting against the dev search's choice (the fusion studies' decision_check)."""
    differ = sorted(set(table.loc[~table["same"], "run"]))
    verdict = (
        "Every recorded setting is still the dev search's choice."
        if not differ
        else f"The dev search now chooses other settings for {', '.join(differ)}: `make decisions` records them."
    )
    return "## Recorded decisions against the dev search\n\n" + plain_table(table) + f"\n{verdict}\n"
