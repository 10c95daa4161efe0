"""The results report: ``results/report.md`` and its plots ``results/report/*.png``.

Built by rule ``report`` (workflow/rules/report.smk), never by hand, from:

* the score table of every run in ``runs:`` (``results/scores/{run}.parquet``, stsynth.scoring);
* for the runs in ``report.scatter_runs``: their predictions and the 2016 pair tables (gold);
* whichever study tables the workflow has a stage for (a section whose stage is absent is listed
  at the end of the report as waiting): the dev protocol table ``results/fusion/dev_table.parquet``,
  each fusion run's ``dev``, ``importances`` and ``ablation`` tables (stsynth.fusion),
  ``results/paragram/{model}/unknown_words.parquet``, ``results/paragram/threshold_sweep.parquet``,
  ``results/paragram/sources.parquet`` and ``resources/models/{model}.epochs.parquet``
  (stsynth.paragram), the Parquet metadata of the word-vector tables (stsynth.vectors),
  ``results/language/accuracy.parquet`` (stsynth.language);
* provenance: requirements.txt against the installed packages, Debian package versions, the
  machine, the MT engine version, every ``seed`` in config.yaml, and wall time per rule from the
  ``benchmarks/`` files present when the report is built (each job's last run).

The report writes no table of its own. The paper's and the shared task's figures below are quoted
from their publications, as printed there.
"""
from __future__ import annotations

import json
import os
import platform
import re
import subprocess
import sys
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from .pairs import blank_counts
from .plots import plot_importances, plot_scatter, plot_sweep, plot_training
from .plan import COMPARISONS, headline_runs, run_comparisons, study_runs
from .scoring import AGGREGATES, p_value_cell, read_predictions
from .tables import markdown_rows as markdown_table

# Hokamp & Arora (2016), STS 2016 English ALL per system, and the cross-lingual (es-en) runs.
PAPER_EN_ALL = {"task-internal": "0.699", "synthetic": "0.713", "fusion": "0.717"}
PAPER_ES_EN_ALL = {"run1": "0.832", "run2": "0.846"}
# Agirre et al. (2016), SemEval-2016 Task 1, English: best score per dataset (any team), the
# median team on ALL, and the organizers' baseline (which our run `baseline` reproduces).
BEST_2016_EN = {"answer-answer": "0.692", "headlines": "0.827", "plagiarism": "0.841",
                "postediting": "0.867", "question-question": "0.747", "ALL": "0.778"}
MEDIAN_2016_EN = {"ALL": "0.689"}
ORGANIZERS_BASELINE_2016_EN = {"answer-answer": "0.41133", "headlines": "0.54073", "plagiarism": "0.69601",
                               "postediting": "0.82615", "question-question": "0.03844", "ALL": "0.51334"}
TEST_YEAR = 2016


# --- plan: what the report reads, decided when the workflow is parsed ---------------------------

REPORT_PARTS = {"results": "results/report.md", "studies": "results/studies.md"}  # part -> where it is written
STUDIES_COMMAND = "make studies"


