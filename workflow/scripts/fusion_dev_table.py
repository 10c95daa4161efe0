from pathlib import Path

import pandas as pd

from stsynth.core.logs import log_to
from stsynth.core.tables import markdown_table
from stsynth.core.threads import use_threads
from stsynth.dcu2016.fusion import load_split, run_parameters
from stsynth.dcu2016.fusion_studies import dev_table

log = log_to(snakemake.log[0])
use_threads(snakemake.threads)
settings, splits, features = snakemake.params.settings, snakemake.params.splits, snakemake.params.features
cosines = {}
for model, paths in snakemake.params.cosines.items():
    if not set(paths) <= set(snakemake.input.cosines):
        raise ValueError(f"cosine tables of {model} are not among the job's declared inputs")
    cosines[model] = pd.concat([pd.read_parquet(p) for p in paths], ignore_index=True)
table = dev_table(
    load_split(splits["dev_train"], snakemake.input.dev_train),
    load_split(splits["dev_validate"], snakemake.input.dev_validate),
    features,
    [f for f in features if f in settings["paragram"]],
    run_parameters(snakemake.params.chosen, snakemake.input.get("dev")),
    settings["seed"],
    cosines,
)
table.to_parquet(snakemake.output.table, index=False)
Path(snakemake.output.markdown).write_text(
    markdown_table(
        table,
        f"Dev protocol (fit {settings['dev']['train_years']}, validate {settings['dev']['validate_years']}): "
        "paper Table 1",
    )
)
