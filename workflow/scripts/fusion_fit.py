import numpy as np
import pandas as pd

from stsynth.fusion import (chosen_parameters, export_model, fit, importances, load_split, plot_importances,
                            predict_exported, test_scores)
from stsynth.logs import log_to
from stsynth.scoring import write_predictions

log = log_to(snakemake.log[0])
settings, plans, features = snakemake.params.settings, snakemake.params.plans, snakemake.params.features
run = snakemake.wildcards.fusion_run
params = chosen_parameters(pd.read_parquet(snakemake.input.dev))
train, test = load_split(plans["train"]), load_split(plans["test"])
model = fit(train, features, params, settings["seed"])
arrays = export_model(model, features)
predictions = predict_exported(arrays, test[features].to_numpy())
if not np.allclose(predictions, model.predict(test[features].to_numpy()), rtol=0, atol=1e-9):
    raise RuntimeError("exported trees do not reproduce the fitted model's predictions")
np.savez_compressed(snakemake.output.model, **arrays)
for entry, path in zip(plans["test"], snakemake.output.predictions, strict=True):
    rows = (test["year"] == entry["year"]) & (test["dataset"] == entry["dataset"])
    write_predictions(predictions[rows.to_numpy()], path)
table = importances(model, features, settings["groups"])
table.to_parquet(snakemake.output.importances, index=False)
plot_importances(table, snakemake.output.plot, f"Fusion run {run}: Gini importances")
log.info("test Pearson (pair-weighted, scored rows): %s", test_scores(test, predictions))
