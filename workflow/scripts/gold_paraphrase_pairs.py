import pandas as pd

from stsynth.core.logs import log_to
from stsynth.core.paraphrase_pairs import gold_filter, gold_pairs

log = log_to(snakemake.log[0])
tables = [
    gold_pairs(pd.read_parquet(pairs), pd.read_parquet(tokens), where=tokens)
    for pairs, tokens in zip(snakemake.input.pairs, snakemake.input.tokens, strict=True)
]
kept = gold_filter(tables, snakemake.params.threshold)  # the inputs are the selected years' sets
kept.to_parquet(snakemake.output[0], index=False)
log.info(
    "table %s (years %s, gold >= %g): wrote %d paraphrase pairs",
    snakemake.wildcards.table,
    ", ".join(map(str, snakemake.params.years)),
    snakemake.params.threshold,
    len(kept),
)
