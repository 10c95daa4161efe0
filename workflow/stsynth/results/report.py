"""The results report: ``results/report.md`` and its plots ``results/report/*.png`` (and the studies
report, ``results/studies.md``), assembled from four modules:

* stsynth.results.report_plan: which files each part reads, decided from config.yaml (a section is in when
  the config declares a run of its stage and, for the optional studies, their rule);
* stsynth.results.report_sections and study_sections: one Markdown writer per section of the results and of
  the studies; the figures quoted from publications are the data file ``published_figures.yaml``, each with
  its source;
* stsynth.results.provenance: the machine, commit, MT engine, word vectors, seeds, time per rule, packages;
* this module: reads the tables, draws the plots (stsynth.results.plots), puts the sections in order.

Built by rule ``report`` / ``studies_report`` (workflow/rules/report.smk), never by hand. The report
writes no table of its own.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pandas as pd

from ..core.pairs import blank_counts
from ..core.scoring import read_predictions
from .paper_tables import sts2017_table1_markdown
from .plots import plot_importances, plot_scatter, plot_sweep, plot_training
from .provenance import logged_times, provenance_section, stage_times
from .report_sections import (
    comparisons_section,
    conventions_section,
    fusion_dev_section,
    importance_section,
    input_checks_section,
    language_section,
    report_header,
    scatter_section,
    scores_section,
    studies_section,
    training_section,
    unknown_words_section,
)
from .study_sections import (
    ablation_section,
    decisions_section,
    dev_check_section,
    dev_table_section,
    encoder_dev_check_section,
    mt_comparison_section,
    seed_study_section,
    sources_section,
    sweep_section,
)


def scatter_plots(plan: dict, plot) -> dict[str, str]:
    """One scatter plot per run of ``plan["predictions"]`` (gold against prediction per test set); run -> link."""
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
    return links


def input_counts(input_sets: list[dict]) -> list[dict]:
    """Lines, scored pairs and blank fields of every declared dataset (the input checks section)."""
    counts = []
    for entry in input_sets:
        table = pd.read_parquet(entry["pairs"])
        counts.append(
            {
                "year": entry["year"],
                "dataset": entry["dataset"],
                "lines": len(table),
                "scored": int(table["gold"].notna().sum()),
                **blank_counts(table),
            }
        )
    return counts


def build_report(
    plan: dict,
    settings: dict,
    plots_dir: str | Path,
    *,
    link_prefix: str,
    requirements: str,
    translate: dict | None,
    seed_values: list,
    benchmark_dir: str | Path,
    benchmark_patterns: list[tuple[str, str]],
    basedir: str,
    threshold: float | None,
    log,
    models: dict[str, str | None] | None = None,
    cached_rules: list[str] = (),
) -> str:
    """Markdown of the report; writes its plots into plots_dir (linked as link_prefix/<name>.png)."""
    started = datetime.now(timezone.utc)
    plots_dir = Path(plots_dir)
    plots_dir.mkdir(parents=True, exist_ok=True)

    def plot(name: str) -> tuple[Path, str]:
        return plots_dir / f"{name}.png", f"{link_prefix}/{name}.png"

    scores = {run: pd.read_parquet(path) for run, path in plan["scores"].items()}
    log.info("read the scores of %d runs: %s", len(scores), ", ".join(scores))
    sections = (
        [
            scores_section(scores, plan["paper_systems"], plan["test_sets"], plan.get("untranslated", [])),
            conventions_section(scores),
        ]
        if scores
        else []
    )
    if plan.get("paper_table1"):
        sections.append("#" + sts2017_table1_markdown(pd.read_parquet(plan["paper_table1"])))
    if plan["comparisons"]:
        sections.append(comparisons_section(pd.read_parquet(plan["comparisons"])))

    if plan["predictions"]:
        sections.append(scatter_section(scatter_plots(plan, plot)))
    if plan["input_sets"]:
        sections.append(input_checks_section(input_counts(plan["input_sets"])))
    if plan["dev_table"]:
        sections.append(dev_table_section(pd.read_parquet(plan["dev_table"]), plan["protocol"]))
    if plan["fusion_dev"] or plan["fusion_recorded"]:
        dev = {run: pd.read_parquet(p) for run, p in plan["fusion_dev"].items()}
        sections.append(fusion_dev_section(dev, plan["fusion_recorded"]))
    if plan["decisions"]:
        sections.append(decisions_section(pd.read_parquet(plan["decisions"])))
    if plan["importances"]:
        tables = {run: pd.read_parquet(p) for run, p in plan["importances"].items()}
        links = {}
        for run, table in tables.items():
            file, links[run] = plot(f"importances-{run}")
            plot_importances(table, file, f"{run}: feature importances")
        sections.append(importance_section(tables, settings["top_features"], links))
    if plan["ablation"]:
        sections.append(
            ablation_section({run: pd.read_parquet(p) for run, p in plan["ablation"].items()}, plan["protocol"])
        )
    if plan["unknown_words"]:
        sections.append(unknown_words_section({m: pd.read_parquet(p) for m, p in plan["unknown_words"].items()}))
    if plan["threshold_sweep"]:
        table = pd.read_parquet(plan["threshold_sweep"])
        file, link = plot("threshold-sweep")
        plot_sweep(table, file, threshold)
        sections.append(sweep_section(table, link, plan["protocol"]))
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
        sections.append(dev_check_section(pd.read_parquet(plan["dev_check"]), plan["protocol"]))
    if plan["encoder_dev_check"]:
        sections.append(encoder_dev_check_section(pd.read_parquet(plan["encoder_dev_check"]), plan["protocol"]))
    if plan["mt_comparison"]:
        sections.append(mt_comparison_section(pd.read_parquet(plan["mt_comparison"])))
    if plan["seed_study"]:
        sections.append(
            seed_study_section(pd.read_parquet(plan["seed_study"]), pd.read_parquet(plan["seed_study_signs"]))
        )

    times = stage_times(benchmark_dir, benchmark_patterns)
    log.info("benchmarks: %d jobs of %d rules", int(times["jobs"].sum()) if len(times) else 0, len(times))
    cached_times = logged_times(Path(benchmark_dir).parent, cached_rules)  # the working directory's .snakemake/log
    log.info("Snakemake's log: %d jobs of %d cached rules", int(cached_times["jobs"].sum()), len(cached_times))
    provenance = provenance_section(
        requirements=requirements,
        debian_packages=settings["debian_packages"],
        translate=translate,
        vectors=plan["vectors"],
        seed_values=seed_values,
        times=times,
        basedir=basedir,
        started=started,
        models=models or {},
        cached_times=cached_times,
    )
    waiting = (
        "## Not in this report yet\n\n" + "".join(f"- {item}\n" for item in plan["waiting"]) if plan["waiting"] else ""
    )
    return (
        "\n".join([report_header(plan), provenance, *sections, studies_section(plan["studies"]), waiting]).rstrip()
        + "\n"
    )
