import json
from pathlib import Path

from stsynth.core.logs import log_to
from stsynth.encoders.hub import fetch

log = log_to(snakemake.log[0])
record = fetch(snakemake.params.hub, snakemake.params.revision)
Path(snakemake.output.record).write_text(json.dumps(record, indent=2) + "\n")
log.info("%s", record)
