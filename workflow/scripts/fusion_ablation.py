from pathlib import Path

from stsynth.core.logs import log_to
from stsynth.core.tables import markdown_table
from stsynth.core.threads import use_threads
from stsynth.dcu2016.fusion import load_split, run_parameters
from stsynth.dcu2016.fusion_studies import ablation

log = log_to(snakemake.log[0])
use_threads(1)  # one BLAS thread per process: the rule's threads are its worker processes
settings, splits = snakemake.params.settings, snakemake.params.splits
run = snakemake.wildcards.fusion_run
params = run_parameters(snakemake.params.chosen, snakemake.input.get("dev"))
loaded = {
    name: load_split(splits[name], snakemake.input[name]) for name in ("dev_train", "dev_validate", "train", "test")
}
variants = {}
for source, source_splits in snakemake.params.in_sample.items():
    in_sample = {
        name: load_split(split, snakemake.input[f"{name}_{source}_in_sample"]) for name, split in source_splits.items()
    }
    variants[f"{source} in-sample"] = (in_sample["train"], in_sample["dev_train"])
table = ablation(
    loaded["dev_train"],
    loaded["dev_validate"],
    loaded["train"],
    loaded["test"],
    snakemake.params.features,
    settings["groups"],
    params,
    settings["seed"],
    variants,
    snakemake.threads,
)
table.to_parquet(snakemake.output.table, index=False)
Path(snakemake.output.markdown).write_text(
    markdown_table(table, f"Fusion {run}: ablation (each feature group removed; dev = 2015, test = 2016)")
)
