import time

import pandas as pd
import pyarrow.parquet as pq

from stsynth.core.keyed import check_aligned
from stsynth.core.logs import log_to
from stsynth.core.progress import Progress
from stsynth.core.threads import use_threads
from stsynth.dcu2016.features import extract
from stsynth.word_vectors.vectors import read_vectors

log = log_to(snakemake.log[0])
use_threads(snakemake.threads)
settings = snakemake.params.settings
vectors = read_vectors(snakemake.input.vectors)
total = sum(pq.read_metadata(path).num_rows for path in snakemake.input.pairs)
with Progress(log, f"features of {len(snakemake.input.pairs)} datasets", total, "pairs") as progress:
    for pairs_path, tokens_path, output in zip(
        snakemake.input.pairs, snakemake.input.tokens, snakemake.output, strict=True
    ):
        start = time.perf_counter()
        pairs, tokens = pd.read_parquet(pairs_path), pd.read_parquet(tokens_path)
        check_aligned(tokens, pairs, tokens_path, pairs_path)
        table = extract(pairs, tokens, vectors, settings, settings["nltk_data"])  # tagger and WordNet load once
        table.to_parquet(output, index=False)
        log.info(
            "%s: %d pairs, %d features, %.1f s", pairs_path, len(table), table.shape[1] - 3, time.perf_counter() - start
        )
        progress.advance(len(table))
