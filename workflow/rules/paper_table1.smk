# The SemEval-2017 system's Table 1 beside ours (stsynth.results.paper_tables), from the head runs' dev
# tables and the score tables of scoring.smk.


if config["report"]["paper_table1"]:

    rule paper_table1:
        """The SemEval-2017 system's Table 1 (Train / Dev / Test Pearson per row) beside ours, from the
        build: the head runs' dev tables (train and dev) and score tables (test), their plain cosines."""
        input:
            scores=[paths.scores_path(run) for run in config["report"]["paper_table1"]],
            dev=[paths.head_path(run, "dev.parquet") for run in config["report"]["paper_table1"]],
            cosine=[paths.head_path(run, "test_cosine.parquet") for run in config["report"]["paper_table1"]],
            others=[
                paths.scores_path(run) for run in headline_runs(config) if run not in config["report"]["paper_table1"]
            ],
            published=paths.PUBLISHED_FIGURES,
        output:
            table=paths.PAPER_TABLES["sts2017_table1"] + ".parquet",
            markdown=paths.PAPER_TABLES["sts2017_table1"] + ".md",
        log:
            paths.log_path("papers/sts2017_table1"),
        benchmark:
            paths.benchmark_path("papers/sts2017_table1")
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
            others=[run for run in headline_runs(config) if run not in config["report"]["paper_table1"]],
            code=get_code_digest("paper_table1.py"),
        script:
            "../scripts/paper_table1.py"
