from pathlib import Path

import pandas as pd

from stsynth.core.corpus import verify_copies
from stsynth.core.logs import log_to
from stsynth.core.threads import use_threads
from stsynth.dcu2016.sentence_model import SentenceModel
from stsynth.translation.mt_quality import comparison, comparison_markdown, read_field

log = log_to(snakemake.log[0])
use_threads(snakemake.threads)
settings = snakemake.params.settings
verify_copies(snakemake.input, snakemake.config["corpus"]["manifest"])
models = {name: SentenceModel.load(path) for name, path in zip(settings["models"], snakemake.input.models, strict=True)}
sets = [
    {
        "pairs": pd.read_parquet(pairs),
        "tokens": pd.read_parquet(tokens),
        "reference": read_field(released, fields, settings["field"]),
    }
    for pairs, tokens, released, fields in zip(
        snakemake.input.pairs, snakemake.input.tokens, snakemake.input.released, snakemake.params.fields, strict=True
    )
]
table = comparison(models, sets, snakemake.params.backend, settings["field"], snakemake.params.tokenize)
table.to_parquet(snakemake.output.table, index=False)
Path(snakemake.output.markdown).write_text(comparison_markdown(table))
