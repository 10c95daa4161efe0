"""The STS metrics, one set of functions for every table, and the run output contract.

A run writes, for every test dataset, ``results/predictions/{run}/{year}/{dataset}.txt``: one
score per line of the released input file, in order, unscored lines included, so the
organizers' own scorer reads it. Scoring reads those files back, so what is scored is
exactly what was written; a dataset without gold (a ``predict`` set) gets predictions and no score.

Correlations: Pearson (the official metric) and Spearman (scipy.stats.spearmanr, average ranks for
ties) over a dataset's scored pairs. Datasets are summarized per (track, group) in the three
conventions people quote (:data:`AGGREGATES`):

* ``ALL``: the official SemEval aggregate, the mean of the per-dataset correlations weighted by
  scored pairs (over the datasets whose correlation is defined). The headline everywhere.
* ``ALL (mean)``: the plain mean of the per-dataset correlations (SentEval's "mean").
* ``ALL (pooled)``: one correlation over every scored pair of the group at once (MTEB's and
  sentence-transformers' evaluators on a concatenated set).

Uncertainty (:func:`bootstrap_sets`): a percentile bootstrap of every dataset's Pearson and Spearman
and of the official ALL and ALL (mean) of each, resampling the scored pairs within each dataset
(seeded per dataset, so every run of the same datasets draws the same resamples and two runs'
intervals pair up: :func:`paired_bootstrap`, :func:`compare_runs`, for both correlations). Spearman
is MTEB's main STS score and the first number sentence-transformers users look at.

Scores table schema (``results/scores/{run}.parquet``):

==========  =======  =========================================================================
column      type     meaning
==========  =======  =========================================================================
run         string   run name
track       string   ``en`` or ``es-en``
group       string   the datasets' ``group`` (default: their year), the unit of the ALL rows
year        Int16    the dataset's year; on ALL rows the group's year if it has one, else null
dataset     string   dataset name, or ``ALL``, ``ALL (mean)``, ``ALL (pooled)``
pairs       int32    scored pairs (ALL rows: over the datasets they summarize)
pearson     float64  Pearson r, NaN where undefined (constant predictions or gold of the scored
                     pairs); ALL rows over the datasets whose r is defined
spearman    float64  Spearman rho, likewise
undefined   int16    datasets whose Pearson is undefined (0 or 1; ALL rows: how many they leave out)
pearson_ci_low   float64  the bootstrap interval of ``pearson`` (level, resamples, seed: config
pearson_ci_high  float64  ``scoring.bootstrap``); every dataset, ALL and ALL (mean); NaN on ALL
spearman_ci_low  float64  (pooled), which resampling within datasets does not define, and where
spearman_ci_high float64  the correlation is undefined
==========  =======  =========================================================================

An undefined correlation is never a made-up 0: it is NaN in the table, "n/a" in the Markdown,
a warning naming the run and dataset in the log, and ALL says how many datasets it left out.
"""

from __future__ import annotations

import logging
import math
import re
import zlib
from pathlib import Path

import numpy as np
import pandas as pd

from .pairs import PLAIN_DECIMAL, InputFormatError
from .progress import Progress
from .tables import markdown_rows

log = logging.getLogger(__name__)


