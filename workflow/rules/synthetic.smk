# Synthetic paraphrases by round-trip translation (stsynth.synthetic), the `synthetic-per-set` run
# and the dev check. The `synthetic` run itself is paragram model + run `synthetic` in config.yaml.

# Any declared set can have its own synthetic table: synthetic-<year>-<dataset>.
SYNTHETIC_SETS = {f"{d.year}-{d.name}": d for d in DATASETS.values()}


rule round_trips:
    """Both sides of every line of a set, English -> Spanish -> English (schema: stsynth.synthetic)."""
    input:
        lambda wc: english_pairs_path(dataset(wc)),
    output:
        "resources/round_trips/{year}/{dataset}.parquet",
    params:
        engine=TRANSLATION_ENGINE,  # what shapes a translation; the cache and chunk size do not
    log:
        "logs/round_trips/{year}/{dataset}.log",
    benchmark:
        "benchmarks/round_trips/{year}/{dataset}.tsv"
    threads: 2  # the Apertium pipeline runs its stages as concurrent processes
    resources:
        mem_mb=2000,
        runtime=120,
        gpu=TRANSLATION_GPUS,
    conda:
        ENV
    script:
        "../scripts/round_trips.py"


rule synthetic_pairs:
    """Round trips of every test set -> one synthetic paraphrase pair table."""
    input:
        [round_trips_path(d) for d in datasets_with(role="test")],
    output:
        table="resources/paraphrase_pairs/synthetic.parquet",
        counts="results/synthetic/synthetic.counts.md",
    params:
        settings=config["tokenize"],
    log:
        "logs/synthetic_pairs/synthetic.log",
    benchmark:
        "benchmarks/synthetic_pairs/synthetic.tsv"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    conda:
        ENV
    script:
        "../scripts/synthetic_pairs.py"


rule synthetic_pairs_of_set:
    """Round trips of one set -> its own synthetic paraphrase pair table."""
    input:
        lambda wc: round_trips_path(SYNTHETIC_SETS[wc.set]),
    output:
        table="resources/paraphrase_pairs/synthetic-{set}.parquet",
        counts="results/synthetic/synthetic-{set}.counts.md",
    params:
        settings=config["tokenize"],
    wildcard_constraints:
        set=_alternatives(SYNTHETIC_SETS),
    log:
        "logs/synthetic_pairs/synthetic-{set}.log",
    benchmark:
        "benchmarks/synthetic_pairs/synthetic-{set}.tsv"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    conda:
        ENV
    script:
        "../scripts/synthetic_pairs.py"


rule synthetic_per_set_predict:
    """Run synthetic-per-set: each test set scored by its own model, 5 x cosine."""
    input:
        lambda wc: f"resources/similarity/{per_set_model(dataset(wc))}/{wc.year}/{wc.dataset}.parquet",
    output:
        "results/predictions/synthetic-per-set/{year}/{dataset}.txt",
    log:
        "logs/predict/synthetic-per-set/{year}/{dataset}.log",
    benchmark:
        "benchmarks/predict/synthetic-per-set/{year}/{dataset}.tsv"
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    conda:
        ENV
    script:
        "../scripts/paragram_predict.py"


rule synthetic_dev_check:
    """Dev Pearson per epoch of the dev-check models (training-role dev sets only, never 2016)."""
    input:
        [f"resources/models/{model}.epochs.parquet" for model in config["synthetic"]["dev_check"]],
    output:
        table="results/synthetic/dev_check.parquet",
        markdown="results/synthetic/dev_check.md",
    params:
        models=config["synthetic"]["dev_check"],
    log:
        "logs/synthetic/dev_check.log",
    benchmark:
        "benchmarks/synthetic/dev_check.tsv"
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    conda:
        ENV
    script:
        "../scripts/synthetic_dev_check.py"
