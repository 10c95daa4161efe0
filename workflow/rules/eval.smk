# Zero-shot evaluation of encoders (`snakemake eval`; stsynth.eval.evaluation): each encoder's similarities
# on every set of the `eval` tasks (one job per encoder, embeddings from the store: stsynth.encoders.embedding_store), its scores,
# its MTEB TaskResult JSON, and the leaderboard of every encoder evaluated in this working directory.


rule eval_encode:
    """One encoder's similarity tables of every eval set (stsynth.eval.evaluation), its embeddings read
    from or added to the embedding store (stsynth.encoders.embedding_store)."""
    input:
        # a named encoder's local folder (none for a package or hub name)
        encoder_folder=lambda wc: get_encoder_folder(wc.encoder),
        pairs=[get_eval_pairs_path(d) for d in EVAL_SETS],
    output:
        tables=[paths.eval_similarity_path("{encoder}", d) for d in EVAL_SETS],
        facts=paths.eval_model_facts("{encoder}"),
    log:
        paths.log_path("eval/encode/{encoder}"),
    benchmark:
        paths.benchmark_path("eval/encode/{encoder}")
    wildcard_constraints:
        encoder=_alternatives(EVAL_ENCODERS),
    conda:
        ENV
    threads: EVAL["threads"]
    resources:
        **gpu_resources(GPUS),
        mem_mb=4000,
        runtime=attempt_minutes(60),
    params:
        encoder=lambda wc: encoder.job_entry(config, wc.encoder, evaluation=True),
        # the model's files (a change reruns the job; stsynth.core.digests)
        model=lambda wc: get_model_identity(wc.encoder),
        settings={"batch_size": ENCODER["batch_size"]},  # max_length: the entry's, else the model's own
        code=get_code_digest("eval_encode.py"),
    script:
        "../scripts/eval_encode.py"


rule eval_score:
    """One encoder's scores per set and task (scores table; group = task), with bootstrap intervals."""
    input:
        pairs=[pairs_path(d) for d in EVAL_SETS],
        tables=[paths.eval_similarity_path("{encoder}", d) for d in EVAL_SETS],
    output:
        table=paths.eval_scores_path("{encoder}", "parquet"),
        markdown=paths.eval_scores_path("{encoder}", "md"),
    log:
        paths.log_path("eval/score/{encoder}"),
    benchmark:
        paths.benchmark_path("eval/score/{encoder}")
    wildcard_constraints:
        encoder=_alternatives(EVAL_ENCODERS),
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=attempt_minutes(10),
    params:
        tasks=EVAL_TASK_KEYS,
        similarity=EVAL["similarity"],
        bootstrap=config["scoring"]["bootstrap"],
        code=get_code_digest("eval_score.py"),
    script:
        "../scripts/eval_score.py"


rule eval_mteb:
    """One encoder's MTEB TaskResult JSON per task and its model_meta.json, in MTEB's results layout."""
    input:
        pairs=[pairs_path(d) for d in EVAL_SETS],
        tables=lambda wc: [paths.eval_similarity_path(EVAL_MTEB_FOLDERS[wc.mteb_folder], d) for d in EVAL_SETS],
        facts=lambda wc: paths.eval_model_facts(EVAL_MTEB_FOLDERS[wc.mteb_folder]),
    output:
        results=[paths.eval_mteb_file("{mteb_folder}", task) for task in EVAL_TASKS],
        meta=paths.eval_mteb_file("{mteb_folder}", "model_meta"),
    log:
        paths.log_path("eval/mteb/{mteb_folder}"),
    benchmark:
        paths.benchmark_path("eval/mteb/{mteb_folder}")
    wildcard_constraints:
        mteb_folder=_alternatives(EVAL_MTEB_FOLDERS),
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=attempt_minutes(10),
    params:
        tasks=EVAL_TASK_KEYS,
        revisions={task: mteb_results.dataset_revision(task, sets) for task, sets in EVAL_TASKS.items()},
        subsets={task: mteb_results.task_subset(task, sets) for task, sets in EVAL_TASKS.items()},
        encoder=lambda wc: encoder.job_entry(config, EVAL_MTEB_FOLDERS[wc.mteb_folder], evaluation=True),
        code=get_code_digest("eval_mteb.py"),
    script:
        "../scripts/eval_mteb.py"


rule eval_leaderboard:
    """Every encoder evaluated in this working directory, one row each (main score per task, mean)."""
    input:
        scores=[paths.eval_scores_path(name) for name in [*EVAL_ENCODERS, *EVAL_EARLIER]],
        facts=[paths.eval_model_facts(name) for name in [*EVAL_ENCODERS, *EVAL_EARLIER]],
        mteb=get_eval_leaderboard_mteb_files(),
    output:
        **paths.EVAL_LEADERBOARD,
    log:
        paths.log_path("eval/leaderboard"),
    benchmark:
        paths.benchmark_path("eval/leaderboard")
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=attempt_minutes(5),
    params:
        code=get_code_digest("eval_leaderboard.py"),
    script:
        "../scripts/eval_leaderboard.py"


rule mteb_run_results:
    """A run's scores on the tasks MTEB knows (RUN_MTEB_TASKS) as MTEB TaskResult JSON, from its scores table."""
    input:
        paths.scores_path("{run}", "parquet"),
    output:
        results=[
            paths.eval_mteb_file(evaluation.mteb_folder("{run}", {}), task, paths.RUN_MTEB_CACHE)
            for task in RUN_MTEB_TASKS
        ],
        meta=paths.eval_mteb_file(evaluation.mteb_folder("{run}", {}), "model_meta", paths.RUN_MTEB_CACHE),
    log:
        paths.log_path("mteb/{run}"),
    benchmark:
        paths.benchmark_path("mteb/{run}")
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=500,
        runtime=attempt_minutes(5),
    params:
        tasks=RUN_MTEB_TASKS,
        revisions={task: mteb_results.dataset_revision(task, EVAL_TASKS[task]) for task in RUN_MTEB_TASKS},
        subsets={task: mteb_results.task_subset(task, EVAL_TASKS[task]) for task in RUN_MTEB_TASKS},
        code=get_code_digest("mteb_run_results.py"),
    script:
        "../scripts/mteb_run_results.py"
