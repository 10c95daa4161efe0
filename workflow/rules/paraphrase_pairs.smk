# Paraphrase pair tables (schema: stsynth.paraphrase_pairs): the gold-score filter.


rule gold_paraphrase_pairs:
    """Training pairs of the configured years whose gold score reaches the threshold."""
    input:
        pairs=lambda wc: [pairs_path(d) for d in gold_filter_datasets(wc.table)],
        tokens=lambda wc: [english_tokens_path(d) for d in gold_filter_datasets(wc.table)],
    output:
        "resources/paraphrase_pairs/{table}.parquet",
    params:
        threshold=lambda wc: config["paraphrase_pairs"]["tables"][wc.table].get(
            "threshold", config["paraphrase_pairs"]["threshold"]),
        years=lambda wc: config["paraphrase_pairs"]["tables"][wc.table]["years"],
    wildcard_constraints:
        table="|".join(re.escape(t) for t in config["paraphrase_pairs"]["tables"]),
    log:
        "logs/paraphrase_pairs/{table}.log",
    benchmark:
        "benchmarks/paraphrase_pairs/{table}.tsv"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    conda:
        ENV
    script:
        "../scripts/gold_paraphrase_pairs.py"
