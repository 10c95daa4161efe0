from pathlib import Path

import pandas as pd

from stsynth.core.logs import log_to
from stsynth.translation.language import accuracy_markdown, accuracy_table

log = log_to(snakemake.log[0])
report = accuracy_table([pd.read_parquet(path) for path in snakemake.input])
report.to_parquet(snakemake.output.table, index=False)
Path(snakemake.output.markdown).write_text(accuracy_markdown(report, snakemake.params.languages))
log.info("\n%s", report.to_string(index=False))
