"""The report's section writers: one function per Markdown section, from tables already read.

Each takes the tables of its section (schemas: the modules that write them) and returns Markdown;
the figures quoted from publications are the data file ``published_figures.yaml`` beside this
module, each with its source. stsynth.results.report assembles the sections.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..core import yaml_text
from ..core.correlations import AGGREGATES
from ..core.paths import PUBLISHED_FIGURES, REPORT_PARTS
from ..core.scoring import p_value_cell
from ..core.tables import markdown_rows
from .report_plan import STUDIES_COMMAND

PUBLISHED = yaml_text.safe_load(Path(PUBLISHED_FIGURES).read_text())
PAPER_EN_ALL = PUBLISHED["paper"]["en_all"]
PAPER_ES_EN_ALL = PUBLISHED["paper"]["es_en_all"]
BEST_2016_EN = PUBLISHED["task_2016"]["best_en"]
MEDIAN_2016_EN = PUBLISHED["task_2016"]["median_en"]
ORGANIZERS_BASELINE_2016_EN = PUBLISHED["task_2016"]["baseline_en"]
TEST_YEAR = PUBLISHED["test_year"]


def score_columns(test_sets: list[dict], track: str) -> list[str]:
    """The track's 2016 datasets in config order, then ALL."""
    return [t["dataset"] for t in test_sets if t["track"] == track and t["year"] == TEST_YEAR] + ["ALL"]


def scores_section(
    scores: dict[str, pd.DataFrame], paper_systems: dict[str, str], test_sets: list[dict], untranslated=()
) -> str:
    """The STS 2016 tables beside the papers' figures, then every other group; a run of ``untranslated`` (the
    organizers' baseline) is marked so in the Spanish-English table: it compares s1 in Spanish with s2."""
    english, crosslingual = score_columns(test_sets, "en"), score_columns(test_sets, "es-en")

    def pearsons(table, track, columns):
        rows = table[(table["track"] == track) & (table["year"] == TEST_YEAR)].set_index("dataset")["pearson"]
        return [float(rows[c]) if c in rows.index else None for c in columns]

    en_rows = []
    for run, table in scores.items():
        ours = pearsons(table, "en", english)
        system = paper_systems.get(run)
        paper = PAPER_EN_ALL.get(system) if system else None
        delta = f"{ours[-1] - float(paper):+.4f}" if paper and ours[-1] is not None else "—"
        en_rows.append([f"**{run}**", *ours, paper or "—", delta])
    references = [(f"paper: {system}", {"ALL": value}) for system, value in PAPER_EN_ALL.items()]
    references += [
        ("2016 best (per column, any team)", BEST_2016_EN),
        ("2016 median (on-time runs, per column)", MEDIAN_2016_EN),
        ("organizers' baseline (official)", ORGANIZERS_BASELINE_2016_EN),
    ]
    en_rows += [[name, *[values.get(c, "—") for c in english], "", ""] for name, values in references]
    es_rows = [
        [f"**{run}**" + (" (s1 untranslated)" if run in untranslated else ""), *pearsons(table, "es-en", crosslingual)]
        for run, table in scores.items()
    ]
    es_rows += [
        [f"paper: cross-lingual {name}", *["—"] * (len(crosslingual) - 1), value]
        for name, value in PAPER_ES_EN_ALL.items()
    ]
    parts = []
    if len(english) > 1:
        parts.append(
            "## STS 2016 English (Pearson r)\n\nOur runs in bold; ALL is the pair-weighted mean, as the "
            "task scored it. *paper ALL*: the figure Hokamp & Arora (2016) report for the system with the "
            "same recipe (`report.paper_systems`); Δ = ours − paper.\n\n"
            + markdown_rows(["system", *english, "paper ALL", "Δ"], en_rows)
        )
    if len(crosslingual) > 1:
        parts.append(
            "## STS 2016 Spanish–English (Pearson r)\n\nALL is the pair-weighted mean of the two sets.\n\n"
            + markdown_rows(["system", *crosslingual], es_rows)
        )
    return "\n".join(parts + [other_groups_section(scores)]).strip() + "\n"


