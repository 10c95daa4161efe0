import pandas as pd

from stsynth.core.logs import log_to
from stsynth.core.tokens import token_table

log = log_to(snakemake.log[0])
translated = pd.read_parquet(snakemake.input[0])
# Both sides are English now, whatever the track says about the released s1.
tokens = token_table(translated.assign(track="en"), **snakemake.params.settings)
tokens.to_parquet(snakemake.output[0], index=False)
log.info("tokenized %d translated pairs with %s", len(tokens), snakemake.params.settings)
