# stsynth: the DCU-SEManiacs STS system (SemEval-2016 Task 1) as a Snakemake workflow.
from snakemake.utils import min_version, validate

min_version("9.0")


configfile: "config.yaml"


validate(config, "workflow/schemas/config.schema.yaml")


include: "workflow/rules/common.smk"
include: "workflow/rules/corpus.smk"
include: "workflow/rules/pairs.smk"
include: "workflow/rules/baseline.smk"
include: "workflow/rules/scoring.smk"
include: "workflow/rules/vectors.smk"
include: "workflow/rules/paragram_common.smk"
include: "workflow/rules/paraphrase_pairs.smk"
include: "workflow/rules/translate.smk"
include: "workflow/rules/synthetic.smk"
include: "workflow/rules/paragram.smk"
include: "workflow/rules/features.smk"
include: "workflow/rules/encoder.smk"
include: "workflow/rules/fusion.smk"
# last: the report wires in whichever stages the includes above define
include: "workflow/rules/report.smk"


rule all:
    input:
        [tokens_path(d) for d in DATASETS.values()],
        expand("results/scores/{run}.parquet", run=config["runs"]),
        expand("results/scores/{run}.md", run=config["runs"]),
        "results/report.md",
        "results/crosslingual/mt_comparison.md",
