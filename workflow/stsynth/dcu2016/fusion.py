"""The fusion regressor: scikit-learn GradientBoostingRegressor over pair features and similarities.

Protocols (2016 never chooses anything):

* dev: fit on the gold pairs of ``dev.train_years`` (2012-2014), score on ``dev.validate_years``
  (2015) for every point of the hyperparameter grid; the number of trees is read off the staged
  predictions, so one fit per grid point covers every ``n_estimators`` step; a grid point stops
  early once ``grid.patience`` trees have brought no better validation score (:class:`DevCurve`).

The boosting starts from ``init``: scikit-learn's default constant (the mean gold score), or a
least-squares line over a few named features (the grid's ``init`` entries), passed to
GradientBoostingRegressor as its ``init`` estimator. The trees then fit what that line leaves
over. A strong similarity such as ``encoder_token_f1`` keeps its linear effect on sets whose
scores lie outside the training data's range, where piecewise-constant trees cannot follow it.
* final: fit with the chosen hyperparameters on the gold pairs of every training year
  (2012-2015) and predict every test set.

Paragram similarities of training rows come out of fold: a row in fold ``i`` of ``k``
(``stsynth.core.paraphrase_pairs.fold_of``) takes the cosine of ``<model>.fold<i>of<k>``, the model
trained without that fold's pairs; rows that are scored, not trained on, take ``<model>`` itself.

Tables (Parquet):

* ``results/fusion/{run}/dev.parquet``: ``init`` string (comma-separated feature names of the
  linear start; empty: the constant), ``max_depth`` int32, ``learning_rate`` float64,
  ``subsample`` float64, ``n_estimators`` int32, ``pearson_<year>_<dataset>`` float64 per
  validation set, ``pearson_ALL`` float64 (pair-weighted mean), ``chosen`` bool (one row: the
  best ``pearson_ALL``; ties go to fewer trees, then to the grid's order).
* ``results/fusion/{run}/importances.parquet``: ``feature`` string, ``group`` string,
  ``importance`` float64 (Gini / impurity-decrease importance of the final model, sums to 1).
* ``results/fusion/{run}/ablation.parquet``: ``removed`` string (a feature group, or ``none``),
  ``features`` int32, ``dev_ALL`` float64 (dev protocol, chosen hyperparameters),
  ``test_<track>_ALL`` float64 (final protocol, pair-weighted mean per test track).
* ``results/fusion/dev_table.parquet``: ``system`` string, ``pearson_<year>_<dataset>`` and
  ``pearson_ALL`` float64 on the validation sets (paper Table 1).

The final model is saved without pickle as ``results/fusion/{run}/model.npz``: ``init``
(the constant of the first prediction), ``init_features``, ``init_coef`` (its line: first
prediction = ``init + Σ coef · feature``; both empty for a constant start), ``learning_rate``,
``features`` (names), and per tree ``t``
``t<t>_left``, ``t<t>_right``, ``t<t>_feature``, ``t<t>_threshold``, ``t<t>_value``
(scikit-learn's tree arrays); :func:`predict_exported` predicts from it exactly as the fitted
model does.
"""

from __future__ import annotations

import itertools
import logging

import numpy as np
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor

from ..core.correlations import correlations
from ..core.keyed import KEYS, check_aligned
from ..core.paraphrase_pairs import fold_of
from ..core.progress import Progress
from ..encoders.encoder import ENCODER_FEATURES

log = logging.getLogger(__name__)


def out_of_fold(pairs: pd.DataFrame, fold_tables: list[pd.DataFrame], column: str = "cosine") -> np.ndarray:
    """Per row, the value from the table of the fold the row belongs to (``fold_tables[i]`` = fold i)."""
    folds = np.array(
        [fold_of(y, d, n, len(fold_tables)) for y, d, n in zip(pairs["year"], pairs["dataset"], pairs["line"])],
        dtype=int,
    )
    stacked = np.stack([t[column].to_numpy(dtype=np.float64) for t in fold_tables])
    return stacked[folds, np.arange(len(pairs))]


