# Paraphrase embeddings of the SemEval-2017 system (schema: stsynth.sts2017.paraphrase_cnn): one job per
# model trains both steps; the paper's step-1 grid (delta x lambda) is a study.
PE = config["paraphrase_cnn"]


rule paraphrase_cnn_train:
    """Step 1 (margin loss on paraphrase pairs) and step 2 (the regression objective on gold pairs)."""
    input:
        unpack(lambda wc: head_plan.pe_inputs(config, head_plan.pe_settings(config, wc.pe_model), ALL_DATASETS)),
    output:
        model=paths.pe_model_path("{pe_model}"),
        vocabulary=paths.pe_model_path("{pe_model}", ".vocab.parquet"),
        epochs=paths.pe_model_path("{pe_model}", ".epochs.parquet"),
    log:
        paths.log_path("paraphrase_cnn/{pe_model}"),
    benchmark:
        paths.benchmark_path("paraphrase_cnn/{pe_model}")
    priority: 5
    conda:
        ENV
    threads: PE["threads"]
    resources:
        mem_mb=4000,
        runtime=attempt_minutes(60),
    params:
        settings=lambda wc: head_plan.pe_settings(config, wc.pe_model),
        ppdb_seed=config["vectors"]["ppdb"]["trainer"]["seed"],
        code=get_code_digest("paraphrase_cnn_train.py"),
    script:
        "../scripts/paraphrase_cnn_train.py"


# The grid is declared where the config has paraphrase embeddings (config/sts2017.yaml declares them).
if PE["models"]:

    rule paraphrase_cnn_grid:
        """The paper's step-1 grid on the dev protocol: the grid model trained at every (delta, lambda),
        scored on its dev years after step 1 (PE cosine) and step 2 (its head's prediction)."""
        input:
            unpack(
                lambda wc: head_plan.pe_inputs(
                    config, head_plan.pe_settings(config, PE["grid"]["model"]), ALL_DATASETS
                )
            ),
        output:
            table=paths.STUDY_TABLES["pe_grid"],
            markdown=paths.study_file("pe_grid"),
        log:
            paths.log_path("paraphrase_cnn/grid"),
        benchmark:
            paths.benchmark_path("paraphrase_cnn/grid")
        priority: 10
        conda:
            ENV
        threads: PE["threads"]
        resources:
            mem_mb=4000,
            runtime=attempt_minutes(240),
        params:
            points=head_plan.pe_grid_points(config),
            ppdb_seed=config["vectors"]["ppdb"]["trainer"]["seed"],
            code=get_code_digest("paraphrase_cnn_grid.py"),
        script:
            "../scripts/paraphrase_cnn_grid.py"
