# The one helper file of the rule files (config checks, the datasets and runs, wildcard
# constraints, and wildcard-level wrappers of stsynth.plan, which decides which files a job reads).
import functools
import glob
import json
import os
import re
import sys
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(workflow.basedir) / "workflow"))  # the stsynth package, for these helpers

from stsynth import (
    encoder,
    evaluation,
    fusion_plan,
    head_plan,
    input_checks,
    model_card,
    paths,
    plan,
    report_plan as stsynth_report_plan,
    snakemake_startup,
)
from stsynth.config_checks import VECTOR_BASES, check_config, check_unique_keys
from stsynth.corpus import read_manifest, sha256_of
from stsynth.device import gpus_requested
from stsynth.digests import FileDigests, folder_digest
from stsynth.encoder import ENCODER_FEATURES
from stsynth.features import FEATURES
from stsynth.folds import with_fold_models
from stsynth.input_checks import check_inputs, plans_jobs
from stsynth.lexicon import WORDNET_FILES
from stsynth.local_files import check_local_files
from stsynth.threads import pin_kernels
from stsynth.translation_cache import merge_shards
from stsynth.paths import (
    encoder_path,
    english_pairs_path,
    english_tokens_path,
    features_path,
    model_path,
    pairs_path,
    predictions_path,
    round_trips_path,
    similarity_path,
    tokens_path,
    tuned_encoder_folder,
)

# Workflow scripts import the stsynth package from workflow/ (also inside conda envs and cluster jobs).
os.environ.update(
    PYTHONPATH=os.pathsep.join(filter(None, [str(Path(workflow.basedir) / "workflow"), os.environ.get("PYTHONPATH")]))
)

DATASETS_LOCK = paths.DATASETS_LOCK

# Snakemake-specific start-up, before anything reads the config: the core cap, the scheduler fix and
# the config's checkout-relative paths and dataset years (stsynth.snakemake_startup says what each works around).
snakemake_startup.start(workflow, config, logger)
# The kernels every job's libraries pick (stsynth.threads): set here, inherited by every job process.
_kernels_note = pin_kernels(config["kernels"])
if workflow.is_main_process:
    logger.info(_kernels_note)
# YAML keeps the last of two equal keys without a word (a repeated `threshold:` silently won): the
# config files, overlays included, are read again with repeated keys refused.
check_unique_keys(workflow.configfiles)
MANIFEST = read_manifest(config["corpus"]["manifest"])
# Encoders given to `snakemake eval` by location (eval.models, make eval MODEL=...) become named encoders
# here, so the input checks below check them like any other (stsynth.evaluation).
try:
    evaluation.add_location_encoders(config)
    EVAL_ENCODERS = evaluation.eval_encoders(config)  # name -> encoder.models entry
except evaluation.EvalConfigError as _error:
    raise WorkflowError(f"config: {_error}") from None
# Every name that points at another part of the config, checked before any job (stsynth.config_checks).
# Problems name their key and the config files merged (an overlay's key is in the overlay).
for _note in check_config(
    config,
    MANIFEST,
    {*FEATURES, *ENCODER_FEATURES},
    config_name=" + ".join(os.path.relpath(f) for f in workflow.configfiles) or "config.yaml",
):
    logger.warning(_note)
ALL_DATASETS = plan.datasets_of(config)
DATASETS = {(d.year, d.name): d for d in ALL_DATASETS}
# Local files, the datasets' (`path:`) and the external runs' prediction files: sha256 recorded the first
# time a run reads them (onstart: a dry run writes nothing), a change refused on every invocation.
EXTERNAL_PREDICTIONS = plan.external_prediction_files(config, ALL_DATASETS)
LOCAL_FILES = check_local_files(
    [*(f for d in ALL_DATASETS for f in d.local_files), *EXTERNAL_PREDICTIONS],
    DATASETS_LOCK,
    sha256_of,
    datetime.now(timezone.utc).isoformat(timespec="seconds"),
)
LOCAL_SHA256 = LOCAL_FILES.digests
# A model is known by its bytes (stsynth.digests): the file digests are remembered between invocations, so an
# unchanged model is not hashed again by every dry run; one memo for the pins below and the jobs' identities.
MODEL_DIGESTS = FileDigests()
if workflow.is_main_process and plans_jobs(sys.argv):
    # Every invocation that may plan jobs (run, dry run, a second run after a refusal) checks the inputs
    # whose change must stop it: corpus copies, local dataset files, named encoders (stsynth.input_checks).
    # Onstart would not do: Snakemake skips it when it finds nothing to do, and the refusal would be forgotten.
    check_inputs(config, MANIFEST, LOCAL_FILES.error(), MODEL_DIGESTS)
    for _note in LOCAL_FILES.notes():
        logger.info(_note)


