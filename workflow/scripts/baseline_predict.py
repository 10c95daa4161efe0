import pandas as pd

from stsynth.baseline import predict
from stsynth.logs import log_to
from stsynth.scoring import write_predictions

log = log_to(snakemake.log[0])
pairs = pd.read_parquet(snakemake.input[0])
write_predictions(predict(pairs), snakemake.output[0])
log.info("wrote %d baseline predictions", len(pairs))
