import pandas as pd

from stsynth.core.logs import log_to
from stsynth.core.tokens import token_table

log = log_to(snakemake.log[0])
pairs = pd.read_parquet(snakemake.input[0])
tokens = token_table(pairs, **snakemake.params.settings)
tokens.to_parquet(snakemake.output[0], index=False)
log.info("tokenized %d pairs with %s", len(tokens), snakemake.params.settings)
