import pandas as pd

from stsynth.logs import log_to
from stsynth.scoring import write_predictions

log = log_to(snakemake.log[0])
table = pd.read_parquet(snakemake.input[0])
write_predictions(5.0 * table["encoder"].to_numpy(), snakemake.output[0])
log.info("wrote %d encoder predictions (5 x cosine)", len(table))