def other_groups_section(scores: dict[str, pd.DataFrame]) -> str:
    """Pearson / Spearman per test set of every group other than the 2016 sets (e.g. STS Benchmark)."""
    shown = {
        run: table[table["year"].ne(TEST_YEAR).fillna(True) & ~table["dataset"].isin(AGGREGATES[1:])].set_index(
            ["track", "group", "dataset"]
        )
        for run, table in scores.items()
    }
    parts = []
    for track, group in dict.fromkeys((t, g) for table in shown.values() for t, g, _ in table.index):
        columns = list(
            dict.fromkeys(d for table in shown.values() for t, g, d in table.index if (t, g) == (track, group))
        )
        rows = [
            [
                f"**{run}**",
                *[
                    f"{table.loc[(track, group, c), 'pearson']:.4f} / {table.loc[(track, group, c), 'spearman']:.4f}"
                    if (track, group, c) in table.index
                    else None
                    for c in columns
                ],
            ]
            for run, table in shown.items()
        ]
        parts.append(
            f"## {group} ({track}): Pearson / Spearman\n\nALL is the official pair-weighted mean.\n\n"
            + markdown_rows(["system", *columns], rows)
        )
    return "\n".join(parts)


def conventions_section(scores: dict[str, pd.DataFrame]) -> str:
    """Every run's ALL per track and group in the three conventions, Pearson and Spearman, with the
    official ALL's bootstrap interval (stsynth.core.scoring)."""
    rows = []
    for run, table in scores.items():
        aggregates = table[table["dataset"].isin(AGGREGATES)]
        for (track, group), part in aggregates.groupby(["track", "group"], sort=False):
            by = part.set_index("dataset")
            official = by.loc[AGGREGATES[0]]
            interval = {
                metric: f"[{official[f'{metric}_ci_low']:.4f}, {official[f'{metric}_ci_high']:.4f}]"
                if pd.notna(official[f"{metric}_ci_low"])
                else None
                for metric in ("pearson", "spearman")
            }
            rows.append(
                [
                    f"**{run}**",
                    track,
                    str(group),
                    official["pearson"],
                    interval["pearson"],
                    official["spearman"],
                    interval["spearman"],
                    by.loc[AGGREGATES[1], "pearson"],
                    by.loc[AGGREGATES[1], "spearman"],
                    by.loc[AGGREGATES[2], "pearson"],
                    by.loc[AGGREGATES[2], "spearman"],
                ]
            )
    return (
        "## Every run, every convention\n\nALL: official (per-dataset correlations weighted by scored "
        "pairs), with its 95% bootstrap intervals (pairs resampled within each dataset); mean: their plain "
        "mean (SentEval); pooled: one correlation over every scored pair of the group (MTEB, "
        "sentence-transformers). P = Pearson, S = Spearman. Per-dataset values: `results/scores/{run}.md`.\n\n"
        + markdown_rows(
            ["run", "track", "group", "ALL P", "95% CI", "ALL S", "95% CI", "mean P", "mean S", "pooled P", "pooled S"],
            rows,
            "lllrrrrrrrr",
        )
    )


def comparisons_section(table: pd.DataFrame) -> str:
    rows = [
        [
            row.run,
            row.against,
            row.metric,
            row.track,
            row.group,
            f"{row.difference:+.4f}",
            f"[{row.ci_low:+.4f}, {row.ci_high:+.4f}]",
            p_value_cell(row.p_value),
            "**yes**" if row.significant else "no",
        ]
        for row in table.itertuples()
    ]
    significant = int(table["significant"].sum())
    return (
        "## Which differences are significant\n\nPaired bootstrap of the official ALL, Pearson and Spearman "
        "(the same resampled pairs for both runs; `results/scores/`): difference = run − against, its 95% "
        f"interval, two-sided p. {significant} of {len(table)} differences have an interval that excludes 0.\n\n"
        + markdown_rows(
            ["run", "against", "metric", "track", "group", "difference", "95% CI", "p", "significant"],
            rows,
            "lllllrrrl",
        )
    )


