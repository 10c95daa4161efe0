rule baseline_predict:
    """The organizers' baseline: binary bag-of-words cosine over whitespace tokens."""
    input:
        "resources/pairs/{year}/{dataset}.parquet",
    output:
        "results/predictions/baseline/{year}/{dataset}.txt",
    log:
        "logs/predict/baseline/{year}/{dataset}.log",
    benchmark:
        "benchmarks/predict/baseline/{year}/{dataset}.tsv"
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    conda:
        ENV
    script:
        "../scripts/baseline_predict.py"
