from contextlib import closing

import pandas as pd

from stsynth.core.logs import log_to
from stsynth.translation.cache import TranslationCache
from stsynth.translation.synthetic import round_trip_table
from stsynth.translation.translate import make_translator

log = log_to(snakemake.log[0])
settings = snakemake.config["translate"]  # engine settings: params.engine (the rerun trigger)
pairs = pd.read_parquet(snakemake.input[0])
translator = make_translator(settings, snakemake.threads, snakemake.config["device"])
with closing(TranslationCache(settings["cache"], settings["cache_sharing"])) as cache:
    table, counts = round_trip_table(pairs, translator, cache, settings["chunk_size"])
table.to_parquet(snakemake.output[0], index=False)
log.info("wrote %d round trips of %d lines; %s", len(table), len(pairs), counts)
