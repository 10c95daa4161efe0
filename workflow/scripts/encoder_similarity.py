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
pairs = pd.read_parquet(snakemake.input[0])
start = time.perf_counter()
table = cosine_table(pairs, tokenizer, model, settings["batch_size"], settings["max_length"])
table.to_parquet(snakemake.output[0], index=False)
log.info("encoded %d pairs with %s in %.1f s", len(table), folder, time.perf_counter() - start)
