from pathlib import Path

import pandas as pd

from stsynth.core.logs import log_to
from stsynth.results.seed_study import importance_markdown, importance_spread

log = log_to(snakemake.log[0])
spread = importance_spread(
    pd.read_parquet(snakemake.input.headline), [pd.read_parquet(path) for path in snakemake.input.seeded]
)
spread.to_parquet(snakemake.output.table, index=False)
Path(snakemake.output.markdown).write_text(importance_markdown(snakemake.wildcards.run, spread))
log.info("\n%s", spread.head(12).to_string(index=False))