onstart:
    # A run (never a dry run, --unlock or a listing) that is about to start jobs: record new local files.
    for _note in LOCAL_FILES.record():
        logger.info(_note)
    # translations the jobs of earlier runs wrote to their own shards (stsynth.translation_cache)
    if _merged := merge_shards(config["translate"]["cache"], config["translate"]["cache_sharing"]):
        logger.info(
            f"{config['translate']['cache']}: merged {_merged} translations from the job shards of earlier runs"
        )


def _made_by_workflow(path):
    return any(rule.is_producer(path) for rule in workflow.rules)


@functools.cache
def model_identity(name):
    """The `model` param of every job that opens encoder `name` (stsynth.encoder.job_identity): the digest
    of its folder's files, so that a changed model reruns exactly its jobs and an unchanged one nothing."""
    return encoder.job_identity(config, name, MODEL_DIGESTS, _made_by_workflow)


@functools.cache
def package_model_identity(package):
    """The same for a model a job opens from an installed package's `model` folder (minilm-static's)."""
    return folder_digest(encoder.model_directory(package), MODEL_DIGESTS)


@functools.cache
def programs_checked(stage):
    """An input function of the rules that run a program (Apertium, bible): it declares no file, and refuses
    while Snakemake plans, before any job of any invocation (a dry run too), when the program is missing
    (stsynth.input_checks.program_problems); only targets that need such a job ask."""
    problems = input_checks.program_problems(config, stage)
    if problems:
        raise WorkflowError("\n  ".join(["a program the planned jobs need is missing:", *problems]))
    return []


RUNS = plan.runs_of(config)
PARAGRAM = config["paragram"]
PARAGRAM_MODELS = plan.paragram_models(config, ALL_DATASETS)
FUSION = config["fusion"]
ENV = "../../envs/stsynth.yaml"

# What shapes a translation: the backend and its own section. Marian's batch size is left out
# (batches are never padded, so it changes speed only), like the cache path and chunk size.
_BACKEND = config["translate"]["backend"]
TRANSLATION_ENGINE = {
    "backend": _BACKEND,
    _BACKEND: {key: value for key, value in config["translate"][_BACKEND].items() if key != "batch_size"},
}
# The torch device of encoding, fine-tuning, exports and Marian (stsynth.device), and the GPUs a job
# on it asks the scheduler for (resource gpu: 1 when the device resolves to CUDA here).
DEVICE = config["device"]
GPUS = gpus_requested(DEVICE)
TRANSLATION_GPUS = GPUS if _BACKEND == "marian" else 0


def gpu_resources(gpus):
    """The resources of a job that may run on a GPU: ``gpu`` (the Slurm profile's --gpus) and, when it
    asks for one and the config names a partition for GPU jobs (``gpu_partition``), that partition."""
    partition = config["gpu_partition"]
    return {"gpu": gpus, **({"slurm_partition": partition} if gpus and partition else {})}


def attempt_minutes(minutes):
    """A rule's runtime resource: ``minutes`` on the first attempt, twice that on the second, ...
    (Slurm's -t; a job the scheduler killed for time gets more when `retries` resubmits it)."""
    return lambda wildcards, attempt: minutes * attempt


# Sub-minute jobs that read and write a few small files: on a cluster they run on the submitting node
# (Snakemake's localrules) instead of waiting in the queue; the corpus fetch may need the internet,
# which compute nodes often lack. A local run is unchanged. docs/reproducibility.md lists them.
localrules:
    fetch_corpus_file,
    pair_table,
    tokenize,
    tokenize_translated,
    predict,
    score_run,
    eval_score,
    eval_mteb,
    eval_leaderboard,
    mteb_run_results,


def _alternatives(values):
    return "|".join(re.escape(str(v)) for v in sorted(set(values))) or "^$"


