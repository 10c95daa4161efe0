from pathlib import Path

from stsynth.fusion import dev_search, load_split, table_markdown
from stsynth.logs import log_to

log = log_to(snakemake.log[0])
settings, plans = snakemake.params.settings, snakemake.params.plans
train, validate = load_split(plans["dev_train"]), load_split(plans["dev_validate"])
table = dev_search(train, validate, snakemake.params.features, settings["grid"], settings["seed"])
table.to_parquet(snakemake.output.table, index=False)
chosen = table[table["chosen"]]
log.info("chosen: %s", chosen.to_dict("records")[0])
best = table.sort_values("pearson_ALL", ascending=False).groupby(["init", "max_depth", "learning_rate", "subsample"]).head(1)
Path(snakemake.output.markdown).write_text(
    table_markdown(chosen.drop(columns="chosen"), f"Fusion {snakemake.wildcards.fusion_run}: chosen on the dev protocol")
    + "\n" + table_markdown(best.drop(columns="chosen"), "Best number of trees per grid point"))
