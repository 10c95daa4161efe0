"""The seed study: how far a training-dependent run's figures move when only the seeds of what it trains change.

Each run of ``seed_study.runs`` is repeated as ``<run>.seed<s>`` for every ``s`` of ``seed_study.seeds``
(stsynth.pipeline.runs.seeded_run: its paragram models and their folds, its tuned encoders, a fusion run's regressor
and dev search, a head run's head, paraphrase-embedding models and skip-gram vectors, all seeded ``s``); the
headline run is the configured seeds' (1). The bootstrap intervals of the score tables describe the test sets'
sampling; this describes the training's sensitivity to its seed (initialisation, batch order, negatives,
subsamples), which is also the size of what a change in float order (another CPU, another library build) can do to a
figure.

Tables (the official Pearson only):

* :func:`spread_table`: per run, track, group and dataset (every set and the official ALL) the headline
  figure, and over the headline and seed runs the mean, sample standard deviation, min and max;
* :func:`sign_table`: per compared pair (config ``scoring.compare``) whose runs are both in the study, or one
  in it and the other trained by nothing (its figure the same on every seed), the ALL difference per seed and
  whether its sign holds on every seed.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.tables import markdown_rows

OFFICIAL = {"ALL (mean)", "ALL (pooled)"}  # the other ALL rows of a score table: not the official figure


def official_rows(scores: pd.DataFrame) -> pd.DataFrame:
    """A score table's per-set rows and its official (pair-weighted) ALL rows."""
    return scores[~scores["dataset"].isin(OFFICIAL)]


def spread_table(headline: dict[str, pd.DataFrame], seeded: dict[str, list[pd.DataFrame]]) -> pd.DataFrame:
    """run -> the headline score table, and the score tables of its seed runs (same sets) -> the spread rows."""
    rows = []
    for run, table in headline.items():
        base = official_rows(table).reset_index(drop=True)
        figures = np.stack(
            [
                base["pearson"].to_numpy(),
                *[_aligned(base, official_rows(other), run)["pearson"].to_numpy() for other in seeded[run]],
            ]
        )
        rows.append(
            pd.DataFrame(
                {
                    "run": run,
                    "track": base["track"],
                    "group": base["group"],
                    "dataset": base["dataset"],
                    "seeds": len(figures),
                    "headline": figures[0],
                    "mean": figures.mean(0),
                    "sd": figures.std(0, ddof=1) if len(figures) > 1 else np.nan,
                    "min": figures.min(0),
                    "max": figures.max(0),
                }
            )
        )
    return pd.concat(rows, ignore_index=True).astype({"seeds": "int32"})


def _aligned(base: pd.DataFrame, other: pd.DataFrame, run: str) -> pd.DataFrame:
    """``other``'s rows in ``base``'s order (a seed run scores the same sets as its run)."""
    keys = ["track", "group", "dataset"]
    merged = base[keys].merge(other[[*keys, "pearson"]], on=keys, how="left", validate="one_to_one", indicator=True)
    missing = merged[merged["_merge"] != "both"]
    if len(missing):
        raise ValueError(
            f"seed study: a seed run of {run} lacks sets its headline run scores: "
            + ", ".join(f"{r.track} {r.dataset}" for r in missing.itertuples())
        )
    return merged


def sign_table(pairs: list[list[str]], figures: dict[str, list[pd.DataFrame]]) -> pd.DataFrame:
    """``pairs``: [run, against]; ``figures``: run -> its score tables in seed order (one table: a run no
    seed reaches, the same on every seed) -> per pair, track and group the official ALL difference per seed."""
    rows = []
    for run, against in pairs:
        seeds = max(len(figures[run]), len(figures[against]))
        a, b = (_all_rows(figures[name], seeds) for name in (run, against))
        for (track, group), values in a.items():
            difference = values - b[(track, group)]
            rows.append(
                {
                    "run": run,
                    "against": against,
                    "track": track,
                    "group": group,
                    "seeds": seeds,
                    "mean": difference.mean(),
                    "min": difference.min(),
                    "max": difference.max(),
                    "same_sign": bool((difference > 0).all() or (difference < 0).all()),
                }
            )
    return pd.DataFrame(rows, columns=["run", "against", "track", "group", "seeds", "mean", "min", "max", "same_sign"])


