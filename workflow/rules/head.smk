# Sentence vectors (schema: stsynth.sentence_vectors) and the regression head of the SemEval-2017
# system (stsynth.head): per head run a dev search and a final fit; the paper's Table 1 from the build.
HEAD = config["head"]


rule sentence_vectors_mean:
    """Mean word vector of every sentence of every declared dataset (English sides); with `unknown:
    encode`, each set's words the vectors lack added first (rule vectors_unknown_words)."""
    input:
        vectors=paths.vectors_path("{name}"),
        tokens=[english_tokens_path(d) for d in ALL_DATASETS],
        pairs=[english_pairs_path(d) for d in ALL_DATASETS],
        unknown=lambda wc: head_plan.sentence_vector_unknown_inputs(config, "mean", wc.name, ALL_DATASETS),
    output:
        all_sets_vectors("mean"),
    log:
        "logs/sentence_vectors/mean/{name}.log",
    benchmark:
        "benchmarks/sentence_vectors/mean/{name}.tsv"
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=3000,
        runtime=attempt_minutes(10),
    params:
        kind="mean",
    script:
        "../scripts/sentence_vectors.py"


rule sentence_vectors_events:
    """Mean event embedding of every sentence of every declared dataset."""
    input:
        vectors=paths.vectors_path("{name}"),
        events=[paths.events_path(d) for d in ALL_DATASETS],
        pairs=[english_pairs_path(d) for d in ALL_DATASETS],
    output:
        all_sets_vectors("events"),
    log:
        "logs/sentence_vectors/events/{name}.log",
    benchmark:
        "benchmarks/sentence_vectors/events/{name}.tsv"
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=2000,
        runtime=attempt_minutes(10),
    params:
        kind="events",
    script:
        "../scripts/sentence_vectors.py"


rule sentence_vectors_paraphrase_cnn:
    """Paraphrase embeddings of every sentence of every declared dataset; with `unknown: encode`, each
    set's words the model lacks added first (rule vectors_unknown_words)."""
    input:
        model=paths.pe_model_path("{name}"),
        vocabulary=paths.pe_model_path("{name}", ".vocab.parquet"),
        tokens=[english_tokens_path(d) for d in ALL_DATASETS],
        pairs=[english_pairs_path(d) for d in ALL_DATASETS],
        unknown=lambda wc: head_plan.sentence_vector_unknown_inputs(config, "paraphrase_cnn", wc.name, ALL_DATASETS),
    output:
        all_sets_vectors("paraphrase_cnn"),
    log:
        "logs/sentence_vectors/paraphrase_cnn/{name}.log",
    benchmark:
        "benchmarks/sentence_vectors/paraphrase_cnn/{name}.tsv"
    conda:
        ENV
    threads: PE["threads"]
    resources:
        mem_mb=3000,
        runtime=attempt_minutes(15),
    params:
        kind="paraphrase_cnn",
    script:
        "../scripts/sentence_vectors.py"


rule sentence_vectors_encoder:
    """An encoder's pooled, normalised embedding of every sentence of every declared dataset (frozen)."""
    input:
        encoder_folder=lambda wc: encoder.job_inputs(config, wc.name),
        pairs=[english_pairs_path(d) for d in ALL_DATASETS],
    output:
        all_sets_vectors("encoder"),
    log:
        "logs/sentence_vectors/encoder/{name}.log",
    benchmark:
        "benchmarks/sentence_vectors/encoder/{name}.tsv"
    conda:
        ENV
    threads: ENCODER["threads"]
    resources:
        **gpu_resources(GPUS),
        mem_mb=2000,
        runtime=attempt_minutes(60),
    params:
        kind="encoder",
        encoder=lambda wc: encoder.job_entry(config, wc.name),
        model=lambda wc: model_identity(wc.name),
        settings={key: ENCODER[key] for key in ("batch_size", "max_length")},
    script:
        "../scripts/sentence_vectors.py"


rule head_dev:
    """The regression head's dev search: every setting (or the run's preset) fitted on the dev protocol's
    training years and scored on its validation years after every epoch; the best is chosen."""
    input:
        unpack(head_inputs("dev_train", "dev_validate")),
    output:
        table=paths.head_path("{head_run}", "dev.parquet"),
        markdown=paths.head_path("{head_run}", "dev.md"),
    log:
        "logs/head/{head_run}/dev.log",
    benchmark:
        "benchmarks/head/{head_run}/dev.tsv"
    conda:
        ENV
    threads: HEAD["threads"]
    resources:
        mem_mb=3000,
        runtime=attempt_minutes(60),
    params:
        splits=lambda wc: head_plan.head_splits(config, RUNS[wc.head_run], ALL_DATASETS),
        settings=lambda wc: head_plan.head_settings(config, RUNS[wc.head_run]),
    script:
        "../scripts/head_dev.py"


rule head_fit:
    """The final fit on every training set with the dev-chosen settings: the run's predictions on the
    test sets, the head as safetensors, and the plain cosine's scores of the same vectors on them."""
    input:
        unpack(head_inputs("train", "test")),
        dev=paths.head_path("{head_run}", "dev.parquet"),
    output:
        predictions=paths.head_path("{head_run}", "predictions.parquet"),
        model=paths.head_path("{head_run}", "model.safetensors"),
        cosine=paths.head_path("{head_run}", "test_cosine.parquet"),
    log:
        "logs/head/{head_run}/fit.log",
    benchmark:
        "benchmarks/head/{head_run}/fit.tsv"
    conda:
        ENV
    threads: HEAD["threads"]
    resources:
        mem_mb=3000,
        runtime=attempt_minutes(30),
    params:
        splits=lambda wc: head_plan.head_splits(config, RUNS[wc.head_run], ALL_DATASETS),
        settings=lambda wc: head_plan.head_settings(config, RUNS[wc.head_run]),
        vectors=lambda wc: list(RUNS[wc.head_run].vectors),
    script:
        "../scripts/head_fit.py"


if config["report"]["paper_table1"]:

    rule paper_table1:
        """The SemEval-2017 system's Table 1 (Train / Dev / Test Pearson per row) beside ours, from the
        build: the head runs' dev tables (train and dev) and score tables (test), their plain cosines."""
        input:
            scores=[paths.scores_path(run) for run in config["report"]["paper_table1"]],
            dev=[paths.head_path(run, "dev.parquet") for run in config["report"]["paper_table1"]],
            cosine=[paths.head_path(run, "test_cosine.parquet") for run in config["report"]["paper_table1"]],
            others=[
                paths.scores_path(run)
                for run in plan.headline_runs(config)
                if run not in config["report"]["paper_table1"]
            ],
            published=paths.PUBLISHED_FIGURES,
        output:
            table=paths.PAPER_TABLES["sts2017_table1"] + ".parquet",
            markdown=paths.PAPER_TABLES["sts2017_table1"] + ".md",
        log:
            "logs/papers/sts2017_table1.log",
        benchmark:
            "benchmarks/papers/sts2017_table1.tsv"
        conda:
            ENV
        threads: 1
        resources:
            mem_mb=500,
            runtime=attempt_minutes(5),
        params:
            rows=config["report"]["paper_table1"],
            # what each run's sentence vectors are made of, stand-ins named (a value: config edits rerun it)
            sources={
                run: model_card.source_lines(config, config["runs"][run]["vectors"])
                for run in config["report"]["paper_table1"]
            },
            others=[run for run in plan.headline_runs(config) if run not in config["report"]["paper_table1"]],
        script:
            "../scripts/paper_table1.py"