def input_checks_section(counts: list[dict]) -> str:
    """Lines read per dataset, and the blank sentences kept in them (each still gets a prediction)."""
    rows = [
        [f"{c['year']}/{c['dataset']}", c["lines"], c["scored"], c["blank_s1"], c["blank_s2"], c["blank_scored"]]
        for c in counts
    ]
    blank = sum(c["blank_s1"] + c["blank_s2"] for c in counts)
    return (
        "## Input checks\n\nLines read per dataset; *blank*: sentences that are empty or only white space, "
        "kept so that the released line still gets a prediction (logged by rule `pair_table`). "
        + (f"{blank} blank sentences in all.\n\n" if blank else "None is blank.\n\n")
        + markdown_rows(
            ["dataset", "lines", "scored", "blank s1", "blank s2", "blank, scored"],
            [[cell if isinstance(cell, str) else str(cell) for cell in row] for row in rows],
        )
    )


def fusion_dev_section(dev: dict[str, pd.DataFrame], recorded: dict[str, dict] | None = None) -> str:
    """The fusion runs' hyperparameters: those recorded (config/decisions/<protocol>.yaml; `make studies` searches
    again), and those each dev search chose (its dev ALL and grid size)."""
    rows = []
    for run, settings in (recorded or {}).items():
        rows.append(
            [
                run,
                ",".join(settings["init"]) or "constant",
                str(settings["max_depth"]),
                f"{settings['learning_rate']:g}",
                f"{settings['subsample']:g}",
                str(settings["n_estimators"]),
                "recorded",
                "",
            ]
        )
    for run, table in dev.items():
        chosen = table[table["chosen"]].iloc[0]
        rows.append(
            [
                run,
                str(chosen.get("init", "")) or "constant",
                str(int(chosen["max_depth"])),
                f"{chosen['learning_rate']:g}",
                f"{chosen['subsample']:g}",
                str(int(chosen["n_estimators"])),
                chosen["pearson_ALL"],
                str(len(table)),
            ]
        )
    return "### Fusion hyperparameters chosen on the dev protocol\n\n" + markdown_rows(
        ["run", "linear start", "max_depth", "learning_rate", "subsample", "trees", "dev ALL", "grid points"], rows
    )


def importance_section(importances: dict[str, pd.DataFrame], top: int, plots: dict[str, str]) -> str:
    parts = [
        "## Table 4 analog: Gini importances of the fusion regressor\n\nImportances of the trees. "
        "Where the dev protocol chose a linear start (table above), the trees fit what that line "
        "leaves, so the line's own feature counts through its coefficient (`model.npz`: "
        "`init_features`, `init_coef`) rather than here.\n"
    ]
    for run, table in importances.items():
        ranked = table.sort_values("importance", ascending=False)
        groups = ranked.groupby("group", sort=False)["importance"].sum().sort_values(ascending=False)
        parts.append(
            f"### {run}\n\n![Gini importances of {run}]({plots[run]})\n\n"
            f"Top {min(top, len(ranked))} of {len(ranked)} features:\n\n"
            + markdown_rows(
                ["feature", "group", "importance"],
                [[r.feature, r.group, r.importance] for r in ranked.head(top).itertuples()],
            )
            + "\nBy feature group:\n\n"
            + markdown_rows(["group", "importance"], [[g, v] for g, v in groups.items()])
        )
    return "\n".join(parts)


def unknown_words_section(tables: dict[str, pd.DataFrame]) -> str:
    keyed = {
        model: table.set_index(table["year"].astype(str) + "/" + table["dataset"].astype(str))
        for model, table in tables.items()
    }
    sets = list(dict.fromkeys(name for table in keyed.values() for name in table.index))
    first = next(iter(keyed.values()))
    rows = [
        [
            name,
            str(int(first.loc[name, "tokens"])) if name in first.index else "—",
            *[f"{table.loc[name, 'percent']:.2f}" if name in table.index else "—" for table in keyed.values()],
        ]
        for name in sets
    ]
    return (
        "## Table 5 analog: unknown words per test set (% of tokens outside the model's vocabulary)\n\n"
        + markdown_rows(["test set", "tokens", *keyed], rows)
    )


