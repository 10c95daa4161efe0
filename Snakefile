# stsynth: the DCU-SEManiacs STS system (SemEval-2016 Task 1) and the SemEval-2017 paraphrase/event-embedding
# system as a Snakemake workflow.
from snakemake.exceptions import WorkflowError
from snakemake.utils import min_version

min_version("9.0")


configfile: "config.yaml"


import os
import sys

from snakemake.sourcecache import LocalSourceFile

# This checkout: the folder of the workflow's own files (its package, schema, dataset list, decisions, corpus
# manifest), which relative paths in the config name. Not workflow.basedir, the main Snakefile's folder: a
# deployment's when this workflow runs as a module (docs/user-guide.md, "Deploy it as a Snakemake workflow").
if not isinstance(workflow.current_basedir, LocalSourceFile):
    raise WorkflowError(
        "stsynth runs as a module from a local checkout only: clone it (git clone --branch <tag>) and point the "
        "module's `snakefile:` at that checkout's Snakefile"
    )
CHECKOUT = workflow.current_basedir.get_path_or_uri(secret_free=True)
# The workflow's own package, importable here and in every job whatever their environment (--sdm conda, a
# virtualenv without `pip install -e .`, a module): its source folder goes first on this process's path and on the
# PYTHONPATH the jobs inherit, so a job runs this checkout's code, never another installed version's.
PACKAGE_SOURCE = os.path.join(CHECKOUT, "workflow")
_inherited = [path for path in os.environ.get("PYTHONPATH", "").split(os.pathsep) if path and path != PACKAGE_SOURCE]
os.environ.update(PYTHONPATH=os.pathsep.join([PACKAGE_SOURCE, *_inherited]))  # set, not read: no envvars entry
sys.path.insert(0, PACKAGE_SOURCE)

from stsynth.pipeline.overlays import ConfigOrigins, declare, typed_command_line
from stsynth.pipeline.protocol import ProtocolError

# Where each key was set (the config files that give it, or --config), for the problems start-up names.
CONFIG_ORIGINS = ConfigOrigins(workflow.configfiles, workflow.config_settings.config)
# --config key={a: 1}: the nested values typed as a config file types them (Snakemake hands them over as text).
typed_command_line(config, workflow.config_settings.config)
# Start-up's one sequence, as tools and tests run it (stsynth.pipeline.overlays.declare): the datasets file read
# (`datasets: config/datasets.yaml`), an overlay's extra_<key> lists appended, the schema's defaults with what the
# config adds, and the schema's check, every problem named with its key and where it was set.
try:
    declare(config, CHECKOUT, CONFIG_ORIGINS, f"{CHECKOUT}/workflow/schemas/config.schema.yaml")
except ProtocolError as _error:
    raise WorkflowError(str(_error)) from None


# The stages in data-flow order: each rule file only reads what the files above it write.
# docs/architecture.md lists each stage's rules, module, inputs and outputs.
include: "workflow/rules/common.smk"
# -- shared by both systems: datasets, word vectors, translation, paraphrase pairs, encoders
include: "workflow/rules/corpus.smk"
include: "workflow/rules/pairs.smk"
include: "workflow/rules/vectors.smk"
include: "workflow/rules/translate.smk"
include: "workflow/rules/paraphrase_pairs.smk"
include: "workflow/rules/encoder.smk"
# -- the DCU-SEManiacs system (SemEval-2016, stsynth.dcu2016): paragram, TakeLab features, GBR fusion
include: "workflow/rules/common_dcu2016.smk"
include: "workflow/rules/paragram.smk"
include: "workflow/rules/features.smk"
include: "workflow/rules/fusion.smk"
# -- the SemEval-2017 paraphrase/event-embedding system (stsynth.sts2017): events, CNN, sentence vectors, head
include: "workflow/rules/common_sts2017.smk"
include: "workflow/rules/events.smk"
include: "workflow/rules/paraphrase_cnn.smk"
include: "workflow/rules/sentence_vectors.smk"
include: "workflow/rules/head.smk"
# -- results of every run (stsynth.results): predictions, scores, the papers' tables, the report
include: "workflow/rules/common_results.smk"
include: "workflow/rules/predict.smk"
include: "workflow/rules/scoring.smk"
include: "workflow/rules/paper_table1.smk"
include: "workflow/rules/report.smk"
# -- zero-shot evaluation of encoders (stsynth.eval)
include: "workflow/rules/common_eval.smk"
include: "workflow/rules/eval.smk"


# The results: every run of the headline table, their scores and comparisons, the report.
rule all:
    default_target: True
    input:
        get_results_targets(),


# How the settings were chosen: dev grids, sweeps, ablations, dev checks, source and MT comparisons,
# the study runs (`study: true`), in results/studies.md. Reuses whatever `all` built.
rule studies:
    input:
        get_study_targets(),


# Zero-shot evaluation of encoders on every STS task of config `eval` (make eval; stsynth.eval.evaluation):
# scores per set and task, MTEB TaskResult JSON, the leaderboard. Builds nothing of the paper's systems.
rule eval:
    input:
        lambda wc: get_eval_targets(),
