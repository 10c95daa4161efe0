import json
import time

import pandas as pd

from stsynth.core.logs import log_to
from stsynth.core.progress import Progress
from stsynth.core.threads import use_threads
from stsynth.encoders.embedding_store import encoding_units
from stsynth.encoders.encoder import batch_size, open_job_encoder, open_store
from stsynth.eval import evaluation, mteb_results

log = log_to(snakemake.log[0])
use_threads(snakemake.threads)
entry, settings = snakemake.params.encoder, snakemake.params.settings
name = entry["name"]
# the entry's max_length, else the model's own limit (as MTEB encodes), not encoder.max_length
model, folder, identity = open_job_encoder(
    entry, snakemake.input.encoder_folder, snakemake.params.model, None, snakemake.config["device"]
)
store = open_store(snakemake.config, entry, model, identity, folder)
tables = [pd.read_parquet(path) for path in snakemake.input.pairs]
units = [unit for table in tables for unit in encoding_units(table, every_line=False)]
work = store.lacking(units)
log.info(
    "encoder %s (%s) on %s; embedding store %s: %d of %d sentences to encode",
    name,
    folder,
    model.device,
    store.folder,
    work,
    sum(map(len, units)),
)
start = time.perf_counter()
with Progress(log, f"encoding with {name}", work, "sentences") as progress:
    similarity, encoded, stored = evaluation.encode_pairs(
        model, tables, store, batch_size(entry, settings["batch_size"]), bool(entry.get("normalize")), progress
    )
log.info(
    "%d datasets: %d sentences encoded, %d read from the embedding store, in %.1f s",
    len(tables),
    encoded,
    stored,
    time.perf_counter() - start,
)
for table, output in zip(similarity, snakemake.output.tables, strict=True):
    table.to_parquet(output, index=False)
facts = {
    **mteb_results.model_facts(name, entry, model, identity, folder),
    "encoded": encoded,
    "read_from_store": stored,
    "encoding_seconds": time.perf_counter() - start,
}
with open(snakemake.output.facts, "w") as handle:
    json.dump(facts, handle, indent=2, sort_keys=True)
