# Sentence vectors of the SemEval-2017 system (stsynth.sts2017.sentence_vectors; tables:
# stsynth.sts2017.vector_tables): each source's vectors of every pair of the datasets a head run reads.
# Each kind is one job per part (TABLE_JOB_PARTS): the sets fitted and chosen on (rule sentence_vectors_<kind>)
# and each group of test sets (sentence_vectors_<kind>__<group>), so a test set added is a job of its own.
for _part, _sets in TABLE_JOB_PARTS.items():

    rule:
        """Mean word vector of every sentence of the part's datasets (English sides); with `unknown: encode`,
        each set's words the vectors lack added first (rules vectors_unknown_words*)."""
        name:
            get_part_rule_name("sentence_vectors_mean", _part)
        input:
            vectors=paths.vectors_path("{name}"),
            tokens=[english_tokens_path(d) for d in _sets],
            pairs=[english_pairs_path(d) for d in _sets],
            unknown=lambda wc, sets=_sets: head_plan.sentence_vector_unknown_inputs(config, "mean", wc.name, sets),
        output:
            get_sets_vectors("mean", _sets),
        log:
            paths.log_path(get_part_file_name("sentence_vectors/mean/{name}", _part)),
        benchmark:
            paths.benchmark_path(get_part_file_name("sentence_vectors/mean/{name}", _part))
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

    rule:
        """Mean event embedding of every sentence of the part's datasets."""
        name:
            get_part_rule_name("sentence_vectors_events", _part)
        input:
            vectors=paths.vectors_path("{name}"),
            events=[paths.events_path(d) for d in _sets],
            pairs=[english_pairs_path(d) for d in _sets],
        output:
            get_sets_vectors("events", _sets),
        log:
            paths.log_path(get_part_file_name("sentence_vectors/events/{name}", _part)),
        benchmark:
            paths.benchmark_path(get_part_file_name("sentence_vectors/events/{name}", _part))
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

    rule:
        """Paraphrase embeddings of every sentence of the part's datasets; with `unknown: encode`, each set's
        words the model lacks added first (rules vectors_unknown_words*)."""
        name:
            get_part_rule_name("sentence_vectors_paraphrase_cnn", _part)
        input:
            model=paths.pe_model_path("{name}"),
            vocabulary=paths.pe_model_path("{name}", ".vocab.parquet"),
            tokens=[english_tokens_path(d) for d in _sets],
            pairs=[english_pairs_path(d) for d in _sets],
            unknown=lambda wc, sets=_sets: head_plan.sentence_vector_unknown_inputs(
                config, "paraphrase_cnn", wc.name, sets
            ),
        output:
            get_sets_vectors("paraphrase_cnn", _sets),
        log:
            paths.log_path(get_part_file_name("sentence_vectors/paraphrase_cnn/{name}", _part)),
        benchmark:
            paths.benchmark_path(get_part_file_name("sentence_vectors/paraphrase_cnn/{name}", _part))
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

    rule:
        """An encoder's pooled, normalised embedding of every sentence of the part's datasets (frozen)."""
        name:
            get_part_rule_name("sentence_vectors_encoder", _part)
        input:
            encoder_folder=lambda wc: get_encoder_folder(wc.name),
            pairs=[english_pairs_path(d) for d in _sets],
        output:
            get_sets_vectors("encoder", _sets),
        log:
            paths.log_path(get_part_file_name("sentence_vectors/encoder/{name}", _part)),
        benchmark:
            paths.benchmark_path(get_part_file_name("sentence_vectors/encoder/{name}", _part))
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
