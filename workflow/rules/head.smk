# The regression head of the SemEval-2017 system (stsynth.sts2017.head): per head run a dev search on the
# dev protocol and a final fit, both over the sentence-vector tables of sentence_vectors.smk.
HEAD = config["head"]


rule head_dev:
    """The regression head's dev search: every setting (or the run's preset) fitted on the dev protocol's
    training years and scored on its validation years after every epoch; the best is chosen."""
    input:
        unpack(get_head_inputs("dev_train", "dev_validate")),
    output:
        table=paths.head_path("{head_run}", "dev.parquet"),
        markdown=paths.head_path("{head_run}", "dev.md"),
    log:
        paths.log_path("head/{head_run}/dev"),
    benchmark:
        paths.benchmark_path("head/{head_run}/dev")
    conda:
        ENV
    threads: HEAD["threads"]
    resources:
        mem_mb=3000,
        runtime=attempt_minutes(60),
    params:
        splits=get_head_split_params("dev_train", "dev_validate"),
        settings=lambda wc: head_plan.head_settings(config, RUNS[wc.head_run]),
        code=get_code_digest("head_dev.py"),
    script:
        "../scripts/head_dev.py"


rule head_fit:
    """The final fit on every training set with the dev-chosen settings: the head as safetensors. It reads no
    test set, so a test set added refits nothing."""
    input:
        unpack(get_head_inputs("train")),
        dev=paths.head_path("{head_run}", "dev.parquet"),
    output:
        model=paths.head_path("{head_run}", "model.safetensors"),
    log:
        paths.log_path("head/{head_run}/fit"),
    benchmark:
        paths.benchmark_path("head/{head_run}/fit")
    conda:
        ENV
    threads: HEAD["threads"]
    resources:
        mem_mb=3000,
        runtime=attempt_minutes(30),
    params:
        splits=get_head_split_params("train"),
        settings=lambda wc: head_plan.head_settings(config, RUNS[wc.head_run]),
        vectors=lambda wc: list(RUNS[wc.head_run].vectors),
        code=get_code_digest("head_fit.py"),
    script:
        "../scripts/head_fit.py"


rule head_predict:
    """The head's predictions on every test set (read by rule predict) and the plain cosine's scores of the
    same vectors on them."""
    input:
        unpack(get_head_inputs("test")),
        model=paths.head_path("{head_run}", "model.safetensors"),
    output:
        predictions=paths.head_path("{head_run}", "predictions.parquet"),
        cosine=paths.head_path("{head_run}", "test_cosine.parquet"),
    log:
        paths.log_path("head/{head_run}/predict"),
    benchmark:
        paths.benchmark_path("head/{head_run}/predict")
    conda:
        ENV
    threads: HEAD["threads"]
    resources:
        mem_mb=3000,
        runtime=attempt_minutes(10),
    params:
        splits=get_head_split_params("test"),
        code=get_code_digest("head_predict.py"),
    script:
        "../scripts/head_predict.py"
