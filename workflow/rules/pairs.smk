# Pair tables (stsynth.core.pairs) and their Moses tokens (stsynth.core.tokens), one of each per dataset.


rule pair_table:
    """A dataset's file(s), in its format -> one checked pair table (schema: stsynth.core.pairs)."""
    input:
        unpack(get_dataset_files),
    output:
        pairs_path(paths.WILDCARDS),
    log:
        paths.log_path("pairs/{year}/{dataset}"),
    benchmark:
        paths.benchmark_path("pairs/{year}/{dataset}")
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=500,
        runtime=attempt_minutes(5),
    params:
        dataset=get_dataset_entry,  # editing the dataset's config entry rebuilds its table
        code=get_code_digest("pair_table.py"),
    script:
        "../scripts/pair_table.py"


rule tokenize:
    """Moses token lists, row-aligned with the pair table (schema: stsynth.core.tokens)."""
    input:
        pairs_path(paths.WILDCARDS),
    output:
        tokens_path(paths.WILDCARDS),
    log:
        paths.log_path("tokenize/{year}/{dataset}"),
    benchmark:
        paths.benchmark_path("tokenize/{year}/{dataset}")
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=500,
        runtime=attempt_minutes(10),
    params:
        settings=config["tokenize"],
        code=get_code_digest("tokenize.py"),
    script:
        "../scripts/tokenize.py"
