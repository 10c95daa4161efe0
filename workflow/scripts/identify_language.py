import pandas as pd

from stsynth.core.logs import log_to
from stsynth.translation.language import language_table

log = log_to(snakemake.log[0])
table = language_table(pd.read_parquet(snakemake.input[0]), snakemake.params.languages)
table.to_parquet(snakemake.output[0], index=False)
