import pandas as pd

from stsynth.core.logs import log_to
from stsynth.core.threads import use_threads
from stsynth.dcu2016.sentence_model import SentenceModel, similarity_table
from stsynth.word_vectors.vectors import read_vectors

log = log_to(snakemake.log[0])
use_threads(snakemake.threads)
model = SentenceModel.load(snakemake.input.model)
tokens = [snakemake.input.tokens] if isinstance(snakemake.input.tokens, str) else list(snakemake.input.tokens)
unknown = snakemake.input.get("unknown", [None] * len(tokens))  # unknown: encode: each set's unknown-word vectors
for tokens_path, unknown_path, output in zip(tokens, unknown, snakemake.output, strict=True):
    set_model = model.with_words(read_vectors(unknown_path)) if unknown_path else model
    table, counts = similarity_table(set_model, pd.read_parquet(tokens_path))
    table.to_parquet(output, index=False)
    log.info(
        "%s: %d pairs, %d tokens, %d unknown (%.2f%%), %.3f s (%.0f pairs/s)",
        tokens_path,
        counts["pairs"],
        counts["tokens"],
        counts["unknown"],
        100 * counts["unknown"] / max(counts["tokens"], 1),
        counts["seconds"],
        counts["pairs"] / max(counts["seconds"], 1e-9),
    )
