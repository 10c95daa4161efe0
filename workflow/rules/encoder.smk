# Sentence-encoder similarities (schema: stsynth.encoders.encoder): pooled cosine and token-level F1, from the
# named encoders (config encoder.models) and the fine-tuned ones (stsynth.encoders.tuning; encoder.tuning).
ENCODER = config["encoder"]
TUNING = ENCODER["tuning"]
ONNX_PRECISION = encoder.onnx_precision(ENCODER["backend"])  # None: torch


checkpoint hub_fetch:
    """Download a hub encoder missing from the Hugging Face cache, once, before any job that opens it
    (stsynth.encoders.hub; HF_HUB_OFFLINE=1 fetches nothing: start-up refuses the encoder instead)."""
    output:
        record=paths.hub_record_path("{encoder}"),
    log:
        paths.log_path("hub_fetch/{encoder}"),
    benchmark:
        paths.benchmark_path("hub_fetch/{encoder}")
    wildcard_constraints:
        encoder="|".join(re.escape(name) for name in HUB_FETCHED) or "(?!)",
    localrule: True  # the download runs where the cache is, not on a cluster node
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=attempt_minutes(60),
    params:
        hub=lambda wc: HUB_ENCODERS[wc.encoder]["hub"],
        revision=lambda wc: HUB_ENCODERS[wc.encoder].get("revision"),
        code=get_code_digest("hub_fetch.py"),
    script:
        "../scripts/hub_fetch.py"


rule encoder_tune:
    """Fine-tune an encoder (sentence-transformers) on gold or paraphrase pairs; dev ALL per epoch."""
    input:
        unpack(
            lambda wc: plan.tuned_encoder_inputs(
                config, get_tuned_encoder_settings(wc.tuned), ALL_DATASETS, get_encoder_folder
            )
        ),
    output:
        model=directory(tuned_encoder_folder("{tuned}")),
        epochs=paths.epochs_path("{tuned}"),
    log:
        paths.log_path("encoder_tune/{tuned}"),
    wildcard_constraints:
        tuned=TUNED_ENCODER_NAMES,
    cache: True
    # above frozen layers: the lower k first, so a higher k's states continue from them (lower_layers)
    priority: lambda wc: get_tuning_priority(get_tuned_encoder_settings(wc.tuned))
    conda:
        ENV
    threads: TUNING["threads"]
    resources:
        **gpu_resources(GPUS),
        mem_mb=4000,
        runtime=attempt_minutes(60),  # a CPU all-mpnet-base-v2 tuning took ~39 min
    params:
        settings=lambda wc: get_tuned_encoder_settings(wc.tuned),
        # a named start encoder's entry (its source decides the weights); a tuned start is an input
        start=lambda wc: encoder.job_entry(config, get_tuned_encoder_settings(wc.tuned)["start"]),
        # a named start encoder's files (a change reruns the tuning; stsynth.core.digests)
        model=lambda wc: get_model_identity(get_tuned_encoder_settings(wc.tuned)["start"]),
        max_length=ENCODER["max_length"],
        code=get_code_digest("encoder_tune.py"),
    script:
        "../scripts/encoder_tune.py"


rule encoder_onnx:
    """An encoder's transformer exported to ONNX for encoder.backend onnx / onnx-int8 (stsynth.encoders.onnx_backend)."""
    input:
        # a tuned encoder's folder, or a named encoder's local folder (none for a package or hub name)
        encoder_folder=lambda wc: get_encoder_folder(wc.encoder),
    output:
        paths.onnx_path("{encoder}", "{precision}"),
    log:
        paths.log_path("encoder_onnx/{encoder}.{precision}"),
    benchmark:
        paths.benchmark_path("encoder_onnx/{encoder}.{precision}")
    wildcard_constraints:
        encoder="|".join(re.escape(name) for name in ENCODER_TABLE_SETS),
        precision="fp32|int8",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=2000,
        runtime=attempt_minutes(10),
    params:
        encoder=lambda wc: encoder.job_entry(config, wc.encoder),
        # a named encoder's files (a change exports again; stsynth.core.digests)
        model=lambda wc: get_model_identity(wc.encoder),
        max_length=ENCODER["max_length"],
        code=get_code_digest("encoder_onnx.py"),
    script:
        "../scripts/encoder_onnx.py"


