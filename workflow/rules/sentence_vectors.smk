# Sentence vectors of the SemEval-2017 system (stsynth.sts2017.sentence_vectors; tables:
# stsynth.sts2017.vector_tables): each source's vectors of every pair of the datasets a head run reads.


rule sentence_vectors_mean:
    """Mean word vector of every sentence of every declared dataset (English sides); with `unknown:
    encode`, each set's words the vectors lack added first (rule vectors_unknown_words)."""
    input:
        vectors=paths.vectors_path("{name}"),
        tokens=[english_tokens_path(d) for d in ALL_DATASETS],
        pairs=[english_pairs_path(d) for d in ALL_DATASETS],
        unknown=lambda wc: head_plan.sentence_vector_unknown_inputs(config, "mean", wc.name, ALL_DATASETS),
    output:
        get_all_sets_vectors("mean"),
    log:
        paths.log_path("sentence_vectors/mean/{name}"),
    benchmark:
        paths.benchmark_path("sentence_vectors/mean/{name}")
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=3000,
        runtime=attempt_minutes(10),
    params:
        kind="mean",
        code=get_code_digest("sentence_vectors.py"),
    script:
        "../scripts/sentence_vectors.py"


rule sentence_vectors_events:
    """Mean event embedding of every sentence of every declared dataset."""
    input:
        vectors=paths.vectors_path("{name}"),
        events=[paths.events_path(d) for d in ALL_DATASETS],
        pairs=[english_pairs_path(d) for d in ALL_DATASETS],
    output:
        get_all_sets_vectors("events"),
    log:
        paths.log_path("sentence_vectors/events/{name}"),
    benchmark:
        paths.benchmark_path("sentence_vectors/events/{name}")
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=2000,
        runtime=attempt_minutes(10),
    params:
        kind="events",
        code=get_code_digest("sentence_vectors.py"),
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
        get_all_sets_vectors("paraphrase_cnn"),
    log:
        paths.log_path("sentence_vectors/paraphrase_cnn/{name}"),
    benchmark:
        paths.benchmark_path("sentence_vectors/paraphrase_cnn/{name}")
    conda:
        ENV
    threads: PE["threads"]
    resources:
        mem_mb=3000,
        runtime=attempt_minutes(15),
    params:
        kind="paraphrase_cnn",
        code=get_code_digest("sentence_vectors.py"),
    script:
        "../scripts/sentence_vectors.py"


rule sentence_vectors_encoder:
    """An encoder's pooled, normalised embedding of every sentence of every declared dataset (frozen)."""
    input:
        encoder_folder=lambda wc: get_encoder_folder(wc.name),
        pairs=[english_pairs_path(d) for d in ALL_DATASETS],
    output:
        get_all_sets_vectors("encoder"),
    log:
        paths.log_path("sentence_vectors/encoder/{name}"),
    benchmark:
        paths.benchmark_path("sentence_vectors/encoder/{name}")
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
        model=lambda wc: get_model_identity(wc.name),
        settings={key: ENCODER[key] for key in ("batch_size", "max_length")},
        code=get_code_digest("sentence_vectors.py"),
    script:
        "../scripts/sentence_vectors.py"
