# Sentence-encoder similarities (schema: stsynth.encoder): pooled cosine and token-level F1.
ENCODER = config["encoder"]


rule encoder_similarity:
    """all-MiniLM-L6-v2 cosine and token F1 of every pair of every declared dataset (English
    sentences; es-en translated), in one job: the model loads once."""
    input:
        [english_pairs_path(d) for d in ALL_DATASETS],
    output:
        [encoder_path(d) for d in ALL_DATASETS],
    params:
        settings=ENCODER,
    log:
        "logs/encoder/encoder.log",
    benchmark:
        "benchmarks/encoder/encoder.tsv"
    priority: 10  # one long job: started early, it runs beside the paragram trainings
    threads: ENCODER["threads"]
    resources:
        mem_mb=2000,
        runtime=60,
    conda:
        ENV
    script:
        "../scripts/encoder_similarity.py"