# An encoder's similarities, for exactly the sets and lines something reads: one job for the sets read on
# their scored lines (what models are fitted and chosen on), one per group of test sets (every line), so a
# test set added is a job of its own (stsynth.dcu2016.fusion_plan.encoder_table_jobs); a named encoder's
# embeddings come from the embedding store where it holds them (stsynth.encoders.embedding_store).
# This loop makes one rule per job, named encoder_similarity_<encoder> and encoder_similarity_<encoder>__<group>
# with every character but letters, digits and "_" as "_": with config.yaml, encoder_similarity_minilm,
# encoder_similarity_minilm__2016, encoder_similarity_minilm_sts, ... (`snakemake --list-rules` lists them).
# The device (config `device`, read by the job) is no param: it moves the floats in their last digits
# only, so changing it reruns nothing (docs/user-guide.md, "Clusters and GPUs").
for (_encoder, _group), _sets in ENCODER_TABLE_JOBS.items():

    rule:
        name:
            get_part_rule_name(f"encoder_similarity_{_encoder}", _group)
        input:
            # tuned above frozen layers: the start encoder's folder, whose states after layer k it reads
            **(
                {"start_folder": lambda wc, name=_encoder: get_encoder_folder(get_layer_start(name)["name"])}
                if get_layer_start(_encoder)
                else {}
            ),
            # a tuned encoder's folder, or a local one a rule makes (stsynth.encoders.encoder.job_inputs)
            encoder_folder=lambda wc, name=_encoder: get_encoder_folder(name),
            pairs=[english_pairs_path(d) for d, _ in _sets],
            # encoder.backend onnx / onnx-int8: the exported transformer (rule encoder_onnx)
            onnx=[paths.onnx_path(_encoder, ONNX_PRECISION)] if ONNX_PRECISION else [],
        output:
            # named (Snakemake's between-workflow cache names each cached file by its output's name)
            **{f"table{i}": encoder_path(_encoder, d) for i, (d, _) in enumerate(_sets)},
        log:
            paths.log_path(get_part_file_name(f"encoder_similarity/{_encoder}", _group)),
        cache: True
        priority: 0 if encoder.is_tuned(config, _encoder) else 10  # long zero-shot jobs: started early
        conda:
            ENV
        threads: ENCODER["threads"]
        resources:
            **gpu_resources(GPUS),
            mem_mb=2000,
            runtime=attempt_minutes(60),
        params:
            **(
                {
                    "from_layer": lambda wc, name=_encoder: {
                        **get_layer_start(name),
                        "model": get_model_identity(get_layer_start(name)["name"]),
                    }
                }
                if get_layer_start(_encoder)
                else {}
            ),
            encoder=encoder.job_entry(config, _encoder),
            # a named encoder's files (a change reruns the job; stsynth.core.digests)
            model=lambda wc, name=_encoder: get_model_identity(name),
            settings={key: ENCODER[key] for key in ("batch_size", "max_length")},
            # per set: every line (a test set), or only the scored lines (nothing reads the others)
            every_line=[every_line for _, every_line in _sets],
            backend=ENCODER["backend"],
            # tuned above frozen layers (stsynth.encoders.lower_layers): k, the start encoder and its files
            code=get_code_digest("encoder_similarity.py"),
        script:
            "../scripts/encoder_similarity.py"


if OPTIONAL_RULES["encoder_tuning_dev_check"]:

    rule encoder_tuning_dev_check:
        """The paper's dev check on the encoder: dev Pearson per set and ALL before tuning (the start
        model) and after every epoch of these tuned encoders (same table as the paragram one)."""
        input:
            [paths.epochs_path(model) for model in TUNING["dev_check"]],
        output:
            table=paths.STUDY_TABLES["encoder_dev_check"],
            markdown=paths.study_file("encoder_dev_check"),
        log:
            paths.log_path("encoder_tuning/dev_check"),
        benchmark:
            paths.benchmark_path("encoder_tuning/dev_check")
        conda:
            ENV
        threads: 1
        resources:
            mem_mb=1000,
            runtime=attempt_minutes(5),
        params:
            models=TUNING["dev_check"],
            code=get_code_digest("synthetic_dev_check.py"),
        script:
            "../scripts/synthetic_dev_check.py"
