# stsynth: the DCU-SEManiacs STS system (SemEval-2016 Task 1) as a Snakemake workflow.
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
include: "workflow/rules/predict.smk"
include: "workflow/rules/scoring.smk"
include: "workflow/rules/report.smk"


rule all:
    input:
        [tokens_path(d) for d in ALL_DATASETS],
        expand("results/scores/{run}.parquet", run=RUNS),
        expand("results/scores/{run}.md", run=RUNS),
        [predictions_path(run, d) for run in RUNS for d in TEST_SETS],  # predict sets (no gold) too
        ["results/scores/comparisons.md"] if plan.run_comparisons(config) else [],
        # every paragram run's model as a sentence-transformers folder, checked against the pipeline
        [f"results/paragram/{run.model}/export_check.md" for run in RUNS.values() if run.stage == "paragram"],
        "results/report.md",
        ["results/encoder_tuning/dev_check.md"] if config["encoder"]["tuning"]["dev_check"] else [],
        ["results/crosslingual/mt_comparison.md"] if REFERENCE_TRANSLATION_SETS else [],
