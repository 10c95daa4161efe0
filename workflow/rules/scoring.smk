# Scores of every run (stsynth.scoring): Pearson and Spearman per test set with gold, the official
# pair-weighted ALL (with its bootstrap interval), the mean and the pooled ALL; paired bootstrap
# differences between runs. Everything is computed from the prediction files.


rule score_run:
    """A run's scores on every test set with gold (schema: stsynth.scoring)."""
    input:
        pairs=[pairs_path(d) for d in SCORED_TEST_SETS],
        predictions=lambda wc: [predictions_path(wc.run, d) for d in SCORED_TEST_SETS],
    output:
        table="results/scores/{run}.parquet",
        markdown="results/scores/{run}.md",
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
        runtime=10,
    conda:
        ENV
    script:
        "../scripts/score_run.py"


rule compare_runs:
    """Paired bootstrap of the official ALL between runs (config scoring.compare; stsynth.scoring)."""
    input:
        pairs=[pairs_path(d) for d in SCORED_TEST_SETS],
        predictions=[predictions_path(run, d) for run in plan.compared_runs(config) for d in SCORED_TEST_SETS],
    output:
        table="results/scores/comparisons.parquet",
        markdown="results/scores/comparisons.md",
    params:
        comparisons=plan.run_comparisons(config),
        groups=dataset_groups(),
        bootstrap=config["scoring"]["bootstrap"],
    log:
        "logs/scores/comparisons.log",
    benchmark:
        "benchmarks/scores/comparisons.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=15,
    conda:
        ENV
    script:
        "../scripts/compare_runs.py"
