from pathlib import Path

import pandas as pd

from stsynth.encoder import ENCODER_FEATURES
from stsynth.fusion import chosen_parameters, fit, load_split, per_dataset_pearson
from stsynth.keyed import check_aligned
from stsynth.logs import log_to
from stsynth.predict import predictions_from_cosines
from stsynth.threads import use_threads
from stsynth.tables import markdown_table

log = log_to(snakemake.log[0])
use_threads(snakemake.threads)
settings, splits, features = snakemake.params.settings, snakemake.params.splits, snakemake.params.features
params = chosen_parameters(pd.read_parquet(snakemake.input.dev))
train = load_split(splits["dev_train"], snakemake.input.dev_train)
validate = load_split(splits["dev_validate"], snakemake.input.dev_validate)
rows = []


def add(system, predictions):
    rows.append({"system": system, **{f"pearson_{k}": v for k, v in per_dataset_pearson(validate, predictions).items()}})


paragram_features = [f for f in features if f in settings["paragram"]]
features_only = [f for f in features if f not in paragram_features and f not in ENCODER_FEATURES]
add("features only (GBR)", fit(train, features_only, params, settings["seed"]).predict(validate[features_only].to_numpy()))
for model, paths in snakemake.params.cosines.items():
    if not set(paths) <= set(snakemake.input.cosines):
        raise ValueError(f"cosine tables of {model} are not among the job's declared inputs")
    cosines = pd.concat([pd.read_parquet(p) for p in paths], ignore_index=True)
    check_aligned(cosines, validate, f"similarity tables of {model}", "the validation pairs")
    add(f"paragram {model} (5 x cosine)", predictions_from_cosines(cosines["cosine"]))
with_paragram = [f for f in features if f not in ENCODER_FEATURES]
add("features + paragram (GBR)", fit(train, with_paragram, params, settings["seed"]).predict(validate[with_paragram].to_numpy()))
table = pd.DataFrame(rows).astype({"system": "string"})
table.to_parquet(snakemake.output.table, index=False)
Path(snakemake.output.markdown).write_text(markdown_table(
    table, f"Dev protocol (fit {settings['dev']['train_years']}, validate {settings['dev']['validate_years']}): paper Table 1"))