def training_section(epochs: dict[str, pd.DataFrame], plot: str) -> str:
    rows = []
    for model, table in epochs.items():
        last = table.iloc[-1]
        dev = "dev_ALL" in table.columns
        best = table.loc[table["dev_ALL"].idxmax()] if dev else None
        rows.append(
            [
                model,
                str(int(last["epoch"])),
                str(int(last["pairs"])),
                last["loss"],
                table["dev_ALL"].iloc[0] if dev else None,
                last["dev_ALL"] if dev else None,
                f"{best['dev_ALL']:.4f} (epoch {int(best['epoch'])})" if dev else "—",
                f"{table['seconds'].sum():.0f}",
            ]
        )
    return (
        f"## Training curves of the paragram models\n\nLoss: mean batch margin loss per epoch; dev: "
        f"Pearson on the protocol's dev sets (only the dev-protocol twins, `<model>-dev`).\n\n"
        f"![training curves]({plot})\n\n"
        + markdown_rows(
            ["model", "epochs", "pairs", "last loss", "dev ALL epoch 0", "dev ALL last", "dev ALL best", "train s"],
            rows,
        )
    )


def plain_table(table: pd.DataFrame) -> str:
    """A table whose columns mix counts and rates: whole-number columns as integers, others to 4 places."""

    def cell(value, whole: bool) -> str:
        if value is None or value is pd.NA or (isinstance(value, float) and np.isnan(value)):
            return "—"
        if isinstance(value, (float, np.floating)):
            return str(int(value)) if whole else f"{value:.4f}"
        return str(value)

    def whole_numbers(column: pd.Series) -> bool:
        if pd.api.types.is_bool_dtype(column) or not pd.api.types.is_numeric_dtype(column):
            return False
        values = column.dropna().to_numpy(dtype=np.float64)
        return bool(np.all(values == np.round(values)))

    whole = {c: whole_numbers(table[c]) for c in table.columns}
    return markdown_rows(
        list(map(str, table.columns)),
        [[cell(v, whole[c]) for c, v in zip(table.columns, row)] for row in table.itertuples(index=False)],
    )


def language_section(table: pd.DataFrame) -> str:
    return "## Language identification on the es-en sets\n\n" + plain_table(table)


def scatter_section(plots: dict[str, str]) -> str:
    return "## Predicted vs gold, STS 2016 (scored pairs)\n\n" + "\n".join(
        f"### {run}\n\n![{run}: predicted vs gold]({path})\n" for run, path in plots.items()
    )


def report_header(plan: dict) -> str:
    target = REPORT_PARTS[plan["part"]]
    if plan["part"] == "results":
        return (
            f"# stsynth results\n\nBuilt by `snakemake all` (rule `report`, stsynth.results.report) from the run "
            f"tables; runs: {', '.join(plan['runs'])}. How the settings were chosen: `{STUDIES_COMMAND}` "
            f"→ `{REPORT_PARTS['studies']}`.\n"
        )
    return (
        f"# stsynth studies: how the settings were chosen\n\nBuilt by `snakemake studies` "
        f"(`{STUDIES_COMMAND}`; rule `studies_report`, stsynth.results.report) into `{target}`: the dev-protocol "
        f"studies and the study runs ({', '.join(plan['runs']) or 'none'}). The headline results: "
        f"`{REPORT_PARTS['results']}`.\n"
    )


def studies_section(studies: list[str]) -> str:
    """The results part's pointer to the studies that are built elsewhere."""
    if not studies:
        return ""
    return (
        f"## Studies: how the settings were chosen\n\nNot part of `snakemake all`. `{STUDIES_COMMAND}` "
        f"(`snakemake studies`) builds them into `{REPORT_PARTS['studies']}`:\n\n"
        + "".join(f"- {study}\n" for study in studies)
    )
