# The one helper file of the rule files (config checks, the datasets and runs, wildcard
# constraints, and wildcard-level wrappers of stsynth.pipeline.plan, which decides which files a job reads).
import functools
import glob
import json
import os
import re
import sys
from datetime import datetime, timezone
from pathlib import Path

from stsynth.core import paths
from stsynth.encoders import encoder, hub
from stsynth.pipeline import input_checks, plan, snakemake_startup
from stsynth.pipeline.code import code_digest
from stsynth.pipeline.runs import (
    COMPARISONS,
    compared_runs,
    external_prediction_files,
    headline_runs,
    run_comparisons,
    run_source,
    run_sources,
    runs_of,
    study_runs,
)
from stsynth.core.datasets import select, with_year
from stsynth.dcu2016 import fusion_plan
from stsynth.sts2017 import head_plan
from stsynth.eval import evaluation, mteb_results
from stsynth.results import model_card, report_plan as stsynth_report_plan
from stsynth.pipeline.config_checks import check_config
from stsynth.pipeline.overlays import check_unique_keys, origins_named
from stsynth.pipeline.protocol import (
    ProtocolError,
    event_corpus_settings,
    gold_tables,
    protocol_test_sets,
    sweep_settings,
)
from stsynth.pipeline.checks import VECTOR_BASES
from stsynth.core.corpus import read_manifest, sha256_of
from stsynth.core.device import gpus_requested
from stsynth.core.digests import FileDigests, folder_digest
from stsynth.encoders.encoder import ENCODER_FEATURES
from stsynth.dcu2016.features import FEATURES
from stsynth.core.folds import seed_model, with_fold_models, with_seed_models
from stsynth.pipeline.input_checks import check_inputs, plans_jobs
from stsynth.core.lexicon import WORDNET_FILES
from stsynth.core.local_files import check_local_files
from stsynth.core.threads import pin_kernels
from stsynth.translation.cache import merge_shards
from stsynth.core.paths import (
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

DATASETS_LOCK = paths.DATASETS_LOCK

# Snakemake-specific start-up, before anything reads the config: the core cap, the scheduler fix and
# the config's checkout-relative paths and dataset years (stsynth.pipeline.snakemake_startup says what each works around).
# The datasets as declared (config/datasets.yaml, extra_datasets): their entries are checked as the user wrote
# them, before the protocol keeps those it names (stsynth.pipeline.protocol.resolve).
DECLARED_DATASETS = [with_year(entry) for entry in config["datasets"]]
try:
    snakemake_startup.start(workflow, config, logger, CHECKOUT)
except ProtocolError as _error:  # the protocol, named with where its keys were set
    raise WorkflowError(origins_named(str(_error), CONFIG_ORIGINS)) from None
# The kernels every job's libraries pick (stsynth.core.threads): set here, inherited by every job process.
_kernels_note = pin_kernels(config["kernels"])
if workflow.is_main_process:
    logger.info(_kernels_note)
# YAML keeps the last of two equal keys without a word (a repeated `threshold:` silently won): the
# config files, overlays included, are read again with repeated keys refused.
check_unique_keys(workflow.configfiles)
MANIFEST = read_manifest(config["corpus"]["manifest"])
# Encoders given to `snakemake eval` by location (eval.models, make eval MODEL=...) become named encoders
# here, so the input checks below check them like any other (stsynth.eval.evaluation).
try:
    evaluation.add_location_encoders(config)
    EVAL_ENCODERS = evaluation.eval_encoders(config)  # name -> encoder.models entry
except evaluation.EvalConfigError as _error:
    raise WorkflowError(f"config: {_error}") from None
# Every name that points at another part of the config, checked before any job (stsynth.pipeline.config_checks).
# Problems name their key and where it was set (the Snakefile's CONFIG_ORIGINS: an overlay's key is in the overlay).
for _note in check_config(
    config, MANIFEST, {*FEATURES, *ENCODER_FEATURES}, origins=CONFIG_ORIGINS, declared_datasets=DECLARED_DATASETS
):
    logger.warning(_note)
ALL_DATASETS = plan.datasets_of(config)
DATASETS = {(d.year, d.name): d for d in ALL_DATASETS}
# Local files, the datasets' (`path:`) and the external runs' prediction files: sha256 recorded the first
# time a run reads them (onstart: a dry run writes nothing), a change refused on every invocation.
EXTERNAL_PREDICTIONS = external_prediction_files(config, ALL_DATASETS)
LOCAL_FILES = check_local_files(
    [*(f for d in ALL_DATASETS for f in d.local_files), *EXTERNAL_PREDICTIONS],
    DATASETS_LOCK,
    sha256_of,
    datetime.now(timezone.utc).isoformat(timespec="seconds"),
)
LOCAL_SHA256 = LOCAL_FILES.digests
# A model is known by its bytes (stsynth.core.digests): the file digests are remembered between invocations, so an
# unchanged model is not hashed again by every dry run; one memo for the pins below and the jobs' identities.
MODEL_DIGESTS = FileDigests()
# Hub encoders the hub_fetch job downloads (missing from the Hugging Face cache, HF_HUB_OFFLINE unset), and those it
# fetched before: its record stays an input of every job that opens them (stsynth.encoders.hub).
HUB_ENCODERS = {name: entry for name, entry in config["encoder"]["models"].items() if entry.get("hub")}
HUB_MISSING = (
    {name for name, e in HUB_ENCODERS.items() if hub.cached_snapshot(e["hub"], e.get("revision")) is None}
    if HUB_ENCODERS and hub.fetching_allowed()
    else set()
)
HUB_FETCHED = HUB_MISSING | {name for name in HUB_ENCODERS if Path(paths.hub_record_path(name)).exists()}
if workflow.is_main_process and plans_jobs(sys.argv):
    # Every invocation that may plan jobs (run, dry run, a second run after a refusal) checks the inputs
    # whose change must stop it: corpus copies, local dataset files, named encoders (stsynth.pipeline.input_checks).
    # Onstart would not do: Snakemake skips it when it finds nothing to do, and the refusal would be forgotten.
    check_inputs(
        config,
        MANIFEST,
        LOCAL_FILES.error(),
        MODEL_DIGESTS,
        fetchable=HUB_MISSING.__contains__,
        datasets=ALL_DATASETS,
        warn=logger.warning,
    )
    for _note in LOCAL_FILES.notes():
        logger.info(_note)


onstart:
    # A run (never a dry run, --unlock or a listing) that is about to start jobs: record new local files.
    for _note in LOCAL_FILES.record():
        logger.info(_note)
    # translations the jobs of earlier runs wrote to their own shards (stsynth.translation.cache)
    if _merged := merge_shards(config["translate"]["cache"], config["translate"]["cache_sharing"]):
        logger.info(
            f"{config['translate']['cache']}: merged {_merged} translations from the job shards of earlier runs"
        )


def _made_by_workflow(path):
    return any(rule.is_producer(path) for rule in workflow.rules)


def get_encoder_folder(name):
    """The `encoder_folder` input of every job that opens encoder `name`: its folder where a rule makes it
    (stsynth.encoders.encoder.job_inputs), and for a hub encoder the hub_fetch job has fetched or will fetch, that
    job's record (a checkpoint: the job's model identity is read once the model is there)."""
    if name in HUB_FETCHED:
        return [checkpoints.hub_fetch.get(encoder=name).output.record]
    return encoder.job_inputs(config, name, _made_by_workflow)


def get_code_digest(script):
    """The `code` param of every script rule: the digest of the script and of the stsynth modules it imports
    (stsynth.pipeline.code), so a changed module reruns the jobs that run it and misses the between-workflow cache."""
    return code_digest(Path(CHECKOUT) / "workflow" / "scripts" / script)


@functools.cache
def get_model_identity(name):
    """The `model` param of every job that opens encoder `name` (stsynth.encoders.encoder.job_identity): the digest
    of its folder's files, so that a changed model reruns exactly its jobs and an unchanged one nothing."""
    if name in HUB_MISSING:  # its bytes exist once the hub_fetch checkpoint has run (Snakemake defers the job)
        checkpoints.hub_fetch.get(encoder=name)
    return encoder.job_identity(config, name, MODEL_DIGESTS, _made_by_workflow)


@functools.cache
def get_package_model_identity(package):
    """The same for a model a job opens from an installed package's `model` folder (minilm-static's)."""
    return folder_digest(encoder.model_directory(package), MODEL_DIGESTS)


@functools.cache
def get_checked_programs(stage):
    """An input function of the rules that run a program (Apertium, bible): it declares no file, and refuses
    while Snakemake plans, before any job of any invocation (a dry run too), when the program is missing
    (stsynth.pipeline.input_checks.program_problems); only targets that need such a job ask."""
    problems = input_checks.program_problems(config, stage)
    if problems:
        raise WorkflowError("\n  ".join(["a program the planned jobs need is missing:", *problems]))
    return []


RUNS = runs_of(config)
PARAGRAM = config["paragram"]
PARAGRAM_MODELS = plan.paragram_models(config, ALL_DATASETS)
ENV = "../../envs/stsynth.yaml"

# What shapes a translation: the backend and its own section. Marian's batch size is left out
# (batches are never padded, so it changes speed only), like the cache path and chunk size.
_BACKEND = config["translate"]["backend"]
TRANSLATION_ENGINE = {
    "backend": _BACKEND,
    _BACKEND: {key: value for key, value in config["translate"][_BACKEND].items() if key != "batch_size"},
}
# The torch device of encoding, fine-tuning, exports and Marian (stsynth.core.device), and the GPUs a job
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
# which compute nodes often lack. A local run is unchanged. docs/user-guide.md, "Clusters and GPUs".
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
    pe_model=with_seed_models(_alternatives(config["paraphrase_cnn"]["models"])),
    head_run=_alternatives(run.name for run in RUNS.values() if run.stage == "head"),
    name="[^/]+",


def get_dataset(wildcards):
    return DATASETS[(int(wildcards.year), wildcards.dataset)]


def get_datasets(role=None, track=None, years=None):
    return select(ALL_DATASETS, role, track, years)


TEST_SETS = get_datasets(role="test")
SCORED_TEST_SETS = [d for d in TEST_SETS if d.has_gold]  # the others are predict sets
# es-en test sets whose released files carry the third-party translation (crosslingual.reference_translation).
REFERENCE_TRANSLATION_SETS = plan.reference_translation_sets(config, ALL_DATASETS)
# The rules declared only when the config has what they need (the report asks the same function).
OPTIONAL_RULES = plan.optional_rules(config)


def get_paragram_model(name):
    return plan.paragram_settings(config, PARAGRAM_MODELS, name)


# --- input functions of the shared stages (corpus, pairs, translate, paraphrase_pairs, encoder) ------


def get_manifest_facts(wc):
    """What a corpus copy is (path, sha256, size); where it comes from is not part of it."""
    entry = MANIFEST[wc.relpath]
    return {"relpath": entry.relpath, "sha256": entry.sha256, "bytes": entry.bytes}


# Params are Snakemake's rerun trigger for config values: it compares them between runs when they
# are plain Python values (a dataclass such as Dataset is silently left out), so rules get dicts.
def get_dataset_entry(wc):
    """The dataset's config entry, as the plain dict its rules take as a param (with the sha256 of
    its local files: their contents, not their mtimes, decide a rebuild)."""
    d = get_dataset(wc)
    entry = plan.dataset_entry(d)
    return {**entry, "local_sha256": {f: LOCAL_SHA256[f] for f in d.local_files}} if d.local_files else entry


def get_dataset_files(wc):
    """The files the pair table is read from: the dataset's file (and gold file), fetched corpus copies or local files."""
    d = get_dataset(wc)
    files = {"sentences": d.local_file or paths.corpus_copy(d.input)}
    if d.gold_path or d.gold:
        files["gold"] = d.gold_path or paths.corpus_copy(d.gold)
    return files


def get_translation_inputs(wc):
    """The pair table and, when identification decides which sentences are Spanish, its language table."""
    files = {"pairs": pairs_path(get_dataset(wc))}
    if config["crosslingual"]["sides"] == "identified":
        files["languages"] = paths.language_path(get_dataset(wc))
    return files


def get_gold_filter_datasets(table):
    return get_datasets(role="train", years=gold_tables(config)[table]["years"])


def get_tuned_encoder_settings(name):
    return plan.tuned_encoder_settings(config, name)


def get_tuning_priority(settings):
    """A tuning job's priority: 5; above frozen layers, higher, and the fewer frozen layers the sooner
    (stsynth.encoders.lower_layers continues a higher layer's states from a lower one's the store holds: those are
    computed first), below the word vectors' 50 that every paragram model waits for."""
    frozen = settings.get("frozen_layers", 0)
    return 5 + max(1, 44 - frozen) if frozen else 5


def get_layer_start(name):
    """A similarity job's `from_layer` param: for an encoder tuned above frozen layers (`frozen_layers: k`,
    the torch backend), k and its start encoder (entry and files), whose states after layer k its tuning kept in
    the store and the job reads (stsynth.encoders.lower_layers); None for every other encoder (no param)."""
    if not encoder.is_tuned(config, name) or ENCODER["backend"] != "torch":
        return None
    settings = get_tuned_encoder_settings(name)
    if not settings.get("frozen_layers"):
        return None
    start = settings["start"]
    return {"frozen_layers": settings["frozen_layers"], "start": encoder.job_entry(config, start), "name": start}


# A tuned encoder's name, or its fold model's (<name>.fold<i>of<k>).
TUNED_ENCODER_NAMES = with_fold_models(_alternatives(config["encoder"]["tuning"]["models"]))


# Encoder (named, tuned, fold model) -> the datasets whose similarity tables something reads, and the jobs
# that write them: (encoder, part) -> datasets (stsynth.dcu2016.fusion_plan.encoder_table_jobs).
ENCODER_TABLE_SETS = fusion_plan.encoder_table_sets(config, ALL_DATASETS)
ENCODER_TABLE_JOBS = fusion_plan.encoder_table_jobs(config, ALL_DATASETS)

# The per-set rules' jobs (paragram similarities, pair features, unknown-word vectors): part None, the sets
# fitted and chosen on; a group name, that group's test sets (stsynth.pipeline.plan.table_job_parts).
TABLE_JOB_PARTS = plan.table_job_parts(ALL_DATASETS)


def get_part_rule_name(base, part):
    """A per-part rule's name: `base` for part None, `base__<group>` for a group of test sets, with every
    character but letters, digits and "_" as "_" (`snakemake --list-rules` lists them)."""
    return re.sub(r"[^A-Za-z0-9_]", "_", base if part is None else f"{base}__{part}")


def get_part_file_name(name, part):
    """A per-part job's log or benchmark name: `name`, or `name.<group>` for a group of test sets."""
    return name if part is None else f"{name}.{part}"
