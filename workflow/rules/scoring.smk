# The official score of every run (stsynth.scoring): Pearson per test set, ALL pair-weighted.


rule score_run:
    """Pearson per test dataset and the pair-weighted mean per track and year (schema: stsynth.scoring)."""
    input:
        pairs=[pairs_path(d) for d in datasets_with(role="test")],
        predictions=lambda wc: [predictions_path(wc.run, d) for d in datasets_with(role="test")],
    output:
        table="results/scores/{run}.parquet",
        markdown="results/scores/{run}.md",
    log:
        "logs/scores/{run}.log",
    benchmark:
        "benchmarks/scores/{run}.tsv"
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    conda:
        ENV
    script:
        "../scripts/score_run.py"