def report_plan(config: dict, has_rule, test_sets: list[dict], resolve_model=None,
                input_sets: list[dict] | None = None, part: str = "results") -> dict:
    """Every file one part of the report reads, by section, for the configured runs and the stages present.

    part: ``results`` (``results/report.md``, built by ``all``: the headline runs, their comparisons,
    the fusion runs' own dev choices and importances, training curves, unknown words, language
    identification) or ``studies`` (``results/studies.md``, built by ``studies``: the runs marked
    ``study: true``, their comparisons, and the tables that show how settings were chosen). The
    results part names each study and the command that builds it.
    has_rule(name) says whether the workflow defines a rule; test_sets: {year, dataset, track,
    pairs} per test dataset; resolve_model(name): a paragram model's settings (stage paragram);
    input_sets: the same for every declared dataset (the input checks section).
    """
    if part not in REPORT_PARTS:
        raise ValueError(f"report part {part!r} is not one of {', '.join(REPORT_PARTS)}")
    results = part == "results"
    settings = config["report"]
    all_runs = list(config["runs"])
    runs = headline_runs(config) if results else study_runs(config)
    paragram_runs = {run: entry["model"] for run, entry in config["runs"].items() if entry["stage"] == "paragram"}
    fusion_runs = [run for run, entry in config["runs"].items() if entry["stage"] == "fusion"]
    headline_fusion_runs = [run for run in fusion_runs if run in runs] if results else []
    plan = {"part": part, "runs": runs, "scores": {run: f"results/scores/{run}.parquet" for run in runs},
            "test_sets": test_sets, "input_sets": (input_sets or []) if results else [],
            "predictions": {run: [f"results/predictions/{run}/{t['year']}/{t['dataset']}.txt" for t in test_sets]
                            for run in settings["scatter_runs"] if run in runs} if results else {},
            "fusion_dev": {}, "importances": {}, "ablation": {}, "unknown_words": {}, "epochs": {},
            "vectors": {}, "paper_systems": {run: system for run, system in settings["paper_systems"].items()
                                             if run in runs},
            "waiting": [], "studies": []}

    def wire(key, rule, path, section, wanted=True, why="", study=False):
        """A table goes in when its rule exists and a configured run makes it relevant; a study's
        table only in the studies part (the results part names it), any other only in the results part."""
        relevant = has_rule(rule) and wanted
        plan[key] = path if relevant and study != results else None
        if relevant and study and results:
            plan["studies"].append(section)
        elif not relevant and study != results:
            plan["waiting"].append(f"{section}: needs rule `{rule}`" + (f" and {why}" if why else ""))

    comparisons = run_comparisons(config, study=not results)
    rule, name = COMPARISONS[not results]
    wire("comparisons", rule, f"results/scores/{name}.parquet", "Which differences are significant",
         bool(comparisons), "runs to compare (`scoring.compare`)", study=not results)
    wire("language", "language_report", "results/language/accuracy.parquet", "Language identification")
    dev_table_run = config.get("fusion", {}).get("dev_table", {}).get("run")
    wire("dev_table", "fusion_dev_table", "results/fusion/dev_table.parquet",
         "Table 1 analog (dev protocol on the 2015 sets)", dev_table_run in all_runs,
         f"its fusion run ({dev_table_run}) in `runs:`", study=True)
    wire("threshold_sweep", "paragram_threshold_sweep", "results/paragram/threshold_sweep.parquet",
         "Gold-threshold sweep", bool(paragram_runs), "a paragram run in `runs:`", study=True)
    wire("sources", "paragram_source_comparison", "results/paragram/sources.parquet",
         "Word-vector sources, untuned", bool(paragram_runs), "a paragram run in `runs:`", study=True)
    wire("dev_check", "synthetic_dev_check", "results/synthetic/dev_check.parquet",
         "Synthetic-pair dev check (2015)", "synthetic" in all_runs, "the run `synthetic` in `runs:`", study=True)
    tuned_runs = [run for run, entry in config["runs"].items() if entry["stage"] == "encoder" and entry.get("model")]
    wire("encoder_dev_check", "encoder_tuning_dev_check", "results/encoder_tuning/dev_check.parquet",
         "Fine-tuned encoder dev check (2015)", bool(tuned_runs), "a tuned encoder run in `runs:`", study=True)
    wire("mt_comparison", "crosslingual_mt_comparison", "results/crosslingual/mt_comparison.parquet",
         "Cross-lingual scores by translation of s1", study=True)
    if has_rule("fusion_fit") and fusion_runs:
        for run in headline_fusion_runs:
            plan["fusion_dev"][run] = f"results/fusion/{run}/dev.parquet"
            plan["importances"][run] = f"results/fusion/{run}/importances.parquet"
        if has_rule("fusion_ablation"):
            if results:
                plan["studies"].append("Feature-group ablation of the fusion runs")
            else:
                plan["ablation"] = {run: f"results/fusion/{run}/ablation.parquet" for run in fusion_runs}
    elif results:
        plan["waiting"].append("Table 4 analog (Gini importances) and ablation: needs rule `fusion_fit` "
                               "and a fusion run in `runs:`")
    if has_rule("paragram_unknown_words") and paragram_runs:
        if results:
            plan["unknown_words"] = {model: f"results/paragram/{model}/unknown_words.parquet"
                                     for model in dict.fromkeys(paragram_runs.values())}
    elif results:
        plan["waiting"].append("Table 5 analog (% unknown words): needs rule `paragram_unknown_words` "
                               "and a paragram run in `runs:`")
    if has_rule("paragram_train") and resolve_model is not None:
        curve_models = [model for run, models in settings["training_curves"].items() if run in all_runs
                        for model in models]
        for model in dict.fromkeys(curve_models):
            try:
                resolve_model(model)
            except KeyError:
                raise ValueError(f"config.yaml: report.training_curves names {model!r}, "
                                 "which is not a model in paragram.models") from None
            if results:
                plan["epochs"][model] = f"resources/models/{model}.epochs.parquet"
        sources = {resolve_model(model)["vectors"] for model in paragram_runs.values()}
    else:
        if results:
            plan["waiting"].append("Training curves: needs rule `paragram_train`")
        sources = set()
    if fusion_runs and "features" in config:
        sources.add(config["features"]["vectors"])
    plan["vectors"] = {source: f"resources/vectors/{source}.parquet" for source in sorted(sources)}
    return plan


