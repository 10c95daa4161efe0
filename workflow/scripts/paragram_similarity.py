import pandas as pd
import torch

from stsynth.logs import log_to
from stsynth.paragram import SentenceModel, similarity_table

log = log_to(snakemake.log[0])
torch.set_num_threads(snakemake.threads)
model = SentenceModel.load(snakemake.input.model)
table, counts = similarity_table(model, pd.read_parquet(snakemake.input.tokens))
table.to_parquet(snakemake.output[0], index=False)
log.info("%d pairs, %d tokens, %d unknown (%.2f%%), %.3f s (%.0f pairs/s)", counts["pairs"], counts["tokens"],
         counts["unknown"], 100 * counts["unknown"] / max(counts["tokens"], 1), counts["seconds"],
         counts["pairs"] / max(counts["seconds"], 1e-9))
