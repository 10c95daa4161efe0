# Input functions and settings of the zero-shot evaluation (eval.smk; stsynth.eval).


# `snakemake eval` (eval.smk; stsynth.eval.evaluation): the tasks, the encoders and what the target builds.
EVAL = config["eval"]
try:
    EVAL_TASKS, _notes = evaluation.resolve_tasks(EVAL, ALL_DATASETS)  # task -> its datasets
except evaluation.EvalConfigError as _error:
    raise WorkflowError(f"config: {_error}") from None
if plans_jobs(sys.argv) and "eval" in sys.argv:
    for _note in _notes:
        logger.warning(_note)
EVAL_SETS = [d for sets in EVAL_TASKS.values() for d in sets]
EVAL_TASK_KEYS = {task: [f"{d.year}/{d.name}" for d in sets] for task, sets in EVAL_TASKS.items()}  # job params
# MTEB's folder (model name/revision) of each encoder, and back (two encoders in one folder are refused)
try:
    EVAL_MTEB_FOLDERS = evaluation.mteb_folders(EVAL_ENCODERS)
except evaluation.EvalConfigError as _error:
    raise WorkflowError(f"config: {_error}") from None
# Encoders evaluated here before (their scores are on disk) stay on the leaderboard.
EVAL_EARLIER = sorted({Path(p).stem for p in glob.glob(paths.eval_scores_path("*"))} - set(EVAL_ENCODERS))


def get_eval_leaderboard_mteb_files():
    """The MTEB results the leaderboard reads back through mteb: this invocation's encoders' (their rules
    make them) and those of the encoders evaluated here before (on disk, found from their facts)."""
    files = [paths.eval_mteb_file(folder, name) for folder in EVAL_MTEB_FOLDERS for name in [*EVAL_TASKS, "model_meta"]]
    for name in EVAL_EARLIER:
        with open(paths.eval_model_facts(name)) as handle:
            facts = json.load(handle)
        folder = evaluation.mteb_folder(name, {"model_name": facts["model_name"], "revision": facts.get("revision")})
        files += sorted(glob.glob(paths.eval_mteb_file(glob.escape(folder), "*")))
    return files


# The eval tasks whose sets are exactly scored test sets of the runs (STS16 in config.yaml): every
# headline run of `all` is also written as an MTEB TaskResult of those (rule mteb_run_results).
_TEST_KEYS = {f"{d.year}/{d.name}" for d in SCORED_TEST_SETS}
RUN_MTEB_TASKS = {task: keys for task, keys in EVAL_TASK_KEYS.items() if set(keys) <= _TEST_KEYS}


def get_run_mteb_files(run):
    """A run's TaskResult JSON and model_meta.json (none when no eval task is made of test sets)."""
    if not RUN_MTEB_TASKS:
        return []
    folder = evaluation.mteb_folder(run, {})
    return [paths.eval_mteb_file(folder, task, paths.RUN_MTEB_CACHE) for task in [*RUN_MTEB_TASKS, "model_meta"]]


def get_eval_pairs_path(d):
    """The pair table an encoder reads: es-en sets through Apertium unless eval.translate is never."""
    return pairs_path(d) if EVAL["translate"] == "never" else english_pairs_path(d)


def get_eval_targets():
    """`snakemake eval` (an input function: checked only when eval is a target)."""
    try:
        evaluation.check_tasks(EVAL_TASKS)
    except evaluation.EvalConfigError as error:
        raise WorkflowError(f"config: {error}") from None
    return [
        *[paths.eval_scores_path(name, suffix) for name in EVAL_ENCODERS for suffix in ("parquet", "md")],
        *[paths.eval_mteb_file(folder, name) for folder in EVAL_MTEB_FOLDERS for name in [*EVAL_TASKS, "model_meta"]],
        *paths.EVAL_LEADERBOARD.values(),
    ]
