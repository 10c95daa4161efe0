from pathlib import Path

import pandas as pd

from stsynth.encoder import ENCODER_FEATURES
from stsynth.fusion import chosen_parameters, fit, load_split, per_dataset_pearson, table_markdown
from stsynth.logs import log_to

log = log_to(snakemake.log[0])
settings, plans, features = snakemake.params.settings, snakemake.params.plans, snakemake.params.features
params = chosen_parameters(pd.read_parquet(snakemake.input.dev))
train, validate = load_split(plans["dev_train"]), load_split(plans["dev_validate"])
rows = []


def add(system, predictions):
    rows.append({"system": system, **{f"pearson_{k}": v for k, v in per_dataset_pearson(validate, predictions).items()}})


paragram_features = [f for f in features if f in settings["paragram"]]
features_only = [f for f in features if f not in paragram_features and f not in ENCODER_FEATURES]
add("features only (GBR)", fit(train, features_only, params, settings["seed"]).predict(validate[features_only].to_numpy()))
models = settings["dev_table"]["paragram_models"]
per_model = len(snakemake.input.similarity) // len(models)
for index, model in enumerate(models):
    paths = snakemake.input.similarity[index * per_model:(index + 1) * per_model]
    cosines = pd.concat([pd.read_parquet(p) for p in paths], ignore_index=True)
    if not (cosines[["year", "dataset", "line"]].astype(str).to_numpy() ==
            validate[["year", "dataset", "line"]].astype(str).to_numpy()).all():
        raise ValueError(f"similarity tables of {model} are not aligned with the validation pairs")
    add(f"paragram {model} (5 x cosine)", 5 * cosines["cosine"].to_numpy())
with_paragram = [f for f in features if f not in ENCODER_FEATURES]
add("features + paragram (GBR)", fit(train, with_paragram, params, settings["seed"]).predict(validate[with_paragram].to_numpy()))
table = pd.DataFrame(rows).astype({"system": "string"})
table.to_parquet(snakemake.output.table, index=False)
Path(snakemake.output.markdown).write_text(table_markdown(
    table, f"Dev protocol (fit 2012-2014, validate {settings['dev']['validate_years']}): paper Table 1"))
