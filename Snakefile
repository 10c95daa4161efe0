# stsynth: the DCU-SEManiacs STS system (SemEval-2016 Task 1) and the SemEval-2017 paraphrase/event-embedding
# system as a Snakemake workflow.
from snakemake.utils import min_version, validate

min_version("9.0")


configfile: "config.yaml"


validate(config, "workflow/schemas/config.schema.yaml")


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
