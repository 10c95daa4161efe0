"""Dev-protocol studies of paragram models: the gold-threshold sweep and the untuned word-vector
sources (their plots: stsynth.results.plots)."""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from ..core.correlations import correlations
from ..core.progress import Progress
from ..word_vectors.vectors import WordVectors
from .sentence_model import DevSet, build_model, fit

log = logging.getLogger(__name__)


def sweep_thresholds(sweep: dict) -> list[float]:
    """The thresholds of paraphrase_pairs.sweep: start to stop (inclusive) by step, rounded so that the
    float steps land on the decimals written in the config."""
    return np.round(np.arange(sweep["start"], sweep["stop"] + sweep["step"] / 2, sweep["step"]), 6).tolist()


def threshold_sweep(
    vectors: WordVectors,
    gold_tables: list[pd.DataFrame],
    unlabeled: list,
    settings: dict,
    dev_sets: list[DevSet],
    thresholds: list[float],
) -> pd.DataFrame:
    """One model per gold threshold; its dev scores after the configured epochs.

    Schema: threshold float64, pairs int32, then the dev_* Pearson columns of the epoch log.
    """
    from ..core.paraphrase_pairs import gold_filter

    rows = []
    progress = Progress(log, "threshold sweep", len(thresholds), "thresholds")
    for threshold in thresholds:
        pairs = gold_filter(gold_tables, threshold)
        _, epochs = fit(vectors, pairs, unlabeled, settings, dev_sets, every_epoch=False)
        final = epochs.iloc[-1]
        rows.append(
            {
                "threshold": threshold,
                "pairs": len(pairs),
                **{k: final[k] for k in epochs.columns if k.startswith("dev_")},
            }
        )
        log.info("threshold %.2f: %d pairs, dev ALL %.4f", threshold, len(pairs), rows[-1].get("dev_ALL", np.nan))
        progress.advance()
    progress.finish()
    return pd.DataFrame(rows).astype({"threshold": "float64", "pairs": "int32"})


def source_comparison(
    sources: list[WordVectors],
    unlabeled: list,
    settings: dict,
    variants: list[dict],
    datasets: list[tuple[str, DevSet]],
) -> pd.DataFrame:
    """Untuned sources under each sentence-weighting variant, per dataset and per split.

    Schema: source string, variant string, split string (a label such as dev or test), dataset
    string ("year/name" or ALL), pairs int32, pearson float64.
    """
    rows = []
    progress = Progress(log, "word-vector sources", len(sources) * len(variants), "variants")
    for vectors in sources:
        for variant in variants:
            progress.advance()
            model = build_model(vectors, {**settings, **variant})
            model.fit_components(unlabeled)
            for split in dict.fromkeys(s for s, _ in datasets):
                sets = [d for s, d in datasets if s == split]
                scores = correlations((d.name, model.cosines(d.tokens1, d.tokens2), d.gold) for d in sets)
                rows.extend((vectors.source, variant["name"], split, *score) for score in scores)
                log.info("%s %s %s ALL %.4f", vectors.source, variant["name"], split, scores[-1][2])
    progress.finish()
    return pd.DataFrame(rows, columns=["source", "variant", "split", "dataset", "pairs", "pearson"]).astype(
        {
            "source": "string",
            "variant": "string",
            "split": "string",
            "dataset": "string",
            "pairs": "int32",
            "pearson": "float64",
        }
    )
