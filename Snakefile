# stsynth: the DCU-SEManiacs STS system (SemEval-2016 Task 1) and the SemEval-2017 paraphrase/event-embedding
# system as a Snakemake workflow.
import sys

from snakemake.exceptions import WorkflowError
from snakemake.utils import min_version, validate

min_version("9.0")


configfile: "config.yaml"


sys.path.insert(0, f"{workflow.basedir}/workflow")  # the stsynth package
from stsynth.overlays import append_extras, schema_problems

# An overlay's extra_<key> lists add to <key> (a plain list replaces it: stsynth.overlays); then every
# schema problem is named with its key and the config files that set it.
append_extras(config)
try:
    validate(config, "workflow/schemas/config.schema.yaml")  # also fills the schema's defaults
except WorkflowError:  # only then every problem again, with the files that set its key
    _problems = schema_problems(config, f"{workflow.basedir}/workflow/schemas/config.schema.yaml", workflow.configfiles)
    raise WorkflowError(f"{len(_problems)} config problem(s):\n  " + "\n  ".join(_problems)) from None


# The stages in data-flow order: each rule file only reads what the files above it write.
# docs/architecture.md lists each stage's rules, module, inputs and outputs.
include: "workflow/rules/common.smk"
include: "workflow/rules/corpus.smk"
include: "workflow/rules/pairs.smk"
include: "workflow/rules/vectors.smk"
include: "workflow/rules/translate.smk"
include: "workflow/rules/paraphrase_pairs.smk"
include: "workflow/rules/paragram.smk"
include: "workflow/rules/features.smk"
include: "workflow/rules/encoder.smk"
include: "workflow/rules/fusion.smk"
include: "workflow/rules/events.smk"
include: "workflow/rules/paraphrase_cnn.smk"
include: "workflow/rules/head.smk"
include: "workflow/rules/predict.smk"
include: "workflow/rules/scoring.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/eval.smk"


# The results: every run of the headline table, their scores and comparisons, the report.
rule all:
    default_target: True
    input:
        results_targets(),


# How the settings were chosen: dev grids, sweeps, ablations, dev checks, source and MT comparisons,
# the study runs (`study: true`), in results/studies.md. Reuses whatever `all` built.
rule studies:
    input:
        study_targets(),


# Zero-shot evaluation of encoders on every STS task of config `eval` (make eval; stsynth.evaluation):
# scores per set and task, MTEB TaskResult JSON, the leaderboard. Builds nothing of the paper's systems.
rule eval:
    input:
        lambda wc: eval_targets(),