def plan_files(plan: dict) -> dict[str, list[str]]:
    """The plan's files by section (the rule's named inputs; empty sections left out)."""
    files = {"scores": list(plan["scores"].values()),
             "pairs": list(dict.fromkeys([t["pairs"] for t in plan["test_sets"]] + [t["pairs"] for t in plan["input_sets"]])),
             "predictions": [path for paths in plan["predictions"].values() for path in paths],
             "studies": [plan[key] for key in ("comparisons", "dev_table", "threshold_sweep", "sources", "language", "dev_check",
                                               "encoder_dev_check", "mt_comparison") if plan[key]]}
    for key in ("fusion_dev", "importances", "ablation", "unknown_words", "epochs", "vectors"):
        files[key] = list(plan[key].values())
    return {key: paths for key, paths in files.items() if paths}


def seeds(config, path: str = "") -> list[tuple[str, object]]:
    """Every key named ``seed`` in the config, with its dotted path."""
    found = []
    if isinstance(config, dict):
        for key, value in config.items():
            where = f"{path}.{key}" if path else str(key)
            found += [(where, value)] if key == "seed" else seeds(value, where)
    elif isinstance(config, list):
        for index, value in enumerate(config):
            found += seeds(value, f"{path}[{index}]")
    return found


# --- tables ----------------------------------------------------------------------------------

def score_columns(test_sets: list[dict], track: str) -> list[str]:
    """The track's 2016 datasets in config order, then ALL."""
    return [t["dataset"] for t in test_sets if t["track"] == track and t["year"] == TEST_YEAR] + ["ALL"]


def scores_section(scores: dict[str, pd.DataFrame], paper_systems: dict[str, str], test_sets: list[dict]) -> str:
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
    references += [("2016 best (per column, any team)", BEST_2016_EN), ("2016 median team", MEDIAN_2016_EN),
                   ("organizers' baseline (official)", ORGANIZERS_BASELINE_2016_EN)]
    en_rows += [[name, *[values.get(c, "—") for c in english], "", ""] for name, values in references]
    es_rows = [[f"**{run}**", *pearsons(table, "es-en", crosslingual)] for run, table in scores.items()]
    es_rows += [[f"paper: cross-lingual {name}", *["—"] * (len(crosslingual) - 1), value]
                for name, value in PAPER_ES_EN_ALL.items()]
    parts = []
    if len(english) > 1:
        parts.append("## STS 2016 English (Pearson r)\n\nOur runs in bold; ALL is the pair-weighted mean, as the "
                     "task scored it. *paper ALL*: the figure Hokamp & Arora (2016) report for the system with the "
                     "same recipe (`report.paper_systems`); Δ = ours − paper.\n\n"
                     + markdown_table(["system", *english, "paper ALL", "Δ"], en_rows))
    if len(crosslingual) > 1:
        parts.append("## STS 2016 Spanish–English (Pearson r)\n\nALL is the pair-weighted mean of the two sets.\n\n"
                     + markdown_table(["system", *crosslingual], es_rows))
    return "\n".join(parts + [other_groups_section(scores)]).strip() + "\n"


def other_groups_section(scores: dict[str, pd.DataFrame]) -> str:
    """Pearson / Spearman per test set of every group other than the 2016 sets (e.g. STS Benchmark)."""
    shown = {run: table[table["year"].ne(TEST_YEAR).fillna(True) & ~table["dataset"].isin(AGGREGATES[1:])]
             .set_index(["track", "group", "dataset"]) for run, table in scores.items()}
    parts = []
    for track, group in dict.fromkeys((t, g) for table in shown.values() for t, g, _ in table.index):
        columns = list(dict.fromkeys(d for table in shown.values() for t, g, d in table.index
                                     if (t, g) == (track, group)))
        rows = [[f"**{run}**", *[f"{table.loc[(track, group, c), 'pearson']:.4f} / "
                                  f"{table.loc[(track, group, c), 'spearman']:.4f}"
                                  if (track, group, c) in table.index else None for c in columns]]
                for run, table in shown.items()]
        parts.append(f"## {group} ({track}): Pearson / Spearman\n\nALL is the official pair-weighted mean.\n\n"
                     + markdown_table(["system", *columns], rows))
    return "\n".join(parts)


