import pandas as pd

from stsynth.core.logs import log_to
from stsynth.core.threads import use_threads
from stsynth.sts2017.head import chosen_settings, final_fit, load_split, save

log = log_to(snakemake.log[0])
use_threads(snakemake.threads)
settings = chosen_settings(pd.read_parquet(snakemake.input.dev), snakemake.params.settings["points"])
log.info("final fit with the dev-chosen settings: %s", settings)
head = final_fit(load_split(snakemake.params.splits["train"]), settings)
save(head, snakemake.output.model, {"settings": settings, "vectors": snakemake.params.vectors})
