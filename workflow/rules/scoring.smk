# Scores of every run (stsynth.scoring): Pearson and Spearman per test set with gold, the official
# pair-weighted ALL (with its bootstrap interval), the mean and the pooled ALL; paired bootstrap
# differences between runs. Everything is computed from the prediction files.


rule score_run:
    """A run's scores on every test set with gold (schema: stsynth.scoring)."""
    input:
        pairs=[pairs_path(d) for d in SCORED_TEST_SETS],
        predictions=lambda wc: [predictions_path(wc.run, d) for d in SCORED_TEST_SETS],
    output:
        table=paths.scores_path("{run}", "parquet"),
        markdown=paths.scores_path("{run}", "md"),
    params:
        groups=dataset_groups(),
        bootstrap=config["scoring"]["bootstrap"],
    log:
        "logs/scores/{run}.log",
    benchmark:
        "benchmarks/scores/{run}.tsv"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=attempt_minutes(10),
    conda:
        ENV
    script:
        "../scripts/score_run.py"


# Paired bootstrap of the official ALL between runs (config scoring.compare; stsynth.scoring): one job
# for the comparisons between headline runs (`all`), one for those with a study run (`studies`).
for _study, (_rule, _name) in plan.COMPARISONS.items():
    if not plan.run_comparisons(config, _study):
        continue

    rule:
        name:
            "compare_study_runs" if _study else "compare_runs"  # = _rule (the conventions test reads names here)
        input:
            pairs=[pairs_path(d) for d in SCORED_TEST_SETS],
            predictions=[predictions_path(run, d) for run in plan.compared_runs(config, _study)
                         for d in SCORED_TEST_SETS],
        output:
            table=paths.scores_path(_name, "parquet"),
            markdown=paths.scores_path(_name, "md"),
        params:
            comparisons=plan.run_comparisons(config, _study),
            groups=dataset_groups(),
            bootstrap=config["scoring"]["bootstrap"],
        log:
            f"logs/scores/{_name}.log",
        benchmark:
            f"benchmarks/scores/{_name}.tsv"
        threads: 1
        resources:
            mem_mb=2000,
            runtime=attempt_minutes(15),
        conda:
            ENV
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
    params:
        comparisons=lambda wc: [[wc.run, wc.against]],
        groups=dataset_groups(),
        bootstrap=config["scoring"]["bootstrap"],
    wildcard_constraints:
        against=_alternatives(RUNS),
    log:
        "logs/scores/compare/{run}/{against}.log",
    benchmark:
        "benchmarks/scores/compare/{run}/{against}.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=attempt_minutes(15),
    conda:
        ENV
    script:
        "../scripts/compare_runs.py"
