from pathlib import Path

from stsynth.core.logs import log_to
from stsynth.core.tables import markdown_table
from stsynth.core.threads import use_threads
from stsynth.dcu2016.fusion import dev_search, load_split

log = log_to(snakemake.log[0])
use_threads(1)  # one BLAS thread per process: the rule's threads are its worker processes
settings, splits = snakemake.params.settings, snakemake.params.splits
train = load_split(splits["dev_train"], snakemake.input.dev_train)
validate = load_split(splits["dev_validate"], snakemake.input.dev_validate)
table = dev_search(train, validate, snakemake.params.features, settings["grid"], settings["seed"], snakemake.threads)
table.to_parquet(snakemake.output.table, index=False)
chosen = table[table["chosen"]]
log.info("chosen: %s", chosen.to_dict("records")[0])
best = (
    table.sort_values("pearson_ALL", ascending=False)
    .groupby(["init", "max_depth", "learning_rate", "subsample"])
    .head(1)
)
Path(snakemake.output.markdown).write_text(
    markdown_table(
        chosen.drop(columns="chosen"), f"Fusion {snakemake.wildcards.fusion_run}: chosen on the dev protocol"
    )
    + "\n"
    + markdown_table(best.drop(columns="chosen"), "Best number of trees per grid point")
)
