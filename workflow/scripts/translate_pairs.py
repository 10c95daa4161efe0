from contextlib import closing

import pandas as pd

from stsynth.core.logs import log_to
from stsynth.translation.cache import TranslationCache
from stsynth.translation.translate import make_translator, translate_pairs

log = log_to(snakemake.log[0])
settings = snakemake.config["translate"]  # engine settings: params.engine (the rerun trigger)
pairs = pd.read_parquet(snakemake.input.pairs)
languages = pd.read_parquet(snakemake.input.languages) if "languages" in snakemake.input.keys() else None
translator = make_translator(settings, snakemake.threads, snakemake.config["device"])
with closing(TranslationCache(settings["cache"], settings["cache_sharing"])) as cache:
    translated = translate_pairs(pairs, translator, cache, settings["chunk_size"], languages)
translated.to_parquet(snakemake.output[0], index=False)
log.info("wrote %d pairs, their Spanish sentences translated to English", len(translated))