def conventions_section(scores: dict[str, pd.DataFrame]) -> str:
    """Every run's ALL per track and group in the three conventions, Pearson and Spearman, with the
    official ALL's bootstrap interval (stsynth.scoring)."""
    rows = []
    for run, table in scores.items():
        aggregates = table[table["dataset"].isin(AGGREGATES)]
        for (track, group), part in aggregates.groupby(["track", "group"], sort=False):
            by = part.set_index("dataset")
            official = by.loc[AGGREGATES[0]]
            interval = {metric: f"[{official[f'{metric}_ci_low']:.4f}, {official[f'{metric}_ci_high']:.4f}]"
                        if pd.notna(official[f"{metric}_ci_low"]) else None for metric in ("pearson", "spearman")}
            rows.append([f"**{run}**", track, str(group), official["pearson"], interval["pearson"],
                         official["spearman"], interval["spearman"],
                         by.loc[AGGREGATES[1], "pearson"], by.loc[AGGREGATES[1], "spearman"],
                         by.loc[AGGREGATES[2], "pearson"], by.loc[AGGREGATES[2], "spearman"]])
    return ("## Every run, every convention\n\nALL: official (per-dataset correlations weighted by scored "
            "pairs), with its 95% bootstrap intervals (pairs resampled within each dataset); mean: their plain "
            "mean (SentEval); pooled: one correlation over every scored pair of the group (MTEB, "
            "sentence-transformers). P = Pearson, S = Spearman. Per-dataset values: `results/scores/{run}.md`.\n\n"
            + markdown_table(["run", "track", "group", "ALL P", "95% CI", "ALL S", "95% CI", "mean P", "mean S",
                              "pooled P", "pooled S"], rows, "lllrrrrrrrr"))


def comparisons_section(table: pd.DataFrame) -> str:
    rows = [[row.run, row.against, row.metric, row.track, row.group, f"{row.difference:+.4f}",
             f"[{row.ci_low:+.4f}, {row.ci_high:+.4f}]", p_value_cell(row.p_value), "**yes**" if row.significant else "no"]
            for row in table.itertuples()]
    significant = int(table["significant"].sum())
    return ("## Which differences are significant\n\nPaired bootstrap of the official ALL, Pearson and Spearman "
            "(the same resampled pairs for both runs; `results/scores/`): difference = run − against, its 95% "
            f"interval, two-sided p. {significant} of {len(table)} differences have an interval that excludes 0.\n\n"
            + markdown_table(["run", "against", "metric", "track", "group", "difference", "95% CI", "p", "significant"],
                             rows, "lllllrrrl"))


def input_checks_section(counts: list[dict]) -> str:
    """Lines read per dataset, and the blank sentences kept in them (each still gets a prediction)."""
    rows = [[f"{c['year']}/{c['dataset']}", c["lines"], c["scored"], c["blank_s1"], c["blank_s2"], c["blank_scored"]]
            for c in counts]
    blank = sum(c["blank_s1"] + c["blank_s2"] for c in counts)
    return ("## Input checks\n\nLines read per dataset; *blank*: sentences that are empty or only white space, "
            "kept so that the released line still gets a prediction (logged by rule `pair_table`). "
            + (f"{blank} blank sentences in all.\n\n" if blank else "None is blank.\n\n")
            + markdown_table(["dataset", "lines", "scored", "blank s1", "blank s2", "blank, scored"],
                             [[cell if isinstance(cell, str) else str(cell) for cell in row] for row in rows]))


def dev_table_section(table: pd.DataFrame) -> str:
    columns = [c for c in table.columns if c.startswith("pearson_")]
    return ("## Table 1 analog: dev protocol on the 2015 sets (Pearson r)\n\nTrained on 2012–2014 only, "
            "scored on the 2015 sets (2016 never chooses anything).\n\n"
            + markdown_table(["system", *[c.removeprefix("pearson_") for c in columns]],
                             [[row["system"], *[row[c] for c in columns]] for _, row in table.iterrows()]))


def fusion_dev_section(dev: dict[str, pd.DataFrame]) -> str:
    rows = []
    for run, table in dev.items():
        chosen = table[table["chosen"]].iloc[0]
        rows.append([run, str(chosen.get("init", "")) or "constant", str(int(chosen["max_depth"])),
                     f"{chosen['learning_rate']:g}", f"{chosen['subsample']:g}", str(int(chosen["n_estimators"])),
                     chosen["pearson_ALL"], str(len(table))])
    return ("### Fusion hyperparameters chosen on the dev protocol\n\n"
            + markdown_table(["run", "linear start", "max_depth", "learning_rate", "subsample", "trees", "dev ALL",
                              "grid points"], rows))


