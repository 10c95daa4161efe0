# Pair tables (stsynth.pairs) and their Moses tokens (stsynth.tokens), one of each per dataset.


rule pair_table:
    """A dataset's file(s), in its format -> one checked pair table (schema: stsynth.pairs)."""
    input:
        unpack(dataset_files),
    output:
        pairs_path(paths.WILDCARDS),
    log:
        "logs/pairs/{year}/{dataset}.log",
    benchmark:
        "benchmarks/pairs/{year}/{dataset}.tsv"
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=500,
        runtime=attempt_minutes(5),
    params:
        dataset=dataset_entry,  # editing the dataset's config entry rebuilds its table
    script:
        "../scripts/pair_table.py"


rule tokenize:
    """Moses token lists, row-aligned with the pair table (schema: stsynth.tokens)."""
    input:
        pairs_path(paths.WILDCARDS),
    output:
        tokens_path(paths.WILDCARDS),
    log:
        "logs/tokenize/{year}/{dataset}.log",
    benchmark:
        "benchmarks/tokenize/{year}/{dataset}.tsv"
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=500,
        runtime=attempt_minutes(10),
    params:
        settings=config["tokenize"],
    script:
        "../scripts/tokenize.py"
