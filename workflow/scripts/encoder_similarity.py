import time

import pandas as pd

from stsynth.encoder import cosine_table, load_encoder, model_directory
from stsynth.logs import log_to
from stsynth.threads import use_threads

log = log_to(snakemake.log[0])
use_threads(snakemake.threads)
settings = snakemake.params.settings
# a tuned encoder's folder is the job's input; the zero-shot one is an installed package's folder
folder = snakemake.input.get("model") or model_directory(settings["package"], settings["model_dir"])
model = load_encoder(folder, settings["max_length"])
for pairs_path, output in zip(snakemake.input.pairs, snakemake.output, strict=True):
    start = time.perf_counter()
    pairs = pd.read_parquet(pairs_path)
    table = cosine_table(pairs, model, settings["batch_size"])
    table.to_parquet(output, index=False)
    log.info("%s: encoded %d pairs with %s in %.1f s", pairs_path, len(table), folder, time.perf_counter() - start)
