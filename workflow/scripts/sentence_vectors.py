import pandas as pd

from stsynth.core.logs import log_to
from stsynth.core.progress import Progress
from stsynth.core.threads import use_threads
from stsynth.sts2017.sentence_vectors import encode_pairs
from stsynth.sts2017.vector_tables import check_known, write_table

log = log_to(snakemake.log[0])
use_threads(snakemake.threads)
kind, name = snakemake.params.kind, snakemake.wildcards.name
encode = encode_pairs(kind, snakemake.input, snakemake.params, snakemake.config["device"], snakemake.config)
tables = [pd.read_parquet(path) for path in snakemake.input.pairs]
encoded = []
with Progress(
    log, f"{kind} sentence vectors ({name}) of {len(tables)} datasets", sum(map(len, tables)), "pairs"
) as progress:
    for index, pairs in enumerate(tables):
        encoded.append(encode(index, pairs))
        progress.advance(len(pairs))
check_known(encoded, f"{kind}/{name}", snakemake.input.get("vectors"))
for pairs, (v1, v2, empty), output in zip(tables, encoded, snakemake.output, strict=True):
    write_table(pairs, v1, v2, output, f"{kind}/{name}", empty)
    log.info("%s: %d pairs, dimension %d, %d sentences without a known token", output, len(pairs), v1.shape[1], empty)
