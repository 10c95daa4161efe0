# Paragram models (schema: stsynth.word_vectors.paragram): training, per-dataset cosines, and the studies on
# them: unknown words, the gold-threshold sweep, word-vector sources, the synthetic dev check and
# the cross-lingual MT comparison.


rule paragram_train:
    """Tune word vectors with the margin loss on a model's paraphrase pairs (epochs 0: raw vectors)."""
    input:
        unpack(get_paragram_training_inputs),
    output:
        model=model_path("{model}"),
        vocabulary=paths.vocabulary_path("{model}"),
        epochs=paths.epochs_path("{model}"),
    log:
        paths.log_path("paragram/train/{model}"),
    cache: True
    conda:
        ENV
    threads: PARAGRAM["threads"]
    resources:
        mem_mb=4000,
        runtime=attempt_minutes(120),
    params:
        settings=lambda wc: get_paragram_model(wc.model),
        code=get_code_digest("paragram_train.py"),
    script:
        "../scripts/paragram_train.py"


# A model's cosine of the two sentence vectors of every pair: one job per part (TABLE_JOB_PARTS), the sets
# fitted and chosen on (rule paragram_similarity) and each group of test sets (paragram_similarity__<group>),
# each writing its sets' tables (a job per dataset would be mostly Python start-up).
for _part, _sets in TABLE_JOB_PARTS.items():

    rule:
        name:
            get_part_rule_name("paragram_similarity", _part)
        input:
            unpack(get_paragram_similarity_inputs(_sets)),
            model=model_path("{model}"),
            vocabulary=paths.vocabulary_path("{model}"),
        output:
            [similarity_path("{model}", d) for d in _sets],
        log:
            paths.log_path(get_part_file_name("paragram/similarity/{model}", _part)),
        benchmark:
            paths.benchmark_path(get_part_file_name("paragram/similarity/{model}", _part))
        conda:
            ENV
        threads: PARAGRAM["threads"]
        resources:
            mem_mb=2000,
            runtime=attempt_minutes(10),
        params:
            code=get_code_digest("paragram_similarity.py"),
        script:
            "../scripts/paragram_similarity.py"


rule paragram_unknown_words:
    """Share of test-set tokens outside a model's vocabulary (paper Table 5)."""
    input:
        vocabulary=paths.vocabulary_path("{model}"),
        tokens=[english_tokens_path(d) for d in get_datasets(role="test")],
    output:
        table=paths.paragram_result_path("{model}", "unknown_words.parquet"),
        markdown=paths.paragram_result_path("{model}", "unknown_words.md"),
    log:
        paths.log_path("paragram/unknown_words/{model}"),
    benchmark:
        paths.benchmark_path("paragram/unknown_words/{model}")
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=attempt_minutes(5),
    params:
        code=get_code_digest("paragram_unknown_words.py"),
    script:
        "../scripts/paragram_unknown_words.py"


rule paragram_threshold_sweep:
    """Dev protocol: per threshold t, train on the sweep years' gold pairs >= t, score the dev years."""
    input:
        unpack(lambda wc: plan.threshold_sweep_inputs(config, PARAGRAM_MODELS, ALL_DATASETS)),
    output:
        table=paths.STUDY_TABLES["threshold_sweep"],
        plot=paths.study_file("threshold_sweep", ".png"),
    log:
        paths.log_path("paragram/threshold_sweep"),
    benchmark:
        paths.benchmark_path("paragram/threshold_sweep")
    priority: 10  # long and needed by the report only: started early, it runs beside the trainings
    conda:
        ENV
    threads: PARAGRAM["threads"]
    resources:
        mem_mb=4000,
        runtime=attempt_minutes(240),
    params:
        settings=get_paragram_model(config["paraphrase_pairs"]["sweep"]["model"]),
        sweep=sweep_settings(config),
        threshold=plan.sweep_threshold(config),  # the one in use, marked on the plot as the report marks it
        code=get_code_digest("paragram_threshold_sweep.py"),
    script:
        "../scripts/paragram_threshold_sweep.py"