wildcard_constraints:
    year=_alternatives(year for year, _ in DATASETS),
    dataset=_alternatives(name for _, name in DATASETS),
    relpath=_alternatives(MANIFEST),
    run=_alternatives(RUNS),
    fusion_run=_alternatives(run.name for run in RUNS.values() if run.stage == "fusion"),
    model=with_fold_models(_alternatives(PARAGRAM_MODELS)),
    pe_model=_alternatives(config["paraphrase_cnn"]["models"]),
    head_run=_alternatives(run.name for run in RUNS.values() if run.stage == "head"),
    name="[^/]+",


def dataset(wildcards):
    return DATASETS[(int(wildcards.year), wildcards.dataset)]


def datasets_with(role=None, track=None, years=None):
    return plan.select(ALL_DATASETS, role, track, years)


TEST_SETS = datasets_with(role="test")
SCORED_TEST_SETS = [d for d in TEST_SETS if d.has_gold]  # the others are predict sets
# es-en test sets whose released files carry the third-party translation (crosslingual.reference_translation).
REFERENCE_TRANSLATION_SETS = plan.reference_translation_sets(config, ALL_DATASETS)
# The rules declared only when the config has what they need (the report asks the same function).
OPTIONAL_RULES = plan.optional_rules(config)


# Params are Snakemake's rerun trigger for config values: it compares them between runs when they
# are plain Python values (a dataclass such as Dataset is silently left out), so rules get dicts.
def dataset_entry(wc):
    """The dataset's config entry, as the plain dict its rules take as a param (with the sha256 of
    its local files: their contents, not their mtimes, decide a rebuild)."""
    d = dataset(wc)
    entry = plan.dataset_entry(d)
    return {**entry, "local_sha256": {f: LOCAL_SHA256[f] for f in d.local_files}} if d.local_files else entry


def dataset_files(wc):
    """The files the pair table is read from: the dataset's file (and gold file), fetched corpus copies or local files."""
    d = dataset(wc)
    files = {"sentences": d.local_file or paths.corpus_copy(d.input)}
    if d.gold_path or d.gold:
        files["gold"] = d.gold_path or paths.corpus_copy(d.gold)
    return files


def translation_inputs(wc):
    """The pair table and, when identification decides which sentences are Spanish, its language table."""
    files = {"pairs": pairs_path(dataset(wc))}
    if config["crosslingual"]["sides"] == "identified":
        files["languages"] = paths.language_path(dataset(wc))
    return files


def dataset_groups():
    """ "year/name" -> group of every scored test set: the unit of the ALL rows (default: the year)."""
    return {f"{d.year}/{d.name}": d.group_name for d in SCORED_TEST_SETS}


def manifest_facts(wc):
    """What a corpus copy is (path, sha256, size); where it comes from is not part of it."""
    entry = MANIFEST[wc.relpath]
    return {"relpath": entry.relpath, "sha256": entry.sha256, "bytes": entry.bytes}


def gold_filter_datasets(table):
    return datasets_with(role="train", years=config["paraphrase_pairs"]["tables"][table]["years"])


def paragram_model(name):
    return plan.paragram_settings(config, PARAGRAM_MODELS, name)


def paragram_training_inputs(wc):
    return plan.training_inputs(paragram_model(wc.model), ALL_DATASETS)


def paragram_similarity_inputs(wc):
    return plan.similarity_inputs(paragram_model(wc.model), ALL_DATASETS)


def tuned_encoder_settings(name):
    return plan.tuned_encoder_settings(config, name)


# A tuned encoder's name, or its fold model's (<name>.fold<i>of<k>).
TUNED_ENCODER_NAMES = with_fold_models(_alternatives(config["encoder"]["tuning"]["models"]))
# Encoder (named, tuned, fold model) -> the datasets whose similarity tables something reads.
ENCODER_TABLE_SETS = fusion_plan.encoder_table_sets(config, ALL_DATASETS)


def fusion_splits(run_name, in_sample=None):
    return fusion_plan.fusion_splits(config, RUNS[run_name], ALL_DATASETS, in_sample)


def report_plan(part="results"):
    """What a report part reads (stsynth.report_plan, from the config alone)."""
    sets = [{"year": d.year, "dataset": d.name, "track": d.track, "pairs": pairs_path(d)} for d in ALL_DATASETS]
    tests = [entry for entry, d in zip(sets, ALL_DATASETS) if d.role == "test" and d.has_gold]
    return stsynth_report_plan.report_plan(config, tests, paragram_model, sets, part)


