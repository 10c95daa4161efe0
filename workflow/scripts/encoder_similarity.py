import time

import pandas as pd
import pyarrow.parquet as pq

from stsynth.encoder import cosine_table, load_encoder, model_directory
from stsynth.logs import log_to
from stsynth.progress import Progress
from stsynth.threads import use_threads

log = log_to(snakemake.log[0])
use_threads(snakemake.threads)
settings = snakemake.params.settings
# a tuned encoder's folder is the job's input; the zero-shot one is an installed package's folder
folder = snakemake.input.get("model") or model_directory(settings["package"], settings["model_dir"])
model = load_encoder(folder, settings["max_length"], snakemake.config["device"])
log.info("encoder %s on %s", folder, model.device)
total = sum(pq.read_metadata(path).num_rows for path in snakemake.input.pairs)
with Progress(log, f"encoding {len(snakemake.input.pairs)} datasets", total, "pairs") as progress:
    for pairs_path, output in zip(snakemake.input.pairs, snakemake.output, strict=True):
        start = time.perf_counter()
        pairs = pd.read_parquet(pairs_path)
        table = cosine_table(pairs, model, settings["batch_size"])
        table.to_parquet(output, index=False)
        log.info("%s: encoded %d pairs in %.1f s", pairs_path, len(table), time.perf_counter() - start)
        progress.advance(len(table))
