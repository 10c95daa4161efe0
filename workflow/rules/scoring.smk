# Scores of every run (stsynth.core.scoring): Pearson and Spearman per test set with gold, the official
# pair-weighted ALL (with its bootstrap interval), the mean and the pooled ALL; paired bootstrap
# differences between runs. Everything is computed from the prediction files.


rule score_run:
    """A run's scores on every test set with gold (schema: stsynth.core.scoring)."""
    input:
        pairs=[pairs_path(d) for d in SCORED_TEST_SETS],
        predictions=lambda wc: [predictions_path(wc.run, d) for d in SCORED_TEST_SETS],
    output:
        table=paths.scores_path("{run}", "parquet"),
        markdown=paths.scores_path("{run}", "md"),
    log:
        paths.log_path("scores/{run}"),
    benchmark:
        paths.benchmark_path("scores/{run}")
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=attempt_minutes(10),
    params:
        groups=get_dataset_groups(),
        bootstrap=config["scoring"]["bootstrap"],
        # es-en sides compared as given: the organizers' baseline (said under its table)
        untranslated=lambda wc: RUNS[wc.run].stage == "baseline",
        code=get_code_digest("score_run.py"),
    script:
        "../scripts/score_run.py"


# Paired bootstrap of the official ALL between runs (config scoring.compare; stsynth.core.scoring): one job
# for the comparisons between headline runs (`all`), one for those with a study run (`studies`).
# This loop makes the rules `compare_runs` (headline runs, target all) and `compare_study_runs` (pairs
# with a study run, target studies), each only when the config has such pairs (stsynth.pipeline.runs.COMPARISONS).
for _study, (_rule, _name) in COMPARISONS.items():
    if not run_comparisons(config, _study):
        continue

    rule:
        name:
            "compare_study_runs" if _study else "compare_runs"  # = _rule (the conventions test reads names here)
        input:
            pairs=[pairs_path(d) for d in SCORED_TEST_SETS],
            predictions=[predictions_path(run, d) for run in compared_runs(config, _study) for d in SCORED_TEST_SETS],
        output:
            table=paths.scores_path(_name, "parquet"),
            markdown=paths.scores_path(_name, "md"),
        log:
            paths.log_path(f"scores/{_name}"),
        benchmark:
            paths.benchmark_path(f"scores/{_name}")
        conda:
            ENV
        threads: 1
        resources:
            mem_mb=2000,
            runtime=attempt_minutes(15),
        params:
            comparisons=run_comparisons(config, _study),
            groups=get_dataset_groups(),
            bootstrap=config["scoring"]["bootstrap"],
            code=get_code_digest("compare_runs.py"),
        script:
            "../scripts/compare_runs.py"


rule compare_two_runs:
    """The paired bootstrap of any two runs, on demand: results/scores/compare/{run}/{against}.md
    (Pearson and Spearman ALLs, run minus against), without building the other runs."""
    input:
        pairs=[pairs_path(d) for d in SCORED_TEST_SETS],
        predictions=lambda wc: [predictions_path(run, d) for run in (wc.run, wc.against) for d in SCORED_TEST_SETS],
    output:
        table=paths.scores_path("compare/{run}/{against}", "parquet"),
        markdown=paths.scores_path("compare/{run}/{against}", "md"),
    log:
        paths.log_path("scores/compare/{run}/{against}"),
    benchmark:
        paths.benchmark_path("scores/compare/{run}/{against}")
    wildcard_constraints:
        against=_alternatives(RUNS),
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=2000,
        runtime=attempt_minutes(15),
    params:
        comparisons=lambda wc: [[wc.run, wc.against]],
        groups=get_dataset_groups(),
        bootstrap=config["scoring"]["bootstrap"],
        code=get_code_digest("compare_runs.py"),
    script:
        "../scripts/compare_runs.py"


SEED_STUDY = plan.seed_study_runs(config)
SEED_STUDY_PAIRS = plan.seed_study_pairs(config)
# the compared runs no seed reaches (the same figure on every seed)
SEED_STUDY_OTHERS = list(dict.fromkeys(run for pair in SEED_STUDY_PAIRS for run in pair if run not in SEED_STUDY))


if OPTIONAL_RULES["seed_study"]:

    rule seed_study:
        """The training spread (config seed_study; stsynth.results.seed_study): each studied run's figures over
        its seed runs, and whether the compared pairs keep their sign on every seed."""
        input:
            headline=[paths.scores_path(run) for run in SEED_STUDY],
            seeded=[paths.scores_path(seeded) for runs in SEED_STUDY.values() for seeded in runs],
            others=[paths.scores_path(run) for run in SEED_STUDY_OTHERS],
        output:
            table=paths.STUDY_TABLES["seed_study"],
            signs=paths.SEED_STUDY_SIGNS,
            markdown=paths.study_file("seed_study"),
        log:
            paths.log_path("seed_study"),
        benchmark:
            paths.benchmark_path("seed_study")
        conda:
            ENV
        threads: 1
        resources:
            mem_mb=1000,
            runtime=attempt_minutes(5),
        params:
            runs=SEED_STUDY,
            others=SEED_STUDY_OTHERS,
            pairs=SEED_STUDY_PAIRS,
            code=get_code_digest("seed_study.py"),
        script:
            "../scripts/seed_study.py"


# The spread of each seeded fusion run's feature importances (stsynth.results.seed_study.importance_spread): how far
# apart two features' Gini must be for their order in DCU Table 4 to hold.
SEED_STUDY_FUSIONS = [run for run in SEED_STUDY if RUNS[run].stage == "fusion"]
if SEED_STUDY_FUSIONS:

    rule seed_study_importances:
        """A seeded fusion run's feature importances over its seeds (stsynth.results.seed_study)."""
        input:
            headline=paths.fusion_path("{run}", "importances.parquet"),
            seeded=lambda wc: [paths.fusion_path(seeded, "importances.parquet") for seeded in SEED_STUDY[wc.run]],
        output:
            table=paths.seed_study_importances_path("{run}"),
            markdown=paths.seed_study_importances_path("{run}", ".md"),
        log:
            paths.log_path("seed_study/importances/{run}"),
        benchmark:
            paths.benchmark_path("seed_study/importances/{run}")
        wildcard_constraints:
            run="|".join(re.escape(run) for run in SEED_STUDY_FUSIONS),
        conda:
            ENV
        threads: 1
        resources:
            mem_mb=500,
            runtime=attempt_minutes(5),
        params:
            code=get_code_digest("seed_study_importances.py"),
        script:
            "../scripts/seed_study_importances.py"
