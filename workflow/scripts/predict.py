import pandas as pd

from stsynth.core.logs import log_to
from stsynth.core.scoring import write_predictions
from stsynth.results.predict import run_predictions

log = log_to(snakemake.log[0])
stage = snakemake.params.stage
for pairs_path, source_path, output in zip(
    snakemake.input.pairs, snakemake.input.sources, snakemake.output, strict=True
):
    pairs = pd.read_parquet(pairs_path)
    source = None if stage == "external" else pd.read_parquet(source_path)
    predictions = run_predictions(stage, pairs, source, source_path)
    write_predictions(predictions, output)
    log.info("%s: %d predictions (stage %s, from %s)", output, len(predictions), stage, source_path)
