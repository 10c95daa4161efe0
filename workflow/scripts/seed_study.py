from pathlib import Path

import pandas as pd

from stsynth.core.logs import log_to
from stsynth.results.seed_study import sign_table, spread_markdown, spread_table

log = log_to(snakemake.log[0])
runs = snakemake.params.runs  # run -> its seed runs
headline = {run: pd.read_parquet(path) for run, path in zip(runs, snakemake.input.headline, strict=True)}
seeded_paths = iter(snakemake.input.seeded)
seeded = {run: [pd.read_parquet(next(seeded_paths)) for _ in seeds] for run, seeds in runs.items()}
others = {
    run: [pd.read_parquet(path)] for run, path in zip(snakemake.params.others, snakemake.input.others, strict=True)
}
spread = spread_table(headline, seeded)
signs = sign_table(snakemake.params.pairs, {**others, **{run: [headline[run], *seeded[run]] for run in runs}})
spread.to_parquet(snakemake.output.table, index=False)
signs.to_parquet(snakemake.output.signs, index=False)
Path(snakemake.output.markdown).write_text(spread_markdown(spread, signs))
log.info("\n%s\n%s", spread[spread["dataset"] == "ALL"].to_string(index=False), signs.to_string(index=False))
