from pathlib import Path

import pandas as pd

from stsynth.fusion import ablation, chosen_parameters, load_split, table_markdown
from stsynth.logs import log_to

log = log_to(snakemake.log[0])
settings, plans = snakemake.params.settings, snakemake.params.plans
run = snakemake.wildcards.fusion_run
params = chosen_parameters(pd.read_parquet(snakemake.input.dev))
splits = {name: load_split(plan) for name, plan in plans.items()}
variants = {}
if snakemake.params.in_sample:
    in_sample = {name: load_split(plan) for name, plan in snakemake.params.in_sample.items()}
    variants["paragram in-sample"] = (in_sample["train"], in_sample["dev_train"])
table = ablation(splits["dev_train"], splits["dev_validate"], splits["train"], splits["test"],
                 snakemake.params.features, settings["groups"], params, settings["seed"], variants)
table.to_parquet(snakemake.output.table, index=False)
Path(snakemake.output.markdown).write_text(table_markdown(
    table, f"Fusion {run}: ablation (each feature group removed; dev = 2015, test = 2016)"))
