from pathlib import Path

import pandas as pd

from stsynth.core.logs import log_to
from stsynth.core.scoring import score_run, scores_markdown

log = log_to(snakemake.log[0])
bootstrap = snakemake.params.bootstrap
scores = score_run(
    snakemake.wildcards.run,
    [pd.read_parquet(p) for p in snakemake.input.pairs],
    snakemake.input.predictions,
    snakemake.params.groups,
    bootstrap,
)
scores.to_parquet(snakemake.output.table, index=False)
Path(snakemake.output.markdown).write_text(
    scores_markdown(scores, bootstrap["confidence"], snakemake.params.untranslated)
)
log.info("\n%s", scores.to_string(index=False))
