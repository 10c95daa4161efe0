from stsynth.core.logs import log_to
from stsynth.core.threads import use_threads
from stsynth.dcu2016.fusion import load_exported, load_split, predict_exported, test_scores

log = log_to(snakemake.log[0])
use_threads(snakemake.threads)
arrays = load_exported(snakemake.input.model)
test = load_split(snakemake.params.splits["test"], snakemake.input.test)
predictions = predict_exported(arrays, test[list(arrays["features"])].to_numpy())
test[["year", "dataset", "line"]].assign(prediction=predictions).astype(
    {"year": "int16", "dataset": "string", "line": "int32", "prediction": "float64"}
).to_parquet(snakemake.output.predictions, index=False)
log.info("test Pearson (pair-weighted, scored rows): %s", test_scores(test, predictions))
