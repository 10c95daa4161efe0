# The fusion regressor (schema: stsynth.dcu2016.fusion): dev search, final fit (the run's scores, read by
# rule predict), importances, ablation, and the paper's Table 1 on the dev protocol. What each job
# reads per dataset is stsynth.dcu2016.fusion_plan.fusion_splits; each split is one named input.


rule fusion_dev:
    """Hyperparameter grid on the dev protocol: fit on 2012-2014, Pearson on the 2015 sets."""
    input:
        unpack(get_fusion_inputs("dev_train", "dev_validate", dev=False)),
    output:
        table=paths.fusion_path("{fusion_run}", "dev.parquet"),
        markdown=paths.fusion_path("{fusion_run}", "dev.md"),
    log:
        paths.log_path("fusion/{fusion_run}/dev"),
    benchmark:
        paths.benchmark_path("fusion/{fusion_run}/dev")
    conda:
        ENV
    threads: 2  # grid points are fitted in parallel processes
    resources:
        mem_mb=4000,
        runtime=attempt_minutes(120),
    params:
        splits=get_split_params("dev_train", "dev_validate"),
        features=lambda wc: fusion_plan.fusion_features(config, RUNS[wc.fusion_run]),
        settings=lambda wc: fusion_plan.fusion_settings(config, RUNS[wc.fusion_run]),
        code=get_code_digest("fusion_dev.py"),
    script:
        "../scripts/fusion_dev.py"


rule fusion_fit:
    """Final fit on the run's training split (the protocol's train sets) with the dev-chosen hyperparameters
    (recorded in the run's `chosen`, else its dev search's): the model as plain arrays, Gini importances (table
    and plot). It reads no test set, so a test set added refits nothing."""
    input:
        unpack(get_fusion_inputs("train")),
    output:
        model=paths.fusion_path("{fusion_run}", "model.npz"),
        importances=paths.fusion_path("{fusion_run}", "importances.parquet"),
        plot=paths.fusion_path("{fusion_run}", "importances.png"),
    log:
        paths.log_path("fusion/{fusion_run}/fit"),
    benchmark:
        paths.benchmark_path("fusion/{fusion_run}/fit")
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=3000,
        runtime=attempt_minutes(60),
    params:
        splits=get_split_params("train"),
        features=lambda wc: fusion_plan.fusion_features(config, RUNS[wc.fusion_run]),
        settings=lambda wc: fusion_plan.fusion_settings(config, RUNS[wc.fusion_run]),
        chosen=lambda wc: RUNS[wc.fusion_run].chosen_settings(),
        code=get_code_digest("fusion_fit.py"),
    script:
        "../scripts/fusion_fit.py"


rule fusion_predict:
    """The fitted model's predictions on every test set (read by rule predict)."""
    input:
        unpack(get_fusion_inputs("test", dev=False)),
        model=paths.fusion_path("{fusion_run}", "model.npz"),
    output:
        predictions=paths.fusion_path("{fusion_run}", "predictions.parquet"),
    log:
        paths.log_path("fusion/{fusion_run}/predict"),
    benchmark:
        paths.benchmark_path("fusion/{fusion_run}/predict")
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=3000,
        runtime=attempt_minutes(10),
    params:
        splits=get_split_params("test"),
        code=get_code_digest("fusion_predict.py"),
    script:
        "../scripts/fusion_predict.py"