def importance_section(importances: dict[str, pd.DataFrame], top: int, plots: dict[str, str]) -> str:
    parts = ["## Table 4 analog: Gini importances of the fusion regressor\n\nImportances of the trees. "
             "Where the dev protocol chose a linear start (table above), the trees fit what that line "
             "leaves, so the line's own feature counts through its coefficient (`model.npz`: "
             "`init_features`, `init_coef`) rather than here.\n"]
    for run, table in importances.items():
        ranked = table.sort_values("importance", ascending=False)
        groups = ranked.groupby("group", sort=False)["importance"].sum().sort_values(ascending=False)
        parts.append(f"### {run}\n\n![Gini importances of {run}]({plots[run]})\n\n"
                     f"Top {min(top, len(ranked))} of {len(ranked)} features:\n\n"
                     + markdown_table(["feature", "group", "importance"],
                                      [[r.feature, r.group, r.importance] for r in ranked.head(top).itertuples()])
                     + "\nBy feature group:\n\n"
                     + markdown_table(["group", "importance"], [[g, v] for g, v in groups.items()]))
    return "\n".join(parts)


def ablation_section(ablation: dict[str, pd.DataFrame]) -> str:
    parts = ["## Feature-group ablation of the fusion regressor\n\nEach group removed in turn (`none`: all "
             "features); dev = 2015 sets under the dev protocol, test = 2016 per track.\n"]
    for run, table in ablation.items():
        scores = [c for c in table.columns if c not in ("removed", "features")]
        parts.append(f"### {run}\n\n" + markdown_table(
            ["removed", "features", *scores],
            [[str(row["removed"]), str(int(row["features"])), *[row[c] for c in scores]] for _, row in table.iterrows()]))
    return "\n".join(parts)


def unknown_words_section(tables: dict[str, pd.DataFrame]) -> str:
    keyed = {model: table.set_index(table["year"].astype(str) + "/" + table["dataset"].astype(str))
             for model, table in tables.items()}
    sets = list(dict.fromkeys(name for table in keyed.values() for name in table.index))
    first = next(iter(keyed.values()))
    rows = [[name, str(int(first.loc[name, "tokens"])) if name in first.index else "—",
             *[f"{table.loc[name, 'percent']:.2f}" if name in table.index else "—" for table in keyed.values()]]
            for name in sets]
    return ("## Table 5 analog: unknown words per test set (% of tokens outside the model's vocabulary)\n\n"
            + markdown_table(["test set", "tokens", *keyed], rows))


def sweep_section(table: pd.DataFrame, plot: str) -> str:
    dev = [c for c in table.columns if c.startswith("dev_")]
    return (f"## Gold-threshold sweep (dev protocol)\n\nTraining pairs = 2012–2014 gold pairs with gold ≥ t; "
            f"Pearson on the dev sets.\n\n![threshold sweep]({plot})\n\n"
            + markdown_table(["threshold", "pairs", *[c.removeprefix("dev_") for c in dev]],
                             [[f"{row['threshold']:.2f}", str(int(row["pairs"])), *[row[c] for c in dev]]
                              for _, row in table.iterrows()]))


def training_section(epochs: dict[str, pd.DataFrame], plot: str) -> str:
    rows = []
    for model, table in epochs.items():
        last = table.iloc[-1]
        dev = "dev_ALL" in table.columns
        best = table.loc[table["dev_ALL"].idxmax()] if dev else None
        rows.append([model, str(int(last["epoch"])), str(int(last["pairs"])), last["loss"],
                     table["dev_ALL"].iloc[0] if dev else None, last["dev_ALL"] if dev else None,
                     f"{best['dev_ALL']:.4f} (epoch {int(best['epoch'])})" if dev else "—",
                     f"{table['seconds'].sum():.0f}"])
    return (f"## Training curves of the paragram models\n\nLoss: mean batch margin loss per epoch; dev: "
            f"Pearson on the model's dev sets (only models with `dev_years`).\n\n![training curves]({plot})\n\n"
            + markdown_table(["model", "epochs", "pairs", "last loss", "dev ALL epoch 0", "dev ALL last",
                              "dev ALL best", "train s"], rows))


def sources_section(table: pd.DataFrame) -> str:
    summary = table[table["dataset"] == "ALL"].pivot_table(index=["source", "variant"], columns="split",
                                                           values="pearson", sort=False)
    return ("## Word-vector sources, untuned (Pearson r, ALL)\n\n"
            + markdown_table(["source", "variant", *summary.columns],
                             [[source, variant, *row] for (source, variant), row in
                              zip(summary.index, summary.itertuples(index=False))]))


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
    return markdown_table(list(map(str, table.columns)),
                          [[cell(v, whole[c]) for c, v in zip(table.columns, row)]
                           for row in table.itertuples(index=False)])


def language_section(table: pd.DataFrame) -> str:
    return "## Language identification on the es-en sets\n\n" + plain_table(table)


