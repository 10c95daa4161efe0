# Input functions of scoring.smk and report.smk, the results of every run (stsynth.results), and what the
# targets all and studies build (Snakefile).


def get_dataset_groups():
    """ "year/name" -> group of every scored test set: the unit of the ALL rows (default: the year)."""
    return {f"{d.year}/{d.name}": d.group_name for d in SCORED_TEST_SETS}


def get_report_plan(part="results"):
    """What a report part reads (stsynth.results.report_plan, from the config alone)."""
    sets = [{"year": d.year, "dataset": d.name, "track": d.track, "pairs": pairs_path(d)} for d in ALL_DATASETS]
    tests = [entry for entry, d in zip(sets, ALL_DATASETS) if d.role == "test" and d.has_gold]
    return stsynth_report_plan.report_plan(config, tests, get_paragram_model, sets, part)


# Run -> what its model card says (stsynth.results.model_card), for every run whose model the pipeline made.
CARD_FACTS = {run: model_card.card_facts(config, run) for run in config["runs"] if model_card.model_folder(config, run)}


def get_card_base(run):
    """[the named encoder a run's model was fine-tuned from, its files' identity], or None."""
    base = model_card.base_encoder(config, run)
    return [base, get_model_identity(base)] if base else None


def get_run_outputs(runs):
    """Each run's predictions on every test set (predict sets too), its score tables and, for a run
    whose model the pipeline made, that model released with its card."""
    return [
        *[predictions_path(run, d) for run in runs for d in TEST_SETS],
        *[paths.scores_path(run, suffix) for run in runs for suffix in ("parquet", "md")],
        *[paths.release_folder(run) for run in runs if run in CARD_FACTS],
    ]


def get_results_targets():
    """`snakemake all`: every headline run, its scores, the comparisons between them, the paragram
    runs' exported models and the results report."""
    runs = headline_runs(config)
    return [
        *[tokens_path(d) for d in ALL_DATASETS],
        *get_run_outputs(runs),
        *([paths.scores_path(COMPARISONS[False][1], "md")] if run_comparisons(config, study=False) else []),
        # every paragram run's model as a sentence-transformers folder, checked against the pipeline
        *[
            paths.paragram_result_path(RUNS[run].model, "export_check.md")
            for run in runs
            if RUNS[run].stage == "paragram"
        ],
        # each run on the tasks MTEB knows (the 2016 English sets: its STS16) as MTEB TaskResult JSON
        *[path for run in runs for path in get_run_mteb_files(run)],
        # the SemEval-2017 system's Table 1 beside the paper's, when the config maps runs to its rows
        *([paths.PAPER_TABLES["sts2017_table1"] + ".md"] if config["report"]["paper_table1"] else []),
        paths.REPORT_PARTS["results"],
    ]


def get_study_targets():
    """`snakemake studies`: the study runs, the dev searches of the settings the config records (and whether
    they still choose them), every table that shows how a setting was chosen (stsynth.results.report_plan,
    part studies) in results/studies.md, and the seeded fusions' importance spreads (rule seed_study_importances)."""
    recorded = [paths.STUDY_TABLES["decisions"]] if RECORDED_FUSIONS else []
    importances = [paths.seed_study_importances_path(run) for run in SEED_STUDY_FUSIONS]
    return [*get_run_outputs(study_runs(config)), *recorded, *importances, paths.REPORT_PARTS["studies"]]
