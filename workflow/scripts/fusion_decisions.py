from pathlib import Path

import pandas as pd
import yaml

from stsynth.core.logs import log_to
from stsynth.core.tables import markdown_table
from stsynth.dcu2016.fusion import chosen_parameters
from stsynth.dcu2016.fusion_studies import decision_check

log = log_to(snakemake.log[0])
recorded, protocol = snakemake.params.recorded, snakemake.params.protocol
dev = {run: pd.read_parquet(path) for run, path in zip(recorded, snakemake.input.dev)}
table = decision_check(recorded, dev)
table.to_parquet(snakemake.output.table, index=False)
differ = sorted(set(table.loc[~table["same"], "run"]))
log.info("recorded fusion settings the dev search no longer chooses: %s", differ or "none")
Path(snakemake.output.markdown).write_text(
    markdown_table(table, "Recorded fusion settings against the dev search's choice")
    + (
        "\nEvery recorded setting is still the dev search's choice.\n"
        if not differ
        else f"\nThe dev search now chooses other settings for {', '.join(differ)}: `make decisions` records them "
        f"in config/decisions/{protocol}.yaml.\n"
    )
)
Path(snakemake.output.decisions).write_text(
    f"# What the dev searches of protocol {protocol} chose (make studies); `make decisions` copies this file over\n"
    f"# config/decisions/{protocol}.yaml, which `all` reads.\n"
    + yaml.safe_dump(
        {"protocol": protocol, "runs": {run: chosen_parameters(table) for run, table in dev.items()}},
        sort_keys=False,
        default_flow_style=None,
    )
)