def dev_check_section(table: pd.DataFrame, title: str = "Synthetic pairs on the dev protocol (paper's check: 2015 images)",
                      about: str = "Models trained on 2012-2014 gold pairs, without and with the synthetic pairs of "
                                   "the dev set named",
                      path: str = "results/synthetic/dev_check.md") -> str:
    """Dev Pearson untuned and after the last epoch (the full per-epoch table: ``path``)."""
    last = table.groupby("model", sort=False)["epoch"].transform("max")
    kept = table[(table["epoch"] == 0) | (table["epoch"] == last)].assign(
        column=lambda t: np.where(t["epoch"] == 0, "untuned", "last epoch"))
    wide = kept.pivot_table(index=["model", "dev"], columns="column", values="pearson", sort=False)
    wide = wide[["untuned", "last epoch"]].reset_index()
    return (f"## {title}\n\n{about}; dev Pearson untuned and after the last epoch (every epoch: "
            f"`{path}`).\n\n" + plain_table(wide))


def encoder_dev_check_section(table: pd.DataFrame) -> str:
    return dev_check_section(
        table, "Fine-tuned encoders on the dev protocol (2015)",
        "all-MiniLM-L6-v2 fine-tuned on 2012-2014 (gold scores, task-internal pairs, + the 2015 round trips); "
        "'untuned' is the model each starts from", "results/encoder_tuning/dev_check.md")


def mt_comparison_section(table: pd.DataFrame) -> str:
    return ("## Cross-lingual scores by translation of s1\n\n"
            "The same models, with s1 as translated by the configured MT backend (what the runs use) "
            "and as given by the third-party English MT in the released files (diagnostic only).\n\n"
            + plain_table(table))


def scatter_section(plots: dict[str, str]) -> str:
    return ("## Predicted vs gold, STS 2016 (scored pairs)\n\n"
            + "\n".join(f"### {run}\n\n![{run}: predicted vs gold]({path})\n" for run, path in plots.items()))


def report_header(plan: dict) -> str:
    target = REPORT_PARTS[plan["part"]]
    if plan["part"] == "results":
        return (f"# stsynth results\n\nBuilt by `snakemake all` (rule `report`, stsynth.report) from the run "
                f"tables; runs: {', '.join(plan['runs'])}. How the settings were chosen: `{STUDIES_COMMAND}` "
                f"→ `{REPORT_PARTS['studies']}`.\n")
    return (f"# stsynth studies: how the settings were chosen\n\nBuilt by `snakemake studies` "
            f"(`{STUDIES_COMMAND}`; rule `studies_report`, stsynth.report) into `{target}`: the dev-protocol "
            f"studies and the study runs ({', '.join(plan['runs']) or 'none'}). The headline results: "
            f"`{REPORT_PARTS['results']}`.\n")


def studies_section(studies: list[str]) -> str:
    """The results part's pointer to the studies that are built elsewhere."""
    if not studies:
        return ""
    return (f"## Studies: how the settings were chosen\n\nNot part of `snakemake all`. `{STUDIES_COMMAND}` "
            f"(`snakemake studies`) builds them into `{REPORT_PARTS['studies']}`:\n\n"
            + "".join(f"- {study}\n" for study in studies))


# --- provenance ------------------------------------------------------------------------------

def package_versions(requirements: str) -> list[list[str]]:
    rows = []
    for line in requirements.splitlines():
        line = line.split("#")[0].strip()
        match = re.match(r"([A-Za-z0-9_.\-]+)\s*(?:==\s*(\S+))?", line)
        if not line or not match:
            continue
        name, pinned = match.group(1), match.group(2) or "(unpinned)"
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            installed = "not installed"
        same = installed.split("+")[0] == pinned  # a local label (2.13.0+cpu) is the same release
        rows.append([name, pinned, installed if same else f"**{installed}**"])
    return rows


def debian_versions(packages: list[str]) -> list[list[str]]:
    rows = []
    for package in packages:
        result = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package], capture_output=True, text=True)
        rows.append([package, result.stdout.strip() if result.returncode == 0 and result.stdout.strip()
                     else "not installed"])
    return rows


def machine() -> list[list[str]]:
    memory = next((line.split()[1] for line in Path("/proc/meminfo").read_text().splitlines()
                   if line.startswith("MemTotal:")), None) if Path("/proc/meminfo").exists() else None
    try:
        import torch
        gpus = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())] \
            if torch.cuda.is_available() else []
        gpu = ", ".join(gpus) if gpus else f"none (torch {torch.__version__}: CUDA not available)"
    except ImportError:
        gpu = "unknown (torch not installed)"
    return [["CPU cores", str(os.cpu_count())],
            ["memory", f"{int(memory) / 2**20:.1f} GiB" if memory else "unknown"],
            ["GPU", gpu], ["platform", platform.platform()], ["Python", sys.version.split()[0]]]


