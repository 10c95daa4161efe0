import json
import time

import pandas as pd

from stsynth.core.logs import log_to
from stsynth.core.progress import Progress
from stsynth.core.threads import use_threads
from stsynth.encoders.encoder import batch_size, open_job_encoder
from stsynth.eval import evaluation, mteb_results
from stsynth.eval.embedding_cache import EmbeddingCache, encoder_key

log = log_to(snakemake.log[0])
use_threads(snakemake.threads)
entry, settings = snakemake.params.encoder, snakemake.params.settings
name = entry["name"]
# the entry's max_length, else the model's own limit (as MTEB encodes), not encoder.max_length
model, folder, identity = open_job_encoder(
    entry, snakemake.input.encoder_folder, snakemake.params.model, None, snakemake.config["device"]
)
shaping = evaluation.cache_settings(entry, model.max_seq_length)
key = encoder_key(identity, evaluation.cache_encoder(entry), shaping)
description = {"encoder": name, "folder": str(folder), "model_sha256": identity, **shaping}
cache = EmbeddingCache(snakemake.params.cache, key, description)
log.info(
    "encoder %s (%s) on %s; embedding cache %s: %d sentences",
    name,
    folder,
    model.device,
    cache.folder,
    len(cache.embeddings),
)
tables = [pd.read_parquet(path) for path in snakemake.input.pairs]
missing = len(cache.missing(evaluation.scored_sentences(tables)))
start = time.perf_counter()
with Progress(log, f"encoding with {name}", missing, "sentences") as progress:
    similarity, encoded = evaluation.encode_pairs(
        model, tables, cache, batch_size(entry, settings["batch_size"]), bool(entry.get("normalize")), progress
    )
log.info(
    "%d datasets: %d sentences encoded, the others read from the cache, in %.1f s",
    len(tables),
    encoded,
    time.perf_counter() - start,
)
for table, output in zip(similarity, snakemake.output.tables, strict=True):
    table.to_parquet(output, index=False)
facts = {
    **mteb_results.model_facts(name, entry, model, identity, folder),
    "encoded": encoded,
    "encoding_seconds": time.perf_counter() - start,
}
with open(snakemake.output.facts, "w") as handle:
    json.dump(facts, handle, indent=2, sort_keys=True)
