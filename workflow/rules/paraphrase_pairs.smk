# Paraphrase pair tables (schema: stsynth.paraphrase_pairs): gold pairs above a threshold
# (task-internal) and round trips paired with their source sentences (synthetic; stsynth.synthetic).


rule gold_paraphrase_pairs:
    """Training pairs of the configured years whose gold score reaches the threshold."""
    input:
        pairs=lambda wc: [pairs_path(d) for d in gold_filter_datasets(wc.table)],
        tokens=lambda wc: [english_tokens_path(d) for d in gold_filter_datasets(wc.table)],
    output:
        paths.paraphrase_table("{table}"),
    log:
        "logs/paraphrase_pairs/{table}.log",
    benchmark:
        "benchmarks/paraphrase_pairs/{table}.tsv"
    wildcard_constraints:
        table="|".join(re.escape(t) for t in config["paraphrase_pairs"]["tables"]),
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=attempt_minutes(5),
    params:
        threshold=lambda wc: plan.gold_table_settings(config, wc.table)["threshold"],
        years=lambda wc: plan.gold_table_settings(config, wc.table)["years"],
    script:
        "../scripts/gold_paraphrase_pairs.py"


# Any declared set can have its own synthetic table: synthetic-<year>-<dataset>.
SYNTHETIC_SETS = {f"{d.year}-{d.name}": d for d in DATASETS.values()}


rule synthetic_pairs:
    """Round trips of every test set -> one synthetic paraphrase pair table."""
    input:
        [round_trips_path(d) for d in datasets_with(role="test")],
    output:
        table=paths.paraphrase_table("synthetic"),
        counts=paths.synthetic_counts("synthetic"),
    log:
        "logs/synthetic_pairs/synthetic.log",
    benchmark:
        "benchmarks/synthetic_pairs/synthetic.tsv"
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=attempt_minutes(10),
    params:
        settings=config["tokenize"],
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
        "logs/synthetic_pairs/synthetic-{set}.log",
    benchmark:
        "benchmarks/synthetic_pairs/synthetic-{set}.tsv"
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
    script:
        "../scripts/synthetic_pairs.py"
