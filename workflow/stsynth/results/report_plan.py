"""What each part of the report reads, decided from config.yaml when the workflow is parsed.

Two parts: ``results`` (``results/report.md``, built by ``all``) and ``studies``
(``results/studies.md``, built by ``studies``). A section is in when the config has what it
needs (a run of its stage, the dataset or setting its rule is declared for); every path comes
from stsynth.core.paths, which datasets and models from stsynth.pipeline.plan.
"""

from __future__ import annotations

from ..core.paths import (
    PAPER_TABLES,
    REPORT_PARTS,
    SEED_STUDY_SIGNS,
    STUDY_TABLES,
    epochs_path,
    fusion_path,
    paragram_result_path,
    predictions_file,
    scores_path,
    vectors_path,
)
from ..pipeline.plan import optional_rules
from ..pipeline.protocol import protocol_words
from ..pipeline.runs import COMPARISONS, headline_runs, run_comparisons, runs_of, study_runs

STUDIES_COMMAND = "make studies"


def report_plan(
    config: dict, test_sets: list[dict], resolve_model=None, input_sets: list[dict] | None = None, part: str = "results"
) -> dict:
    """Every file one part of the report reads, by section, for the configured runs and the stages present.

    part: ``results`` (``results/report.md``, built by ``all``: the headline runs, their comparisons,
    the fusion runs' own dev choices and importances, training curves, unknown words, language
    identification) or ``studies`` (``results/studies.md``, built by ``studies``: the runs marked
    ``study: true``, their comparisons, and the tables that show how settings were chosen). The
    results part names each study and the command that builds it.
    A section is in when the config declares what it needs: the stage's runs, and for the studies
    whose rule the config may leave out (stsynth.pipeline.plan.optional_rules) that rule. test_sets: {year,
    dataset, track, pairs} per test dataset; resolve_model(name): a paragram model's settings
    (None: no training curves, no word-vector provenance); input_sets: the same for every declared
    dataset (the input checks section).
    """
    if part not in REPORT_PARTS:
        raise ValueError(f"report part {part!r} is not one of {', '.join(REPORT_PARTS)}")
    results = part == "results"
    settings = config["report"]
    runs = headline_runs(config) if results else study_runs(config)
    plan = {
        "part": part,
        "protocol": protocol_words(config),  # the studies' titles name its sets
        "runs": runs,
        "scores": {run: scores_path(run) for run in runs},
        "test_sets": test_sets,
        "input_sets": (input_sets or []) if results else [],
        "predictions": {
            run: [predictions_file(run, t["year"], t["dataset"]) for t in test_sets]
            for run in settings["scatter_runs"]
            if run in runs
        }
        if results
        else {},
        "fusion_dev": {},
        "fusion_recorded": {},  # fusion runs whose settings are recorded (config/decisions/<protocol>.yaml) -> them
        "decisions": None,  # the studies' check of the recorded settings
        "importances": {},
        "ablation": {},
        "unknown_words": {},
        "epochs": {},
        "vectors": {},
        "paper_systems": {run: system for run, system in settings["paper_systems"].items() if run in runs},
        # runs whose es-en scores compare the Spanish side untranslated (the organizers' baseline)
        "untranslated": [name for name, run in runs_of(config).items() if name in runs and run.stage == "baseline"],
        "waiting": [],
        "studies": [],
        # the SemEval-2017 system's Table 1 beside the paper's (when the config maps runs to its rows)
        "paper_table1": PAPER_TABLES["sts2017_table1"] + ".parquet"
        if results and settings.get("paper_table1")
        else None,
    }

    _study_tables(plan, config, results)
    _stage_tables(plan, config, results, resolve_model)
    return plan


