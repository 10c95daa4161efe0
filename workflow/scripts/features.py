import time

import pandas as pd

from stsynth.features import check_aligned, extract
from stsynth.logs import log_to
from stsynth.vectors import read_vectors

log = log_to(snakemake.log[0])
start = time.perf_counter()
pairs = pd.read_parquet(snakemake.input.pairs)
tokens = pd.read_parquet(snakemake.input.tokens)
check_aligned(pairs, tokens, snakemake.input.pairs, snakemake.input.tokens)
settings = snakemake.params.settings
table = extract(pairs, tokens, read_vectors(snakemake.input.vectors), settings, settings["nltk_data"])
table.to_parquet(snakemake.output[0], index=False)
log.info("%d pairs, %d features, %.1f s", len(table), table.shape[1] - 3, time.perf_counter() - start)
