from pathlib import Path

import pandas as pd

from stsynth.core.logs import log_to
from stsynth.translation.synthetic import dev_check, dev_check_markdown

log = log_to(snakemake.log[0])
table = dev_check({model: pd.read_parquet(path) for model, path in zip(snakemake.params.models, snakemake.input)})
table.to_parquet(snakemake.output.table, index=False)
Path(snakemake.output.markdown).write_text(dev_check_markdown(table))
log.info("\n%s", table.to_string(index=False))
