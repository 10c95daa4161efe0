import time

import pandas as pd

from stsynth.encoder import cosine_table, load_encoder, model_directory, sentences_of
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
tables = [pd.read_parquet(path) for path in snakemake.input.pairs]
distinct = sum(len(set(sentences_of(pairs))) for pairs in tables)  # what embed encodes, batch by batch
with Progress(log, f"encoding {len(tables)} datasets", distinct, "sentences") as progress:
    for pairs_path, pairs, output in zip(snakemake.input.pairs, tables, snakemake.output, strict=True):
        start = time.perf_counter()
        table = cosine_table(pairs, model, settings["batch_size"], progress)
        table.to_parquet(output, index=False)
        log.info("%s: encoded %d pairs in %.1f s", pairs_path, len(table), time.perf_counter() - start)
