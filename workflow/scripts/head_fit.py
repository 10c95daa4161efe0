import pandas as pd

from stsynth.core.logs import log_to
from stsynth.core.threads import use_threads
from stsynth.sts2017.head import chosen_settings, fit_and_predict, load_split, save

log = log_to(snakemake.log[0])
use_threads(snakemake.threads)
splits = snakemake.params.splits
settings = chosen_settings(pd.read_parquet(snakemake.input.dev), snakemake.params.settings["points"])
log.info("final fit with the dev-chosen settings: %s", settings)
head, predictions, cosine = fit_and_predict(load_split(splits["train"]), load_split(splits["test"]), settings)
predictions.to_parquet(snakemake.output.predictions, index=False)
cosine.to_parquet(snakemake.output.cosine, index=False)
save(head, snakemake.output.model, {"settings": settings, "vectors": snakemake.params.vectors})
