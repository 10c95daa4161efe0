# Paraphrase pair tables (schema: stsynth.core.paraphrase_pairs): gold pairs above a threshold
# (task-internal) and round trips paired with their source sentences (synthetic; stsynth.translation.synthetic).


rule gold_paraphrase_pairs:
    """Training pairs of the configured years whose gold score reaches the threshold."""
    input:
        pairs=lambda wc: [pairs_path(d) for d in get_gold_filter_datasets(wc.table)],
        tokens=lambda wc: [english_tokens_path(d) for d in get_gold_filter_datasets(wc.table)],
    output:
        paths.paraphrase_table("{table}"),
    log:
        paths.log_path("paraphrase_pairs/{table}"),
    benchmark:
        paths.benchmark_path("paraphrase_pairs/{table}")
    wildcard_constraints:
        table="|".join(re.escape(t) for t in gold_tables(config)),
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=attempt_minutes(5),
    params:
        threshold=lambda wc: plan.gold_table_settings(config, wc.table)["threshold"],
        years=lambda wc: plan.gold_table_settings(config, wc.table)["years"],
        code=get_code_digest("gold_paraphrase_pairs.py"),
    script:
        "../scripts/gold_paraphrase_pairs.py"


# Any declared set can have its own synthetic table: synthetic-<year>-<dataset>.
SYNTHETIC_SETS = {f"{d.year}-{d.name}": d for d in DATASETS.values()}


rule synthetic_pairs:
    """Round trips of the protocol's test sets -> one synthetic paraphrase pair table (a set added beside the
    protocol is not read: stsynth.pipeline.protocol)."""
    input:
        [round_trips_path(d) for d in protocol_test_sets(ALL_DATASETS)],
    output:
        table=paths.paraphrase_table("synthetic"),
        counts=paths.synthetic_counts("synthetic"),
    log:
        paths.log_path("synthetic_pairs/synthetic"),
    benchmark:
        paths.benchmark_path("synthetic_pairs/synthetic")
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=attempt_minutes(10),
    params:
        settings=config["tokenize"],
        code=get_code_digest("synthetic_pairs.py"),
    script:
        "../scripts/synthetic_pairs.py"


rule synthetic_pairs_of_set:
    """Round trips of one set -> its own synthetic paraphrase pair table."""
    input:
        lambda wc: round_trips_path(SYNTHETIC_SETS[wc.set]),
    output:
        table=paths.paraphrase_table("synthetic-{set}"),
        counts=paths.synthetic_counts("synthetic-{set}"),
    log:
        paths.log_path("synthetic_pairs/synthetic-{set}"),
    benchmark:
        paths.benchmark_path("synthetic_pairs/synthetic-{set}")
    wildcard_constraints:
        set=_alternatives(SYNTHETIC_SETS),
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=attempt_minutes(10),
    params:
        settings=config["tokenize"],
        code=get_code_digest("synthetic_pairs.py"),
    script:
        "../scripts/synthetic_pairs.py"
