from pathlib import Path

import pandas as pd

from stsynth.logs import log_to
from stsynth.paragram import unknown_word_table

log = log_to(snakemake.log[0])
words = pd.read_parquet(snakemake.input.vocabulary)["word"].tolist()
table = unknown_word_table(words, [pd.read_parquet(path) for path in snakemake.input.tokens])
table.to_parquet(snakemake.output.table, index=False)
Path(snakemake.output.markdown).write_text(
    "| year | dataset | tokens | unknown | % |\n|---|---|---:|---:|---:|\n"
    + "".join(f"| {r.year} | {r.dataset} | {r.tokens} | {r.unknown} | {r.percent:.2f} |\n" for r in table.itertuples()))
log.info("\n%s", table.to_string(index=False))
