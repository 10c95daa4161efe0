from pathlib import Path

from stsynth.core.logs import log_to
from stsynth.core.tables import markdown_table
from stsynth.core.threads import use_threads
from stsynth.sts2017.head import dev_search, load_split

log = log_to(snakemake.log[0])
use_threads(snakemake.threads)
splits, settings = snakemake.params.splits, snakemake.params.settings
train, validate = load_split(splits["dev_train"]), load_split(splits["dev_validate"])
log.info(
    "dev protocol: %d training sets, %d validation sets, dimension %d, %d settings%s",
    len(train),
    len(validate),
    train[0].v1.shape[1],
    len(settings["points"]),
    "" if settings["choose_epochs"] else " (a preset: nothing chosen)",
)
table = dev_search(train, validate, settings["points"], settings["choose_epochs"])
table.to_parquet(snakemake.output.table, index=False)
chosen = table[table["chosen"]].iloc[0]
log.info(
    "chosen: hidden %s, learning rate %s, lambda %s, %d epochs: train ALL %.4f, dev ALL %.4f",
    chosen["hidden"],
    chosen["learning_rate"],
    chosen["lambda"],
    chosen["epoch"],
    chosen["train_ALL"],
    chosen["dev_ALL"],
)
Path(snakemake.output.markdown).write_text(
    markdown_table(table, f"Regression head {snakemake.wildcards.head_run}: dev search")
)
