from pathlib import Path

import pandas as pd

from stsynth.core.logs import log_to
from stsynth.core.tables import markdown_table
from stsynth.core.threads import use_threads
from stsynth.dcu2016.export import export_check, to_sentence_transformer
from stsynth.dcu2016.sentence_model import SentenceModel

log = log_to(snakemake.log[0])
use_threads(snakemake.threads)
model = SentenceModel.load(snakemake.input.model)
transformer = to_sentence_transformer(model, snakemake.output.folder, snakemake.config["device"])
log.info(
    "wrote %s: %d words, unknown words -> %s",
    snakemake.output.folder,
    len(model.words),
    "skipped" if model.unknown is None else repr(model.words[model.unknown]),
)
sets = []
for pairs, tokens, similarity in zip(
    snakemake.input.pairs, snakemake.input.tokens, snakemake.input.similarity, strict=True
):
    table = pd.read_parquet(pairs)
    sets.append(
        (
            f"{table['year'].iat[0]}/{table['dataset'].iat[0]}",
            table,
            pd.read_parquet(tokens),
            pd.read_parquet(similarity),
        )
    )
check = export_check(transformer, sets)
check.to_parquet(snakemake.output.table, index=False)
title = (
    f"Exported model {snakemake.wildcards.model} (sentence-transformers) against the pipeline: sentences "
    "tokenized alike, largest cosine difference where both sentences are, Pearson of each"
)
shown = check.assign(max_difference=check["max_difference"].map(lambda value: f"{value:.1e}"))  # float32 noise
Path(snakemake.output.markdown).write_text(markdown_table(shown, title))
log.info("\n%s", check.to_string(index=False))
