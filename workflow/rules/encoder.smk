# Sentence-encoder similarities (schema: stsynth.encoder): pooled cosine and token-level F1, from the
# zero-shot encoder and from the fine-tuned ones (stsynth.encoder_tuning; config encoder.tuning).
ENCODER = config["encoder"]
TUNING = ENCODER["tuning"]
# What shapes a similarity table: the encoder's own keys, not the tuning section (a param, so a
# changed tuning setting reruns only the tuned models it concerns). The device (config `device`,
# read by the job) is no param: it moves the floats in their last digits only, so changing it reruns
# nothing (docs: README, GPU).
ENCODING = {key: value for key, value in ENCODER.items() if key != "tuning"}


rule encoder_similarity:
    """Zero-shot all-MiniLM-L6-v2 cosine and token F1 of every pair of every declared dataset (English
    sentences; es-en translated), in one job: the model loads once."""
    input:
        pairs=[english_pairs_path(d) for d in ALL_DATASETS],
    output:
        [encoder_path(d) for d in ALL_DATASETS],
    params:
        settings=ENCODING,
    log:
        "logs/encoder/encoder.log",
    benchmark:
        "benchmarks/encoder/encoder.tsv"
    priority: 10  # one long job: started early, it runs beside the paragram trainings
    threads: ENCODER["threads"]
    resources:
        mem_mb=2000,
        runtime=60,
        gpu=GPUS,
    conda:
        ENV
    script:
        "../scripts/encoder_similarity.py"


rule encoder_tune:
    """Fine-tune the encoder (sentence-transformers) on gold or paraphrase pairs; dev ALL per epoch."""
    input:
        unpack(lambda wc: plan.tuned_encoder_inputs(tuned_encoder_settings(wc.tuned), ALL_DATASETS)),
    output:
        model=directory("resources/models/{tuned}"),
        epochs="resources/models/{tuned}.epochs.parquet",
    params:
        settings=lambda wc: tuned_encoder_settings(wc.tuned),
        encoder={key: ENCODER[key] for key in ("package", "model_dir", "max_length")},
    wildcard_constraints:
        tuned=TUNED_ENCODER_NAMES,
    log:
        "logs/encoder_tune/{tuned}.log",
    benchmark:
        "benchmarks/encoder_tune/{tuned}.tsv"
    priority: 5
    threads: TUNING["threads"]
    resources:
        mem_mb=4000,
        runtime=30,
        gpu=GPUS,
    conda:
        ENV
    script:
        "../scripts/encoder_tune.py"


# A tuned encoder's similarities: one job per model (it loads once; start-up is most of a small
# job), for exactly the sets something reads (stsynth.plan.tuned_encoder_tables).
for _tuned, _sets in TUNED_ENCODER_TABLES.items():

    rule:
        name:
            f"encoder_tuned_similarity_{re.sub(r'[^A-Za-z0-9]', '_', _tuned)}"
        input:
            model=tuned_encoder_folder(_tuned),
            pairs=[english_pairs_path(d) for d in _sets],
        output:
            [tuned_encoder_path(_tuned, d) for d in _sets],
        params:
            settings=ENCODING,
        log:
            f"logs/encoder_tuned_similarity/{_tuned}.log",
        benchmark:
            f"benchmarks/encoder_tuned_similarity/{_tuned}.tsv"
        threads: ENCODER["threads"]
        resources:
            mem_mb=2000,
            runtime=30,
            gpu=GPUS,
        conda:
            ENV
        script:
            "../scripts/encoder_similarity.py"


if TUNING["dev_check"]:

    rule encoder_tuning_dev_check:
        """The paper's dev check on the encoder: dev Pearson per set and ALL before tuning (the start
        model) and after every epoch of these tuned encoders (same table as the paragram one)."""
        input:
            [f"resources/models/{model}.epochs.parquet" for model in TUNING["dev_check"]],
        output:
            table="results/encoder_tuning/dev_check.parquet",
            markdown="results/encoder_tuning/dev_check.md",
        params:
            models=TUNING["dev_check"],
        log:
            "logs/encoder_tuning/dev_check.log",
        benchmark:
            "benchmarks/encoder_tuning/dev_check.tsv"
        threads: 1
        resources:
            mem_mb=1000,
            runtime=5,
        conda:
            ENV
        script:
            "../scripts/synthetic_dev_check.py"