rule paragram_source_comparison:
    """Every word-vector source untuned (mean, SIF, SIF + component removal) on the dev years and the English test sets."""
    input:
        unpack(lambda wc: plan.source_comparison_inputs(config, ALL_DATASETS)),
    output:
        table=paths.STUDY_TABLES["sources"],
        markdown=paths.study_file("sources"),
    log:
        paths.log_path("paragram/sources"),
    benchmark:
        paths.benchmark_path("paragram/sources")
    priority: 10  # needed by the report only: started early, it fills a core
    conda:
        ENV
    threads: PARAGRAM["threads"]
    resources:
        mem_mb=6000,
        runtime=attempt_minutes(60),
    params:
        settings=plan.default_paragram_settings(config),
        variants=PARAGRAM["compare_sources"]["variants"],
        splits=[split for split, _ in plan.source_comparison_sets(config, ALL_DATASETS)],
        code=get_code_digest("paragram_sources.py"),
    script:
        "../scripts/paragram_sources.py"


rule synthetic_dev_check:
    """Dev Pearson per epoch of the dev-check models (training-role dev sets only, never 2016)."""
    input:
        [paths.epochs_path(model) for model in config["synthetic"]["dev_check"]],
    output:
        table=paths.STUDY_TABLES["dev_check"],
        markdown=paths.study_file("dev_check"),
    log:
        paths.log_path("synthetic/dev_check"),
    benchmark:
        paths.benchmark_path("synthetic/dev_check")
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=500,
        runtime=attempt_minutes(5),
    params:
        models=config["synthetic"]["dev_check"],
        code=get_code_digest("synthetic_dev_check.py"),
    script:
        "../scripts/synthetic_dev_check.py"


# Only where es-en test sets carry the reference translation in their released files.
if OPTIONAL_RULES["crosslingual_mt_comparison"]:

    rule crosslingual_mt_comparison:
        """Diagnostic: es-en paragram scores with s1 translated by the backend vs by the third-party MT
        that the redistributed input files carry (config crosslingual.reference_translation)."""
        input:
            models=[model_path(model) for model in config["crosslingual"]["reference_translation"]["models"]],
            vocabularies=[
                paths.vocabulary_path(model) for model in config["crosslingual"]["reference_translation"]["models"]
            ],
            pairs=[pairs_path(d) for d in REFERENCE_TRANSLATION_SETS],
            tokens=[english_tokens_path(d) for d in REFERENCE_TRANSLATION_SETS],
            released=[paths.corpus_copy(d.input) for d in REFERENCE_TRANSLATION_SETS],
        output:
            table=paths.STUDY_TABLES["mt_comparison"],
            markdown=report(
                paths.study_file("mt_comparison"), caption="../report/mt_comparison.rst", category="Cross-lingual"
            ),
        log:
            paths.log_path("crosslingual/mt_comparison"),
        benchmark:
            paths.benchmark_path("crosslingual/mt_comparison")
        conda:
            ENV
        threads: 1
        resources:
            mem_mb=2000,
            runtime=attempt_minutes(10),
        params:
            settings=config["crosslingual"]["reference_translation"],
            fields=[d.fields for d in REFERENCE_TRANSLATION_SETS],
            backend=config["translate"]["backend"],
            tokenize=config["tokenize"],
            code=get_code_digest("crosslingual_mt_comparison.py"),
        script:
            "../scripts/crosslingual_mt_comparison.py"


rule paragram_export:
    """A paragram model as a sentence-transformers folder (stsynth.dcu2016.export), checked against the
    pipeline's cosines on the scored test sets (results/paragram/{model}/export_check)."""
    input:
        model=model_path("{model}"),
        vocabulary=paths.vocabulary_path("{model}"),
        pairs=[english_pairs_path(d) for d in SCORED_TEST_SETS],
        tokens=[english_tokens_path(d) for d in SCORED_TEST_SETS],
        similarity=[similarity_path("{model}", d) for d in SCORED_TEST_SETS],
    output:
        folder=directory(paths.export_folder("{model}")),
        table=paths.paragram_result_path("{model}", "export_check.parquet"),
        markdown=paths.paragram_result_path("{model}", "export_check.md"),
    log:
        paths.log_path("paragram/export/{model}"),
    benchmark:
        paths.benchmark_path("paragram/export/{model}")
    conda:
        ENV
    threads: PARAGRAM["threads"]
    resources:
        **gpu_resources(GPUS),
        mem_mb=3000,
        runtime=attempt_minutes(15),
    params:
        code=get_code_digest("paragram_export.py"),
    script:
        "../scripts/paragram_export.py"
