import pandas as pd

from stsynth.logs import log_to
from stsynth.paragram import predictions_from_cosines
from stsynth.scoring import write_predictions

log = log_to(snakemake.log[0])
similarity = pd.read_parquet(snakemake.input[0])
write_predictions(predictions_from_cosines(similarity["cosine"]), snakemake.output[0])
log.info("wrote %d predictions (5 x cosine)", len(similarity))