def _study_tables(plan: dict, config: dict, results: bool) -> None:
    """The comparisons and the study tables: in the studies part, or named by the results part."""
    declared = optional_rules(config)
    dev = plan["protocol"]["dev"]  # the sets that choose, as the studies' own titles name them
    all_runs = list(config["runs"])
    paragram_runs = [run for run, entry in config["runs"].items() if entry["stage"] == "paragram"]

    def wire(key, section, wanted, why, rule=None, study=False):
        """A table goes in when the config makes it relevant (``wanted``) and declares its rule (``rule``:
        one of stsynth.pipeline.plan.optional_rules); a study's table only in the studies part (the results part
        names it), any other only in the results part."""
        relevant = wanted and declared.get(rule, True)
        plan[key] = STUDY_TABLES[key] if relevant and study != results else None
        if relevant and study and results:
            plan["studies"].append(section)
        elif not relevant and study != results:
            plan["waiting"].append(f"{section}: needs {why}")

    # the part's own comparisons (between headline runs, or those with a study run): never a study of the other part
    comparisons = run_comparisons(config, study=not results)
    plan["comparisons"] = scores_path(COMPARISONS[not results][1]) if comparisons else None
    if not comparisons:
        plan["waiting"].append("Which differences are significant: needs runs to compare (`scoring.compare`)")
    wire("language", "Language identification", True, "an es-en dataset", "language_report")
    dev_table_run = config.get("fusion", {}).get("dev_table", {}).get("run")
    wire(
        "dev_table",
        f"Table 1 analog (dev protocol on the {dev} sets)",
        dev_table_run in all_runs,
        f"its fusion run ({dev_table_run}) in `runs:`",
        study=True,
    )
    wire("threshold_sweep", "Gold-threshold sweep", bool(paragram_runs), "a paragram run in `runs:`", study=True)
    wire("sources", "Word-vector sources, untuned", bool(paragram_runs), "a paragram run in `runs:`", study=True)
    wire(
        "dev_check",
        f"Synthetic-pair dev check ({dev})",
        "synthetic" in all_runs,
        "the run `synthetic` in `runs:`",
        study=True,
    )
    tuned_runs = [run for run, entry in config["runs"].items() if entry["stage"] == "encoder" and entry.get("model")]
    wire(
        "encoder_dev_check",
        f"Fine-tuned encoder dev check ({dev})",
        bool(tuned_runs),
        "a tuned encoder run in `runs:` and models in `encoder.tuning.dev_check`",
        "encoder_tuning_dev_check",
        study=True,
    )
    wire("seed_study", "Training spread (seed study)", True, "runs and seeds in `seed_study`", "seed_study", study=True)
    plan["seed_study_signs"] = SEED_STUDY_SIGNS if plan["seed_study"] else None  # the same rule's second table
    wire(
        "mt_comparison",
        "Cross-lingual scores by translation of s1",
        True,
        "an es-en test set with the third-party translation (`crosslingual.reference_translation`)",
        "crosslingual_mt_comparison",
        study=True,
    )


def _stage_tables(plan: dict, config: dict, results: bool, resolve_model) -> None:
    """The fusion runs' dev choices, importances and ablations, the paragram runs' unknown words and
    training curves, and the word-vector sources behind them."""
    settings, all_runs = config["report"], list(config["runs"])
    paragram_runs = {run: entry["model"] for run, entry in config["runs"].items() if entry["stage"] == "paragram"}
    fusion_runs = [run for run, entry in config["runs"].items() if entry["stage"] == "fusion"]
    if fusion_runs:
        recorded = {name: run.chosen_settings() for name, run in runs_of(config).items() if name in fusion_runs}
        for run in [run for run in fusion_runs if run in plan["runs"]] if results else []:
            if recorded[run] is None:  # searched at build time
                plan["fusion_dev"][run] = fusion_path(run, "dev.parquet")
            else:
                plan["fusion_recorded"][run] = recorded[run]
            plan["importances"][run] = fusion_path(run, "importances.parquet")
        if results:
            plan["studies"].append("Feature-group ablation of the fusion runs")
            if plan["fusion_recorded"]:
                plan["studies"].append("The fusion runs' dev searches, against their recorded settings")
        else:
            plan["ablation"] = {run: fusion_path(run, "ablation.parquet") for run in fusion_runs}
            plan["fusion_dev"] = {run: fusion_path(run, "dev.parquet") for run in fusion_runs}
            plan["decisions"] = STUDY_TABLES["decisions"] if any(recorded.values()) else None
    elif results:
        plan["waiting"].append("Table 4 analog (Gini importances) and ablation: needs a fusion run in `runs:`")
    if paragram_runs:
        if results:
            plan["unknown_words"] = {
                model: paragram_result_path(model, "unknown_words.parquet")
                for model in dict.fromkeys(paragram_runs.values())
            }
    elif results:
        plan["waiting"].append("Table 5 analog (% unknown words): needs a paragram run in `runs:`")
    sources = set()
    if resolve_model is not None:
        curve_models = [
            model for run, models in settings["training_curves"].items() if run in all_runs for model in models
        ]
        for model in dict.fromkeys(curve_models):
            try:
                resolve_model(model)
            except KeyError:
                raise ValueError(
                    f"config.yaml: report.training_curves names {model!r}, which is not a model in paragram.models"
                ) from None
            # the results: the curves of the models `all` trains; the studies: the dev protocol's
            if (model in paragram_runs.values()) == results:
                plan["epochs"][model] = epochs_path(model)
        sources = {resolve_model(model)["vectors"] for model in paragram_runs.values()}
    if fusion_runs and "features" in config:
        sources.add(config["features"]["vectors"])
    plan["vectors"] = {source: vectors_path(source) for source in sorted(sources)}


def plan_files(plan: dict) -> dict[str, list[str]]:
    """The plan's files by section (the rule's named inputs; empty sections left out)."""
    files = {
        "scores": list(plan["scores"].values()),
        "pairs": list(
            dict.fromkeys([t["pairs"] for t in plan["test_sets"]] + [t["pairs"] for t in plan["input_sets"]])
        ),
        "predictions": [path for paths in plan["predictions"].values() for path in paths],
        "studies": [
            plan[key]
            for key in (
                "comparisons",
                "dev_table",
                "threshold_sweep",
                "sources",
                "language",
                "dev_check",
                "encoder_dev_check",
                "mt_comparison",
                "seed_study",
                "seed_study_signs",
                "decisions",
            )
            if plan[key]
        ],
        "papers": [plan["paper_table1"]] if plan.get("paper_table1") else [],
    }
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
