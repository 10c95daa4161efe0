# Every run's predictions, one job per run: results/predictions/{run}/{year}/{dataset}.txt for
# every test set, from the table its stage wrote (config `runs:` -> stsynth.pipeline.runs.run_source).


rule predict:
    """A run's predictions on every test set (stsynth.results.predict): baseline, 5 x cosine, or the fusion's."""
    input:
        pairs=[pairs_path(d) for d in TEST_SETS],
        sources=lambda wc: run_sources(RUNS[wc.run], TEST_SETS),
    output:
        [predictions_path("{run}", d) for d in TEST_SETS],
    log:
        paths.log_path("predict/{run}"),
    benchmark:
        paths.benchmark_path("predict/{run}")
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=500,
        runtime=attempt_minutes(5),
    params:
        stage=lambda wc: RUNS[wc.run].stage,
        # an external run's files by their contents (their sha256, locked in results/datasets.lock.tsv), not their mtimes
        sha256=lambda wc: {f: LOCAL_SHA256[f] for f in run_sources(RUNS[wc.run], TEST_SETS) if f in LOCAL_SHA256},
        code=get_code_digest("predict.py"),
    script:
        "../scripts/predict.py"
