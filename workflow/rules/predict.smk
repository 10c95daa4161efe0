# Every run's predictions, one job per run: results/predictions/{run}/{year}/{dataset}.txt for
# every test set, from the table its stage wrote (config `runs:` -> stsynth.plan.run_source).


rule predict:
    """A run's predictions on every test set (stsynth.predict): baseline, 5 x cosine, or the fusion's."""
    input:
        pairs=[pairs_path(d) for d in TEST_SETS],
        sources=lambda wc: [plan.run_source(RUNS[wc.run], d) for d in TEST_SETS],
    output:
        [predictions_path("{run}", d) for d in TEST_SETS],
    log:
        "logs/predict/{run}.log",
    benchmark:
        "benchmarks/predict/{run}.tsv"
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=500,
        runtime=attempt_minutes(5),
    params:
        stage=lambda wc: RUNS[wc.run].stage,
    script:
        "../scripts/predict.py"
