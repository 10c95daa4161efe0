"""A run's scores, from its prediction files: the run output contract, the score tables and the paired
comparisons between runs.

A run writes, for every test dataset, ``results/predictions/{run}/{year}/{dataset}.txt``: one
score per line of the released input file, in order, unscored lines included, so the
organizers' own scorer reads it. Scoring reads those files back, so what is scored is
exactly what was written; a dataset without gold (a ``predict`` set) gets predictions and no score.
The correlations and the three ALLs are stsynth.core.correlations'; the intervals and the paired
differences stsynth.core.bootstrap's.

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
from pathlib import Path

import numpy as np
import pandas as pd

from .bootstrap import bootstrap_sets, bootstrapped, interval, paired_difference
from .correlations import AGGREGATES, METRICS, summary
from .datasets import InputFormatError
from .pairs import PLAIN_DECIMAL
from .progress import Progress
from .tables import markdown_rows
from .wording import counted

log = logging.getLogger(__name__)


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


UNTRANSLATED_NOTE = (
    "- es-en: s1 (Spanish) is compared with s2 (English) as given, untranslated, as the organizers' baseline does: "
    "its bags of words share few words across the two languages."
)


def scores_markdown(scores: pd.DataFrame, confidence: float = 0.95, untranslated: bool = False) -> str:
    """A run's scores table; ``untranslated``: the run compares an es-en set's sides as given (the baseline), said
    under the table when it has es-en rows."""

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
                f"- {row.track} {row.group} ALL leaves out {counted(row.undefined, 'dataset')} whose Pearson is "
                "undefined (constant predictions or gold): the means and their pairs are over the others."
            )
    table = markdown_rows(
        ["track", "group", "dataset", "pairs", "pearson", f"{confidence:.0%} CI", "spearman", f"{confidence:.0%} CI"],
        rows,
        "lllrrrrr",
        digits=5,
    )
    if untranslated and (scores["track"] == "es-en").any():
        notes.append(UNTRANSLATED_NOTE)
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