def dataset_frame(pairs: pd.DataFrame, features: pd.DataFrame | None, columns: dict[str, np.ndarray]) -> pd.DataFrame:
    """Keys, track, gold, the feature table's columns and extra named columns, one row per pair."""
    frame = pairs[["year", "dataset", "track", "line", "gold"]].reset_index(drop=True).copy()
    if features is not None:
        frame = pd.concat([frame, features.drop(columns=KEYS).reset_index(drop=True)], axis=1)
    for name, values in columns.items():
        frame[name] = np.asarray(values, dtype=np.float64)
    return frame


def gold_rows(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[frame["gold"].notna()].reset_index(drop=True)


def linear_start(init: list[str], features: list[str]):
    """The ``init`` estimator: least squares on the ``init`` columns of the feature matrix; None
    (scikit-learn's constant) when ``init`` is empty."""
    if not init:
        return None
    missing = [name for name in init if name not in features]
    if missing:
        raise ValueError(f"init features {missing} are not among the run's features")
    from sklearn.compose import ColumnTransformer
    from sklearn.linear_model import LinearRegression
    from sklearn.pipeline import make_pipeline

    return make_pipeline(
        ColumnTransformer([("init", "passthrough", [features.index(n) for n in init])]), LinearRegression()
    )


def make_regressor(params: dict, seed: int, features: list[str]) -> GradientBoostingRegressor:
    return GradientBoostingRegressor(
        loss="squared_error",
        max_depth=int(params["max_depth"]),
        learning_rate=float(params["learning_rate"]),
        subsample=float(params["subsample"]),
        n_estimators=int(params["n_estimators"]),
        random_state=seed,
        init=linear_start(list(params.get("init", [])), features),
    )


def per_dataset_pearson(frame: pd.DataFrame, predictions: np.ndarray) -> dict[str, float]:
    """Pearson per (year, dataset) over scored rows and their pair-weighted mean ``ALL``
    (stsynth.core.correlations.correlations)."""
    gold = frame["gold"].to_numpy()
    groups = frame.groupby(["year", "dataset"], sort=True).indices.items()
    return {
        name: r
        for name, _, r in correlations(
            (f"{year}_{name}", predictions[index], gold[index]) for (year, name), index in groups
        )
    }


def grid_points(grid: dict, features: list[str]) -> list[dict]:
    """Grid points of the hyperparameters; ``init`` entries naming a feature the run lacks are left out."""
    inits = [list(init) for init in grid.get("init", [[]]) if set(init) <= set(features)]
    keys = ["max_depth", "learning_rate", "subsample"]
    return [
        {"init": init, **dict(zip(keys, values))}
        for init in inits
        for values in itertools.product(*(grid[k] for k in keys))
    ]


def parallel_map(function, items: list, processes: int = 1, what: str = "fits") -> list:
    """``[function(item) for item in items]``, in up to ``processes`` joblib worker processes (each fit is
    single-threaded; the rule's ``threads:`` says how many run at once), in order, with progress lines in the
    log (stsynth.core.progress)."""
    from joblib import Parallel, delayed

    items = list(items)
    with Progress(log, what, len(items), "fits") as progress:
        done = []
        jobs = min(processes, len(items)) if processes > 1 and len(items) > 1 else 1
        for result in Parallel(n_jobs=jobs, return_as="generator")(delayed(function)(item) for item in items):
            done.append(result)
            progress.advance()
        return done


class DevCurve:
    """A GradientBoostingRegressor ``monitor``: the validation ALL every ``step`` trees, and a stop
    once ``patience`` trees have passed without a better one (None: never). Boosting adds trees in
    order, so the trees it did fit are exactly those of a full-length fit."""

    def __init__(self, validate: pd.DataFrame, features: list[str], step: int, patience: int | None):
        self.validate, self.step, self.patience = validate, step, patience
        self.X = validate[features].to_numpy(dtype=np.float32)  # what scikit-learn predicts on
        self.raw = None
        self.best, self.best_trees = -np.inf, 0

    def __call__(self, iteration: int, model: GradientBoostingRegressor, _locals) -> bool:
        if self.raw is None:
            self.raw = model.init_.predict(self.X).astype(np.float64)
        self.raw += model.learning_rate * model.estimators_[iteration, 0].predict(self.X)
        trees = iteration + 1
        if trees % self.step:
            return False
        score = per_dataset_pearson(self.validate, self.raw)["ALL"]
        if score > self.best:
            self.best, self.best_trees = score, trees
        return self.patience is not None and trees - self.best_trees >= self.patience


def _grid_point_rows(
    point: dict, train: pd.DataFrame, validate: pd.DataFrame, features: list[str], grid: dict, seed: int
) -> list[dict]:
    model = make_regressor({**point, "n_estimators": grid["max_estimators"]}, seed, features)
    model.fit(
        train[features].to_numpy(),
        train["gold"].to_numpy(),
        monitor=DevCurve(validate, features, grid["step"], grid.get("patience")),
    )
    label = {**point, "init": ",".join(point["init"])}
    rows = []
    for trees, predictions in enumerate(model.staged_predict(validate[features].to_numpy()), start=1):
        if trees % grid["step"] == 0:
            scores = per_dataset_pearson(validate, predictions)
            rows.append({**label, "n_estimators": trees, **{f"pearson_{k}": v for k, v in scores.items()}})
    log.info("dev grid point %s: best ALL %.5f", label, max(r["pearson_ALL"] for r in rows))
    return rows


def dev_search(
    train: pd.DataFrame, validate: pd.DataFrame, features: list[str], grid: dict, seed: int, processes: int = 1
) -> pd.DataFrame:
    """Every grid point, every ``grid.step``-th number of trees up to ``grid.max_estimators`` (or
    until ``grid.patience`` trees passed without a better validation ALL): validation Pearson; the
    best ``pearson_ALL`` is marked ``chosen``."""
    from functools import partial

    score = partial(
        _grid_point_rows, train=gold_rows(train), validate=validate, features=features, grid=grid, seed=seed
    )
    rows = [
        row for rows in parallel_map(score, grid_points(grid, features), processes, "fusion dev grid") for row in rows
    ]
    table = pd.DataFrame(rows)
    best = table.sort_values(["pearson_ALL", "n_estimators"], ascending=[False, True], kind="stable").index[0]
    table["chosen"] = table.index == best
    return table.astype({"init": "string", "max_depth": "int32", "n_estimators": "int32"})


def chosen_parameters(dev: pd.DataFrame) -> dict:
    row = dev[dev["chosen"]]
    if len(row) != 1:
        raise ValueError(f"dev table must mark exactly one chosen row, found {len(row)}")
    row = row.iloc[0]
    return {
        "init": [name for name in str(row["init"]).split(",") if name],
        "max_depth": int(row["max_depth"]),
        "learning_rate": float(row["learning_rate"]),
        "subsample": float(row["subsample"]),
        "n_estimators": int(row["n_estimators"]),
    }


def run_parameters(recorded: dict | None, dev_table: str | None) -> dict:
    """A fusion run's hyperparameters: those recorded in its config entry (``chosen``), else the point its dev
    search chose (its dev table)."""
    if recorded is not None:
        return recorded
    if dev_table is None:
        raise ValueError("a fusion run without recorded settings needs its dev table")
    return chosen_parameters(pd.read_parquet(dev_table))


def fit(train: pd.DataFrame, features: list[str], params: dict, seed: int) -> GradientBoostingRegressor:
    train = gold_rows(train)
    log.info("fitting on %d gold pairs, %d features, %s", len(train), len(features), params)
    return make_regressor(params, seed, features).fit(train[features].to_numpy(), train["gold"].to_numpy())


def importances(model: GradientBoostingRegressor, features: list[str], groups: dict[str, list[str]]) -> pd.DataFrame:
    group_of = {f: g for g, names in groups.items() for f in names}
    table = pd.DataFrame(
        {
            "feature": features,
            "group": [group_of.get(f, "") for f in features],
            "importance": model.feature_importances_,
        }
    )
    return (
        table.sort_values("importance", ascending=False, kind="stable")
        .reset_index(drop=True)
        .astype({"feature": "string", "group": "string", "importance": "float64"})
    )


def export_model(model: GradientBoostingRegressor, features: list[str]) -> dict[str, np.ndarray]:
    """The fitted ensemble as plain arrays (see the module docstring); no pickle."""
    if model.init is None:
        init, init_features, init_coef = float(model.init_.constant_.ravel()[0]), [], []
    else:
        # kept in the line's own dtype (float32, as scikit-learn fits it on float32 features)
        columns, line = model.init_[0].transformers_[0][2], model.init_[-1]
        init, init_features, init_coef = line.intercept_, [features[c] for c in columns], line.coef_
    arrays = {
        "init": np.asarray(init),
        "init_features": np.array(init_features, dtype=str),
        "init_coef": np.asarray(init_coef),
        "learning_rate": np.array(model.learning_rate),
        "features": np.array(features),
    }
    for t, estimator in enumerate(model.estimators_[:, 0]):
        tree = estimator.tree_
        arrays[f"t{t}_left"] = tree.children_left
        arrays[f"t{t}_right"] = tree.children_right
        arrays[f"t{t}_feature"] = tree.feature
        arrays[f"t{t}_threshold"] = tree.threshold
        arrays[f"t{t}_value"] = tree.value[:, 0, 0]
    return arrays


def load_exported(path) -> dict[str, np.ndarray]:
    """A model saved from :func:`export_model` (``model.npz``), read without pickle."""
    with np.load(path, allow_pickle=False) as arrays:
        return dict(arrays)


def predict_exported(arrays, X: np.ndarray) -> np.ndarray:
    """Predictions of an exported ensemble: ``init + Σ coef · x[init_features] + learning_rate · Σ_t tree_t(x)``."""
    X = np.asarray(X, dtype=np.float32)  # scikit-learn casts features to float32, for the line too
    columns = [list(arrays["features"]).index(name) for name in arrays["init_features"]]
    start = (
        (X[:, columns] @ arrays["init_coef"] + arrays["init"]).astype(np.float64)
        if columns
        else np.full(len(X), float(arrays["init"]))
    )
    trees = sorted({int(k[1:].split("_")[0]) for k in arrays if k.startswith("t") and k.endswith("_left")})
    total = np.zeros(len(X))
    rows = np.arange(len(X))
    for t in trees:
        left, right = arrays[f"t{t}_left"], arrays[f"t{t}_right"]
        feature, threshold = arrays[f"t{t}_feature"], arrays[f"t{t}_threshold"]
        node = np.zeros(len(X), dtype=np.int64)
        while True:
            inner = left[node] >= 0
            if not inner.any():
                break
            at = node[inner]
            go_left = X[rows[inner], feature[at]] <= threshold[at]
            node[inner] = np.where(go_left, left[at], right[at])
        total += arrays[f"t{t}_value"][node]
    return start + float(arrays["learning_rate"]) * total


def test_scores(frame: pd.DataFrame, predictions: np.ndarray) -> dict[str, float]:
    """Pair-weighted mean Pearson per track over the scored rows (``test_<track>_ALL``)."""
    scores = {}
    for track, part in frame.groupby("track", sort=True).indices.items():
        sub = frame.iloc[part].reset_index(drop=True)
        scores[f"test_{track}_ALL"] = per_dataset_pearson(sub, predictions[part])["ALL"]
    return scores


def similarity_columns(
    pairs: pd.DataFrame, paths: list[str], names: dict[str, str] | None = None
) -> dict[str, np.ndarray]:
    """The similarity columns (``names``: column -> name; default every non-key column, same name) of
    one table, or of k fold tables out of fold (:func:`out_of_fold`), each checked row by row against the pairs."""
    tables = [pd.read_parquet(path) for path in paths]
    for table, path in zip(tables, paths):
        check_aligned(table, pairs, path)
    names = names or {column: column for column in tables[0].columns if column not in KEYS}
    return {
        name: out_of_fold(pairs, tables, column) if len(tables) > 1 else tables[0][column].to_numpy()
        for column, name in names.items()
    }


def encoder_column(name: str) -> bool:
    """An encoder's similarity column: one of :data:`ENCODER_FEATURES`, or a more encoder's ``<column>@<encoder>``."""
    return name.split("@", 1)[0] in ENCODER_FEATURES


def tables_of(entry, column: str) -> list[str]:
    """The similarity tables an encoder column of a split entry comes from."""
    if "@" not in column:
        return list(entry.encoder)
    return [path for name, path in entry.more_encoders if column.endswith(f"@{name}")]


def check_encoded(frame: pd.DataFrame, entry, unwritten: frozenset[str] = frozenset()) -> None:
    """Every row a split reads has its encoder similarities (a training or dev set's table holds its
    scored lines only, stsynth.encoders.encoder.cosine_table): a null one is an error, never a silent gap.
    ``unwritten``: columns null on every line of the encoder's table, which that encoder does not write (a
    cross-encoder's ``encoder_token_f1``, stsynth.encoders.cross); its feature group does not list them."""
    for column in (c for c in frame.columns if encoder_column(c) and c not in unwritten):
        missing = frame["line"][frame[column].isna()]
        if len(missing):
            raise ValueError(
                f"{entry.year}/{entry.dataset}: line {int(missing.iat[0])} has no {column} value in "
                f"{', '.join(tables_of(entry, column))} ({len(missing)} such lines), though this split reads it"
            )


def load_split(split: list, declared=None, folds_column: str = "cosine") -> pd.DataFrame:
    """Rows of every dataset of a split (stsynth.dcu2016.fusion_plan.SplitEntry per dataset, or its param form): its
    pairs, features and encoder tables (k fold tables: :func:`out_of_fold`) and, per paragram
    feature, one similarity table or ``k`` fold tables (then :func:`out_of_fold`); of an entry marked
    ``scored_only``, its scored rows only.
    ``declared``: the job's input files for this split; a file the split names outside it is an error."""
    from .fusion_plan import SplitEntry, split_files

    split = [entry if isinstance(entry, SplitEntry) else SplitEntry.from_param(entry) for entry in split]
    if declared is not None:
        undeclared = [path for path in split_files(split) if path not in set(declared)]
        if undeclared:
            raise ValueError(f"split files not among the job's declared inputs: {undeclared[:3]}")
    frames = []
    for entry in split:
        pairs = pd.read_parquet(entry.pairs)
        features = pd.read_parquet(entry.features)
        check_aligned(features, pairs, entry.features)
        columns = {}
        if entry.encoder:
            columns.update(similarity_columns(pairs, list(entry.encoder)))
        for name, path in entry.more_encoders:  # a run's more encoders: each column as <column>@<encoder>
            columns.update(similarity_columns(pairs, [path], {c: f"{c}@{name}" for c in ENCODER_FEATURES}))
        unwritten = frozenset(name for name in columns if encoder_column(name) and np.isnan(columns[name]).all())
        for name, paths in entry.paragram:
            columns[name] = similarity_columns(pairs, list(paths), {folds_column: name})[name]
        frame = dataset_frame(pairs, features, columns)
        frames.append(gold_rows(frame) if entry.scored_only else frame)
        check_encoded(frames[-1], entry, unwritten)
    frame = pd.concat(frames, ignore_index=True)
    log.info("read %d datasets: %d rows, %d scored", len(split), len(frame), frame["gold"].notna().sum())
    return frame
