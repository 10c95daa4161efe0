# Sentence-encoder cosines (schema: stsynth.encoder) and the zero-shot run `encoder`.
ENCODER = config["encoder"]


rule encoder_similarity:
    """all-MiniLM-L6-v2 cosine of every pair of one dataset (English sentences; es-en translated)."""
    input:
        lambda wc: english_pairs_path(dataset(wc)),
    output:
        "resources/encoder/{year}/{dataset}.parquet",
    params:
        settings=ENCODER,
    log:
        "logs/encoder/{year}/{dataset}.log",
    benchmark:
        "benchmarks/encoder/{year}/{dataset}.tsv"
    threads: ENCODER["threads"]
    resources:
        mem_mb=2000,
        runtime=60,
    conda:
        ENV
    script:
        "../scripts/encoder_similarity.py"


rule encoder_predict:
    """The zero-shot run `encoder`: 5 x cosine."""
    input:
        "resources/encoder/{year}/{dataset}.parquet",
    output:
        "results/predictions/encoder/{year}/{dataset}.txt",
    log:
        "logs/predict/encoder/{year}/{dataset}.log",
    benchmark:
        "benchmarks/predict/encoder/{year}/{dataset}.tsv"
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    conda:
        ENV
    script:
        "../scripts/encoder_predict.py"
