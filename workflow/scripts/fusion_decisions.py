from pathlib import Path

import pandas as pd

from stsynth.core.logs import log_to
from stsynth.core.tables import markdown_table
from stsynth.dcu2016.fusion_studies import decision_check

log = log_to(snakemake.log[0])
recorded = snakemake.params.recorded
table = decision_check(recorded, {run: pd.read_parquet(path) for run, path in zip(recorded, snakemake.input.dev)})
table.to_parquet(snakemake.output.table, index=False)
differ = sorted(set(table.loc[~table["same"], "run"]))
log.info("recorded fusion settings the dev search no longer chooses: %s", differ or "none")
Path(snakemake.output.markdown).write_text(
    markdown_table(table, "Recorded fusion settings against the dev search's choice")
    + (
        "\nEvery recorded setting is still the dev search's choice.\n"
        if not differ
        else f"\nThe dev search now chooses other settings for {', '.join(differ)}: update `runs.<run>.chosen`.\n"
    )
)
