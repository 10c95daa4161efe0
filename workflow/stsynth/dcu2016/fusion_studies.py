"""How the fusion's settings were chosen and what its parts add (`make studies`): whether each recorded choice is
still what the dev search chooses (:func:`decision_check`), the paper's Table 1 on the dev protocol
(:func:`dev_table`) and the ablation of each feature group (:func:`ablation`), both with the run's chosen
hyperparameters (stsynth.dcu2016.fusion). Table schemas: that module's docstring, and:

* ``results/fusion/decisions.parquet``: ``run`` string, ``setting`` string, ``recorded`` string (the config's
  ``chosen``), ``searched`` string (the dev search's choice), ``same`` bool.
"""

from __future__ import annotations

import logging

import pandas as pd

from ..core.keyed import check_aligned
from ..core.similarity import predictions_from_cosines
from ..encoders.encoder import ENCODER_FEATURES
from .fusion import chosen_parameters, fit, parallel_map, per_dataset_pearson, test_scores

log = logging.getLogger(__name__)


def dev_table_feature_sets(features: list[str], paragram: list[str]) -> dict[str, list[str]]:
    """The regressors of the paper's Table 1 on the dev protocol: the run's features without the paragram
    cosines (and without encoder similarities, which the paper's fusion lacked), then with the paragram ones."""
    return {
        "features only (GBR)": [f for f in features if f not in paragram and f not in ENCODER_FEATURES],
        "features + paragram (GBR)": [f for f in features if f not in ENCODER_FEATURES],
    }


def dev_table(
    train: pd.DataFrame,
    validate: pd.DataFrame,
    features: list[str],
    paragram: list[str],
    params: dict,
    seed: int,
    cosines: dict[str, pd.DataFrame],
) -> pd.DataFrame:
    """The paper's Table 1 on the dev protocol: Pearson per validation set and ALL of the features alone, each
    paragram model's 5 x cosine (``cosines``: model -> its similarity tables of the validation sets,
    row-aligned with them), and the features with the paragram cosines.

    Schema (``results/fusion/{run}/dev_table.parquet``): ``system`` string, ``pearson_<year>_<set>`` and
    ``pearson_ALL`` float64."""
    feature_sets = dev_table_feature_sets(features, paragram)
    rows = []

    def add(system, predictions):
        rows.append(
            {"system": system, **{f"pearson_{k}": v for k, v in per_dataset_pearson(validate, predictions).items()}}
        )

    def add_regressor(system):
        names = feature_sets[system]
        add(system, fit(train, names, params, seed).predict(validate[names].to_numpy()))

    add_regressor("features only (GBR)")
    for model, table in cosines.items():
        check_aligned(table, validate, f"similarity tables of {model}", "the validation pairs")
        add(f"paragram {model} (5 x cosine)", predictions_from_cosines(table["cosine"]))
    add_regressor("features + paragram (GBR)")
    return pd.DataFrame(rows).astype({"system": "string"})


def _ablation_row(job: tuple, dev_validate: pd.DataFrame, test: pd.DataFrame, params: dict, seed: int) -> dict:
    name, kept, final_train, dev_fit = job
    # a removed group leaves the linear start too
    kept_params = {**params, "init": [f for f in params.get("init", []) if f in kept]}
    dev = fit(dev_fit, kept, kept_params, seed).predict(dev_validate[kept].to_numpy())
    final = fit(final_train, kept, kept_params, seed).predict(test[kept].to_numpy())
    log.info("ablation %s: %d features", name, len(kept))
    return {
        "removed": name,
        "features": len(kept),
        "dev_ALL": per_dataset_pearson(dev_validate, dev)["ALL"],
        **test_scores(test, final),
    }


def ablation(
    dev_train: pd.DataFrame,
    dev_validate: pd.DataFrame,
    train: pd.DataFrame,
    test: pd.DataFrame,
    features: list[str],
    groups: dict[str, list[str]],
    params: dict,
    seed: int,
    variants: dict[str, tuple[pd.DataFrame, pd.DataFrame]] | None = None,
    processes: int = 1,
) -> pd.DataFrame:
    """The run's model with nothing removed, then with each of its feature groups removed in turn
    (chosen hyperparameters throughout): dev Pearson and test Pearson per track. ``variants``:
    extra rows named by their key, the full feature set fitted on another (train, dev_train) pair."""
    from functools import partial

    jobs = [("none", features, train, dev_train)]
    for group, names in groups.items():
        kept = [f for f in features if f not in names]
        if len(kept) < len(features) and kept:
            jobs.append((group, kept, train, dev_train))
    for name, (variant_train, variant_dev_train) in (variants or {}).items():
        jobs.append((name, features, variant_train, variant_dev_train))
    rows = parallel_map(
        partial(_ablation_row, dev_validate=dev_validate, test=test, params=params, seed=seed),
        jobs,
        processes,
        "fusion ablation",
    )
    return pd.DataFrame(rows).astype({"removed": "string", "features": "int32"})


def decision_check(recorded: dict[str, dict], dev_tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Per fusion run with recorded settings (config/decisions/<protocol>.yaml), per setting: the recorded value,
    the one its dev search chooses now (its dev table), and whether they are the same."""
    rows = []
    for run, settings in recorded.items():
        searched = chosen_parameters(dev_tables[run])
        for setting, value in settings.items():
            rows.append(
                {
                    "run": run,
                    "setting": setting,
                    "recorded": str(value),
                    "searched": str(searched[setting]),
                    "same": value == searched[setting],
                }
            )
    return pd.DataFrame(rows, columns=["run", "setting", "recorded", "searched", "same"]).astype(
        {"run": "string", "setting": "string", "recorded": "string", "searched": "string", "same": "bool"}
    )