def translation_provenance(settings: dict | None) -> list[list[str]]:
    if settings is None:
        return [["machine translation", "stage absent"]]
    from .translate import make_translator
    try:
        version = make_translator(settings).version
    except Exception as error:  # the report still records which engine was configured
        version = f"unavailable here ({type(error).__name__}: {error})"
    backend = settings["backend"]
    engine = settings[backend].get("models") or settings[backend].get("modes")
    return [["MT backend", backend], ["MT engine / models", json.dumps(engine)], ["MT version", version]]


def vector_provenance(paths: dict[str, str]) -> list[list[str]]:
    if not paths:
        return [["word vectors", "none (no configured run uses word vectors)"]]
    rows = []
    for source, path in paths.items():
        raw = (pq.read_schema(path).metadata or {}).get(b"stsynth")
        info = json.loads(raw) if raw else {}
        rows.append([f"word vectors: {source}", f"{info.get('words', '?')} words × {info.get('dim', '?')} dims; "
                     f"{json.dumps(info.get('provenance', 'no provenance recorded'))}"])
    return rows


def workflow_commit(basedir: str) -> str:
    head = subprocess.run(["git", "-C", basedir, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    if head.returncode != 0:
        return "not a git checkout"
    dirty = subprocess.run(["git", "-C", basedir, "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    return head.stdout.strip() + (" + uncommitted changes" if dirty else "")


def stage_times(benchmark_dir: str | Path, patterns: list[tuple[str, str]]) -> pd.DataFrame:
    """Wall and CPU seconds per rule from the benchmark files (rule found by its benchmark pattern).

    Schema: rule string, jobs int, wall_s float64 (sum), max_wall_s float64, cpu_s float64.
    """
    from snakemake.io import regex_from_filepattern

    compiled = [(rule, re.compile(regex_from_filepattern(pattern))) for rule, pattern in patterns]
    rows = []
    for path in sorted(Path(benchmark_dir).rglob("*.tsv")):
        relative = str(Path(benchmark_dir).name / path.relative_to(benchmark_dir))
        rule = next((rule for rule, regex in compiled if regex.match(relative)), None)
        if rule is None:
            continue
        table = pd.read_csv(path, sep="\t")
        rows.append((rule, float(table["s"].iloc[-1]), float(table["cpu_time"].iloc[-1])))
    frame = pd.DataFrame(rows, columns=["rule", "s", "cpu"])
    return (frame.groupby("rule").agg(jobs=("s", "size"), wall_s=("s", "sum"), max_wall_s=("s", "max"),
                                      cpu_s=("cpu", "sum"))
            .sort_values("wall_s", ascending=False).reset_index())


def provenance_section(*, requirements: str, debian_packages: list[str], translate: dict | None,
                       vectors: dict[str, str], seed_values: list[tuple[str, object]], times: pd.DataFrame,
                       basedir: str, started: datetime) -> str:
    facts = [["built", started.strftime("%Y-%m-%d %H:%M UTC")], ["workflow commit", workflow_commit(basedir)],
             *machine(), *translation_provenance(translate), *vector_provenance(vectors),
             ["seeds", "; ".join(f"`{path}` = {value}" for path, value in seed_values) or "none"]]
    total = times["wall_s"].sum() if len(times) else 0.0
    time_rows = [[r.rule, str(r.jobs), f"{r.wall_s:.1f}", f"{r.max_wall_s:.1f}", f"{r.cpu_s:.1f}"]
                 for r in times.itertuples()]
    return ("## Provenance\n\n" + markdown_table(["", ""], facts, "ll")
            + f"\n### Wall time per stage\n\nFrom the `benchmarks/` files (each job's last run): {len(times)} "
              f"rules, {int(times['jobs'].sum()) if len(times) else 0} jobs, {total / 60:.1f} min of job "
              "wall time in total (jobs run in parallel, so the elapsed time was shorter).\n\n"
            + markdown_table(["rule", "jobs", "wall s", "max s", "CPU s"], time_rows)
            + "\n### Python packages (requirements.txt; bold: installed version differs)\n\n"
            + markdown_table(["package", "pinned", "installed"], package_versions(requirements), "lll")
            + "\n### System packages (Debian)\n\n"
            + markdown_table(["package", "version"], debian_versions(debian_packages), "ll"))


# --- plots -----------------------------------------------------------------------------------

# --- the whole report ------------------------------------------------------------------------

def build_report(plan: dict, settings: dict, plots_dir: str | Path, *, link_prefix: str, requirements: str,
                 translate: dict | None, seed_values: list, benchmark_dir: str | Path,
                 benchmark_patterns: list[tuple[str, str]], basedir: str, threshold: float | None,
                 log) -> str:
    """Markdown of the report; writes its plots into plots_dir (linked as link_prefix/<name>.png)."""
    started = datetime.now(timezone.utc)
    plots_dir = Path(plots_dir)
    plots_dir.mkdir(parents=True, exist_ok=True)

    def plot(name: str) -> tuple[Path, str]:
        return plots_dir / f"{name}.png", f"{link_prefix}/{name}.png"

    scores = {run: pd.read_parquet(path) for run, path in plan["scores"].items()}
    log.info("read the scores of %d runs: %s", len(scores), ", ".join(scores))
    sections = [scores_section(scores, plan["paper_systems"], plan["test_sets"]), conventions_section(scores)] \
        if scores else []
    if plan["comparisons"]:
        sections.append(comparisons_section(pd.read_parquet(plan["comparisons"])))

    if plan["predictions"]:
        gold = {f"{t['year']}/{t['dataset']}": pd.read_parquet(t["pairs"])["gold"] for t in plan["test_sets"]}
        links = {}
        for run, paths in plan["predictions"].items():
            panels = []
            for (name, values), path in zip(gold.items(), paths, strict=True):
                scored = values.notna().to_numpy()
                predicted = read_predictions(path, len(values))
                panels.append((name, values.to_numpy()[scored], predicted[scored]))
            file, links[run] = plot(f"scatter-{run}")
            plot_scatter(run, panels, file)
        sections.append(scatter_section(links))
    if plan["input_sets"]:
        counts = []
        for entry in plan["input_sets"]:
            table = pd.read_parquet(entry["pairs"])
            counts.append({"year": entry["year"], "dataset": entry["dataset"], "lines": len(table),
                           "scored": int(table["gold"].notna().sum()), **blank_counts(table)})
        sections.append(input_checks_section(counts))
    if plan["dev_table"]:
        sections.append(dev_table_section(pd.read_parquet(plan["dev_table"])))
    if plan["fusion_dev"]:
        sections.append(fusion_dev_section({run: pd.read_parquet(p) for run, p in plan["fusion_dev"].items()}))
    if plan["importances"]:
        tables = {run: pd.read_parquet(p) for run, p in plan["importances"].items()}
        links = {}
        for run, table in tables.items():
            file, links[run] = plot(f"importances-{run}")
            plot_importances(table, file, f"{run}: feature importances")
        sections.append(importance_section(tables, settings["top_features"], links))
    if plan["ablation"]:
        sections.append(ablation_section({run: pd.read_parquet(p) for run, p in plan["ablation"].items()}))
    if plan["unknown_words"]:
        sections.append(unknown_words_section({m: pd.read_parquet(p) for m, p in plan["unknown_words"].items()}))
    if plan["threshold_sweep"]:
        table = pd.read_parquet(plan["threshold_sweep"])
        file, link = plot("threshold-sweep")
        plot_sweep(table, file, threshold)
        sections.append(sweep_section(table, link))
    if plan["epochs"]:
        epochs = {model: pd.read_parquet(p) for model, p in plan["epochs"].items()}
        file, link = plot("training-curves")
        plot_training(epochs, file)
        sections.append(training_section(epochs, link))
    if plan["sources"]:
        sections.append(sources_section(pd.read_parquet(plan["sources"])))
    if plan["language"]:
        sections.append(language_section(pd.read_parquet(plan["language"])))
    if plan["dev_check"]:
        sections.append(dev_check_section(pd.read_parquet(plan["dev_check"])))
    if plan["encoder_dev_check"]:
        sections.append(encoder_dev_check_section(pd.read_parquet(plan["encoder_dev_check"])))
    if plan["mt_comparison"]:
        sections.append(mt_comparison_section(pd.read_parquet(plan["mt_comparison"])))

    times = stage_times(benchmark_dir, benchmark_patterns)
    log.info("benchmarks: %d jobs of %d rules", int(times["jobs"].sum()) if len(times) else 0, len(times))
    provenance = provenance_section(requirements=requirements, debian_packages=settings["debian_packages"],
                                    translate=translate, vectors=plan["vectors"], seed_values=seed_values,
                                    times=times, basedir=basedir, started=started)
    waiting = ("## Not in this report yet\n\n" + "".join(f"- {item}\n" for item in plan["waiting"])
               if plan["waiting"] else "")
    return "\n".join([report_header(plan), provenance, *sections, studies_section(plan["studies"]),
                      waiting]).rstrip() + "\n"