rule fusion_ablation:
    """Each feature group removed in turn, and each out-of-fold source (paragram cosines, tuned-encoder
    similarities) read in-sample instead."""
    input:
        unpack(get_fusion_inputs("dev_train", "dev_validate", "train", "test", in_sample=True)),
    output:
        table=paths.fusion_path("{fusion_run}", "ablation.parquet"),
        markdown=paths.fusion_path("{fusion_run}", "ablation.md"),
    log:
        paths.log_path("fusion/{fusion_run}/ablation"),
    benchmark:
        paths.benchmark_path("fusion/{fusion_run}/ablation")
    conda:
        ENV
    threads: 2  # variants are fitted in parallel processes
    resources:
        mem_mb=4000,
        runtime=attempt_minutes(120),
    params:
        splits=lambda wc: fusion_plan.split_params(get_fusion_splits(wc.fusion_run)),
        in_sample=lambda wc: {
            source: fusion_plan.split_params(get_fusion_splits(wc.fusion_run, in_sample=source))
            for source in fusion_plan.fold_sources(config, RUNS[wc.fusion_run])
        },
        features=lambda wc: fusion_plan.fusion_features(config, RUNS[wc.fusion_run]),
        settings=lambda wc: fusion_plan.fusion_settings(config, RUNS[wc.fusion_run]),
        chosen=lambda wc: RUNS[wc.fusion_run].chosen_settings(),
        code=get_code_digest("fusion_ablation.py"),
    script:
        "../scripts/fusion_ablation.py"


DEV_TABLE_RUN = FUSION["dev_table"]["run"]
DEV_TABLE_SETS = plan.dev_table_sets(config, ALL_DATASETS)


if OPTIONAL_RULES["fusion_dev_table"]:  # a config without that fusion run has no dev table (a start-up note says so)

    rule fusion_dev_table:
        """Paper Table 1 on the 2015 sets: features only vs paragram cosines vs features + paragram."""
        input:
            unpack(get_fusion_inputs("dev_train", "dev_validate", run=DEV_TABLE_RUN)),
            cosines=[
                similarity_path(model, d) for model in FUSION["dev_table"]["paragram_models"] for d in DEV_TABLE_SETS
            ],
        output:
            table=paths.STUDY_TABLES["dev_table"],
            markdown=paths.study_file("dev_table"),
        log:
            paths.log_path("fusion/dev_table"),
        benchmark:
            paths.benchmark_path("fusion/dev_table")
        conda:
            ENV
        threads: 1
        resources:
            mem_mb=3000,
            runtime=attempt_minutes(60),
        params:
            splits=fusion_plan.split_params(get_fusion_splits(DEV_TABLE_RUN)),
            features=fusion_plan.fusion_features(config, RUNS[DEV_TABLE_RUN]),
            cosines={
                model: [similarity_path(model, d) for d in DEV_TABLE_SETS]
                for model in FUSION["dev_table"]["paragram_models"]
            },
            settings=fusion_plan.fusion_settings(config, RUNS[DEV_TABLE_RUN]),
            chosen=RUNS[DEV_TABLE_RUN].chosen_settings(),
            code=get_code_digest("fusion_dev_table.py"),
        script:
            "../scripts/fusion_dev_table.py"


# The fusion runs whose settings the config records (config/decisions/<protocol>.yaml): `all` fits with them, `studies` runs their
# dev search again and says whether it still chooses them.
RECORDED_FUSIONS = [name for name, run in RUNS.items() if run.stage == "fusion" and run.chosen is not None]


if RECORDED_FUSIONS:

    rule fusion_decisions:
        """Each recorded fusion setting against its dev search's choice (a study), and what the searches chose as a
        decisions file (`make decisions` copies it over config/decisions/<protocol>.yaml)."""
        input:
            dev=[paths.fusion_path(run, "dev.parquet") for run in RECORDED_FUSIONS],
        output:
            table=paths.STUDY_TABLES["decisions"],
            markdown=paths.study_file("decisions"),
            decisions=paths.study_file("decisions", ".yaml"),
        log:
            paths.log_path("fusion/decisions"),
        benchmark:
            paths.benchmark_path("fusion/decisions")
        conda:
            ENV
        threads: 1
        resources:
            mem_mb=1000,
            runtime=attempt_minutes(10),
        params:
            recorded={run: RUNS[run].chosen_settings() for run in RECORDED_FUSIONS},
            protocol=config["protocols"][config["protocol"]].get("decisions", config["protocol"]),  # whose file
            code=get_code_digest("fusion_decisions.py"),
        script:
            "../scripts/fusion_decisions.py"
