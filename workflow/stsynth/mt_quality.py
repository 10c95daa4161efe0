"""How far the Spanish-English scores depend on the machine translation of s1.

The es-en runs translate the Spanish s1 with the configured backend (Apertium by default) and
then score English against English. The redistributed `_4c` files carry, in field 3, an English
machine translation of field 1 made by a third party with another (statistical or neural) engine.
Scoring the same paragram models with that translation in place of ours measures what a better
translator would be worth. It is a diagnostic only: no run reads field 3.

Comparison table (``results/crosslingual/mt_comparison.parquet``): ``run`` string, ``translation``
string (``backend:<name>`` or ``field <n> of the input file``), ``year`` int16, ``dataset`` string
(``ALL`` = the pair-weighted mean), ``pairs`` int32 (scored), ``pearson`` float64.
"""
from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pandas as pd

from .pairs import InputFormatError, _decoded_lines
from .scoring import pearson, weighted_mean
from .tokens import tokenize

log = logging.getLogger(__name__)


def read_field(path: str | Path, fields: int, field: int) -> list[str]:
    """Field ``field`` (1-based) of every line of a released input file with ``fields`` fields."""
    if not 1 <= field <= fields:
        raise ValueError(f"{path}: field {field} does not exist in a {fields}-field file")
    values = []
    for lineno, line in enumerate(_decoded_lines(path), start=1):
        parts = line.split("\t")
        if len(parts) != fields:
            raise InputFormatError(f"{path}:{lineno}: expected {fields} tab-separated fields, found {len(parts)}")
        values.append(parts[field - 1])
    return values


def comparison(models: dict, sets: list[dict], backend: str, field: int, tokenize_settings: dict) -> pd.DataFrame:
    """Pearson of each model with s1 as translated by ``backend`` and as given in ``field``.

    ``models``: run -> stsynth.paragram.SentenceModel. ``sets``: per es-en dataset ``pairs`` (its
    pair table, for gold), ``tokens`` (the token table the runs read: backend-translated s1,
    English s2) and ``reference`` (field ``field`` of each line, row-aligned).
    """
    translations = {f"backend:{backend}": lambda s: list(s["tokens"]["tokens1"]),
                    f"field {field} of the input file": lambda s: [tokenize(text, "en", **tokenize_settings)
                                                                    for text in s["reference"]]}
    rows = []
    for run, model in models.items():
        for translation, tokens1_of in translations.items():
            scores, sizes = [], []
            for s in sets:
                pairs, tokens = s["pairs"], s["tokens"]
                if len(s["reference"]) != len(pairs) or len(tokens) != len(pairs):
                    raise ValueError(f"{pairs['dataset'].iat[0]}: {len(s['reference'])} reference lines, "
                                     f"{len(tokens)} token rows and {len(pairs)} pairs")
                scored = pairs["gold"].notna().to_numpy()
                cosines = model.cosines(tokens1_of(s), [list(t) for t in tokens["tokens2"]])
                scores.append(pearson(cosines[scored], pairs["gold"].to_numpy()[scored]))
                sizes.append(int(scored.sum()))
                rows.append((run, translation, int(pairs["year"].iat[0]), pairs["dataset"].iat[0], sizes[-1],
                             scores[-1]))
            rows.append((run, translation, int(sets[0]["pairs"]["year"].iat[0]), "ALL", sum(sizes),
                         weighted_mean(scores, sizes)))
            log.info("%s with %s: ALL %.5f", run, translation, rows[-1][-1])
    return pd.DataFrame(rows, columns=["run", "translation", "year", "dataset", "pairs", "pearson"]).astype(
        {"run": "string", "translation": "string", "year": "int16", "dataset": "string", "pairs": "int32",
         "pearson": "float64"})


def comparison_markdown(table: pd.DataFrame) -> str:
    wide = table.pivot_table(index=["run", "translation"], columns="dataset", values="pearson", sort=False)
    columns = [c for c in wide.columns if c != "ALL"] + ["ALL"]
    lines = ["Spanish-English scores by translation of s1 (same models; the runs use the backend's)", "",
             "| run | translation | " + " | ".join(columns) + " |", "|---|---|" + "---:|" * len(columns)]
    for (run, translation), values in wide[columns].iterrows():
        lines.append(f"| {run} | {translation} | " + " | ".join(f"{v:.5f}" for v in values) + " |")
    return "\n".join(lines) + "\n"