def pearson(x, y) -> float:
    """Pearson r; NaN where it does not exist (a constant side), never 0."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1 or len(x) < 2:
        raise ValueError(f"pearson needs two equal-length vectors of length >= 2, got {x.shape} and {y.shape}")
    dx, dy = x - x.mean(), y - y.mean()
    denominator = np.sqrt((dx * dx).sum() * (dy * dy).sum())
    return float((dx * dy).sum() / denominator) if denominator > 0 else math.nan


def weighted_mean(values, weights) -> float:
    values = np.asarray(values, dtype=np.float64)
    weights = np.asarray(weights, dtype=np.float64)
    if weights.sum() <= 0:
        raise ValueError("weights must sum to a positive number")
    return float((values * weights).sum() / weights.sum())


def scored_pairs(predictions, gold) -> tuple[np.ndarray, np.ndarray]:
    """The (predictions, gold) of the scored pairs: those whose gold is not NaN."""
    predictions, gold = np.asarray(predictions, dtype=np.float64), np.asarray(gold, dtype=np.float64)
    scored = ~np.isnan(gold)
    return predictions[scored], gold[scored]


def mean_of_defined(values, weights) -> tuple[int, float]:
    """The weighted mean of the values that are not NaN, and the sum of their weights (NaN when none
    is defined): how every ALL row leaves out an undefined correlation."""
    defined = [(weight, value) for value, weight in zip(values, weights, strict=True) if not math.isnan(value)]
    if not defined:
        return 0, math.nan
    return sum(w for w, _ in defined), weighted_mean([v for _, v in defined], [w for w, _ in defined])


def official_aggregate(values, pairs) -> tuple[int, float]:
    """The official ALL, the one place its rule is written: the mean of the defined per-dataset
    correlations weighted by their scored pairs, and those pairs (NaN and 0 when none is defined).
    :func:`correlations` and :func:`summary` call it; the bootstrap applies it per resample."""
    return mean_of_defined(values, pairs)


def correlations(sets) -> list[tuple[str, int, float]]:
    """Pearson only, for the loops that score often (dev searches, dev checks): for each
    ``(name, predictions, gold)``, Pearson over its scored pairs (gold not NaN) as ``(name, pairs, r)``,
    then ``("ALL", pairs, r)``, :func:`official_aggregate` of them."""
    rows = []
    for name, predictions, gold in sets:
        x, y = scored_pairs(predictions, gold)
        # fewer than 2 scored pairs (a predict set has none): undefined, like a constant side
        rows.append((name, len(x), pearson(x, y) if len(x) >= 2 else math.nan))
    pairs, total = official_aggregate([r for *_, r in rows], [pairs for _, pairs, _ in rows])
    return rows + [(AGGREGATES[0], pairs, total)]


def write_predictions(scores, path: str | Path) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    scores = np.asarray(scores, dtype=np.float64)
    if not np.all(np.isfinite(scores)):
        raise ValueError(f"{path}: refusing to write non-finite predictions")
    path.write_text("".join(f"{value:.15g}\n" for value in scores))


# A prediction: a finite decimal, exponent allowed (write_predictions' %.15g writes 1e-05); not
# "0_5", "nan" or "inf", which Python's float() would take.
PREDICTION = re.compile(PLAIN_DECIMAL.pattern + r"([eE][+-]?[0-9]+)?")
# Pearson is the same on any scale, but its sums of squares overflow past about 1e154: a similarity on
# any usual scale stays far inside this bound.
PREDICTION_BOUND = 1e12


def read_predictions(path: str | Path, expected_lines: int) -> np.ndarray:
    """One number per line (a tab and anything after it ignored, as the organizers' scorer does)."""
    values = []
    for lineno, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        text = line.split("\t")[0].strip()
        if not PREDICTION.fullmatch(text):
            raise InputFormatError(f"{path}:{lineno}: prediction {line!r} is not a number")
        if not abs(value := float(text)) <= PREDICTION_BOUND:
            raise InputFormatError(
                f"{path}:{lineno}: prediction {text} is outside ±{PREDICTION_BOUND:g}: no "
                "similarity scale needs it, and correlations of such numbers overflow"
            )
        values.append(value)
    if len(values) != expected_lines:
        raise InputFormatError(f"{path}: {len(values)} predictions for {expected_lines} input lines")
    return np.asarray(values)


# --- the score tables: every correlation and the three ALLs, with the official ALL's interval ---

AGGREGATES = ("ALL", "ALL (mean)", "ALL (pooled)")
METRICS = ("pearson", "spearman")
INTERVAL_COLUMNS = [f"{metric}_ci_{end}" for metric in METRICS for end in ("low", "high")]
SCORE_COLUMNS = [
    "run",
    "track",
    "group",
    "year",
    "dataset",
    "pairs",
    "pearson",
    "spearman",
    "undefined",
    *INTERVAL_COLUMNS,
]


def spearman(x, y) -> float:
    """Spearman rho (scipy, average ranks for ties); NaN where it does not exist (a constant side)."""
    from scipy.stats import spearmanr  # here, not at import: scipy.stats costs the workflow's start-up 0.6 s

    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if len(x) < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return math.nan
    return float(spearmanr(x, y).statistic)


def summary(sets) -> list[dict]:
    """For each ``(name, predictions, gold)``: its scored pairs, Pearson, Spearman; then the three
    :data:`AGGREGATES` rows over the datasets (the official one and the mean over the defined
    correlations of each kind; pooled over every scored pair)."""
    rows, pooled = [], []
    for name, predictions, gold in sets:
        x, y = scored_pairs(predictions, gold)
        pooled.append((x, y))
        r = pearson(x, y) if len(x) >= 2 else math.nan
        rows.append(
            {
                "dataset": name,
                "pairs": len(x),
                "pearson": r,
                "spearman": spearman(x, y),
                "undefined": int(math.isnan(r)),
            }
        )
    aggregates = []
    for name, aggregate in (
        (AGGREGATES[0], lambda values: official_aggregate(values, [r["pairs"] for r in rows])),
        (AGGREGATES[1], lambda values: mean_of_defined(values, [1] * len(rows))),
    ):
        row = {metric: aggregate([r[metric] for r in rows])[1] for metric in METRICS}
        aggregates.append(
            {
                "dataset": name,
                "pairs": sum(r["pairs"] for r in rows if not r["undefined"]),
                "undefined": sum(r["undefined"] for r in rows),
                **row,
            }
        )
    x = np.concatenate([x for x, _ in pooled]) if pooled else np.zeros(0)
    y = np.concatenate([y for _, y in pooled]) if pooled else np.zeros(0)
    aggregates.append(
        {
            "dataset": AGGREGATES[2],
            "pairs": len(x),
            "undefined": 0,
            "pearson": pearson(x, y) if len(x) >= 2 else math.nan,
            "spearman": spearman(x, y),
        }
    )
    return rows + aggregates


# --- bootstrap ------------------------------------------------------------------------------


def _rowwise_pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    dx, dy = x - x.mean(1, keepdims=True), y - y.mean(1, keepdims=True)
    denominator = np.sqrt((dx * dx).sum(1) * (dy * dy).sum(1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, (dx * dy).sum(1) / denominator, np.nan)


def resampled_ranks(values: np.ndarray, index: np.ndarray) -> np.ndarray:
    """``scipy.stats.rankdata(values[index], axis=1)``: average ranks, ties sharing the mean of their
    positions (as :func:`spearman`). Counted, not sorted (our own because rankdata's sorts took three
    quarters of a 10,000-resample bootstrap: 3.9 s -> 0.45 s for 1,500 pairs): every row draws from the same
    values, so a drawn value's rank is the number of draws below it plus (its own draws + 1) / 2, integers
    and halves: the same floats as rankdata's."""
    if np.isnan(values).any():  # rankdata's NaN rule (the row's ranks NaN), not worth repeating
        from scipy.stats import rankdata

        return rankdata(values[index], axis=1)
    distinct, position = np.unique(values, return_inverse=True)
    drawn = position.reshape(-1)[index]
    rows, width = drawn.shape[0], len(distinct)
    counts = np.bincount((drawn + width * np.arange(rows)[:, None]).ravel(), minlength=rows * width).reshape(
        rows, width
    )
    ranks = np.cumsum(counts, axis=1) - counts + (counts + 1) / 2
    return np.take_along_axis(ranks, drawn, axis=1)


def resampled_correlations(
    key: str, predictions, gold, resamples: int, seed: int, chunk: int = 100
) -> dict[str, np.ndarray]:
    """Pearson and Spearman of ``resamples`` bootstrap resamples of a dataset's scored pairs (drawn
    with replacement, as many as it has; both metrics from the same draws). The draws depend only on
    (seed, key, number of pairs), so every run scored on the same dataset sees the same resamples:
    the pairing of :func:`paired_bootstrap`."""
    x, y = scored_pairs(predictions, gold)
    rng = np.random.default_rng([seed, zlib.crc32(key.encode("utf-8"))])
    values = {metric: [] for metric in METRICS}
    for start in range(0, resamples, chunk):
        index = rng.integers(0, len(x), size=(min(chunk, resamples - start), len(x)))
        values["pearson"].append(_rowwise_pearson(x[index], y[index]))
        values["spearman"].append(_rowwise_pearson(resampled_ranks(x, index), resampled_ranks(y, index)))
    return {metric: np.concatenate(parts) if parts else np.zeros(0) for metric, parts in values.items()}


def _mean_of_defined_rows(values: np.ndarray, weights) -> np.ndarray:
    """Per resample (column), the weighted mean of the datasets (rows) whose value is defined."""
    mask = ~np.isnan(values)
    weight = np.asarray(weights, dtype=np.float64)[:, None] * mask
    with np.errstate(invalid="ignore", divide="ignore"):
        return (np.where(mask, values, 0.0) * weight).sum(0) / weight.sum(0)


def bootstrap_sets(sets, resamples: int, seed: int) -> dict[str, dict[str, np.ndarray]]:
    """Resampled correlations of ``sets`` (``(key, predictions, gold)``), per metric: ``datasets``
    [datasets, resamples], and per resample the official ``ALL`` (pair-weighted mean over the defined
    datasets, as the ALL row) and ``ALL (mean)``."""
    resampled = [resampled_correlations(key, predictions, gold, resamples, seed) for key, predictions, gold in sets]
    weights = [int((~np.isnan(np.asarray(gold, dtype=np.float64))).sum()) for _, _, gold in sets]
    out = {}
    for metric in METRICS:
        values = np.vstack([r[metric] for r in resampled])
        out[metric] = {
            "datasets": values,
            AGGREGATES[0]: _mean_of_defined_rows(values, weights),
            AGGREGATES[1]: _mean_of_defined_rows(values, [1] * len(sets)),
        }
    return out


def bootstrap_all(sets, resamples: int, seed: int, metric: str = "pearson") -> np.ndarray:
    """The official ALL of every resample (:func:`bootstrap_sets`)."""
    return bootstrap_sets(sets, resamples, seed)[metric][AGGREGATES[0]]


def interval(values: np.ndarray, confidence: float) -> tuple[float, float]:
    """Percentile interval of bootstrap values (resamples whose value is undefined left out)."""
    values = np.asarray(values, dtype=np.float64)
    values = values[~np.isnan(values)]
    if not len(values):
        return math.nan, math.nan
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(values, [tail, 100 - tail])
    return float(low), float(high)


def official_all(sets, metric: str = "pearson") -> float:
    return summary(sets)[len(sets)][metric]


def bootstrapped(sets, resamples: int, seed: int) -> dict:
    """What a paired comparison needs of one run on ``sets`` (``(key, predictions, gold)``): the
    dataset keys, its official ALL row (:func:`summary`) and its resampled correlations
    (:func:`bootstrap_sets`)."""
    return {
        "keys": [key for key, *_ in sets],
        "official": summary(sets)[len(sets)],
        "resampled": bootstrap_sets(sets, resamples, seed),
    }


def paired_difference(a: dict, b: dict, confidence: float, metric: str = "pearson") -> dict:
    """The paired bootstrap, the one place it is computed: official ALL (of ``metric``) of run a minus
    run b (each :func:`bootstrapped` on the same datasets, so both see the same resamples), the observed
    difference with its percentile interval and a two-sided bootstrap p-value (twice the smaller share
    of resampled differences on either side of 0)."""
    if a["keys"] != b["keys"]:
        raise ValueError(f"paired bootstrap needs the same datasets in the same order: {a['keys']} vs {b['keys']}")
    return difference_interval(
        a["official"][metric] - b["official"][metric],
        a["resampled"][metric][AGGREGATES[0]] - b["resampled"][metric][AGGREGATES[0]],
        confidence,
    )


def paired_bootstrap(sets_a, sets_b, resamples: int, seed: int, confidence: float, metric: str = "pearson") -> dict:
    """:func:`paired_difference` of two runs' sets."""
    return paired_difference(
        bootstrapped(sets_a, resamples, seed), bootstrapped(sets_b, resamples, seed), confidence, metric
    )


def difference_interval(observed: float, resampled: np.ndarray, confidence: float) -> dict:
    """An observed difference with the percentile interval and two-sided p of its paired resamples."""
    resampled = resampled[~np.isnan(resampled)]
    low, high = interval(resampled, confidence)
    p = min(1.0, 2 * min((resampled <= 0).mean(), (resampled >= 0).mean())) if len(resampled) else math.nan
    return {
        "difference": float(observed),
        "ci_low": low,
        "ci_high": high,
        "p_value": float(p),
        "significant": bool(low > 0 or high < 0),
    }


# --- a run's scores ---------------------------------------------------------------------------


def score_run(
    run: str,
    pair_tables: list[pd.DataFrame],
    prediction_paths: list[str | Path],
    groups: dict[str, str] | None = None,
    bootstrap: dict | None = None,
) -> pd.DataFrame:
    """The scores table (module docstring) of a run's prediction files, one per pair table: the
    datasets in the given order, then the ALL rows per (track, group). ``groups``: ``"year/name"`` ->
    group (default: the year); ``bootstrap``: ``resamples``, ``seed``, ``confidence`` (default: no
    interval)."""
    return score_sets(run, grouped_sets(pair_tables, prediction_paths, groups), bootstrap)


def _group_rows(run: str, track: str, group: str, sets: list, bootstrap: dict | None) -> list[dict]:
    """The scores table's rows of one (track, group): its datasets, then its ALL rows."""
    rows = []
    summarized = summary(sets)
    resampled = bootstrap_sets(sets, bootstrap["resamples"], bootstrap["seed"]) if bootstrap else None

    def intervals(resampled_values) -> dict:
        """The interval columns of one row from its resampled values per metric (NaN without)."""
        cells = {}
        for metric in METRICS:
            values = resampled_values(metric) if resampled else None
            low, high = interval(values, bootstrap["confidence"]) if values is not None else (math.nan, math.nan)
            cells.update({f"{metric}_ci_low": low, f"{metric}_ci_high": high})
        return cells

    for index, ((key, *_), row) in enumerate(zip(sets, summarized)):
        if row["undefined"]:
            log.warning(
                "run %s, %s: Pearson is undefined (the predictions or the gold of its %d scored "
                "pairs are constant); shown as n/a and left out of ALL",
                run,
                key,
                row["pairs"],
            )
        year, name = key.split("/", 1)
        rows.append(
            {
                "track": track,
                "group": group,
                "year": int(year),
                **row,
                "dataset": name,
                **intervals(lambda metric: resampled[metric]["datasets"][index]),
            }
        )
    group_years = {key.split("/", 1)[0] for key, *_ in sets}
    group_year = int(next(iter(group_years))) if len(group_years) == 1 else None
    for row in summarized[len(sets) :]:
        rows.append(
            {
                "track": track,
                "group": group,
                "year": group_year,
                **row,
                **intervals(lambda metric: resampled[metric].get(row["dataset"])),
            }
        )
    return rows


def score_sets(run: str, by_group: dict[tuple[str, str], list], bootstrap: dict | None = None) -> pd.DataFrame:
    """The scores table of ``(track, group) -> [(year/name, predictions, gold), ...]`` (as
    :func:`grouped_sets` gives): what :func:`score_run` writes, and `snakemake eval` per encoder."""
    rows = []
    # the bootstrap of 25 sets takes about a minute (`snakemake eval`): progress per group of sets
    progress = Progress(log, f"scoring {run}", sum(len(sets) for sets in by_group.values()), "datasets")
    with progress:
        for (track, group), sets in by_group.items():
            rows += _group_rows(run, track, group, sets, bootstrap)
            progress.advance(len(sets))
    table = pd.DataFrame(rows, columns=[column for column in SCORE_COLUMNS if column != "run"]).assign(run=run)
    return table[SCORE_COLUMNS].astype(
        {
            "run": "string",
            "track": "string",
            "group": "string",
            "year": "Int16",
            "dataset": "string",
            "pairs": "int32",
            "pearson": "float64",
            "spearman": "float64",
            "undefined": "int16",
            **{column: "float64" for column in INTERVAL_COLUMNS},
        }
    )


def scores_markdown(scores: pd.DataFrame, confidence: float = 0.95) -> str:
    def interval_cell(low: float, high: float) -> str | None:
        return None if math.isnan(low) else f"[{low:.4f}, {high:.4f}]"

    rows, notes = [], []
    for row in scores.itertuples():
        rows.append(
            [
                row.track,
                row.group,
                f"**{row.dataset}**" if row.dataset == AGGREGATES[0] else row.dataset,
                str(row.pairs),
                float(row.pearson),
                interval_cell(row.pearson_ci_low, row.pearson_ci_high),
                float(row.spearman),
                interval_cell(row.spearman_ci_low, row.spearman_ci_high),
            ]
        )
        if row.dataset == AGGREGATES[0] and row.undefined:
            notes.append(
                f"- {row.track} {row.group} ALL leaves out {row.undefined} dataset(s) whose Pearson is "
                "undefined (constant predictions or gold): the means and their pairs are over the others."
            )
    table = markdown_rows(
        ["track", "group", "dataset", "pairs", "pearson", f"{confidence:.0%} CI", "spearman", f"{confidence:.0%} CI"],
        rows,
        "lllrrrrr",
        digits=5,
    )
    legend = (
        "ALL: official, per-dataset correlations weighted by scored pairs; ALL (mean): their plain "
        "mean; ALL (pooled): one correlation over every scored pair of the group. The intervals are a "
        "bootstrap (pairs resampled within each dataset; none for the pooled ALL).\n"
    )
    return (
        f"# Scores: {scores['run'].iat[0]}\n\n"
        + table
        + "\n"
        + legend
        + ("\n" + "\n".join(notes) + "\n" if notes else "")
    )


# --- differences between runs -------------------------------------------------------------------

COMPARISON_COLUMNS = [
    "run",
    "against",
    "metric",
    "track",
    "group",
    "pairs",
    "all_run",
    "all_against",
    "difference",
    "ci_low",
    "ci_high",
    "p_value",
    "significant",
]


def grouped_sets(
    pair_tables: list[pd.DataFrame], prediction_paths: list[str | Path], groups: dict[str, str] | None = None
) -> dict[tuple[str, str], list]:
    """(track, group) -> ``[(year/name, predictions, gold), ...]`` in the given order."""
    groups, sets = groups or {}, {}
    for table, path in zip(pair_tables, prediction_paths, strict=True):
        track, year, name = table["track"].iat[0], int(table["year"].iat[0]), table["dataset"].iat[0]
        sets.setdefault((track, str(groups.get(f"{year}/{name}", year))), []).append(
            (f"{year}/{name}", read_predictions(path, len(table)), table["gold"].to_numpy(dtype=np.float64))
        )
    return sets


def compare_runs(
    comparisons: list[tuple[str, str]],
    pair_tables: list[pd.DataFrame],
    predictions: dict[str, list[str | Path]],
    groups: dict[str, str] | None,
    bootstrap: dict,
) -> pd.DataFrame:
    """Paired bootstrap of the official ALL, Pearson and Spearman, for each ``(run, against)``, per
    (track, group), from the runs' prediction files (table schema: :data:`COMPARISON_COLUMNS`;
    ``significant``: the interval of the difference excludes 0)."""
    sets = {run: grouped_sets(pair_tables, paths, groups) for run, paths in predictions.items()}
    # each run's official ALLs and resampled values, once per (track, group); the resamples pair up
    # across runs because they depend on the dataset only
    runs = {}
    # ~2 s per run on STS 2016 at 10,000 resamples: a long list of runs is a long job
    with Progress(log, "bootstrap of the compared runs", len(sets), "runs") as progress:
        for run, by_group in sets.items():
            runs[run] = {
                key: bootstrapped(group_sets, bootstrap["resamples"], bootstrap["seed"])
                for key, group_sets in by_group.items()
            }
            progress.advance()
    rows = []
    for run, against in comparisons:
        for metric in METRICS:
            for key, scored in runs[run].items():
                other = runs[against][key]  # paired_difference refuses two runs on different datasets
                rows.append(
                    {
                        "run": run,
                        "against": against,
                        "metric": metric,
                        "track": key[0],
                        "group": key[1],
                        "pairs": scored["official"]["pairs"],
                        "all_run": scored["official"][metric],
                        "all_against": other["official"][metric],
                        **paired_difference(scored, other, bootstrap["confidence"], metric),
                    }
                )
    return pd.DataFrame(rows, columns=COMPARISON_COLUMNS).astype(
        {
            "run": "string",
            "against": "string",
            "metric": "string",
            "track": "string",
            "group": "string",
            "pairs": "int32",
            "significant": "bool",
        }
    )


def p_value_cell(p: float) -> str:
    """A bootstrap p-value; 0 (no resample on the other side of 0) as "< 0.001"."""
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def comparisons_markdown(table: pd.DataFrame, bootstrap: dict) -> str:
    rows = [
        [
            row.run,
            row.against,
            row.metric,
            row.track,
            row.group,
            row.all_run,
            row.all_against,
            f"{row.difference:+.4f}",
            f"[{row.ci_low:+.4f}, {row.ci_high:+.4f}]",
            p_value_cell(row.p_value),
            "yes" if row.significant else "no",
        ]
        for row in table.itertuples()
    ]
    return (
        "# Differences between runs: paired bootstrap of the official ALL (Pearson and Spearman)\n\n"
        f"{bootstrap['resamples']} resamples of the scored pairs within each dataset (seed {bootstrap['seed']}), "
        "the same resamples for both runs; the difference is run − against; *significant*: its "
        f"{bootstrap['confidence']:.0%} interval excludes 0.\n\n"
        + markdown_rows(
            [
                "run",
                "against",
                "metric",
                "track",
                "group",
                "ALL run",
                "ALL against",
                "difference",
                f"{bootstrap['confidence']:.0%} CI",
                "p",
                "significant",
            ],
            rows,
            "lllllrrrrrl",
        )
    )
