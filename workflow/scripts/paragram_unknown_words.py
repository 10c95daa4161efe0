from pathlib import Path

import pandas as pd

from stsynth.core.logs import log_to
from stsynth.core.tables import markdown_rows
from stsynth.dcu2016.sentence_model import unknown_word_table

log = log_to(snakemake.log[0])
words = pd.read_parquet(snakemake.input.vocabulary)["word"].tolist()
table = unknown_word_table(words, [pd.read_parquet(path) for path in snakemake.input.tokens])
table.to_parquet(snakemake.output.table, index=False)
Path(snakemake.output.markdown).write_text(
    markdown_rows(
        ["year", "dataset", "tokens", "unknown", "%"],
        [[str(r.year), r.dataset, str(r.tokens), str(r.unknown), float(r.percent)] for r in table.itertuples()],
        "llrrr",
        digits=2,
    )
)
log.info("\n%s", table.to_string(index=False))