# Run -> what its model card says (stsynth.model_card), for every run whose model the pipeline made.
CARD_FACTS = {run: model_card.card_facts(config, run) for run in config["runs"] if model_card.model_folder(config, run)}


def card_base(run):
    """[the named encoder a run's model was fine-tuned from, its files' identity], or None."""
    base = model_card.base_encoder(config, run)
    return [base, model_identity(base)] if base else None


def run_outputs(runs):
    """Each run's predictions on every test set (predict sets too), its score tables and, for a run
    whose model the pipeline made, that model released with its card."""
    return [
        *[predictions_path(run, d) for run in runs for d in TEST_SETS],
        *[paths.scores_path(run, suffix) for run in runs for suffix in ("parquet", "md")],
        *[paths.release_folder(run) for run in runs if run in CARD_FACTS],
    ]


def results_targets():
    """`snakemake all`: every headline run, its scores, the comparisons between them, the paragram
    runs' exported models and the results report."""
    runs = plan.headline_runs(config)
    return [
        *[tokens_path(d) for d in ALL_DATASETS],
        *run_outputs(runs),
        *([paths.scores_path(plan.COMPARISONS[False][1], "md")] if plan.run_comparisons(config, study=False) else []),
        # every paragram run's model as a sentence-transformers folder, checked against the pipeline
        *[
            paths.paragram_result_path(RUNS[run].model, "export_check.md")
            for run in runs
            if RUNS[run].stage == "paragram"
        ],
        # each run on the tasks MTEB knows (the 2016 English sets: its STS16) as MTEB TaskResult JSON
        *[path for run in runs for path in run_mteb_files(run)],
        # the SemEval-2017 system's Table 1 beside the paper's, when the config maps runs to its rows
        *([paths.PAPER_TABLES["sts2017_table1"] + ".md"] if config["report"]["paper_table1"] else []),
        paths.REPORT_PARTS["results"],
    ]


def study_targets():
    """`snakemake studies`: the study runs and every table that shows how a setting was chosen
    (stsynth.report_plan, part studies), in results/studies.md."""
    return [*run_outputs(plan.study_runs(config)), paths.REPORT_PARTS["studies"]]


def fusion_inputs(*split_names, in_sample=False, dev=True, run=None):
    """Input function: the files of the named splits of a fusion run (`run`, else the wildcard's),
    one named input per split (stsynth.fusion_plan.fusion_splits), plus the run's dev table."""

    def inputs(wc):
        name = run or wc.fusion_run
        splits = fusion_splits(name)
        files = {split: fusion_plan.split_files(splits[split]) for split in split_names}
        if in_sample:  # per source read out of fold, the training splits with it in-sample
            for source in fusion_plan.fold_sources(config, RUNS[name]):
                files.update(
                    {
                        f"{split}_{source}_in_sample": fusion_plan.split_files(entries)
                        for split, entries in fusion_splits(name, in_sample=source).items()
                    }
                )
        if dev:
            files["dev"] = paths.fusion_path(name, "dev.parquet")
        return files

    return inputs


def all_sets_vectors(kind):
    """A source's sentence-vector tables of every declared dataset ({name}: the source's model)."""
    return [paths.sentence_vectors_path(kind, "{name}", d) for d in ALL_DATASETS]


def head_inputs(*split_names):
    """Input function: the files of the named splits of the wildcard's head run (stsynth.head_plan.head_splits)."""

    def inputs(wc):
        splits = head_plan.head_splits(config, RUNS[wc.head_run], ALL_DATASETS)
        return {split: head_plan.split_files(splits[split]) for split in split_names}

    return inputs


# `snakemake eval` (eval.smk; stsynth.evaluation): the tasks, the encoders and what the target builds.
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


def eval_leaderboard_mteb_files():
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


def run_mteb_files(run):
    """A run's TaskResult JSON and model_meta.json (none when no eval task is made of test sets)."""
    if not RUN_MTEB_TASKS:
        return []
    folder = evaluation.mteb_folder(run, {})
    return [paths.eval_mteb_file(folder, task, paths.RUN_MTEB_CACHE) for task in [*RUN_MTEB_TASKS, "model_meta"]]


def eval_pairs_path(d):
    """The pair table an encoder reads: es-en sets through Apertium unless eval.translate is never."""
    return pairs_path(d) if EVAL["translate"] == "never" else english_pairs_path(d)


def eval_targets():
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
