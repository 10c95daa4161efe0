import pandas as pd

from stsynth.core.logs import log_to
from stsynth.core.paraphrase_pairs import conform, select_pairs
from stsynth.core.threads import use_threads
from stsynth.dcu2016.sentence_model import dev_set, fit, unlabeled_sentences
from stsynth.word_vectors.vectors import merge_vectors, read_vectors

log = log_to(snakemake.log[0])
use_threads(snakemake.threads)
settings = snakemake.params.settings
tables = [pd.read_parquet(path) for path in snakemake.input.pairs]
for path, table in zip(snakemake.input.pairs, tables):
    log.info("%s: %d pairs", path, len(table))
pairs = select_pairs(
    conform(pd.concat(tables, ignore_index=True))
    if tables
    else conform(pd.DataFrame(columns=["source", "year", "dataset", "line", "s1", "s2", "tokens1", "tokens2", "gold"])),
    settings["exclude"],
    settings["holdout"],
)
dev_sets = [
    dev_set(pd.read_parquet(p), pd.read_parquet(t))
    for p, t in zip(snakemake.input.dev_pairs, snakemake.input.dev_tokens, strict=True)
]
unlabeled = unlabeled_sentences([pd.read_parquet(path) for path in snakemake.input.unlabeled])
log.info("settings: %s", settings)
# unknown: encode: the vectors of the unlabeled and dev sentences' unknown words (the same word, the same vector)
unknown = snakemake.input.get("unknown")
extra = merge_vectors([read_vectors(path) for path in unknown], "unknown words") if unknown is not None else None
model, epochs = fit(
    read_vectors(snakemake.input.vectors),
    pairs,
    unlabeled,
    {**settings, "epochs": settings["epochs"] if len(pairs) else 0},
    dev_sets,
    extra=extra,
)
model.save(snakemake.output.model)
epochs.to_parquet(snakemake.output.epochs, index=False)
log.info("epochs:\n%s", epochs.to_string(index=False))
