from pathlib import Path

import pandas as pd

from stsynth.core.logs import log_to
from stsynth.core.tables import markdown_rows
from stsynth.core.threads import use_threads
from stsynth.dcu2016.paragram_studies import source_comparison
from stsynth.dcu2016.sentence_model import dev_set, unlabeled_sentences
from stsynth.word_vectors.vectors import read_vectors

log = log_to(snakemake.log[0])
use_threads(snakemake.threads)
datasets = []
for split, p, t in zip(snakemake.params.splits, snakemake.input.pairs, snakemake.input.tokens, strict=True):
    datasets.append((split, dev_set(pd.read_parquet(p), pd.read_parquet(t))))
unlabeled = unlabeled_sentences([pd.read_parquet(path) for path in snakemake.input.unlabeled])
table = source_comparison(
    [read_vectors(path) for path in snakemake.input.vectors],
    unlabeled,
    snakemake.params.settings,
    snakemake.params.variants,
    datasets,
)
table.to_parquet(snakemake.output.table, index=False)
summary = table[table["dataset"] == "ALL"].pivot_table(
    index=["source", "variant"], columns="split", values="pearson", sort=False
)
Path(snakemake.output.markdown).write_text(
    markdown_rows(
        ["source", "variant", *(f"{c} ALL" for c in summary.columns)],
        [[source, variant, *map(float, row)] for (source, variant), row in summary.iterrows()],
        "ll" + "r" * len(summary.columns),
    )
)
log.info("\n%s", summary.to_string())
