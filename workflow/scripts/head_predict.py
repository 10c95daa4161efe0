from stsynth.core.logs import log_to
from stsynth.core.threads import use_threads
from stsynth.sts2017.head import load, load_split, predict_test_sets

log = log_to(snakemake.log[0])
use_threads(snakemake.threads)
head, metadata = load(snakemake.input.model)
predictions, cosine = predict_test_sets(head, load_split(snakemake.params.splits["test"]))
predictions.to_parquet(snakemake.output.predictions, index=False)
cosine.to_parquet(snakemake.output.cosine, index=False)
log.info("the head of %s: %d test pairs predicted", metadata["vectors"], len(predictions))
