# Paragram models (schema: stsynth.paragram): training, per-dataset cosines, runs, dev sweeps.
rule paragram_train:
    """Tune word vectors with the margin loss on a model's paraphrase pairs (epochs 0: raw vectors)."""
    input:
        unpack(paragram_training_inputs),
    output:
        model="resources/models/{model}.safetensors",
        vocabulary="resources/models/{model}.vocab.parquet",
        epochs="resources/models/{model}.epochs.parquet",
    wildcard_constraints:
        model=PARAGRAM_MODEL_PATTERN,
    params:
        settings=lambda wc: paragram_model(wc.model),
    log:
        "logs/paragram/train/{model}.log",
    benchmark:
        "benchmarks/paragram/train/{model}.tsv"
    threads: PARAGRAM["threads"]
    resources:
        mem_mb=4000,
        runtime=120,
    conda:
        ENV
    script:
        "../scripts/paragram_train.py"


rule paragram_similarity:
    """Cosine of the two sentence vectors of every pair of one dataset."""
    input:
        model="resources/models/{model}.safetensors",
        vocabulary="resources/models/{model}.vocab.parquet",
        tokens=lambda wc: english_tokens_path(dataset(wc)),
    output:
        "resources/similarity/{model}/{year}/{dataset}.parquet",
    wildcard_constraints:
        model=_alternatives(PARAGRAM_MODELS),
    log:
        "logs/paragram/similarity/{model}/{year}/{dataset}.log",
    benchmark:
        "benchmarks/paragram/similarity/{model}/{year}/{dataset}.tsv"
    threads: PARAGRAM["threads"]
    resources:
        mem_mb=2000,
        runtime=10,
    conda:
        ENV
    script:
        "../scripts/paragram_similarity.py"


rule paragram_fold_similarity:
    """A fold model's cosines on every training-role dataset in one job (only the fusion's
    out-of-fold rows read them; one job per dataset would be mostly Python start-up)."""
    input:
        model="resources/models/{model}.fold{fold}of{folds}.safetensors",
        vocabulary="resources/models/{model}.fold{fold}of{folds}.vocab.parquet",
        tokens=[english_tokens_path(d) for d in datasets_with(role="train")],
    output:
        [f"resources/similarity/{{model}}.fold{{fold}}of{{folds}}/{d.year}/{d.name}.parquet"
         for d in datasets_with(role="train")],
    wildcard_constraints:
        model=_alternatives(PARAGRAM_MODELS),
        fold=r"\d+",
        folds=r"\d+",
    log:
        "logs/paragram/similarity/{model}.fold{fold}of{folds}.log",
    benchmark:
        "benchmarks/paragram/similarity/{model}.fold{fold}of{folds}.tsv"
    threads: PARAGRAM["threads"]
    resources:
        mem_mb=2000,
        runtime=10,
    conda:
        ENV
    script:
        "../scripts/paragram_similarity.py"


rule paragram_predict:
    """A paragram run's predictions: 5 x cosine."""
    input:
        lambda wc: f"resources/similarity/{PARAGRAM_RUNS[wc.run]}/{wc.year}/{wc.dataset}.parquet",
    output:
        "results/predictions/{run}/{year}/{dataset}.txt",
    wildcard_constraints:
        run=_alternatives(PARAGRAM_RUNS),
    log:
        "logs/predict/{run}/{year}/{dataset}.log",
    benchmark:
        "benchmarks/predict/{run}/{year}/{dataset}.tsv"
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    conda:
        ENV
    script:
        "../scripts/paragram_predict.py"


rule paragram_unknown_words:
    """Share of test-set tokens outside a model's vocabulary (paper Table 5)."""
    input:
        vocabulary="resources/models/{model}.vocab.parquet",
        tokens=[english_tokens_path(d) for d in datasets_with(role="test")],
    output:
        table="results/paragram/{model}/unknown_words.parquet",
        markdown="results/paragram/{model}/unknown_words.md",
    wildcard_constraints:
        model=PARAGRAM_MODEL_PATTERN,
    log:
        "logs/paragram/unknown_words/{model}.log",
    benchmark:
        "benchmarks/paragram/unknown_words/{model}.tsv"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    conda:
        ENV
    script:
        "../scripts/paragram_unknown_words.py"


rule paragram_threshold_sweep:
    """Dev protocol: per threshold t, train on the sweep years' gold pairs >= t, score the dev years."""
    input:
        unpack(threshold_sweep_inputs),
    output:
        table="results/paragram/threshold_sweep.parquet",
        plot="results/paragram/threshold_sweep.png",
    params:
        settings=paragram_model(config["paraphrase_pairs"]["sweep"]["model"]),
        sweep=config["paraphrase_pairs"]["sweep"],
    log:
        "logs/paragram/threshold_sweep.log",
    benchmark:
        "benchmarks/paragram/threshold_sweep.tsv"
    threads: PARAGRAM["threads"]
    resources:
        mem_mb=4000,
        runtime=240,
    conda:
        ENV
    script:
        "../scripts/paragram_threshold_sweep.py"


rule paragram_source_comparison:
    """Every word-vector source untuned (mean, SIF, SIF + component removal) on the dev years and the English test sets."""
    input:
        unpack(source_comparison_inputs),
    output:
        table="results/paragram/sources.parquet",
        markdown="results/paragram/sources.md",
    params:
        settings={**PARAGRAM["defaults"], **PARAGRAM["presets"][PARAGRAM["defaults"]["preset"]]},
        variants=PARAGRAM["compare_sources"]["variants"],
        splits=source_comparison_splits(),
    log:
        "logs/paragram/sources.log",
    benchmark:
        "benchmarks/paragram/sources.tsv"
    threads: PARAGRAM["threads"]
    resources:
        mem_mb=6000,
        runtime=60,
    conda:
        ENV
    script:
        "../scripts/paragram_sources.py"
