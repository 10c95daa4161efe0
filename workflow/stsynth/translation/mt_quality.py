"""How far the Spanish-English scores depend on the machine translation of s1.

The es-en runs translate the Spanish s1 with the configured backend (Apertium by default) and
then score English against English. The redistributed `_4c` files carry, in field 3, an English
machine translation of field 1 made by a third party with another (statistical or neural) engine.
Scoring the same paragram models with that translation in place of ours measures what a better
translator would be worth. It is a diagnostic only: no run reads field 3.

Comparison table (``results/crosslingual/mt_comparison.parquet``): ``model`` string, ``translation``
string (``backend:<name>`` or ``field <n> of the input file``), ``year`` int16, ``dataset`` string
(``ALL`` = the pair-weighted mean), ``pairs`` int32 (scored), ``pearson`` float64.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pandas as pd

from ..core.correlations import correlations
from ..core.pairs import read_field_lines
from ..core.tables import markdown_rows
from ..core.tokens import tokenize

log = logging.getLogger(__name__)


def read_field(path: str | Path, fields: int, field: int) -> list[str]:
    """Field ``field`` (1-based) of every line of a released input file with ``fields`` fields."""
    if not 1 <= field <= fields:
        raise ValueError(f"{path}: field {field} does not exist in a {fields}-field file")
    return [parts[field - 1] for parts in read_field_lines(path, fields)]


def comparison(models: dict, sets: list[dict], backend: str, field: int, tokenize_settings: dict) -> pd.DataFrame:
    """Pearson of each model with s1 as translated by ``backend`` and as given in ``field``.

    ``models``: name -> stsynth.dcu2016.sentence_model.SentenceModel. ``sets``: per es-en dataset ``pairs`` (its
    pair table, for gold), ``tokens`` (the token table the runs read: backend-translated s1,
    English s2) and ``reference`` (field ``field`` of each line, row-aligned).
    """
    backend_name, reference_name = f"backend:{backend}", f"field {field} of the input file"
    prepared = []  # per set: year, name, gold (NaN: unscored), tokens2, and tokens1 per translation (tokenized once)
    for s in sets:
        pairs, tokens = s["pairs"], s["tokens"]
        if len(s["reference"]) != len(pairs) or len(tokens) != len(pairs):
            raise ValueError(
                f"{pairs['dataset'].iat[0]}: {len(s['reference'])} reference lines, "
                f"{len(tokens)} token rows and {len(pairs)} pairs"
            )
        tokens1 = {
            backend_name: [list(t) for t in tokens["tokens1"]],
            reference_name: [tokenize(text, "en", **tokenize_settings) for text in s["reference"]],
        }
        prepared.append(
            (
                int(pairs["year"].iat[0]),
                pairs["dataset"].iat[0],
                pairs["gold"].to_numpy(),
                [list(t) for t in tokens["tokens2"]],
                tokens1,
            )
        )
    rows = []
    for name_of_model, model in models.items():
        for translation in (backend_name, reference_name):
            results = correlations(
                ((year, dataset), model.cosines(tokens1[translation], tokens2), gold)
                for year, dataset, gold, tokens2, tokens1 in prepared
            )
            rows += [
                (name_of_model, translation, *(name if name != "ALL" else (prepared[0][0], "ALL")), pairs, r)
                for name, pairs, r in results
            ]
            log.info("%s with %s: ALL %.5f", name_of_model, translation, rows[-1][-1])
    return pd.DataFrame(rows, columns=["model", "translation", "year", "dataset", "pairs", "pearson"]).astype(
        {
            "model": "string",
            "translation": "string",
            "year": "int16",
            "dataset": "string",
            "pairs": "int32",
            "pearson": "float64",
        }
    )


def comparison_table_markdown(table: pd.DataFrame) -> str:
    """The comparison as a Markdown table: a row per model and translation, a column per dataset and ALL."""
    wide = table.pivot_table(index=["model", "translation"], columns="dataset", values="pearson", sort=False)
    columns = [c for c in wide.columns if c != "ALL"] + ["ALL"]
    rows = [[model, translation, *map(float, values)] for (model, translation), values in wide[columns].iterrows()]
    return markdown_rows(["model", "translation", *columns], rows, "ll" + "r" * len(columns), digits=5)


def comparison_markdown(table: pd.DataFrame) -> str:
    return (
        "Spanish-English scores by translation of s1 (same models; the runs use the backend's)\n\n"
        + comparison_table_markdown(table)
    )
