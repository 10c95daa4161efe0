import pandas as pd

from stsynth.core.logs import log_to
from stsynth.core.paraphrase_pairs import gold_pairs
from stsynth.core.threads import use_threads
from stsynth.dcu2016.paragram_studies import sweep_thresholds, threshold_sweep
from stsynth.dcu2016.sentence_model import dev_set, unlabeled_sentences
from stsynth.results.plots import plot_sweep
from stsynth.word_vectors.vectors import read_vectors

log = log_to(snakemake.log[0])
use_threads(snakemake.threads)
sweep = snakemake.params.sweep
gold_tables = [
    gold_pairs(pd.read_parquet(p), pd.read_parquet(t), where=t)
    for p, t in zip(snakemake.input.pairs, snakemake.input.pair_tokens, strict=True)
]
dev_sets = [
    dev_set(pd.read_parquet(p), pd.read_parquet(t))
    for p, t in zip(snakemake.input.dev_pairs, snakemake.input.dev_tokens, strict=True)
]
if not dev_sets:
    raise ValueError(
        f"threshold sweep: model {sweep['model']} is scored on no dev set "
        "(paraphrase_pairs.sweep.model: a dev-protocol twin, <model>-dev)"
    )
unlabeled = unlabeled_sentences([pd.read_parquet(path) for path in snakemake.input.unlabeled])
table = threshold_sweep(
    read_vectors(snakemake.input.vectors),
    gold_tables,
    unlabeled,
    snakemake.params.settings,
    dev_sets,
    sweep_thresholds(sweep),
)
table.to_parquet(snakemake.output.table, index=False)
plot_sweep(table, snakemake.output.plot, snakemake.params.threshold)  # as the report draws it
log.info("\n%s", table.to_string(index=False))
