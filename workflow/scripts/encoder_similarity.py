import time

import pandas as pd

from stsynth.encoder import cosine_table, load_encoder, model_directory
from stsynth.logs import log_to
from stsynth.threads import use_threads

log = log_to(snakemake.log[0])
use_threads(snakemake.threads)
settings = snakemake.params.settings
folder = model_directory(settings["package"], settings["model_dir"])
tokenizer, model = load_encoder(folder)
for pairs_path, output in zip(snakemake.input, snakemake.output, strict=True):
    start = time.perf_counter()
    pairs = pd.read_parquet(pairs_path)
    # one dataset per call: its sentences batched as before, so every value stays what it was
    table = cosine_table(pairs, tokenizer, model, settings["batch_size"], settings["max_length"])
    table.to_parquet(output, index=False)
    log.info("%s: encoded %d pairs with %s in %.1f s", pairs_path, len(table), folder, time.perf_counter() - start)
