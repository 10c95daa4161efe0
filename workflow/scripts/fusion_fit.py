import numpy as np

from stsynth.core.logs import log_to
from stsynth.core.threads import use_threads
from stsynth.dcu2016.fusion import export_model, fit, importances, load_split, predict_exported, run_parameters
from stsynth.results.plots import plot_importances

log = log_to(snakemake.log[0])
use_threads(snakemake.threads)
settings, splits, features = snakemake.params.settings, snakemake.params.splits, snakemake.params.features
run = snakemake.wildcards.fusion_run
params = run_parameters(snakemake.params.chosen, snakemake.input.get("dev"))
train = load_split(splits["train"], snakemake.input.train)
model = fit(train, features, params, settings["seed"])
arrays = export_model(model, features)
rows = train[features].to_numpy()
if not np.allclose(predict_exported(arrays, rows), model.predict(rows), rtol=0, atol=1e-9):
    raise RuntimeError("exported trees do not reproduce the fitted model's predictions")
np.savez_compressed(snakemake.output.model, **arrays)
table = importances(model, features, settings["groups"])
table.to_parquet(snakemake.output.importances, index=False)
plot_importances(table, snakemake.output.plot, f"Fusion run {run}: Gini importances")
