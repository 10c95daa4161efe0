from pathlib import Path

import pandas as pd

from stsynth.logs import log_to
from stsynth.threads import use_threads
from stsynth.paragram import dev_set, source_comparison, unlabeled_sentences
from stsynth.vectors import read_vectors

log = log_to(snakemake.log[0])
use_threads(snakemake.threads)
datasets = []
for split, p, t in zip(snakemake.params.splits, snakemake.input.pairs, snakemake.input.tokens, strict=True):
    datasets.append((split, dev_set(pd.read_parquet(p), pd.read_parquet(t))))
unlabeled = unlabeled_sentences([pd.read_parquet(path) for path in snakemake.input.unlabeled])
table = source_comparison([read_vectors(path) for path in snakemake.input.vectors], unlabeled,
                          snakemake.params.settings, snakemake.params.variants, datasets)
table.to_parquet(snakemake.output.table, index=False)
summary = table[table["dataset"] == "ALL"].pivot_table(index=["source", "variant"], columns="split",
                                                        values="pearson", sort=False)
Path(snakemake.output.markdown).write_text(
    "| source | variant | " + " | ".join(f"{c} ALL" for c in summary.columns) + " |\n|---|---|"
    + "---:|" * len(summary.columns) + "\n"
    + "".join(f"| {s} | {v} | " + " | ".join(f"{x:.4f}" for x in row) + " |\n"
              for (s, v), row in summary.iterrows()))
log.info("\n%s", summary.to_string())
