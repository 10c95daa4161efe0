from pathlib import Path

import pandas as pd

from stsynth.core.logs import log_to
from stsynth.core.paths import predictions_file
from stsynth.core.scoring import compare_runs, comparisons_markdown

log = log_to(snakemake.log[0])
pairs = [pd.read_parquet(p) for p in snakemake.input.pairs]
declared = set(snakemake.input.predictions)
predictions = {}
comparisons = [tuple(pair) for pair in snakemake.params.comparisons]
for run in dict.fromkeys(run for pair in comparisons for run in pair):
    predictions[run] = [predictions_file(run, table["year"].iat[0], table["dataset"].iat[0]) for table in pairs]
    if undeclared := [p for p in predictions[run] if p not in declared]:
        raise ValueError(f"run {run}: prediction files not among the job's inputs: {undeclared}")
bootstrap = snakemake.params.bootstrap
table = compare_runs(comparisons, pairs, predictions, snakemake.params.groups, bootstrap)
table.to_parquet(snakemake.output.table, index=False)
Path(snakemake.output.markdown).write_text(comparisons_markdown(table, bootstrap))
log.info("\n%s", table.to_string(index=False))
