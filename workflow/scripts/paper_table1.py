from pathlib import Path

import pandas as pd

from stsynth.core.logs import log_to
from stsynth.results.paper_tables import sts2017_table1, sts2017_table1_markdown

log = log_to(snakemake.log[0])
rows = snakemake.params.rows
read = lambda paths: {run: pd.read_parquet(path) for run, path in zip(rows, paths, strict=True)}
others = {run: pd.read_parquet(path) for run, path in zip(snakemake.params.others, snakemake.input.others, strict=True)}
table = sts2017_table1(
    rows,
    snakemake.params.sources,
    read(snakemake.input.scores),
    read(snakemake.input.dev),
    read(snakemake.input.cosine),
    others,
)
table.to_parquet(snakemake.output.table, index=False)
Path(snakemake.output.markdown).write_text(sts2017_table1_markdown(table))
log.info("\n%s", table.to_string(index=False))
