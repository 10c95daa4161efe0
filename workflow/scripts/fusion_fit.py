import numpy as np

from stsynth.core.logs import log_to
from stsynth.core.threads import use_threads
from stsynth.dcu2016.fusion import (
    export_model,
    fit,
    importances,
    load_split,
    predict_exported,
    run_parameters,
    test_scores,
)
from stsynth.results.plots import plot_importances

log = log_to(snakemake.log[0])
use_threads(snakemake.threads)
settings, splits, features = snakemake.params.settings, snakemake.params.splits, snakemake.params.features
run = snakemake.wildcards.fusion_run
params = run_parameters(snakemake.params.chosen, snakemake.input.get("dev"))
train, test = load_split(splits["train"], snakemake.input.train), load_split(splits["test"], snakemake.input.test)
model = fit(train, features, params, settings["seed"])
arrays = export_model(model, features)
predictions = predict_exported(arrays, test[features].to_numpy())
if not np.allclose(predictions, model.predict(test[features].to_numpy()), rtol=0, atol=1e-9):
    raise RuntimeError("exported trees do not reproduce the fitted model's predictions")
np.savez_compressed(snakemake.output.model, **arrays)
test[["year", "dataset", "line"]].assign(prediction=predictions).astype(
    {"year": "int16", "dataset": "string", "line": "int32", "prediction": "float64"}
).to_parquet(snakemake.output.predictions, index=False)
table = importances(model, features, settings["groups"])
table.to_parquet(snakemake.output.importances, index=False)
plot_importances(table, snakemake.output.plot, f"Fusion run {run}: Gini importances")
log.info("test Pearson (pair-weighted, scored rows): %s", test_scores(test, predictions))