def _all_rows(tables: list[pd.DataFrame], seeds: int) -> dict[tuple[str, str], np.ndarray]:
    """(track, group) -> the official ALL per seed (a single table repeated: the same on every seed)."""
    tables = tables * seeds if len(tables) == 1 else tables
    found: dict[tuple[str, str], list[float]] = {}
    for table in tables:
        for row in table[table["dataset"] == "ALL"].itertuples():
            found.setdefault((row.track, row.group), []).append(row.pearson)
    return {key: np.array(values) for key, values in found.items()}


def spread_markdown(spread: pd.DataFrame, signs: pd.DataFrame) -> str:
    """The two tables as Markdown (ALL rows only: every set is in the Parquet table)."""
    alls = spread[spread["dataset"] == "ALL"]
    sets = spread[spread["dataset"] != "ALL"].groupby(["run", "track", "group"], sort=False)["sd"].max()
    text = (
        "Official ALL (Pearson) of each run, with the seeds of everything it trains changed: the headline "
        "run, then mean ± sample sd and range over the headline and the seed runs; the last column is the "
        "largest sd of one of its test sets.\n\n"
        + markdown_rows(
            ["run", "track", "group", "seeds", "headline", "mean ± sd", "min – max", "largest set sd"],
            [
                [
                    f"`{r.run}`",
                    r.track,
                    r.group,
                    r.seeds,
                    f"{r.headline:.4f}",
                    f"{r.mean:.4f} ± {r.sd:.4f}",
                    f"{r.min:.4f} – {r.max:.4f}",
                    f"{sets[(r.run, r.track, r.group)]:.4f}",
                ]
                for r in alls.itertuples()
            ],
        )
    )
    if len(signs):
        text += "\nCompared pairs (run − against, official ALL), per seed:\n\n" + markdown_rows(
            ["run − against", "track", "group", "seeds", "mean", "min – max", "same sign on every seed"],
            [
                [
                    f"`{r.run}` − `{r.against}`",
                    r.track,
                    r.group,
                    r.seeds,
                    f"{r.mean:+.4f}",
                    f"{r.min:+.4f} – {r.max:+.4f}",
                    "yes" if r.same_sign else "**no**",
                ]
                for r in signs.itertuples()
            ],
        )
    return text


# --- the fusion's feature importances over the seeds --------------------------------------------------------

IMPORTANCE_ROWS = 9  # the features DCU Table 4 lists


def importance_spread(headline: pd.DataFrame, seeded: list[pd.DataFrame]) -> pd.DataFrame:
    """A fusion run's importance tables (columns feature, group, importance: stsynth.dcu2016.fusion), the headline's
    and its seed runs' -> per feature (the headline's order, by importance) the headline importance, and over the
    headline and seed runs the mean, sample sd, min and max: how far a feature's Gini moves, and so how far apart
    two neighbours of a rank order (DCU Table 4) must be for their order to hold."""
    frame = headline.set_index("feature")
    figures = np.stack(
        [
            frame["importance"].to_numpy(),
            *[table.set_index("feature").loc[frame.index, "importance"] for table in seeded],
        ]
    )
    return pd.DataFrame(
        {
            "feature": frame.index,
            "group": frame["group"].to_numpy(),
            "seeds": len(figures),
            "headline": figures[0],
            "mean": figures.mean(0),
            "sd": figures.std(0, ddof=1) if len(figures) > 1 else np.nan,
            "min": figures.min(0),
            "max": figures.max(0),
        }
    ).astype({"seeds": "int32"})


def importance_markdown(run: str, spread: pd.DataFrame, rows: int = IMPORTANCE_ROWS) -> str:
    """The top ``rows`` features of :func:`importance_spread` as Markdown (the docs' check reads each sd)."""
    top = spread.sort_values("headline", ascending=False).head(rows)
    return (
        f"Gini importance of `{run}`'s top {rows} features with the seeds of everything it trains changed: "
        "the headline run's, then mean ± sample sd and range over the headline and the seed runs.\n\n"
        + markdown_rows(
            ["run", "feature", "seeds", "headline", "mean ± sd", "min – max"],
            [
                [
                    f"`{run}`",
                    f"`{row.feature}`",
                    int(row.seeds),
                    f"{row.headline:.3f}",
                    f"{row.mean:.3f} ± {row.sd:.4f}",
                    f"{row.min:.3f} – {row.max:.3f}",
                ]
                for row in top.itertuples()
            ],
            "llrrrr",
        )
    )
