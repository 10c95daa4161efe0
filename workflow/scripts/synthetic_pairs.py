from pathlib import Path

import pandas as pd

from stsynth.core.logs import log_to
from stsynth.translation.synthetic import counts_markdown, synthetic_pairs

log = log_to(snakemake.log[0])
table, counts = synthetic_pairs([pd.read_parquet(path) for path in snakemake.input], snakemake.params.settings)
table.to_parquet(snakemake.output.table, index=False)
Path(snakemake.output.counts).write_text(counts_markdown(counts))
log.info("wrote %d synthetic pairs", len(table))
